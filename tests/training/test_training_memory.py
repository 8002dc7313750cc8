"""Meta-device construction and sharded initialisation: under FSDP each rank materialises only its shards, so
peak memory per rank falls with the world size (no rank ever builds the whole fp32 model first). The peak memory the
trainer reports in its metrics, against the planner's estimate for the same run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from eks_training.training.config import parse_config
from eks_training.training.device import select_runtime
from eks_training.training.model import LlamaDecoder, build_model
from eks_training.training.shards import fill_local_rows
from eks_training.training.parallel import build_for_training

from eks_training.infra.tools.planner import MIB, estimate_memory
from eks_training.training.layout import Layout
from eks_training.training.model_sizes import MODEL_SIZES
from training_helpers import TINY_FLAGS, VENV_BIN, quiet_env, read_records

PROBE = Path(__file__).with_name("memory_probe.py")


def _peak_growth(world_size: int, data: Path, out: Path) -> list[dict]:
    out.mkdir()
    launcher = ([str(VENV_BIN / "torchrun"), "--standalone", "--nproc_per_node", str(world_size)]
                if world_size > 1 else [sys.executable])
    parallel = "fsdp" if world_size > 1 else "ddp"  # one process: the whole model, as every rank held before
    done = subprocess.run([*launcher, str(PROBE), str(out), "--data", str(data), "--model", "small",
                           "--parallel", parallel], capture_output=True, text=True, env=quiet_env(), timeout=120)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return [json.loads((out / f"memory-rank-{r}.json").read_text()) for r in range(world_size)]


@pytest.mark.slow
def test_peak_memory_per_rank_falls_with_world_size(token_data: Path, tmp_path: Path) -> None:
    whole = _peak_growth(1, token_data, tmp_path / "one")[0]
    sharded = _peak_growth(2, token_data, tmp_path / "two")
    full_mib = whole["local_parameters"] * 4 / 2**20  # "small": 134M fp32 parameters, 512 MiB
    assert whole["peak_growth_mib"] > 0.9 * full_mib
    for rank in sharded:
        assert rank["local_parameters"] == whole["local_parameters"] // 2
        # Half the weights plus at most one init block and process-group buffers; far below the whole model.
        assert rank["peak_growth_mib"] < 0.65 * whole["peak_growth_mib"], (rank, whole)


def test_initial_weights_do_not_depend_on_meta_build_or_sharding(token_data: Path) -> None:
    # The trainer's path (meta device, to_empty, per-block seeded init) gives the weights of a direct build
    # with the same seed: so DDP, FSDP and any world size start alike, and a LoRA base is reproducible.
    config = parse_config(["--data", str(token_data), *TINY_FLAGS, "--seed", "77"])
    built = build_for_training(config, select_runtime("cpu", env={}), "fp32", 32).model
    torch.manual_seed(77)
    direct = build_model("tiny")
    assert isinstance(direct, LlamaDecoder)
    for (name, a), (_, b) in zip(built.state_dict().items(), direct.state_dict().items()):
        assert torch.equal(a, b), name
    # A shard's rows are the same rows of the full tensor: rows 300-555 of a (600, 8) weight, filled alone.
    full, part = torch.empty(600, 8), torch.empty(256, 8)
    normal = lambda block, gen: block.normal_(0.0, 1.0, generator=gen)  # noqa: E731
    fill_local_rows(full, 0, 600, 5, "w", normal)
    fill_local_rows(part, 300, 600, 5, "w", normal)
    assert torch.equal(part, full[300:556])


def _measured_peak(tmp_path, token_data, steps: int, *flags: str) -> float:
    """The trainer's own peak_memory_mib (one process, CPU) after ``steps`` steps."""
    from eks_training.training.device import select_runtime
    from eks_training.training.train import train

    metrics = tmp_path / "metrics.jsonl"
    config = parse_config(["--data", str(token_data), "--precision", "fp32", "--max-steps", str(steps), "--log-every", "1", "--warmup-steps", "0",
                           "--metrics-file", str(metrics), *flags])
    train(config, select_runtime("cpu", env={}))
    return [r for r in read_records(metrics) if "peak_memory_mib" in r][-1]["peak_memory_mib"]


@pytest.mark.parametrize(("model", "seq_len", "micro_batch", "checkpointing", "steps"), [
    # Activations and logits dominate: the peak is in the second step's backward (the moments exist by then).
    ("tiny", 32, 16, False, 2),
    ("tiny", 32, 16, True, 2),
    # 134M parameters: weights, gradients and AdamW's moments dominate, at the end of the first optimizer step.
    ("small", 32, 1, False, 1),
])
def test_memory_estimate_is_within_20_percent_of_the_trainers_measured_peak(
        model: str, seq_len: int, micro_batch: int, checkpointing: bool, steps: int, tmp_path, token_data) -> None:
    measured = _measured_peak(tmp_path, token_data, steps, "--model", model, "--seq-len", str(seq_len),
                              "--micro-batch-size", str(micro_batch), "--activation-checkpointing", str(checkpointing))
    estimate = estimate_memory(MODEL_SIZES[model], Layout(1), seq_len=seq_len, micro_batch=micro_batch,
                               activation_checkpointing=checkpointing, precision="fp32", fused_optimizer=False)
    assert estimate.total / MIB == pytest.approx(measured, rel=0.2), (estimate, measured)
