"""Helpers shared by the training tests (a uniquely named module: other test folders have their own conftest)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


VENV_BIN = Path(sys.executable).parent
# Small enough for 2 CPU cores; the cycle of 13 tokens is learnable within a few dozen steps.
TINY_FLAGS = ["--model", "tiny", "--seq-len", "32", "--micro-batch-size", "4", "--lr", "3e-3",
              "--warmup-steps", "2", "--precision", "fp32", "--log-every", "1"]


def quiet_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONWARNINGS="ignore", OMP_NUM_THREADS="1", **extra)
    env.pop("AWS_PROFILE", None)
    return env


def read_records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def step_losses(path: Path) -> dict[int, float]:
    return {r["step"]: r["loss"] for r in read_records(path) if "loss" in r}


