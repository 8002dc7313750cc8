"""A diverged run stops with exit 3, saves nothing after diverging, and its metrics stay strict JSON."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from eks_training.training.checkpoint import complete_steps
from eks_training.training.guard import DivergenceGuard, TrainingDiverged
from eks_training.training.metrics import MetricsLogger

from training_helpers import TINY_FLAGS, quiet_env


def _strict(line: str) -> dict:
    def refuse(constant: str) -> None:
        raise ValueError(f"non-strict JSON constant {constant}")
    return json.loads(line, parse_constant=refuse)


def test_nan_and_infinity_are_written_as_null() -> None:
    stream = io.StringIO()
    MetricsLogger(stream, total_steps=3).event(step=1, loss=float("nan"), grad_norm=float("inf"), lr=0.5)
    record = _strict(stream.getvalue())
    assert record["loss"] is None and record["grad_norm"] is None and record["lr"] == 0.5


def test_spikes_are_reported_and_stop_the_run_after_too_many_in_a_row() -> None:
    guard = DivergenceGuard(spike_factor=3.0, max_spikes=2)
    assert [guard.spike(value) for value in (2.0, 1.9, 1.8)] == [None, None, None]
    spike = guard.spike(9.0)
    assert spike is not None and spike["recent_mean"] == pytest.approx(1.9) and not guard.too_many_spikes
    assert guard.spike(1.7) is None and guard.consecutive_spikes == 0  # a normal loss resets the count
    guard.spike(8.0)
    guard.spike(8.5)
    assert guard.too_many_spikes
    assert DivergenceGuard(spike_factor=0.0, max_spikes=1).spike(1e9) is None  # 0 disables detection


def test_device_flag_catches_a_non_finite_value_between_reads() -> None:
    guard = DivergenceGuard(3.0, 0)
    guard.observe(torch.tensor(1.0))
    guard.raise_if_diverged(1)
    guard.observe(torch.tensor(float("nan")))
    guard.observe(torch.tensor(1.0))  # a later finite step does not clear it
    with pytest.raises(TrainingDiverged, match="diverged by step 3"):
        guard.raise_if_diverged(3)
    infinite = DivergenceGuard(3.0, 0)
    infinite.observe(torch.tensor(float("inf")))
    infinite.observe(torch.tensor(2.0))
    with pytest.raises(TrainingDiverged):
        infinite.raise_if_diverged(2)


@pytest.mark.slow
def test_diverging_run_exits_3_without_saving_the_diverged_model(token_data: Path, tmp_path: Path) -> None:
    metrics, ckpt = tmp_path / "metrics.jsonl", tmp_path / "ckpt"
    done = subprocess.run([sys.executable, "-m", "eks_training.training.train", "--data", str(token_data), *TINY_FLAGS,
                           "--lr", "1e30", "--warmup-steps", "0", "--grad-clip", "0", "--max-steps", "12",
                           "--log-every", "1", "--checkpoint-dir", str(ckpt), "--checkpoint-every", "1",
                           "--metrics-file", str(metrics)], capture_output=True, text=True, env=quiet_env(), timeout=90)
    assert done.returncode == 3, done.stderr[-2000:]
    last_line = done.stderr.strip().splitlines()[-1]
    assert last_line.startswith("error: training diverged by step ") and "NaN or infinite" in last_line
    diverged_at = int(last_line.split("by step ")[1].split(":")[0])
    assert diverged_at < 12
    records = [_strict(line) for line in metrics.read_text().splitlines()]
    # Found by its event: the run's goodput record comes after it.
    (diverged,) = [r for r in records if r.get("event") == "diverged"]
    assert diverged["step"] == diverged_at
    logged = [r for r in records if "loss" in r]
    assert logged[-1]["step"] == diverged_at  # the diverged step is logged, its bad values as null
    assert logged[-1]["loss"] is None or logged[-1]["grad_norm"] is None
    # Every checkpoint predates the step where the flag was read as diverged.
    assert complete_steps(ckpt) and max(complete_steps(ckpt)) < diverged_at
