"""Save on SIGTERM, measured: for each model size, SIGTERM the pod's launcher (launcher, torchrun, 2 CPU ranks on
gloo) at N random steps; report the exit code and the time from the signal to the exit (median, max) against the
pods' grace period for that model (the bound), and, with --resume, restart each stopped run to the end and check its
final model and optimizer state equals an uninterrupted run's bit for bit. Not part of CI (a torchrun start per run).

The signal goes when this process sees the aimed step in the metrics file; a tiny model's step takes milliseconds,
so on a loaded machine the run may be a step or more further by then. Each run reports the last step logged when
the signal went (from the times of the trainer's records); a run already in its last step cannot stop (nothing is
left to save for): it finishes, exits 0 (done), and its final state is compared like a resumed run's.

    python benchmarks/preemption.py [--runs 20] [--models tiny small] [--steps 16] [--resume]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
from torch.distributed.checkpoint.format_utils import dcp_to_torch_save

from eks_training.infra.tools.job_render import job_grace_period
from eks_training.training.checkpoint import complete_steps
from eks_training.training.data import synthetic_tokens, write_token_dir
from eks_training.training.preemption import EXIT_RESUME

EVERY = 5


def command(data: Path, ckpt: Path, metrics: Path, model: str, steps: int) -> list[str]:
    return [sys.executable, "-m", "eks_training.training.launch", str(Path(sys.executable).parent / "torchrun"),
            "--standalone", "--nproc_per_node=2", "-m", "eks_training.training.train", "--data", str(data),
            "--model", model, "--seq-len", "32", "--micro-batch-size", "4", "--lr", "3e-3", "--warmup-steps", "2",
            "--precision", "fp32", "--log-every", "1", "--max-steps", str(steps), "--checkpoint-dir", str(ckpt),
            "--checkpoint-every", str(EVERY), "--metrics-file", str(metrics)]


def logged(metrics: Path) -> int:
    if not metrics.exists():
        return 0
    return max((int(line.split('"step": ')[1].split(",")[0]) for line in metrics.read_text().splitlines()
                if '"loss"' in line), default=0)


def logged_by(metrics: Path, wall_time: float) -> int:
    """The last step the trainer had logged at ``wall_time`` (its records carry their time): the one before the
    step in flight when the signal went."""
    lines = metrics.read_text().splitlines() if metrics.exists() else []
    records = [json.loads(line) for line in lines if '"loss"' in line]
    return max((r["step"] for r in records if r["time"] <= wall_time), default=0)


def why(errors: Path) -> str:
    """A failed run's cause from its error output: the trainers' one-line errors and the exceptions' last lines
    (torchrun's own report ends the output, and says only that a worker failed)."""
    lines = errors.read_text().splitlines()
    causes = [line for line in lines if line.startswith("error:") or re.match(r"[\w.]+(Error|Exception)\b", line)]
    return " | ".join(dict.fromkeys(causes or lines[-3:]))


def final_state(ckpt: Path, step: int, scratch: Path) -> dict:
    target = scratch / f"state-{time.monotonic_ns()}.pt"
    dcp_to_torch_save(ckpt / f"step-{step}", target)
    return torch.load(target, weights_only=False)


def identical(a: object, b: object) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(identical(a[k], b[k]) for k in a)
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and torch.equal(a, b)
    return a == b


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--models", nargs="+", default=["tiny", "small"])
    parser.add_argument("--steps", type=int, default=16)
    parser.add_argument("--resume", action="store_true", help="restart each stopped run and compare final states")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    chooser = random.Random(args.seed)
    failures = 0
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        data = write_token_dir(scratch / "tokens", [synthetic_tokens(12000, 256, seed=1),
                                                    synthetic_tokens(9000, 256, seed=1)], 256)
        for model in args.models:
            reference = None
            if args.resume:
                reference_run = subprocess.run(command(data, scratch / f"{model}-ref", scratch / f"{model}-ref.jsonl",
                                                       model, args.steps), capture_output=True, text=True)
                if reference_run.returncode != 0:
                    print(f"{model}: the uninterrupted run failed: {reference_run.stderr[-2000:]}", flush=True)
                    return 1
                reference = final_state(scratch / f"{model}-ref", args.steps, scratch)
            times: list[float] = []
            bound = job_grace_period(model, 1)
            outcomes = {"stopped": 0, "finished": 0, "failed": 0}
            for run in range(args.runs):
                step = chooser.randrange(1, args.steps - 1)
                ckpt, metrics = scratch / f"{model}-{run}", scratch / f"{model}-{run}.jsonl"
                errors = scratch / f"{model}-{run}.err"
                process = subprocess.Popen(command(data, ckpt, metrics, model, args.steps),
                                           stdout=subprocess.DEVNULL, stderr=errors.open("w"))
                while (seen := logged(metrics)) < step and process.poll() is None:
                    time.sleep(0.005)
                signalled, signalled_wall = time.monotonic(), time.time()
                early = process.poll() is not None
                process.send_signal(signal.SIGTERM)
                code = process.wait(600)
                seconds = time.monotonic() - signalled
                times.append(seconds)
                saved = complete_steps(ckpt)
                last = saved[-1] if saved else None
                in_flight = logged_by(metrics, signalled_wall) + 1
                if code == EXIT_RESUME and last is not None and seen <= last < args.steps:
                    outcome, verdict = "stopped", "ok"
                elif code == 0 and in_flight >= args.steps and last == args.steps:
                    outcome, verdict = "finished", "ok, in its last step: finished (done)"
                else:
                    outcome = "failed"
                    kept = Path(tempfile.gettempdir()) / f"preemption-{model}-{run + 1}-{os.getpid()}.err"
                    shutil.copyfile(errors, kept)  # the scratch folder goes; the whole error output stays
                    verdict = f"FAILED (exit {code}{', before the signal' if early else ''}; stderr in {kept}): " \
                              f"{why(errors)}"
                if seconds > bound:
                    outcome, verdict = "failed", f"{verdict}; OVER the bound of {bound} s"
                if outcome != "failed" and reference is not None:
                    if outcome == "stopped":
                        subprocess.run(command(data, ckpt, metrics, model, args.steps), check=True,
                                       capture_output=True)
                    same = identical(final_state(ckpt, args.steps, scratch), reference)
                    verdict += ", final state bit for bit" if same else ", final state DIFFERENT"
                    outcome = outcome if same else "failed"
                outcomes[outcome] += 1
                print(f"{model} run {run + 1}: SIGTERM aimed at step {step}, sent after step {in_flight - 1}, "
                      f"saved step {last}, exit {code} in {seconds:.2f} s: {verdict}", flush=True)
            failures += outcomes["failed"]
            print(f"{model}: {args.runs} runs: {outcomes['stopped']} stopped (exit {EXIT_RESUME}), "
                  f"{outcomes['finished']} finished in their last step (exit 0), {outcomes['failed']} failed; "
                  f"time from SIGTERM to exit median {statistics.median(times):.2f} s, max {max(times):.2f} s "
                  f"(bound: the grace period, {bound} s)", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
