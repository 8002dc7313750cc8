"""Where a rank's piece of a parameter sits in the full weight, and seeded initialisation that does not depend on
sharding.

FSDP2 shards dim 0 like ``torch.chunk``; tensor parallelism shards dim 0 (column-parallel layers, the vocabulary)
or dim 1 (row-parallel layers); FSDP over tensor parallelism shards the tensor-parallel piece again. Whatever the
combination, a rank holds one contiguous block of the full weight, starting at an offset per dimension. Initial
values are drawn per block of rows (over the whole width) from a generator seeded by (seed, name, block), so a rank
fills its block with exactly the values the unsharded weight would hold there, whatever the layout.
"""

from __future__ import annotations

import zlib
from typing import Callable

import torch
from torch.distributed.tensor import DTensor

# Rows drawn from one seeded generator: a shard fills at most one block beyond its own rows.
INIT_ROWS = 256

Sampler = Callable[[torch.Tensor, torch.Generator], torch.Tensor]


def local_block(parameter: torch.Tensor) -> tuple[torch.Tensor, tuple[int, ...]]:
    """The tensor this rank holds and the global index it starts at, per dimension."""
    if not isinstance(parameter, DTensor):
        return parameter, (0,) * parameter.dim()
    from torch.distributed.tensor._utils import compute_local_shape_and_global_offset

    local = parameter.to_local()
    _, offset = compute_local_shape_and_global_offset(parameter.shape, parameter.device_mesh, parameter.placements)
    return local, tuple(offset)


def fill_rows(parameter: torch.Tensor, seed: int, name: str, sample: Sampler) -> None:
    """Fill this rank's block of ``parameter`` with values drawn per block of rows from a generator seeded by
    (seed, name, block): the same values whatever the sharding, and at most one block beyond the shard."""
    local, offset = local_block(parameter)
    if local.dim() < 2 or (offset[1] == 0 and local.shape[1] == parameter.shape[1]):
        fill_local_rows(local, offset[0] if offset else 0, parameter.shape[0], seed, name, sample)
        return
    # Split along columns (row-parallel): draw the rows over the whole width, keep this rank's columns.
    columns = slice(offset[1], offset[1] + local.shape[1])
    full_width = torch.empty((local.shape[0], *parameter.shape[1:]), dtype=local.dtype, device=local.device)
    fill_local_rows(full_width, offset[0], parameter.shape[0], seed, name, sample)
    local.copy_(full_width[:, columns])


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
