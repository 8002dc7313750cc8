"""``--profile START-END``: a torch profiler trace of those steps, one Chrome trace per rank."""

from __future__ import annotations

from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile


class StepProfiler:
    """Starts the profiler before step ``first`` and writes ``<folder>/rank-R.json`` after step ``last``."""

    def __init__(self, steps: tuple[int, int] | None, folder: str, rank: int, device_kind: str) -> None:
        self.steps, self.path = steps, Path(folder) / f"rank-{rank}.json"
        self._activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device_kind == "cuda" else [])
        self._active: profile | None = None

    def before_step(self, step: int) -> None:
        """``step`` is the 1-based number of the step about to run."""
        if self.steps is not None and step == self.steps[0] and self._active is None:
            self._active = profile(activities=self._activities, record_shapes=True, with_stack=False)
            self._active.__enter__()

    def after_step(self, step: int) -> Path | None:
        """Stop and write the trace after the window's last step (or the run's, if it ends first)."""
        if self._active is None or (step < self.steps[1]):
            return None
        return self.close()

    def close(self) -> Path | None:
        if self._active is None:
            return None
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            torch.cuda.synchronize()
        self._active.__exit__(None, None, None)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._active.export_chrome_trace(str(self.path))
        self._active = None
        return self.path
