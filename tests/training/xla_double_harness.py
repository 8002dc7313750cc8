"""Run by torchrun in the XLA test: the trainer's command line on ``--device xla`` with a stand-in for torch_xla on
the CPU. Its process group refuses ``ReduceOp.AVG`` as torch_xla's ``ProcessGroupXla`` does (its reduce-op table has
no AVG and raises ``ValueError``) and passes every other collective to gloo; ``xm.reduce_gradients`` is a sum scaled by
one over the world size, as torch_xla computes it. Exits with the command line's status.
"""

from __future__ import annotations

import importlib
import sys
import types

import torch
import torch.distributed as dist

_DELEGATED = ("barrier", "broadcast", "allgather", "_allgather_base", "allgather_into_tensor_coalesced",
              "reduce_scatter", "_reduce_scatter_base", "alltoall_base", "alltoall", "send", "recv", "gather",
              "scatter", "reduce", "monitoredBarrier")


class AvgRefusingProcessGroup(dist.ProcessGroup):
    """torch_xla's process group as far as reductions go: SUM, MAX, MIN, PRODUCT; AVG is an invalid op."""

    def __init__(self, store, rank: int, size: int, timeout) -> None:
        super().__init__(rank, size)
        self.inner = dist.ProcessGroupGloo(store, rank, size, timeout)

    def getBackendName(self) -> str:
        return "xla"

    def allreduce(self, tensors, opts=None):
        if isinstance(opts, dist.AllreduceOptions) and opts.reduceOp == dist.ReduceOp.AVG:
            raise ValueError(f"Invalid reduce op {opts.reduceOp}")
        return self.inner.allreduce(tensors, opts)

    def allreduce_coalesced(self, tensors, opts=None):
        if opts is not None and opts.reduceOp == dist.ReduceOp.AVG:
            raise ValueError(f"Invalid reduce op {opts.reduceOp}")
        return self.inner.allreduce_coalesced(tensors, opts)


for _name in _DELEGATED:
    setattr(AvgRefusingProcessGroup, _name,
            (lambda name: lambda self, *args, **kwargs: getattr(self.inner, name)(*args, **kwargs))(_name))


def _reduce_gradients(optimizer: torch.optim.Optimizer) -> None:
    grads = [p.grad for group in optimizer.param_groups for p in group["params"] if p.grad is not None]
    for grad in grads:
        dist.all_reduce(grad)
        grad.mul_(1.0 / dist.get_world_size())


def install_fake_torch_xla() -> None:
    xla_model = types.ModuleType("torch_xla.core.xla_model")
    xla_model.xla_device = lambda: torch.device("cpu")
    xla_model.mark_step = lambda: None
    xla_model.wait_device_ops = lambda: None
    xla_model.reduce_gradients = _reduce_gradients
    xla_checkpoint = types.ModuleType("torch_xla.utils.checkpoint")
    xla_checkpoint.checkpoint = lambda fn, *args, **kwargs: torch.utils.checkpoint.checkpoint(
        fn, *args, use_reentrant=False)
    backend = types.ModuleType("torch_xla.distributed.xla_backend")
    dist.Backend.register_backend("xla", lambda store, rank, size, timeout: AvgRefusingProcessGroup(
        store, rank, size, timeout), devices=["cpu"])
    # torch_xla's init_method "xla://" reads the job's coordinates; torchrun's environment carries them here.
    rendezvous_module = importlib.import_module("torch.distributed.rendezvous")
    rendezvous_module.register_rendezvous_handler("xla", lambda url, **kwargs: rendezvous_module._env_rendezvous_handler(
        "env://", **kwargs))
    modules = {"torch_xla": types.ModuleType("torch_xla"), "torch_xla.core": types.ModuleType("torch_xla.core"),
               "torch_xla.core.xla_model": xla_model, "torch_xla.utils": types.ModuleType("torch_xla.utils"),
               "torch_xla.utils.checkpoint": xla_checkpoint,
               "torch_xla.distributed": types.ModuleType("torch_xla.distributed"),
               "torch_xla.distributed.xla_backend": backend}
    sys.modules.update(modules)


if __name__ == "__main__":
    install_fake_torch_xla()
    from eks_training.training.train import main

    sys.exit(main(sys.argv[1:]))
