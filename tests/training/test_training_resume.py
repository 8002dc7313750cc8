"""Kill-and-resume: a SIGKILLed run restarts from its newest complete checkpoint and continues exactly."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eks_training.training.checkpoint import complete_steps
from eks_training.training.data import synthetic_tokens, write_token_dir

from training_helpers import TINY_FLAGS, quiet_env, read_records

MAX_STEPS, EVERY, KEEP = 40, 4, 2


def trainer(data: Path, ckpt: Path, metrics: Path) -> list[str]:
    # LoRA dropout makes the losses depend on the RNG, so a resume must restore it too.
    return [sys.executable, "-m", "eks_training.training.train", "--data", str(data), *TINY_FLAGS,
            "--max-steps", str(MAX_STEPS), "--checkpoint-dir", str(ckpt), "--checkpoint-every", str(EVERY),
            "--keep-last", str(KEEP), "--lora-rank", "4", "--lora-dropout", "0.2", "--metrics-file", str(metrics)]


def by_step(path: Path) -> dict[int, dict]:
    return {r["step"]: r for r in read_records(path) if "loss" in r}


@pytest.mark.slow
def test_killed_run_resumes_like_an_uninterrupted_one(token_data: Path, tmp_path: Path) -> None:
    reference = subprocess.run(trainer(token_data, tmp_path / "ref", tmp_path / "ref.jsonl"),
                               capture_output=True, text=True, env=quiet_env(), timeout=120)
    assert reference.returncode == 0, reference.stderr[-2000:]

    ckpt, metrics = tmp_path / "ckpt", tmp_path / "run.jsonl"
    victim = subprocess.Popen(trainer(token_data, ckpt, metrics), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=quiet_env())
    deadline = time.monotonic() + 90
    while not (metrics.exists() and any(r.get("step", 0) >= 2 * EVERY + 2 for r in read_records(metrics))):
        assert victim.poll() is None and time.monotonic() < deadline, "the run ended before it could be killed"
        time.sleep(0.01)
    victim.send_signal(signal.SIGKILL)
    victim.wait(10)
    killed_at = max(by_step(metrics))
    assert killed_at < MAX_STEPS, "killed too late to test a resume"
    newest = complete_steps(ckpt)[-1]
    # Killed while saving step N (logged, marker not yet written) loses exactly the interval, never more.
    assert killed_at - EVERY <= newest <= killed_at
    # A newer folder without its marker (a save cut short) must be ignored, then cleaned up.
    torn = ckpt / f"step-{newest + 1}"
    torn.mkdir(exist_ok=True)
    (torn / "__0_0.distcp").write_bytes(b"torn")

    resumed = subprocess.run(trainer(token_data, ckpt, tmp_path / "resumed.jsonl"),
                             capture_output=True, text=True, env=quiet_env(), timeout=120)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"resumed from step {newest}" in resumed.stderr
    expected, got = by_step(tmp_path / "ref.jsonl"), by_step(tmp_path / "resumed.jsonl")
    assert sorted(got) == list(range(newest + 1, MAX_STEPS + 1))
    for step in got:
        assert got[step]["lr"] == pytest.approx(expected[step]["lr"], rel=1e-6), step
        assert got[step]["loss"] == pytest.approx(expected[step]["loss"], abs=1e-5), step
    assert sorted(p.name for p in ckpt.iterdir() if p.is_dir()) == [f"step-{MAX_STEPS - EVERY}", f"step-{MAX_STEPS}"]



def _train(data: Path, ckpt: Path, metrics: Path, *flags: str):
    from eks_training.training.config import parse_config
    from eks_training.training.device import select_runtime
    from eks_training.training.train import train

    return train(parse_config(["--data", str(data), *TINY_FLAGS, "--max-steps", "2", "--warmup-steps", "0",
                               "--checkpoint-dir", str(ckpt), "--checkpoint-every", "2", "--metrics-file", str(metrics),
                               *flags]), select_runtime("cpu", env={}))


def test_a_complete_run_says_so_and_a_checkpoint_of_another_run_is_refused(token_data: Path, tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture) -> None:
    from eks_training.training.config import ConfigError

    ckpt, metrics = tmp_path / "ckpt", tmp_path / "metrics.jsonl"
    _train(token_data, ckpt, metrics)
    trained = read_records(metrics)
    capsys.readouterr()

    again = _train(token_data, ckpt, metrics)
    stderr = capsys.readouterr().err
    assert f"already complete: {ckpt}/step-2 is at step 2 and --max-steps is 2; nothing to train" in stderr
    assert "resumed from" not in stderr and again.final_step == 2 and not again.losses
    added = read_records(metrics)[len(trained):]
    # The run's start-up still counts in the job's goodput record.
    assert [r.get("event") for r in added] == ["already_complete", "goodput"] and not any("loss" in r for r in added)

    # Another sequence length, or another dataset, in the same folder: one line (exit 2 from the command line).
    other_data = tmp_path / "other"
    write_token_dir(other_data, [synthetic_tokens(5000, 256, seed=7)], 256)
    for flags, field, theirs, ours in ((["--seq-len", "16", "--max-steps", "3"], "--seq-len", "32", "16"),
                                       (["--data", str(other_data), "--max-steps", "3"], "--data", token_data, other_data)):
        with pytest.raises(ConfigError) as refused:
            _train(token_data, ckpt, metrics, *flags)
        assert str(refused.value) == (
            f"--checkpoint-dir='{ckpt}' is not allowed: a folder of this run's checkpoints: step-2 was written "
            f"with {field} {theirs} (this run: {ours}); give the job its own --name or --checkpoint-dir")
    assert complete_steps(ckpt) == [2]
