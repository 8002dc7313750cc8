"""The GPU benchmark script runs end to end on CPU in its dry mode (the real run needs a lent GPU machine)."""

from __future__ import annotations

import subprocess
import sys
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
