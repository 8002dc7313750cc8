"""Checkpoints as ``torch.distributed.checkpoint`` folders ``step-N`` under one root.

A folder counts only once its ``COMPLETE`` marker exists. Rank 0 writes the marker after every rank has
finished writing (a barrier), so a job killed mid-save leaves a folder that is ignored and later replaced.
Model and optimizer go through DCP (sharded under FSDP, one copy under DDP); each rank's RNG state and the
trainer state (scheduler, data position) go into a small ``trainer-rank-R.pt`` next to them.
For multi-node jobs the root must be shared storage (FSx), since every rank writes its shards there.

With ``adapters_only`` (LoRA) frozen parameters are left out: the folder holds adapters and optimizer state.
With ``async_save`` the shards are staged to host memory and written by a background thread while training
goes on; the folder is completed (barrier, marker, prune, upload) at the next save or at :meth:`finish`,
so a crash before then loses that save but never leaves a marked, half-written folder.
"""

from __future__ import annotations

import os
import random
import re
import shutil
from pathlib import Path
from typing import Any, Callable, Protocol

import torch
import torch.distributed.checkpoint as dcp
from torch import nn
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_state_dict, set_state_dict

COMPLETE_MARKER = "COMPLETE"
_STEP_FOLDER = re.compile(r"^step-(\d+)$")


def step_folder_name(step: int) -> str:
    return f"step-{step}"


def step_of(name: str) -> int | None:
    """The step number of a ``step-N`` folder name, or None for any other name."""
    match = _STEP_FOLDER.match(name)
    return int(match.group(1)) if match else None


def complete_steps(root: str | Path, marker: str = COMPLETE_MARKER) -> list[int]:
    """Steps of the complete checkpoint folders under ``root``, oldest first."""
    root = Path(root)
    if not root.is_dir():
        return []
    steps = [(step_of(child.name), child) for child in root.iterdir() if child.is_dir()]
    return sorted(step for step, child in steps if step is not None and (child / marker).is_file())


def mark_complete(folder: Path, step: int) -> None:
    """Write the marker atomically (rename), so a reader never sees a half-written one."""
    partial = folder / f".{COMPLETE_MARKER}.tmp"
    partial.write_text(f"{step}\n")
    os.replace(partial, folder / COMPLETE_MARKER)


def prune(root: str | Path, keep_last: int, marker: str = COMPLETE_MARKER) -> list[int]:
    """Delete all but the newest ``keep_last`` complete folders, and incomplete folders older than the newest
    complete one (leftovers of killed saves). Returns the deleted steps."""
    root = Path(root)
    complete = complete_steps(root, marker)
    if not complete:
        return []
    keep = set(complete[-keep_last:])
    newest = complete[-1]
    deleted = []
    for child in root.iterdir():
        step = step_of(child.name)
        if step is None or step in keep or not child.is_dir():
            continue
        if step in complete or step < newest:
            shutil.rmtree(child, ignore_errors=True)
            deleted.append(step)
    return sorted(deleted)


def _rng_state() -> dict[str, Any]:
    state = {"python": random.getstate(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        state["cuda"] = torch.cuda.get_rng_state()
    return state


def _set_rng_state(state: dict[str, Any]) -> None:
    random.setstate(state["python"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state(state["cuda"])


class Uploader(Protocol):
    """What the checkpointer needs from an uploader (see s3_sync.BackgroundUploader)."""

    def submit(self, folder: Path) -> None: ...

    def wait(self) -> None: ...


class Checkpointer:
    """Saves, prunes and restores ``step-N`` folders for one training job."""

    def __init__(self, root: str | Path, keep_last: int, rank: int = 0, barrier: Callable[[], None] = lambda: None,
                 uploader: Uploader | None = None, adapters_only: bool = False, async_save: bool = False) -> None:
        self.root, self.keep_last, self.rank = Path(root), keep_last, rank
        self._barrier, self.uploader = barrier, uploader
        self._options = StateDictOptions(ignore_frozen_params=adapters_only)
        # Loading adapters only: the frozen base is deliberately absent, so it is not an error.
        self._load_options = StateDictOptions(ignore_frozen_params=adapters_only, strict=not adapters_only)
        self._async = async_save
        self._pending: tuple[int, Path, Any] | None = None
        self._group = None
        if async_save and torch.distributed.is_initialized():
            # The background writer's collectives run on their own gloo group, never interleaved with the
            # training loop's collectives on the default group.
            self._group = torch.distributed.new_group(backend="gloo")

    def finish(self) -> Path | None:
        """Complete a pending background save (wait for its writes, then mark it); returns its folder."""
        if self._pending is None:
            return None
        step, folder, future = self._pending
        self._pending = None
        future.result()
        self._complete(step, folder)
        return folder

    def _complete(self, step: int, folder: Path) -> None:
        self._barrier()
        if self.rank == 0:
            mark_complete(folder, step)
            if self.uploader is not None:
                # Pruning must not delete a folder that is still being uploaded; this waits only when
                # uploads are slower than the checkpoint interval.
                self.uploader.wait()
            prune(self.root, self.keep_last)
            if self.uploader is not None:
                self.uploader.submit(folder)
        self._barrier()

    def save(self, step: int, model: nn.Module, optimizer: torch.optim.Optimizer,
             trainer_state: dict[str, Any]) -> list[Path]:
        """Write folder ``step-N`` from all ranks; returns the folders that became complete in this call
        (this one when saving synchronously; the previous pending one when saving in the background)."""
        completed = [folder] if (folder := self.finish()) is not None else []
        folder = self.root / step_folder_name(step)
        if self.rank == 0:
            # A folder of the same step without a marker is a killed earlier attempt: start it clean.
            if folder.exists() and not (folder / COMPLETE_MARKER).exists():
                shutil.rmtree(folder)
            folder.mkdir(parents=True, exist_ok=True)
        self._barrier()
        model_state, optimizer_state = get_state_dict(model, optimizer, options=self._options)
        state = {"model": model_state, "optimizer": optimizer_state}
        torch.save({"rng": _rng_state(), **trainer_state}, folder / f"trainer-rank-{self.rank}.pt")
        if self._async:
            self._pending = (step, folder, dcp.async_save(state, checkpoint_id=folder, process_group=self._group))
            return completed
        dcp.save(state, checkpoint_id=folder)
        self._complete(step, folder)
        return [*completed, folder]

    def latest(self) -> int | None:
        steps = complete_steps(self.root)
        return steps[-1] if steps else None

    def load_latest(self, model: nn.Module, optimizer: torch.optim.Optimizer) -> dict[str, Any] | None:
        """Restore model, optimizer and RNG from the newest complete folder; returns its trainer state."""
        step = self.latest()
        if step is None:
            return None
        folder = self.root / step_folder_name(step)
        model_state, optimizer_state = get_state_dict(model, optimizer, options=self._options)
        state = {"model": model_state, "optimizer": optimizer_state}
        dcp.load(state, checkpoint_id=folder)
        set_state_dict(model, optimizer, model_state_dict=state["model"], optim_state_dict=state["optimizer"],
                       options=self._load_options)
        own = folder / f"trainer-rank-{self.rank}.pt"
        # A restart with more ranks than the save had: those ranks take rank 0's trainer state.
        trainer_state = torch.load(own if own.exists() else folder / "trainer-rank-0.pt", weights_only=False)
        _set_rng_state(trainer_state.pop("rng"))
        return trainer_state
