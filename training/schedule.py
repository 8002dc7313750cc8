"""Learning-rate schedule: linear warmup, then cosine (or linear) decay to a floor, or constant."""

from __future__ import annotations

import math
from functools import partial

from torch.optim import Optimizer
from torch.optim.lr_scheduler import LambdaLR


def lr_multiplier(step: int, warmup_steps: int, total_steps: int, kind: str = "cosine",
                  min_ratio: float = 0.1) -> float:
    """Factor applied to the base learning rate for optimizer step ``step`` (0-based)."""
    if step < warmup_steps:
        # step + 1: the very first update already moves the weights.
        return (step + 1) / warmup_steps
    if kind == "constant":
        return 1.0
    progress = min(1.0, (step - warmup_steps) / max(1, total_steps - warmup_steps))
    shape = 0.5 * (1.0 + math.cos(math.pi * progress)) if kind == "cosine" else 1.0 - progress
    return min_ratio + (1.0 - min_ratio) * shape


def build_scheduler(optimizer: Optimizer, warmup_steps: int, total_steps: int, kind: str = "cosine",
                    min_ratio: float = 0.1) -> LambdaLR:
    """A LambdaLR over :func:`lr_multiplier`; its state (the step count) goes into checkpoints."""
    return LambdaLR(optimizer, partial(lr_multiplier, warmup_steps=warmup_steps, total_steps=total_steps,
                                       kind=kind, min_ratio=min_ratio))
