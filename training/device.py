"""Where the training runs: CPU, CUDA, or XLA (AWS Neuron), and the matching process-group backend.

Everything that differs on XLA sits behind :class:`Runtime`: the device, the backend (``xla``), graph cuts
(``mark_step``), gradient all-reduce before the optimizer step (no DDP wrapper there), the activation
checkpoint function, and whether the loop may read values back to the host every step (on XLA a host read
forces a graph execution, so the loop reads only at logging steps). ``torch_xla`` is imported only when XLA
is asked for: it exists only in the Neuron image (PyPI's torch-neuronx is a placeholder that fails on import).
"""

from __future__ import annotations

import contextlib
import datetime
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
from eks_training.training.shutdown import ExitWatchdog

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

    def init_process_group(self, timeout: float | None = None) -> None:
        """Join the job's process group when launched by torchrun (WORLD_SIZE set) and not joined yet.

        ``timeout`` (seconds; default: torch's) bounds every collective and barrier on it: a peer that died or
        stopped answering makes the waiting rank raise (see :func:`is_peer_failure`) instead of waiting on.
        """
        if self.world_size > 1 and not self.distributed:
            bound = {"timeout": datetime.timedelta(seconds=timeout)} if timeout is not None else {}
            if self.kind == "xla":
                importlib.import_module("torch_xla.distributed.xla_backend")  # registers the "xla" backend
                dist.init_process_group("xla", init_method="xla://", **bound)
            else:
                dist.init_process_group(self.backend, device_id=self.device if self.kind == "cuda" else None, **bound)

    def close(self, *, synchronize: bool = True, watchdog: ExitWatchdog | None = None) -> None:
        """Leave the process group; ``synchronize`` first waits for every rank (skip it when a rank failed).

        With a watchdog the final barrier is bounded by its remaining time: on gloo a monitored barrier
        raises ``ShutdownError`` naming the ranks that never arrived; elsewhere the watchdog ends the process.
        """
        if not self.distributed:
            return
        if synchronize:
            if watchdog is not None:
                watchdog.waiting_for("the final barrier (every rank to finish)")
            # A rank that tears down gloo while its peer still talks to it aborts the peer (SIGABRT).
            if watchdog is not None and self.backend == "gloo":
                timeout = datetime.timedelta(seconds=max(1.0, watchdog.remaining() or 0.0))
                try:
                    dist.monitored_barrier(timeout=timeout, wait_all_ranks=True)
                except RuntimeError as error:
                    raise ShutdownError(f"rank {self.rank}: the final barrier failed within "
                                        f"{timeout.total_seconds():g} s: {first_line(error)}") from None
            else:
                self.barrier()
        if watchdog is not None:
            watchdog.waiting_for("process-group teardown (destroy_process_group)")
        dist.destroy_process_group()

    def synchronize(self) -> None:
        """Wait until the device has run everything queued so far, so a clock read after it is honest."""
        if self.kind == "cuda":
            torch.cuda.synchronize(self.device)
        elif self.xla_model is not None:
            # The step's graph was cut by optimizer_step's mark_step; this waits for it to finish running.
            self.xla_model.wait_device_ops()

    def barrier(self) -> None:
        if self.distributed:
            # NCCL needs the device named, or it guesses one per rank (and may pick a wrong one).
            dist.barrier(device_ids=[self.local_rank] if self.kind == "cuda" else None)

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

    def checkpoint_fn(self, selective: bool = False) -> tuple[Callable[..., torch.Tensor], int]:
        """Activation checkpoint function for this device and which blocks use it (every n-th).

        Selective keeps the outputs of matmuls and attention and recomputes the cheap element-wise ops
        between them, in every block. torch_xla's own checkpoint has no such policy, so on XLA selective
        falls back to recomputing every other block whole.
        """
        if self.xla_checkpoint is not None:
            return self.xla_checkpoint, 2 if selective else 1
        if not selective:
            return partial(torch.utils.checkpoint.checkpoint, use_reentrant=False), 1
        context = partial(torch.utils.checkpoint.create_selective_checkpoint_contexts, _keep_matmuls)
        return partial(torch.utils.checkpoint.checkpoint, use_reentrant=False, context_fn=context), 1

    def autocast(self, dtype: torch.dtype | None) -> contextlib.AbstractContextManager:
        """Autocast to ``dtype`` on this device, or nothing for full precision."""
        if dtype is None:
            return contextlib.nullcontext()
        return torch.autocast(device_type=self.kind, dtype=dtype)

    def peak_flops_name(self) -> str:
        """A name to look the device's peak FLOPs up by (metrics.peak_flops_for)."""
        if self.kind == "cuda":
            return torch.cuda.get_device_name(self.device)
        if self.kind == "xla":
            # The Neuron runtime's target (trn1/trn2); the image sets it, or the instance type tells it.
            return os.environ.get("NEURON_PLATFORM_TARGET_OVERRIDE") or os.environ.get("INSTANCE_TYPE", "xla")
        return self.kind


class ShutdownError(RuntimeError):
    """The run finished but could not leave cleanly (a peer missed the final barrier); one line."""


def is_peer_failure(error: BaseException) -> bool:
    """A collective or barrier that failed because another rank died or did not answer in time: torch's
    ``DistError`` family (NCCL, the store), or gloo's own RuntimeError, whose message starts with gloo's source
    location (``[.../gloo/transport/tcp/unbound_buffer.cc:129] Timed out waiting 3000ms ...``)."""
    return isinstance(error, dist.DistError) or (isinstance(error, RuntimeError) and "/gloo/" in first_line(error))


def first_line(error: BaseException) -> str:
    """The first line of an error's message (torch's carry C++ stack traces below it)."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


_SAVED_OPS = {
    torch.ops.aten.mm.default,
    torch.ops.aten.addmm.default,
    torch.ops.aten.bmm.default,
    torch.ops.aten._scaled_dot_product_flash_attention.default,
    torch.ops.aten._scaled_dot_product_efficient_attention.default,
    torch.ops.aten._scaled_dot_product_cudnn_attention.default,
    torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default,
}


def _keep_matmuls(context: Any, op: Any, *args: Any, **kwargs: Any) -> Any:
    """Selective activation checkpointing policy: store the expensive results, recompute the rest."""
    policy = torch.utils.checkpoint.CheckpointPolicy
    return policy.MUST_SAVE if op in _SAVED_OPS else policy.PREFER_RECOMPUTE


def _import_xla(requested_by: str) -> tuple[ModuleType, Callable[..., Any]]:
    try:
        xla_model = importlib.import_module("torch_xla.core.xla_model")
        xla_checkpoint = importlib.import_module("torch_xla.utils.checkpoint").checkpoint
    except Exception as error:  # the PyPI placeholder raises a plain Exception, not ImportError
        raise invalid(requested_by, "xla", f"cpu, cuda or auto here: torch_xla is unusable ({first_line(error)})") \
            from None
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
def running(runtime: Runtime, watchdog: ExitWatchdog | None = None,
            collective_timeout: float | None = None) -> Iterator[Runtime]:
    """Join the process group for the duration of a run and always leave it (bounded by ``watchdog``);
    ``collective_timeout`` bounds each collective (see :meth:`Runtime.init_process_group`)."""
    runtime.init_process_group(collective_timeout)
    try:
        yield runtime
    except BaseException:
        if watchdog is not None:
            watchdog.arm("process-group teardown after an error")
        runtime.close(synchronize=False)  # the peers may be gone: do not wait for them
        raise
    if watchdog is not None:
        watchdog.arm("the final barrier (every rank to finish)")
    runtime.close(watchdog=watchdog)


__all__ = ["BACKENDS", "ConfigError", "Runtime", "ShutdownError", "is_peer_failure", "running", "select_runtime"]
