"""Checkpoints as ``torch.distributed.checkpoint`` folders ``step-N`` under one root.

A folder counts only once its ``COMPLETE`` marker exists. Rank 0 writes the marker after every rank has
finished writing (a barrier), so a job killed mid-save leaves a folder that is ignored and later replaced.
Model and optimizer go through DCP (sharded under FSDP and tensor parallelism, one stage's share per pipeline rank,
one copy under DDP), under the whole model's parameter names; the optimizer's state and hyperparameters are keyed per
parameter name too (flattened), so a folder saved by one layout loads into any other. Each rank's RNG state and the
trainer state (step, data position, scheduler) go into a small ``trainer-rank-R.pt`` next to them.
The :class:`Checkpointer` is built with every object it saves, so a save or a load names only the step: the
trainer cannot forget a piece of state at one call site, and a new stateful object is added in one place.
For multi-node jobs the root must be shared storage (FSx), since every rank writes its shards there.

With ``adapters_only`` (LoRA) frozen parameters are left out: the folder holds adapters and optimizer state.
With ``async_save`` the shards are staged to host memory and written by a background thread while training
goes on; the folder is completed (barrier, marker, prune, upload) at the next save or at :meth:`finish`,
so a crash before then loses that save but never leaves a marked, half-written folder.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import re
import shutil
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol, Sequence

import torch
import torch.distributed.checkpoint as dcp
from torch import nn
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_state_dict, set_state_dict

from eks_training.core.validation import invalid
from eks_training.training.safe_load import dcp_load, load_rank_state, read_dcp_metadata

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


class Stateful(Protocol):
    """An object a checkpoint saves and restores by asking it for its state (scheduler, grad scaler, RNG)."""

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state: dict[str, Any]) -> None: ...


class Uploader(Protocol):
    """What the checkpointer needs from an uploader (see s3_sync.BackgroundUploader)."""

    def submit(self, folder: Path) -> None: ...

    def wait(self) -> None: ...


class Checkpointer:
    """Saves, prunes and restores ``step-N`` folders of one training job, from and into the objects it owns.

    ``model`` and ``optimizer`` go through DCP. Each entry of ``states`` is saved under its name in the rank's
    ``trainer-rank-R.pt``; each of ``progress`` (train state, data position) has its keys at the top level
    of that file, where export and checkpoints of earlier versions have them.
    """

    def __init__(self, root: str | Path, keep_last: int, model: nn.Module, optimizer: torch.optim.Optimizer, *,
                 states: Mapping[str, Stateful] | None = None, progress: Sequence[Stateful] = (), rank: int = 0,
                 barrier: Callable[[], None] = lambda: None, uploader: Uploader | None = None,
                 adapters_only: bool = False, async_save: bool = False, group_timeout: float | None = None) -> None:
        self.root, self.keep_last, self.rank = Path(root), keep_last, rank
        self.model, self.optimizer = model, optimizer
        self.states, self.progress = dict(states or {}), tuple(progress)
        self._barrier, self.uploader = barrier, uploader
        self._options = StateDictOptions(ignore_frozen_params=adapters_only, flatten_optimizer_state_dict=True)
        # Loading adapters only: the frozen base is deliberately absent, so it is not an error.
        self._load_options = StateDictOptions(ignore_frozen_params=adapters_only, strict=not adapters_only,
                                              flatten_optimizer_state_dict=True)
        self._async = async_save
        self._pending: tuple[int, Path, Any] | None = None
        self._group = None
        if async_save and torch.distributed.is_initialized():
            # The background writer's collectives run on their own gloo group, never interleaved with the
            # training loop's collectives on the default group; bounded like them (--collective-timeout).
            timeout = datetime.timedelta(seconds=group_timeout) if group_timeout is not None else None
            self._group = torch.distributed.new_group(backend="gloo", timeout=timeout)

    def folder(self, step: int) -> Path:
        return self.root / step_folder_name(step)

    def latest(self) -> int | None:
        """The newest complete step, or None when there is none."""
        steps = complete_steps(self.root)
        return steps[-1] if steps else None

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

    def _rank_state(self) -> dict[str, Any]:
        state: dict[str, Any] = {}
        for stateful in self.progress:
            state.update(stateful.state_dict())
        clash = sorted(set(state) & set(self.states))
        if clash:
            raise invalid("states", clash, "names that no progress object uses as a key")
        return {**state, **{name: stateful.state_dict() for name, stateful in self.states.items()}}

    def _dcp_state(self, options: StateDictOptions | None = None) -> dict[str, Any]:
        model_state, optimizer_state = get_state_dict(self.model, self.optimizer, options=options or self._options)
        return {"model": model_state, "optimizer": optimizer_state}

    def save(self, step: int) -> list[Path]:
        """Write folder ``step-N`` from all ranks; returns the folders that became complete in this call
        (this one when saving synchronously; the previous pending one when saving in the background)."""
        completed = [folder] if (folder := self.finish()) is not None else []
        folder = self.folder(step)
        if self.rank == 0:
            # A folder of the same step without a marker is a killed earlier attempt: start it clean.
            if folder.exists() and not (folder / COMPLETE_MARKER).exists():
                shutil.rmtree(folder)
            folder.mkdir(parents=True, exist_ok=True)
        self._barrier()
        state = self._dcp_state()
        torch.save(self._rank_state(), folder / f"trainer-rank-{self.rank}.pt")
        if self._async:
            self._pending = (step, folder, dcp.async_save(state, checkpoint_id=folder, process_group=self._group))
            return completed
        dcp.save(state, checkpoint_id=folder)
        self._complete(step, folder)
        return [*completed, folder]

    def load(self, step: int | None = None) -> int | None:
        """Restore every owned object from complete folder ``step-N`` (default: the newest); returns the step
        loaded, or None when there is no complete checkpoint yet."""
        steps = complete_steps(self.root)
        if step is None:
            if not steps:
                return None
            step = steps[-1]
        elif step not in steps:
            raise invalid("step", step, f"a complete checkpoint under {self.root}: {steps or 'none yet'}")
        folder = self.folder(step)
        options = self._load_options
        if _nested_optimizer_state(folder):
            options = dataclasses.replace(options, flatten_optimizer_state_dict=False)
        state = self._dcp_state(options)
        dcp_load(state, folder)
        set_state_dict(self.model, self.optimizer, model_state_dict=state["model"],
                       optim_state_dict=state["optimizer"], options=options)
        own = folder / f"trainer-rank-{self.rank}.pt"
        # A restart with more ranks than the save had: those ranks take rank 0's state.
        rank_state = load_rank_state(own if own.exists() else folder / "trainer-rank-0.pt")
        for stateful in self.progress:
            stateful.load_state_dict(rank_state)
        for name, stateful in self.states.items():
            # A state the saving run did not have (a grad scaler added by switching to fp16) starts fresh.
            if name in rank_state:
                stateful.load_state_dict(rank_state[name])
        return step


def _nested_optimizer_state(folder: Path) -> bool:
    """A folder saved before optimizer states were keyed per parameter name: its hyperparameters are keyed by group
    index (``optimizer.param_groups.0.lr``; a parameter name never is a bare index), which only the layout that saved
    it (the one such a run resumes in) maps back."""
    metadata = read_dcp_metadata(folder / ".metadata")
    return "optimizer.param_groups.0.lr" in metadata.state_dict_metadata
