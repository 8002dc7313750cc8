"""Save on SIGTERM: a stopped 2-rank run saves, exits "resume" (75) in time, and the restart ends bit for bit where an
uninterrupted run ends; a second SIGTERM or a SIGKILL during that save never costs the newest complete checkpoint.

Each run is what a pod runs: the launcher (the container's first process, which Kubernetes signals) around torchrun
with 2 CPU ranks (gloo) of the tiny model. The full 20-step sweep with times to exit is benchmarks/preemption.py.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from torch.distributed.checkpoint.format_utils import dcp_to_torch_save

from eks_training.training.checkpoint import complete_steps
from eks_training.training.launch import main as launch_main
from eks_training.training.preemption import EXIT_RESUME

from training_helpers import TINY_FLAGS, VENV_BIN, kill_all, quiet_env, read_records

MAX_STEPS, EVERY = 16, 5
EXIT_TIMEOUT = 30
SLOW_HARNESS = Path(__file__).with_name("slow_save_harness.py")


def run_command(data: Path, ckpt: Path, metrics: Path, *, max_steps: int = MAX_STEPS, model: str = "tiny",
                harness_dir: Path | None = None) -> list[str]:
    """The pod's command: launcher, torchrun, trainer (or the slow-save harness around the trainer)."""
    target = [str(SLOW_HARNESS), str(harness_dir)] if harness_dir else ["-m", "eks_training.training.train"]
    flags = [*TINY_FLAGS]
    flags[flags.index("--model") + 1] = model
    return [sys.executable, "-m", "eks_training.training.launch", str(VENV_BIN / "torchrun"), "--standalone",
            "--nproc_per_node=2", *target, "--data", str(data), *flags, "--max-steps", str(max_steps),
            "--checkpoint-dir", str(ckpt), "--checkpoint-every", str(EVERY), "--metrics-file", str(metrics),
            "--exit-timeout", str(EXIT_TIMEOUT)]


def logged_steps(metrics: Path) -> list[int]:
    return [r["step"] for r in read_records(metrics) if "loss" in r] if metrics.exists() else []


def final_state(ckpt: Path, step: int, scratch: Path) -> dict:
    """Model and optimizer tensors of complete folder ``step-N``, as one plain state dict."""
    target = scratch / f"{ckpt.name}-{step}.pt"
    dcp_to_torch_save(ckpt / f"step-{step}", target)
    return torch.load(target, weights_only=False)


def assert_identical(got: dict, expected: dict, path: str = "") -> None:
    assert got.keys() == expected.keys(), path
    for key, value in expected.items():
        if isinstance(value, dict):
            assert_identical(got[key], value, f"{path}.{key}")
        elif isinstance(value, torch.Tensor):
            assert torch.equal(got[key], value), f"{path}.{key} differs"
        else:
            assert got[key] == value, f"{path}.{key}"


def stop_at(command: list[str], metrics: Path, step: int, env: dict[str, str]) -> tuple[int, float, str]:
    """Start ``command``, SIGTERM the launcher once ``step`` is logged; returns (exit code, seconds from the signal
    to exit, stderr)."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 120
    while not any(s >= step for s in logged_steps(metrics)):
        assert process.poll() is None and time.monotonic() < deadline, "the run ended before it could be stopped"
        time.sleep(0.01)
    signalled = time.monotonic()
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=EXIT_TIMEOUT + 30)
    return process.returncode, time.monotonic() - signalled, stderr


def run_to_end(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


@pytest.fixture(scope="module")
def reference(token_data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The uninterrupted run's final model and optimizer state."""
    root = tmp_path_factory.mktemp("reference")
    run_to_end(run_command(token_data, root / "ckpt", root / "m.jsonl"), quiet_env())
    return final_state(root / "ckpt", MAX_STEPS, root)


def test_launcher_passes_the_child_status_through_and_refuses_an_empty_command(capsys) -> None:
    assert launch_main([sys.executable, "-c", "raise SystemExit(3)"]) == 3
    assert launch_main([]) == 2
    assert capsys.readouterr().err.startswith("error: command: give the command to run")


# Stands in for torchrun under the launcher: writes the trainers' record (if any), then, like torchrun, exits 1 when
# signalled (or at once, unsignalled, when told to fail).
FAKE_TORCHRUN = """
import os, signal, sys, time
from pathlib import Path
record, ready, fail = sys.argv[1:]
signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
if record:
    Path(os.environ["EKS_TRAINING_STOP_FILE"]).write_text(record)
if fail:
    sys.exit(1)
Path(ready).write_text("ready")
time.sleep(60)
"""


@pytest.mark.parametrize("record, fail, expected", [
    ("finished at step 16\n", "", 0),  # trained to the end while the signal came: done, not torchrun's 1
    ("", "", 1),  # nothing recorded: the command's own failure
    ("stopped at step 7\n", "", EXIT_RESUME),
    ("finished at step 16\n", "yes", 1),  # no signal: a failure after the run finished is not hidden
])
def test_launcher_exit_follows_the_trainers_record_when_signalled(record: str, fail: str, expected: int,
                                                                   tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    process = subprocess.Popen([sys.executable, "-m", "eks_training.training.launch", sys.executable, "-c",
                                FAKE_TORCHRUN, record, str(ready), fail], stderr=subprocess.PIPE, text=True,
                               env=quiet_env())
    deadline = time.monotonic() + 60
    while not fail and not ready.exists():
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()[1]
        time.sleep(0.01)
    if not fail:
        process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == expected, stderr
    if expected == 0:
        assert "the trainer finished at step 16 before SIGTERM could stop it" in stderr


@pytest.mark.slow
def test_sigterm_during_the_last_save_lets_the_run_finish_and_exit_0(token_data: Path, tmp_path: Path,
                                                                    reference: dict) -> None:
    # torchrun exits 1 whenever it is signalled; a pod stopped while its trainers finish must still say "done",
    # or a completed job counts a failure against its restart budget.
    ckpt, metrics, out = tmp_path / "ckpt", tmp_path / "a.jsonl", tmp_path / "harness"
    out.mkdir()
    process = subprocess.Popen(run_command(token_data, ckpt, metrics, harness_dir=out), stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True,
                               env=quiet_env(SLOW_SAVE_S="2", SLOW_SAVE_FOLDER=f"step-{MAX_STEPS}"))
    _wait_for([out / f"saving-rank-{rank}" for rank in (0, 1)], process)  # every rank is in the last step's save
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=EXIT_TIMEOUT + 30)
    assert process.returncode == 0, stderr[-3000:]
    assert "Received 15 death signal" in stderr  # torchrun was signalled while the trainers ran
    assert f"the trainer finished at step {MAX_STEPS} before SIGTERM could stop it" in stderr
    assert complete_steps(ckpt)[-1] == MAX_STEPS
    assert_identical(final_state(ckpt, MAX_STEPS, tmp_path), reference)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [31, 7])
def test_sigterm_at_a_random_step_saves_exits_resume_and_resumes_bit_for_bit(
        seed: int, token_data: Path, tmp_path: Path, reference: dict) -> None:
    # Never a checkpoint step, so the saved folder is the stop's own.
    step = random.Random(seed).choice([s for s in range(2, MAX_STEPS - 2) if s % EVERY])
    ckpt, env = tmp_path / "ckpt", quiet_env()
    code, seconds, stderr = stop_at(run_command(token_data, ckpt, tmp_path / "a.jsonl"), tmp_path / "a.jsonl",
                                    step, env)
    assert code == EXIT_RESUME, stderr[-3000:]
    assert seconds < EXIT_TIMEOUT, seconds
    stopped = complete_steps(ckpt)[-1]
    # The steps every rank had begun are finished, then saved; nothing past the stop is trained.
    assert step <= stopped < MAX_STEPS and max(logged_steps(tmp_path / "a.jsonl")) == stopped
    assert f"stopped on SIGTERM after step {stopped}" in stderr
    resumed = run_to_end(run_command(token_data, ckpt, tmp_path / "b.jsonl"), env)
    assert f"resumed from step {stopped}" in resumed.stderr
    assert logged_steps(tmp_path / "b.jsonl") == list(range(stopped + 1, MAX_STEPS + 1))
    assert_identical(final_state(ckpt, MAX_STEPS, tmp_path), reference)


def _wait_for(paths: list[Path], process: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not all(p.exists() for p in paths):
        assert process.poll() is None and time.monotonic() < deadline, "the ranks never reached the save"
        time.sleep(0.01)


def alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a killed process its dead parent left unreaped is a zombie: not running)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def stopped_in_the_save(token_data: Path, tmp_path: Path, hold_s: str) -> tuple[subprocess.Popen, list[Path]]:
    """A run SIGTERMed after its first checkpoint, with every rank now held inside the stop's save; returns the
    launcher's process (stderr piped) and each rank's marker file (holding its pid)."""
    ckpt, metrics, out = tmp_path / "ckpt", tmp_path / "a.jsonl", tmp_path / "harness"
    out.mkdir()
    process = subprocess.Popen(run_command(token_data, ckpt, metrics, harness_dir=out), stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, env=quiet_env(SLOW_SAVE_S=hold_s))
    _wait_for([metrics], process)
    while not any(s >= EVERY + 2 for s in logged_steps(metrics)):
        assert process.poll() is None
        time.sleep(0.01)
    process.send_signal(signal.SIGTERM)
    saving = [out / f"saving-rank-{rank}" for rank in (0, 1)]
    _wait_for(saving, process)
    return process, saving


@pytest.mark.slow
def test_a_second_sigterm_during_the_save_neither_stops_nor_corrupts_it(token_data: Path, tmp_path: Path,
                                                                       reference: dict) -> None:
    ckpt = tmp_path / "ckpt"
    process, saving = stopped_in_the_save(token_data, tmp_path, "2")
    for marker in saving:  # the second SIGTERM, to each trainer, in the middle of its write
        os.kill(int(marker.read_text()), signal.SIGTERM)
    _, stderr = process.communicate(timeout=EXIT_TIMEOUT + 30)
    assert process.returncode == EXIT_RESUME, stderr[-3000:]
    assert "SIGTERM again (#2) while stopping; the checkpoint write continues" in stderr
    stopped = complete_steps(ckpt)[-1]
    assert stopped > EVERY
    run_to_end(run_command(token_data, ckpt, tmp_path / "b.jsonl"), quiet_env())
    assert_identical(final_state(ckpt, MAX_STEPS, tmp_path), reference)


@pytest.mark.slow
def test_sigkill_during_the_save_leaves_the_previous_checkpoint_newest_and_loadable(
        token_data: Path, tmp_path: Path, reference: dict) -> None:
    ckpt = tmp_path / "ckpt"
    process, saving = stopped_in_the_save(token_data, tmp_path, "30")
    # The grace period ends mid-save: every process of the pod is killed.
    kill_all(process.pid)
    process.communicate(timeout=30)
    time.sleep(1)
    assert not any(alive(int(marker.read_text())) for marker in saving)  # no rank saves on
    assert complete_steps(ckpt) == [EVERY]  # the interrupted folder never got its marker
    resumed = run_to_end(run_command(token_data, ckpt, tmp_path / "b.jsonl"), quiet_env())
    assert f"resumed from step {EVERY}" in resumed.stderr
    assert_identical(final_state(ckpt, MAX_STEPS, tmp_path), reference)
