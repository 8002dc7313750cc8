"""Elastic resume: the data position is global, so a job resumed on another number of processes (a node lost
on Kubernetes) or with another micro-batch size trains every sample once: no replay, no skip. The 2-process
leg runs HSDP (2-D mesh) in bf16 with the chunked loss and selective activation checkpointing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from eks_training.training.config import parse_config
from eks_training.training.data import TokenDataset
from eks_training.training.device import select_runtime
from eks_training.training.train import train

from training_helpers import TINY_FLAGS, VENV_BIN, quiet_env

HARNESS = Path(__file__).with_name("dist_harness.py")


def _two_processes(out: Path, data: Path, ckpt: Path, *flags: str) -> list[int]:
    """Train under torchrun with 2 processes; returns the global sample indices both ranks trained on."""
    out.mkdir()
    command = [str(VENV_BIN / "torchrun"), "--standalone", "--nproc_per_node", "2", str(HARNESS), str(out),
               "--data", str(data), *TINY_FLAGS, "--checkpoint-dir", str(ckpt), "--checkpoint-every", "3", *flags]
    done = subprocess.run(command, capture_output=True, text=True, env=quiet_env(HARNESS_TRACE="1"), timeout=150)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return [i for rank in (0, 1) for i in json.loads((out / f"trace-rank-{rank}.json").read_text())]


def _one_process(monkeypatch: pytest.MonkeyPatch, data: Path, ckpt: Path, *flags: str):
    """Train in this process; returns the result and the global sample indices it trained on."""
    traced: list[int] = []
    original = TokenDataset.batch_at

    def batch_at(self, consumed):
        traced.extend(range(consumed + self.rank * self.micro_batch_size,
                            consumed + (self.rank + 1) * self.micro_batch_size))
        return original(self, consumed)

    with monkeypatch.context() as patch:
        patch.setattr(TokenDataset, "batch_at", batch_at)
        config = parse_config(["--data", str(data), *TINY_FLAGS, "--checkpoint-dir", str(ckpt),
                               "--checkpoint-every", "3", *flags])
        result = train(config, select_runtime("cpu", env={}))
    return result, traced


@pytest.mark.slow
def test_resume_on_other_world_sizes_trains_each_sample_once(token_data: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    ckpt = tmp_path / "ckpt"
    # 1 process x 4 samples, steps 1-3: samples 0-11.
    _, first = _one_process(monkeypatch, token_data, ckpt, "--max-steps", "3", "--micro-batch-size", "4")
    # 1 -> 2 processes x 2 samples under HSDP (the 1-process checkpoint is resharded), steps 4-6.
    second = _two_processes(tmp_path / "b", token_data, ckpt, "--max-steps", "6", "--micro-batch-size", "2",
                            "--parallel", "fsdp", "--shard-group-size", "1", "--precision", "bf16",
                            "--activation-checkpointing", "true", "--ac-granularity", "selective")
    # 2 -> 1 process x 3 samples with accumulation 2, steps 7-9.
    result, third = _one_process(monkeypatch, token_data, ckpt, "--max-steps", "9", "--micro-batch-size", "3",
                                 "--grad-accum", "2")
    assert sorted(first) == list(range(0, 12))
    assert sorted(second) == list(range(12, 24))
    assert sorted(third) == list(range(24, 42))
    replicas = [json.loads((tmp_path / "b" / f"rank-{r}.json").read_text()) for r in (0, 1)]
    assert replicas[0]["params"] == replicas[1]["params"]  # HSDP replicas stay identical
    combined = first + second + third
    assert len(combined) == len(set(combined))  # no sample twice
    assert result.resumed_from == 6 and result.samples_consumed == 42 and sorted(result.losses) == [7, 8, 9]


def test_checkpoints_from_before_the_global_position_still_resume(token_data: Path) -> None:
    from eks_training.training.data_iterator import DataIterator

    # Older checkpoints counted micro-steps per rank; same world size x micro-batch converts them exactly.
    position = DataIterator(TokenDataset(token_data, 32, micro_batch_size=4, world_size=2))
    position.load_state_dict({"data_position": 5})
    assert position.samples_consumed == 40
    position.load_state_dict({"samples_consumed": 42, "data_position": 5})
    assert position.samples_consumed == 42
