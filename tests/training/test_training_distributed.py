"""Two CPU processes under torchrun (gloo): DDP and FSDP2 learn, every rank ends with the same weights, and
held-out eval is all-reduced. (HSDP runs in test_training_elastic.py.)"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from training_helpers import TINY_FLAGS, VENV_BIN, quiet_env

HARNESS = Path(__file__).with_name("dist_harness.py")


@pytest.mark.slow
@pytest.mark.parametrize("parallel", ["ddp", "fsdp"])
def test_two_ranks_learn_and_agree(parallel: str, token_data: Path, tmp_path: Path) -> None:
    mode = ["--parallel", parallel]
    command = [str(VENV_BIN / "torchrun"), "--standalone", "--nproc_per_node", "2", str(HARNESS), str(tmp_path),
               "--data", str(token_data), *TINY_FLAGS, "--max-steps", "24", "--grad-accum", "2",
               *mode, "--activation-checkpointing", "true", "--eval-data", str(token_data), "--eval-batches", "2",
               "--checkpoint-dir", str(tmp_path / "ckpt"), "--checkpoint-every", "12"]
    done = subprocess.run(command, capture_output=True, text=True, env=quiet_env(), timeout=150)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    ranks = [json.loads((tmp_path / f"rank-{r}.json").read_text()) for r in (0, 1)]
    losses = {int(step): loss for step, loss in ranks[0]["losses"].items()}
    assert losses[24] < 0.5 * losses[1], losses  # a 13-token cycle is learnable
    assert ranks[0]["params"] == ranks[1]["params"]
    assert ranks[0]["losses"] == ranks[1]["losses"]  # the logged loss is the all-reduced mean
    assert ranks[0]["evals"] == ranks[1]["evals"] and ranks[0]["evals"]["24"]["eval_tokens"] == 2 * 2 * 4 * 32
    assert ranks[0]["evals"]["24"]["eval_loss"] < 0.5 * losses[1]
    assert sorted(p.name for p in (tmp_path / "ckpt").iterdir() if p.is_dir()) == ["step-12", "step-24"]
    assert {p.name for p in (tmp_path / "ckpt" / "step-24").iterdir()} >= {"COMPLETE", "trainer-rank-0.pt",
                                                                          "trainer-rank-1.pt", ".metadata"}
