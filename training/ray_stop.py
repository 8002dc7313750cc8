"""How a Ray cluster's pods and its trainers agree on a stop, through one folder on the shared file system.

Kubernetes stops a Ray pod (a drained node, Kueue's suspension, a deletion) with SIGTERM to its first process. The
trainers cannot receive it: Ray Train runs the loop in a worker thread of an actor process started by the raylet,
and `ray start --block` ends every Ray process of the pod at once on SIGTERM. A stop also concerns the whole job: the
ranks on the other pods must save the same step, and a stopped head (the driver's pod) takes the cluster with it.

So the pod's first process (training/ray_node.py) answers SIGTERM by writing ``requested`` in the cluster's stop
folder (every pod mounts the same FSx folder) and holds Ray until ``saved`` appears; the trainers check
``requested`` at their logged steps, agree to stop, save, and rank 0 writes ``saved``. ``training`` is there while a
trainer runs: a pod of an idle cluster is released at once. The driver clears the folder before each fit.

Standard library only: the pod's first process imports it before Ray starts.
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

# STOP_DIR_ENV: the cluster's stop folder (rendered on every head and worker container; Ray's processes inherit it).
# STOP_WAIT_ENV: seconds the pod's first process holds Ray after SIGTERM for the save (the grace period less a margin).
from eks_training.core.preemption import STOP_DIR_ENV, STOP_WAIT_ENV

__all__ = ["STOP_DIR_ENV", "STOP_WAIT_ENV", "StopFolder"]


@dataclass(frozen=True)
class StopFolder:
    """The three marks in ``path``: requested (by a stopping pod), training (a trainer runs), saved (step N)."""

    path: Path

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "StopFolder | None":
        value = (os.environ if env is None else env).get(STOP_DIR_ENV)
        return cls(Path(value)) if value else None

    @property
    def requested(self) -> Path:
        return self.path / "requested"

    @property
    def training(self) -> Path:
        return self.path / "training"

    @property
    def saved(self) -> Path:
        return self.path / "saved"

    def request(self) -> None:
        """Ask the cluster's trainers to save and stop (this pod is going away)."""
        self._write(self.requested, f"{socket.gethostname()} {time.time():.3f}\n")

    def is_requested(self) -> bool:
        return self.requested.exists()

    def start_training(self) -> None:
        self._write(self.training, f"{socket.gethostname()} {os.getpid()}\n")

    def end_training(self) -> None:
        self.training.unlink(missing_ok=True)

    def is_training(self) -> bool:
        return self.training.exists()

    def mark_saved(self, step: int) -> None:
        """Every rank has saved ``step`` and is stopping: the pods may let Ray go."""
        self._write(self.saved, f"step {step}\n")

    def saved_step(self) -> int | None:
        try:
            return int(self.saved.read_text().split()[1])
        except (FileNotFoundError, IndexError, ValueError):
            return None

    def clear(self) -> None:
        """Forget an answered stop: the driver's next fit starts with no request and no saved mark."""
        for mark in (self.requested, self.saved):
            mark.unlink(missing_ok=True)

    def _write(self, target: Path, text: str) -> None:
        # Written aside and renamed: a reader on another node sees the whole mark or none.
        self.path.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.name}.{socket.gethostname()}.{os.getpid()}")
        partial.write_text(text)
        os.replace(partial, target)
