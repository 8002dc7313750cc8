"""Where the training runs: CPU, CUDA, or XLA (AWS Neuron), and the matching process-group backend.

Everything that differs on XLA sits behind :class:`Runtime`: the device, the backend (``xla``), graph cuts
(``mark_step``), gradient all-reduce before the optimizer step (no DDP wrapper there), the activation
checkpoint function, and whether the loop may read values back to the host every step (on XLA a host read
forces a graph execution, so the loop reads only at logging steps). ``torch_xla`` is imported only when XLA
is asked for: it exists only in the Neuron image (PyPI's torch-neuronx is a placeholder that fails on import).
"""

from __future__ import annotations

import contextlib
import importlib
import os
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator, Mapping

import torch
import torch.distributed as dist
import torch.utils.checkpoint

from eks_training.training.config import ConfigError, invalid

BACKENDS = {"cpu": "gloo", "cuda": "nccl", "xla": "xla"}


@dataclass
class Runtime:
    """The chosen device kind plus this process's place in the job (from torchrun's environment)."""

    kind: str
    device: torch.device
    rank: int = 0
    local_rank: int = 0
    world_size: int = 1
    xla_model: ModuleType | None = field(default=None, repr=False)
    xla_checkpoint: Callable[..., Any] | None = field(default=None, repr=False)

    @property
    def backend(self) -> str:
        return BACKENDS[self.kind]

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def distributed(self) -> bool:
        return dist.is_available() and dist.is_initialized()

    @property
    def reads_host_every_step(self) -> bool:
        """False on XLA, where reading a tensor's value stops the lazy graph and forces a compile/run."""
        return self.kind != "xla"

    def init_process_group(self) -> None:
        """Join the job's process group when launched by torchrun (WORLD_SIZE set) and not joined yet."""
        if self.world_size > 1 and not self.distributed:
            if self.kind == "xla":
                importlib.import_module("torch_xla.distributed.xla_backend")  # registers the "xla" backend
                dist.init_process_group("xla", init_method="xla://")
            else:
                dist.init_process_group(self.backend, device_id=self.device if self.kind == "cuda" else None)

    def close(self, *, synchronize: bool = True) -> None:
        """Leave the process group; ``synchronize`` first waits for every rank (skip it when a rank failed)."""
        if self.distributed:
            if synchronize:
                # A rank that tears down gloo while its peer still talks to it aborts the peer (SIGABRT).
                dist.barrier()
            dist.destroy_process_group()

    def barrier(self) -> None:
        if self.distributed:
            dist.barrier()

    def mark_step(self) -> None:
        """Cut and run the lazy graph (XLA); nothing elsewhere."""
        if self.xla_model is not None:
            self.xla_model.mark_step()

    def reduce_gradients(self, optimizer: torch.optim.Optimizer) -> None:
        """All-reduce gradients on XLA, which runs without a DDP wrapper; DDP/FSDP already did it elsewhere."""
        if self.xla_model is not None and self.world_size > 1:
            self.xla_model.reduce_gradients(optimizer)

    def optimizer_step(self, optimizer: torch.optim.Optimizer) -> None:
        optimizer.step()
        self.mark_step()

    def checkpoint_fn(self) -> Callable[..., torch.Tensor]:
        """Activation checkpoint function for this device (torch_xla ships its own for XLA)."""
        if self.xla_checkpoint is not None:
            return self.xla_checkpoint
        return partial(torch.utils.checkpoint.checkpoint, use_reentrant=False)

    def autocast(self, dtype: torch.dtype | None) -> contextlib.AbstractContextManager:
        """Autocast to ``dtype`` on this device, or nothing for full precision."""
        if dtype is None:
            return contextlib.nullcontext()
        return torch.autocast(device_type=self.kind, dtype=dtype)

    def peak_flops_name(self) -> str:
        """A name to look the device's peak FLOPs up by."""
        if self.kind == "cuda":
            return torch.cuda.get_device_name(self.device)
        return self.kind


def _import_xla(requested_by: str) -> tuple[ModuleType, Callable[..., Any]]:
    try:
        xla_model = importlib.import_module("torch_xla.core.xla_model")
        xla_checkpoint = importlib.import_module("torch_xla.utils.checkpoint").checkpoint
    except Exception as error:  # the PyPI placeholder raises a plain Exception, not ImportError
        first_line = (str(error).splitlines() or [type(error).__name__])[0]
        raise invalid(requested_by, "xla", f"cpu, cuda or auto here: torch_xla is unusable ({first_line})") from None
    return xla_model, xla_checkpoint


def _neuron_present(env: Mapping[str, str]) -> bool:
    return bool(env.get("NEURON_RT_VISIBLE_CORES")) or Path("/dev/neuron0").exists()


def select_runtime(requested: str = "auto", env: Mapping[str, str] | None = None) -> Runtime:
    """Pick the device: ``auto`` means CUDA if present, else Neuron (XLA) if present, else CPU."""
    env = os.environ if env is None else env
    kind = requested
    if requested == "auto":
        kind = "cuda" if torch.cuda.is_available() else "xla" if _neuron_present(env) else "cpu"
    if kind not in BACKENDS:
        raise invalid("--device", requested, "auto, " + ", ".join(BACKENDS))
    rank, local_rank = int(env.get("RANK", 0)), int(env.get("LOCAL_RANK", 0))
    world_size = int(env.get("WORLD_SIZE", 1))
    if kind == "cuda":
        if not torch.cuda.is_available():
            raise invalid("--device", requested, "cpu, xla or auto: no CUDA device is visible")
        torch.cuda.set_device(local_rank)
        return Runtime("cuda", torch.device("cuda", local_rank), rank, local_rank, world_size)
    if kind == "xla":
        xla_model, xla_checkpoint = _import_xla("--device")
        device = xla_model.xla_device()
        return Runtime("xla", device, rank, local_rank, world_size, xla_model, xla_checkpoint)
    return Runtime("cpu", torch.device("cpu"), rank, local_rank, world_size)


@contextlib.contextmanager
def running(runtime: Runtime) -> Iterator[Runtime]:
    """Join the process group for the duration of a run and always leave it."""
    runtime.init_process_group()
    try:
        yield runtime
    except BaseException:
        runtime.close(synchronize=False)  # the peers may be gone: do not wait for them
        raise
    runtime.close()


__all__ = ["BACKENDS", "ConfigError", "Runtime", "running", "select_runtime"]
