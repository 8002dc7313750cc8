"""The GPU benchmark script runs end to end on CPU in its dry mode (the real run needs a lent GPU machine)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eks_training.training.model import build_model, flops_per_token

from training_helpers import quiet_env

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_gpu_mfu_script_dry_run_prints_tokens_and_mfu() -> None:
    done = subprocess.run(["bash", str(ROOT / "benchmarks" / "gpu_mfu.sh"), "--dry-run"], capture_output=True,
                          text=True, env=quiet_env(PYTHON=sys.executable), timeout=180, cwd=ROOT)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines() if line.split()[:1] in (["off"], ["on"])}
    assert set(rows) == {"off", "on"}, done.stdout
    per_token = flops_per_token(build_model("tiny"), 32)
    for mode, (_, tokens, per_gpu, mfu, memory) in rows.items():
        tokens_per_s = float(tokens.replace(",", ""))
        assert tokens_per_s > 0 and tokens == per_gpu
        # MFU against the dry run's 1 GFLOP/s peak, as printed with one decimal of a percent.
        assert float(mfu.rstrip("%")) == pytest.approx(100 * tokens_per_s * per_token / 1e9, abs=0.05 + 0.01 *
                                                       100 * tokens_per_s * per_token / 1e9), mode


def test_gpu_mfu_script_without_gpus_is_a_one_line_error() -> None:
    done = subprocess.run(["bash", str(ROOT / "benchmarks" / "gpu_mfu.sh")], capture_output=True, text=True,
                          env=quiet_env(PYTHON=sys.executable, NPROC="0"), timeout=60, cwd=ROOT)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: GPUs=0 is not allowed: run on a GPU machine (nvidia-smi -L lists none here), or pass --dry-run"]


def _train_step_benchmark():
    spec = importlib.util.spec_from_file_location("train_step_benchmark", ROOT / "benchmarks" / "train_step.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_train_step_benchmark_clocks_the_trainers_logging_as_the_plain_loops(token_data: Path, monkeypatch) -> None:
    # The trainer's own tokens_per_s stops its clock before the rest of a logging step's work (the peak-memory read,
    # the record, the report): the benchmark's ours/plain must time that work too, as the plain loop's clock times
    # everything it does. A logging step made 0.3 s slower must show in ours' tokens/s.
    from eks_training.training.config import parse_config
    from eks_training.training.device import select_runtime
    from eks_training.training.trainer import Trainer

    benchmark, pause, windows = _train_step_benchmark(), 0.3, []
    peak_memory, log = Trainer._peak_memory, Trainer._log

    def slow_peak_memory(self):
        time.sleep(pause)
        return peak_memory(self)

    def logged(self, *args, **kwargs):
        record = log(self, *args, **kwargs)
        windows.append(record["tokens_per_s"])
        return record

    monkeypatch.setattr(Trainer, "_peak_memory", slow_peak_memory)
    monkeypatch.setattr(Trainer, "_log", logged)
    config = parse_config(["--data", str(token_data), "--model", "tiny", "--seq-len", "32", "--micro-batch-size", "2",
                           "--max-steps", "4", "--log-every", "2", "--warmup-steps", "0", "--precision", "fp32",
                           "--metrics-file", os.devnull])
    step_tokens = benchmark.tokens_per_step(config, 1, 32)
    assert step_tokens == 2 * 32
    tokens_per_s = benchmark.ours(config, select_runtime("cpu", env={}), 2, step_tokens)
    # Steps 3 and 4 are on the clock: the trainer's window over them, plus step 4's logging (one pause).
    assert len(windows) == 2
    assert 2 * step_tokens / tokens_per_s >= 2 * step_tokens / windows[1] + pause


def test_train_step_benchmarks_plain_tensor_parallel_loop_steps_on_settled_gradients(token_data: Path, tmp_path: Path,
                                                                                        monkeypatch) -> None:
    # Under tensor parallelism the sequence-parallel norms' gradients come back as partial sums; an optimizer that
    # reads them all-reduces inside each of its operations. The trainer settles them once before clipping; the plain
    # loop must too, or ours/plain measures that waste instead of the trainer's overhead. (One rank: the placements
    # are the same as on two.)
    import torch.distributed as dist
    from torch.distributed.tensor import DTensor

    from eks_training.training.config import parse_config
    from eks_training.training.device import select_runtime

    benchmark, unsettled, steps = _train_step_benchmark(), [], []
    build_optimizer = benchmark.build_optimizer

    def checked_optimizer(model, config, runtime):
        optimizer = build_optimizer(model, config, runtime)
        step = optimizer.step

        def checked_step(*args, **kwargs):
            steps.append(1)
            unsettled.extend(name for name, p in model.named_parameters()
                             if isinstance(p.grad, DTensor) and tuple(p.grad.placements) != tuple(p.placements))
            return step(*args, **kwargs)

        optimizer.step = checked_step
        return optimizer

    monkeypatch.setattr(benchmark, "build_optimizer", checked_optimizer)
    config = parse_config(["--data", str(token_data), "--model", "tiny", "--seq-len", "32", "--micro-batch-size", "2",
                           "--max-steps", "2", "--precision", "fp32", "--tensor-parallel", "2"])
    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1)
    try:
        assert benchmark.plain(config, select_runtime("cpu", env={}), "tp2", 32, 1) > 0
    finally:
        dist.destroy_process_group()
    assert len(steps) == 2 and unsettled == []
