"""The run's device mesh: one object that owns every process group of a :class:`~eks_training.training.layout.Layout`
and answers what the loop asks of the layout (which samples this rank reads, which ranks average the loss, how the
gradient norm is summed, which gradients still need an all-reduce).

Dimensions, outermost first: ``pipeline``, ``data_replicate``, ``data_shard``, ``tensor``; ``data`` is the
replicate and shard dimensions flattened (every rank that reads different samples). Replicated data parallelism
alone (DDP, and XLA's own gradient all-reduce) needs no device mesh: the data ranks are the job's ranks, on the
default group; a one-process run has no group at all, and every answer is the trivial one.
"""

from __future__ import annotations

import math
import socket
from typing import Iterable

import torch
import torch.distributed as dist
from torch.distributed.tensor import DTensor

from eks_training.training.config import invalid
from eks_training.training.layout import Layout

MESH_DIMS = ("pipeline", "data_replicate", "data_shard", "tensor")
#: Gradients all-reduced in one call when data parallelism is applied by hand (bytes per bucket).
_BUCKET_BYTES = 25 * 2**20


class ParallelMesh:
    """Process groups of ``layout`` on devices of ``device_type``; needs the process group joined when the layout
    has more than one rank."""

    def __init__(self, layout: Layout, device_type: str) -> None:
        self.layout = layout
        self.world = None
        self._plain = layout.parallel == "ddp" and layout.is_data_parallel_only
        self.expert_group = self.expert_replica_group = self.data_stats_group = None
        if layout.world_size > 1 and not self._plain:
            from torch.distributed.device_mesh import init_device_mesh

            shape = (layout.pipeline, layout.data_replicate, layout.data_shard, layout.tensor)
            self.world = init_device_mesh(device_type, shape, mesh_dim_names=MESH_DIMS)
            self.world["data_replicate", "data_shard"]._flatten("data")
            if layout.tensor > 1:
                self._check_tensor_group_in_one_node()

    def build_expert_groups(self) -> None:
        """The groups of a mixture-of-experts run (called on every rank, in the same order): ``expert_group``, the
        ``--expert-parallel`` consecutive data ranks that split the experts and exchange tokens; ``expert_replica_group``,
        the ranks holding the same experts; ``data_stats_group``, every data rank (the load-balancing statistics), apart
        from the default group so its collectives never interleave with DDP's."""
        world, size, rank = self.layout.world_size, self.layout.expert, dist.get_rank()
        for first in range(0, world, size):
            group = dist.new_group(list(range(first, first + size)))
            if size > 1 and first <= rank < first + size:
                self.expert_group = group
        for offset in range(size):
            group = dist.new_group(list(range(offset, world, size)))
            if world // size > 1 and rank % size == offset:
                self.expert_replica_group = group
        self.data_stats_group = dist.new_group(list(range(world)))

    def _check_tensor_group_in_one_node(self) -> None:
        """Refuse a tensor-parallel group that spans hosts: its collectives run in every layer, which only a node's
        own links (NVLink) carry at speed. Launchers number a node's ranks consecutively, so a degree that divides
        the ranks per node keeps a group on one host; this catches one that does not."""
        hosts: list[str | None] = [None] * self.layout.tensor
        dist.all_gather_object(hosts, socket.gethostname(), group=self.submesh("tensor").get_group())
        if len(set(hosts)) > 1:
            raise invalid("--tensor-parallel", self.layout.tensor, f"a degree whose groups stay inside one node (this "
                          f"one spans {', '.join(sorted(set(hosts)))}): a divisor of the ranks per node, with the "
                          "ranks of a node numbered consecutively")

    def _local_rank(self, dim: str) -> int:
        if self.world is not None:
            return self.world.get_local_rank(dim)
        # Plain data parallelism: every rank is a data rank.
        return dist.get_rank() if dim == "data" and dist.is_available() and dist.is_initialized() else 0

    @property
    def data_rank(self) -> int:
        """This rank's index among the data-parallel ranks (what it reads; its tensor/pipeline peers read the same)."""
        return self._local_rank("data")

    @property
    def data_size(self) -> int:
        return self.layout.data

    @property
    def tensor_rank(self) -> int:
        return self._local_rank("tensor")

    @property
    def pipeline_rank(self) -> int:
        return self._local_rank("pipeline")

    def submesh(self, *dims: str):
        """The sub-mesh over ``dims`` (None for a one-process run)."""
        return self.world[dims if len(dims) > 1 else dims[0]] if self.world is not None else None

    @property
    def tensor_mesh(self):
        return self.submesh("tensor") if self.layout.tensor > 1 else None

    @property
    def pipeline_group(self) -> dist.ProcessGroup | None:
        return self.submesh("pipeline").get_group() if self.layout.pipeline > 1 else None

    @property
    def data_group(self) -> dist.ProcessGroup | None:
        """The data ranks' group (None: the default group, under plain data parallelism, or no group at all)."""
        return self.submesh("data").get_group() if self.world is not None and self.layout.data > 1 else None

    def fsdp_mesh(self):
        """The mesh FSDP2 shards over: the shard ranks, with the replicate ranks as a second dimension (HSDP)."""
        if self.layout.data_replicate > 1:
            return self.submesh("data_replicate", "data_shard")
        return self.submesh("data_shard")

    @property
    def replicates_by_hand(self) -> bool:
        """Data-parallel gradients are all-reduced by :meth:`all_reduce_gradients` (DDP's wrapper serves plain data
        parallelism only; under tensor or pipeline parallelism the layers' parameters are DTensors or stages)."""
        return self.layout.parallel == "ddp" and self.layout.data > 1 and not self.layout.is_data_parallel_only

    def settle_gradients(self, parameters: Iterable[torch.nn.Parameter]) -> None:
        """Put every gradient in its parameter's placement. Tensor parallelism leaves the sequence-parallel norms'
        gradients as partial sums and the vocab-parallel embedding's whole; reduced or sliced here, once, rather than
        inside every optimizer operation that reads them (and the gradient norm counts each element once)."""
        for p in parameters:
            grad = p.grad
            if isinstance(grad, DTensor) and tuple(grad.placements) != tuple(p.placements):
                p.grad = grad.redistribute(p.device_mesh, p.placements)

    def all_reduce_gradients(self, parameters: Iterable[torch.nn.Parameter]) -> None:
        """Average the gradients over the data-parallel ranks, in buckets (replicated data parallelism by hand)."""
        group = self.data_group
        grads = [_local(p.grad) for p in parameters if p.grad is not None]
        bucket: list[torch.Tensor] = []
        size = 0
        for index, grad in enumerate(grads):
            bucket.append(grad)
            size += grad.numel() * grad.element_size()
            if size >= _BUCKET_BYTES or index == len(grads) - 1:
                flat = torch.cat([g.reshape(-1) for g in bucket])
                dist.all_reduce(flat, group=group)
                flat /= self.layout.data
                for g, piece in zip(bucket, flat.split([g.numel() for g in bucket])):
                    g.copy_(piece.view_as(g))
                bucket, size = [], 0

    def is_loss_holder(self, has_last_stage: bool) -> bool:
        """One rank per data-parallel rank counts its loss: the tensor-rank-0 holder of the last stage (under
        pipeline parallelism only the last stage computes it; the tensor ranks all hold the same value)."""
        return has_last_stage and self.tensor_rank == 0

    def sum_over_data(self, value: torch.Tensor, counted: bool) -> torch.Tensor:
        """``value`` summed over the data-parallel ranks, on every rank: the ranks that are not ``counted``
        (:meth:`is_loss_holder`) add zero. SUM, not AVG: XLA's process group has no AVG."""
        if self.layout.world_size == 1:
            return value
        total = value if counted else torch.zeros_like(value)
        dist.all_reduce(total)
        return total

    def grad_norm(self, parameters: list[torch.nn.Parameter]) -> torch.Tensor:
        """The global L2 norm of the gradients, over every shard (FSDP, tensor) and every pipeline stage, in one
        all-reduce: each rank adds the squares of the elements it holds, weighted by one over the number of ranks
        that hold the same elements (a stage's parameters live on the ``world / pipeline`` ranks of its stage, split
        into as many distinct pieces as the product of the mesh dimensions that shard them)."""
        holders = self.layout.world_size // self.layout.pipeline
        squares = []
        for p in parameters:
            grad = p.grad
            if grad is None:
                continue
            pieces = 1
            if isinstance(grad, DTensor):
                # Every placement but Replicate splits (Shard, and FSDP-over-tensor's _StridedShard, which is not
                # is_shard()); settled gradients are never Partial.
                pieces = math.prod(grad.device_mesh.size(dim) for dim, placement in enumerate(grad.placements)
                                   if not placement.is_replicate())
                grad = grad.to_local()
            squares.append(grad.float().square().sum() * (pieces / holders))
        device = parameters[0].device if parameters else torch.device("cpu")
        total = torch.stack(squares).sum() if squares else torch.zeros((), device=device)
        if self.layout.world_size > 1:
            dist.all_reduce(total)
        return total.sqrt()


def clip_gradients_(parameters: list[torch.nn.Parameter], max_norm: float, total_norm: torch.Tensor) -> None:
    """Scale the gradients so their global norm is at most ``max_norm`` (``torch.nn.utils.clip_grad_norm_``'s rule)."""
    if math.isinf(max_norm):
        return
    torch.nn.utils.clip_grads_with_norm_(parameters, max_norm, total_norm)


def _local(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.to_local() if isinstance(tensor, DTensor) else tensor
