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




def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (torchrun starts its workers in sessions of their own: killpg misses them)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def kill_all(pid: int) -> None:
    """SIGKILL ``pid`` and everything below it at once, as a node that vanishes does."""
    import signal

    for target in [pid, *descendants(pid)]:
        try:
            os.kill(target, signal.SIGKILL)
        except ProcessLookupError:
            pass
