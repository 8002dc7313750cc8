"""Peak tensor memory per rank, for the metrics (``peak_memory_mib``) and for checking the planner's estimate.

On CUDA it is the allocator's own peak (``max_memory_allocated``) since the first step. Elsewhere (CPU) no
allocator keeps such a count, so during the first :data:`MEASURED_STEPS` optimizer steps (the first creates the
optimizer's states; the second is a steady step) a dispatch mode counts the storage of every tensor an operation
creates, plus the model's parameters, buffers, gradients and optimizer states alive when it starts, and drops each
storage when Python frees it: the peak of that sum is the step's peak. It sees what operations allocate, not a
collective library's own buffers nor memory a storage gains by being resized in place (FSDP's unsharded
parameters), so on CPU it is exact for data, tensor and pipeline parallel layouts and an underestimate under FSDP.
XLA reports none.
"""

from __future__ import annotations

import contextlib
import weakref
from typing import Iterable, Iterator

import torch
from torch.distributed.tensor import DTensor
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

MEASURED_STEPS = 2
MIB = 2**20


class _LiveStorages(TorchDispatchMode):
    """Counts the bytes of the tensor storages alive that it has seen, and their peak."""

    def __init__(self) -> None:
        super().__init__()
        self._alive: dict[int, weakref.ref] = {}
        self.current = 0
        self.peak = 0

    def track(self, tensors: Iterable[object]) -> None:
        for tensor in tensors:
            if isinstance(tensor, DTensor):
                tensor = tensor._local_tensor
            if not isinstance(tensor, torch.Tensor) or tensor.device.type == "meta":
                continue
            storage = tensor.untyped_storage()
            key = id(storage)
            if key in self._alive:
                continue
            size = storage.nbytes()
            self._alive[key] = weakref.ref(storage, lambda _, key=key, size=size: self._free(key, size))
            self.current += size
            self.peak = max(self.peak, self.current)

    def _free(self, key: int, size: int) -> None:
        if self._alive.pop(key, None) is not None:
            self.current -= size

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        output = func(*args, **(kwargs or {}))
        self.track(tree_flatten(output)[0])
        return output


class PeakMemory:
    """This rank's peak tensor memory in MiB (None: not measured on this device)."""

    def __init__(self, device: torch.device, enabled: bool = True) -> None:
        self.device = device
        self.enabled = enabled and device.type in ("cpu", "cuda")
        self._cpu_peak: float | None = None
        self._steps = 0
        if self.enabled and device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)

    @contextlib.contextmanager
    def step(self, model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> Iterator[None]:
        """Around one optimizer step (its data loading included)."""
        self._steps += 1
        if not self.enabled or self.device.type != "cpu" or self._steps > MEASURED_STEPS:
            yield
            return
        mode = _LiveStorages()
        grads = [p.grad for p in model.parameters() if p.grad is not None]
        states = [value for state in optimizer.state.values() for value in state.values()]
        mode.track([*model.parameters(), *model.buffers(), *grads, *states])
        with mode:
            yield
        self._cpu_peak = max(self._cpu_peak or 0.0, mode.peak / MIB)

    @property
    def peak_mib(self) -> float | None:
        if not self.enabled:
            return None
        if self.device.type == "cuda":
            return torch.cuda.max_memory_allocated(self.device) / MIB
        return self._cpu_peak
