"""Reading a checkpoint folder without running anything it holds.

Anyone who can write a team's checkpoint folder (its namespace, S3 prefix or shared file system) must not get code
execution in that team's next resume or export. A folder is read three ways, each refusing code: the per-rank trainer
state through ``torch.load(weights_only=True)``; DCP's ``.metadata`` (a pickle) through an unpickler that builds only
DCP's own metadata classes; DCP's non-tensor entries (optimizer hyperparameters) through ``weights_only`` too, where
torch's default planner unpickles them freely. Tensors themselves DCP already reads with ``weights_only``.
"""

from __future__ import annotations

import io
import pickle
from pathlib import Path
from typing import Any

import torch
from torch.distributed.checkpoint import FileSystemReader
from torch.distributed.checkpoint._traverse import set_element
from torch.distributed.checkpoint.default_planner import DefaultLoadPlanner
from torch.distributed.checkpoint.metadata import Metadata, StorageMeta

from eks_training.training.config import ConfigError, invalid

# What DCP's .metadata is made of: its metadata classes, tensor sizes, dtypes and layouts, the checkpoint path.
_METADATA_MODULES = ("torch.distributed.checkpoint.metadata",)
_METADATA_GLOBALS = {("torch", "Size"), ("torch.serialization", "_get_layout"),
                     ("torch.distributed.checkpoint.filesystem", "_StorageInfo"),
                     ("pathlib", "PosixPath"), ("pathlib", "PurePosixPath"), ("pathlib", "Path")}


class _MetadataUnpickler(pickle.Unpickler):
    def __init__(self, file: io.BufferedIOBase, path: Path) -> None:
        super().__init__(file)
        self._path = path

    def find_class(self, module: str, name: str) -> Any:
        found = None
        if (module, name) in _METADATA_GLOBALS:
            found = super().find_class(module, name)
        elif module in _METADATA_MODULES:
            candidate = super().find_class(module, name)
            found = candidate if isinstance(candidate, type) else None
        elif module == "torch" and isinstance(getattr(torch, name, None), torch.dtype):
            found = getattr(torch, name)
        if found is None:
            raise invalid("--checkpoint-dir", str(self._path.parent),
                          f"a checkpoint whose {self._path.name} holds only DCP metadata (it names {module}.{name}, "
                          "which loading would call: refused)")
        return found


def read_dcp_metadata(path: Path) -> Metadata:
    """A DCP ``.metadata`` file, refusing any object but DCP's metadata classes."""
    with open(path, "rb") as handle:
        metadata = _MetadataUnpickler(handle, path).load()
    if not isinstance(metadata, Metadata):
        raise invalid("--checkpoint-dir", str(path.parent), f"a checkpoint whose {path.name} holds DCP metadata "
                      f"(found {type(metadata).__name__})")
    return metadata


class SafeFileSystemReader(FileSystemReader):
    """DCP's file-system reader with :func:`read_dcp_metadata` in place of a plain ``pickle.load``."""

    def read_metadata(self, *args: Any, **kwargs: Any) -> Metadata:
        rank = kwargs.get("rank")
        metadata = read_dcp_metadata(Path(self._get_metadata_path(rank)))
        # As the base reader does: a load id for this read.
        if getattr(metadata, "storage_meta", None) is None:
            metadata.storage_meta = StorageMeta()
        metadata.storage_meta.load_id = self.load_id
        return metadata


class SafeLoadPlanner(DefaultLoadPlanner):
    """DCP's default load planner, reading the non-tensor entries of ``folder`` with ``weights_only``."""

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder

    def load_bytes(self, read_item, value: io.BytesIO) -> None:
        fqn = read_item.dest_index.fqn
        try:
            loaded = torch.load(value, weights_only=True)
        except pickle.UnpicklingError:
            raise invalid("--checkpoint-dir", str(self.folder), f"a checkpoint whose entry {fqn} holds only plain "
                          "values (it names code that loading would run: refused)") from None
        if self.flatten_state_dict:
            set_element(self.original_state_dict, self.mappings[fqn], loaded)
        else:
            self.state_dict[fqn] = loaded


def load_rank_state(path: Path) -> dict[str, Any]:
    """A ``trainer-rank-R.pt`` file: plain containers, numbers, strings and tensors only."""
    try:
        return torch.load(path, weights_only=True)
    except pickle.UnpicklingError:
        raise invalid("--checkpoint-dir", str(Path(path).parent), f"a checkpoint whose {Path(path).name} holds "
                      "only tensors and plain values (it names code that loading would run: refused)") from None


def dcp_load(state: dict[str, Any], folder: Path) -> None:
    """``dcp.load`` of ``state`` from ``folder`` with the safe reader and planner."""
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.api import CheckpointException

    read_dcp_metadata(Path(folder) / ".metadata")  # refused here, in one line, rather than inside DCP's wrapping
    try:
        dcp.load(state, storage_reader=SafeFileSystemReader(str(folder)), planner=SafeLoadPlanner(Path(folder)))
    except CheckpointException as error:
        # Each rank's failure arrives as (exception, traceback).
        refusals = [failure[0] for failure in error.failures.values() if isinstance(failure[0], ConfigError)]
        if refusals:
            raise refusals[0] from None
        raise
