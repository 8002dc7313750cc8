"""Soak test for exits: run the 2-process CPU training job N times under CPU load; report every run that did not
end cleanly, with a stack dump of each rank, and the hangs per run count and the time taken. Not part of CI
(minutes per dozen runs). The defaults are tests/test_journey.py's configuration: DDP, the tiny model, 6 steps,
evaluation and a checkpoint every 3 steps.

    python benchmarks/soak_exit.py [--runs 100] [--steps 6] [--checkpoint-every 3] [--eval-every 3] [--load 2] \\
        [--exit-timeout 60] [--hang-after 150] [--parallel ddp]

A run is reported when it exits non-zero (the trainer's exit watchdog ended a rank that did not exit within
--exit-timeout after its last step: its stderr carries what the rank waited for and every thread's stack) or
when it is still alive --hang-after seconds after starting (the watchdog failed too): then each rank gets
SIGUSR1, which makes the trainer print every thread's stack, and the run is killed.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from eks_training.training.data import synthetic_tokens, write_token_dir

_BUSY_LOOP = "while True: pass"


def _children(pid: int) -> list[int]:
    """Direct child pids (the torchrun ranks) from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def one_run(index: int, data: Path, scratch: Path, args: argparse.Namespace) -> dict:
    folder = scratch / f"run-{index}"
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
               "-m", "eks_training.training.train", "--data", str(data), "--model", "tiny", "--seq-len", "32",
               "--micro-batch-size", "4", "--max-steps", str(args.steps), "--log-every", "1",
               "--checkpoint-dir", str(folder / "ckpt"), "--checkpoint-every", str(args.checkpoint_every),
               "--exit-timeout", str(args.exit_timeout), "--metrics-file", str(folder / "metrics.jsonl"),
               "--parallel", args.parallel, "--lr", "3e-3", "--warmup-steps", "2", "--precision", "fp32"]
    if args.eval_every:
        command += ["--eval-data", str(data.parent / "eval"), "--eval-every", str(args.eval_every),
                    "--eval-batches", "2"]
    folder.mkdir(parents=True)
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    started = time.monotonic()
    with open(folder / "output.txt", "w+") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, env=env,
                                   start_new_session=True)
        try:
            code = process.wait(args.hang_after)
            hung = False
        except subprocess.TimeoutExpired:
            hung = True
            for rank_pid in _children(process.pid):
                os.kill(rank_pid, signal.SIGUSR1)  # the trainer dumps every thread's stack on SIGUSR1
            time.sleep(3)
            os.killpg(process.pid, signal.SIGKILL)
            code = process.wait()
        output.seek(0)
        text = output.read()
    return {"run": index, "code": code, "seconds": time.monotonic() - started, "hung": hung, "output": text}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--checkpoint-every", type=int, default=3)
    parser.add_argument("--eval-every", type=int, default=3, help="0: no evaluation")
    parser.add_argument("--load", type=int, default=2, help="busy-loop processes competing for the CPUs")
    parser.add_argument("--exit-timeout", type=float, default=60.0)
    parser.add_argument("--hang-after", type=float, default=150.0, help="the journey test's timeout")
    parser.add_argument("--parallel", default="ddp", choices=("ddp", "fsdp"))
    args = parser.parse_args(argv)

    # A SIGTERM (timeout, kill) unwinds through the finally below, so the load processes do not outlive the soak.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    load = [subprocess.Popen([sys.executable, "-c", _BUSY_LOOP]) for _ in range(args.load)]
    bad: list[dict] = []
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory() as scratch:
            data = write_token_dir(Path(scratch) / "data" / "train", [synthetic_tokens(40000, 256, seed=1)], 256)
            write_token_dir(Path(scratch) / "data" / "eval", [synthetic_tokens(4000, 256, seed=2)], 256)
            for index in range(args.runs):
                run = one_run(index, data, Path(scratch), args)
                status = "HUNG" if run["hung"] else "ok" if run["code"] == 0 else f"exit {run['code']}"
                print(f"run {index + 1}/{args.runs}: {status} in {run['seconds']:.1f} s", flush=True)
                if status != "ok":
                    bad.append(run)
                    print(run["output"][-8000:], flush=True)
    finally:
        for process in load:
            process.kill()
    elapsed = time.monotonic() - started
    hangs = sum(1 for run in bad if run["hung"])
    print(f"| runs | hangs | other non-zero exits | total s | s per run |\n| --- | --- | --- | --- | --- |\n"
          f"| {args.runs} | {hangs} | {len(bad) - hangs} | {elapsed:.0f} | {elapsed / max(1, args.runs):.1f} |")
    print(f"{args.runs} runs, {len(bad)} not clean: "
          + (", ".join(f"run {r['run'] + 1} ({'hung' if r['hung'] else 'exit ' + str(r['code'])})" for r in bad)
             or "none"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
