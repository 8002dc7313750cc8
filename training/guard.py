"""Divergence detection: a non-finite loss or gradient norm stops the run; loss spikes are reported.

Checks run where the loop already reads values to the host (logging steps) and before every checkpoint, so a
diverged model is never saved. Between those reads the loop keeps a device-side flag of non-finite values,
which costs no host synchronisation (and no extra graph execution on XLA).
"""

from __future__ import annotations

import math
from collections import deque

import torch


class TrainingDiverged(RuntimeError):
    """Raised (on every rank alike: the values are global) when training produced NaN or infinity."""


class DivergenceGuard:
    """Tracks logged losses: a spike is a loss above ``spike_factor`` times the mean of the recent ones."""

    def __init__(self, spike_factor: float, max_spikes: int, window: int = 10, min_history: int = 3) -> None:
        self.spike_factor, self.max_spikes = spike_factor, max_spikes
        self._recent: deque[float] = deque(maxlen=window)
        self._min_history = min_history
        self.consecutive_spikes = 0
        # A running sum of the observed scalars: NaN and infinity stay in a sum, so one device op per step
        # records them (losses and norms are non-negative, so finite values cannot cancel to a non-finite).
        self._observed: torch.Tensor | None = None

    def observe(self, value: torch.Tensor) -> None:
        """Fold a scalar (a loss, a gradient norm) into the device-side record (no host read)."""
        value = value.detach().float()
        self._observed = value if self._observed is None else self._observed + value

    def raise_if_diverged(self, step: int) -> None:
        """Host read of the record: raises :class:`TrainingDiverged` if any value since the start was NaN or
        infinite."""
        if self._observed is not None and not bool(torch.isfinite(self._observed)):
            raise TrainingDiverged(f"training diverged by step {step}: the loss or gradient norm is NaN or "
                                   "infinite; no checkpoint was written for it (lower --lr or check the data)")

    def spike(self, loss: float) -> dict[str, float] | None:
        """Check one logged loss; returns the spike's details, or None. Spikes do not enter the average."""
        if not math.isfinite(loss):
            return None
        if self.spike_factor > 0 and len(self._recent) >= self._min_history:
            average = sum(self._recent) / len(self._recent)
            if loss > self.spike_factor * average:
                self.consecutive_spikes += 1
                return {"loss": loss, "recent_mean": average, "factor": loss / average}
        self.consecutive_spikes = 0
        self._recent.append(loss)
        return None

    @property
    def too_many_spikes(self) -> bool:
        return self.max_spikes > 0 and self.consecutive_spikes >= self.max_spikes
