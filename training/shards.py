"""Where an FSDP shard sits in its full weight, and seeded initialisation that does not depend on sharding.

FSDP2 shards every parameter along dim 0 like ``torch.chunk``; a rank's piece is rows ``first ..`` of the
full weight. Initial values are drawn per block of rows from a generator seeded by (seed, name, block), so a
rank fills its rows with exactly the values the unsharded weight would hold there, whatever the world size.
"""

from __future__ import annotations

import math
import zlib
from typing import Callable

import torch
from torch.distributed.tensor import DTensor

# Rows drawn from one seeded generator: a shard fills at most one block beyond its own rows.
INIT_ROWS = 256

Sampler = Callable[[torch.Tensor, torch.Generator], torch.Tensor]


def local_rows(parameter: torch.Tensor) -> tuple[torch.Tensor, int]:
    """The tensor this rank holds and the global row it starts at (FSDP2 shards dim 0 like torch.chunk)."""
    if not isinstance(parameter, DTensor):
        return parameter, 0
    offset = 0
    for mesh_dim, placement in enumerate(parameter.placements):
        if placement.is_shard(0):
            size = parameter.device_mesh.size(mesh_dim)
            offset += parameter.device_mesh.get_local_rank(mesh_dim) * math.ceil(parameter.shape[0] / size)
        elif not placement.is_replicate():
            raise ValueError(f"cannot initialise a parameter placed as {placement}")
    return parameter.to_local(), offset


def fill_rows(parameter: torch.Tensor, seed: int, name: str, sample: Sampler) -> None:
    """Fill this rank's rows of ``parameter`` with values drawn per block of rows from a generator seeded by
    (seed, name, block): the same values whatever the sharding, and at most one block beyond the shard."""
    local, first = local_rows(parameter)
    fill_local_rows(local, first, parameter.shape[0], seed, name, sample)


def fill_local_rows(local: torch.Tensor, first: int, total: int, seed: int, name: str,
                    sample: Sampler) -> None:
    """Fill ``local``, rows ``first ..`` of a ``total``-row weight, with that weight's seeded values."""
    rows = local.shape[0]
    if rows == 0:
        return
    key = zlib.crc32(name.encode())
    for block in range(first // INIT_ROWS, (first + rows - 1) // INIT_ROWS + 1):
        start, stop = block * INIT_ROWS, min(total, (block + 1) * INIT_ROWS)
        mixed = ((seed * 1_000_003 + key) * 65_537 + block) % (1 << 63)
        generator = torch.Generator(device=local.device).manual_seed(mixed)
        values = sample(torch.empty((stop - start, *local.shape[1:]), device=local.device), generator)
        low, high = max(first, start), min(first + rows, stop)
        local[low - first:high - first].copy_(values[low - start:high - start])
