"""Save on SIGTERM: a stopped job (Kueue preemption, a drained node, a Spot interruption, `kubectl delete`) keeps
its work.

Kubernetes stops a pod with SIGTERM, then SIGKILL once ``terminationGracePeriodSeconds`` have passed. The signal
handler only records that a stop was asked for: the ranks receive it at different moments, mid-step, and a
checkpoint needs all of them. At every step boundary the ranks agree (one all-reduce of a flag, MAX) whether any
of them was asked to stop; the step every rank is in is finished, all of them save that step and the process exits
with :data:`EXIT_RESUME`, which the rendered job kinds treat as "start again", not as a failure. A second SIGTERM
while the checkpoint is written changes nothing: the save goes on, and a folder counts only once its marker is
written after every rank finished (checkpoint.py), so a SIGKILL mid-save leaves the previous folder the newest.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from eks_training.core.preemption import EXIT_RESUME

if TYPE_CHECKING:
    import torch

__all__ = ["EXIT_RESUME", "FINISHED", "STOP_FILE_ENV", "StopRequest", "record_finished", "record_stop"]
# Names the file in which a trainer tells training/launch.py (which sets it for its workers) how its run ended:
# stopped after a save, or finished.
STOP_FILE_ENV = "EKS_TRAINING_STOP_FILE"
#: The first word of a finished run's record; any other record is a saved stop.
FINISHED = "finished"


def _record(text: str) -> None:
    target = os.environ.get(STOP_FILE_ENV)
    if target:
        Path(target).write_text(f"{text}\n")


def record_stop(step: int) -> None:
    """Tell this node's launcher (when there is one) that the trainer saved ``step`` and stops to be resumed."""
    _record(f"stopped at step {step}")


def record_finished(step: int) -> None:
    """Tell this node's launcher that the run trained to its last step (``step``) and saved it: the job is done.

    A SIGTERM that reaches the pod during the last step or the final save does not stop the run (there is nothing
    left to save it for), but torchrun, signalled, exits 1 all the same; this record lets the launcher exit 0."""
    _record(f"{FINISHED} at step {step}")


class StopRequest:
    """Records SIGTERM (and SIGINT when asked) and lets the ranks agree on stopping at a step boundary.

    ``request_file``: a stop is also asked for while this file exists (a Ray worker's loop runs in a thread, where no
    signal handler can be installed; its pod's first process writes the file instead, training/ray_stop.py).
    """

    def __init__(self, rank: int = 0, request_file: Path | None = None) -> None:
        self.rank = rank
        self.request_file = request_file
        self.signals = 0
        self.first_at: float | None = None  # time.monotonic() of the first signal

    def install(self, *signals: signal.Signals) -> "StopRequest":
        """Handle ``signals`` (default SIGTERM) in this process; only the command-line entry points call it."""
        for number in signals or (signal.SIGTERM,):
            signal.signal(number, self._on_signal)
        return self

    def _on_signal(self, number: int, frame: object) -> None:
        self.signals += 1
        if self.first_at is None:
            self.first_at = time.monotonic()
            return
        print(f"rank {self.rank}: {signal.Signals(number).name} again (#{self.signals}) while stopping; "
              f"the checkpoint write continues", file=sys.stderr, flush=True)

    @property
    def requested(self) -> bool:
        return self.signals > 0 or (self.request_file is not None and self.request_file.exists())

    def agreed(self, device: torch.device, distributed: bool) -> bool:
        """Whether any rank was asked to stop; a collective, so every rank calls it at the same step."""
        if not distributed:
            return self.requested
        # Imported here: the pod's first processes (training/launch.py) read this module's names without torch.
        import torch
        import torch.distributed as dist

        flag = torch.tensor([1 if self.requested else 0], dtype=torch.int32, device=device)
        dist.all_reduce(flag, op=dist.ReduceOp.MAX)
        return bool(flag.item())
