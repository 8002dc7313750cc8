"""Elastic resume: the data position is global, so a job resumed on another number of processes (a node lost
on Kubernetes) or with another micro-batch size trains every sample once: no replay, no skip. The 2-process
leg runs HSDP (2-D mesh) in bf16 with the chunked loss and selective activation checkpointing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from training_helpers import TINY_FLAGS, VENV_BIN, quiet_env

HARNESS = Path(__file__).with_name("dist_harness.py")


def _run(processes: int, out: Path, data: Path, ckpt: Path, *flags: str) -> list[int]:
    """Train in ``processes`` processes; returns the global sample indices all ranks trained on."""
    out.mkdir()
    launcher = ([str(VENV_BIN / "torchrun"), "--standalone", "--nproc_per_node", str(processes)]
                if processes > 1 else [sys.executable])
    command = [*launcher, str(HARNESS), str(out), "--data", str(data), *TINY_FLAGS, "--checkpoint-dir", str(ckpt),
               "--checkpoint-every", "3", *flags]
    done = subprocess.run(command, capture_output=True, text=True, env=quiet_env(HARNESS_TRACE="1"), timeout=150)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    traced: list[int] = []
    for rank in range(processes):
        traced += json.loads((out / f"trace-rank-{rank}.json").read_text())
    return traced


@pytest.mark.slow
def test_resume_on_other_world_sizes_trains_each_sample_once(token_data: Path, tmp_path: Path) -> None:
    ckpt = tmp_path / "ckpt"
    # 1 process x 4 samples, steps 1-3: samples 0-11.
    first = _run(1, tmp_path / "a", token_data, ckpt, "--max-steps", "3", "--micro-batch-size", "4")
    # 1 -> 2 processes x 2 samples under HSDP (the 1-process checkpoint is resharded), steps 4-6.
    second = _run(2, tmp_path / "b", token_data, ckpt, "--max-steps", "6", "--micro-batch-size", "2",
                  "--parallel", "fsdp", "--shard-group-size", "1", "--precision", "bf16",
                  "--activation-checkpointing", "true", "--ac-granularity", "selective")
    # 2 -> 1 process x 3 samples with accumulation 2, steps 7-9.
    third = _run(1, tmp_path / "c", token_data, ckpt, "--max-steps", "9", "--micro-batch-size", "3",
                 "--grad-accum", "2")
    assert sorted(first) == list(range(0, 12))
    assert sorted(second) == list(range(12, 24))
    assert sorted(third) == list(range(24, 42))
    replicas = [json.loads((tmp_path / "b" / f"rank-{r}.json").read_text()) for r in (0, 1)]
    assert replicas[0]["params"] == replicas[1]["params"]  # HSDP replicas stay identical
    combined = first + second + third
    assert len(combined) == len(set(combined))  # no sample twice
    result = json.loads((tmp_path / "c" / "rank-0.json").read_text())
    assert result["samples_consumed"] == 42 and sorted(map(int, result["losses"])) == [7, 8, 9]


def test_checkpoints_from_before_the_global_position_still_resume() -> None:
    from eks_training.training.train import _samples_consumed

    # Older checkpoints counted micro-steps per rank; same world size x micro-batch converts them exactly.
    assert _samples_consumed({"data_position": 5}, samples_per_micro_step=8) == 40
    assert _samples_consumed({"samples_consumed": 42, "data_position": 5}, samples_per_micro_step=8) == 42
