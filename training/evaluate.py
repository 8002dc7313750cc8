"""Held-out evaluation: mean next-token loss and perplexity over a folder in the ``--data`` format.

Each data-parallel rank reads its own micro-batches of the held-out samples in stored order (no shuffle, so every
evaluation sees the same tokens), and the sums of loss and token counts are added over the data-parallel ranks.
Under pipeline parallelism the micro-batches run through the pipeline, as many at a time as a step's microbatches.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from eks_training.training.data import TokenDataset
from eks_training.training.device import Runtime
from eks_training.training.mesh import ParallelMesh
from eks_training.training.pipeline import Pipeline


class Evaluator:
    """Evaluates a model on ``--eval-data``; ``max_batches`` caps the micro-batches per data-parallel rank (0: all;
    under a pipeline, rounded down to whole groups of its microbatches)."""

    def __init__(self, folder: str, seq_len: int, micro_batch_size: int, runtime: Runtime, max_batches: int,
                 mesh: ParallelMesh, pipeline: Pipeline | None = None) -> None:
        self.dataset = TokenDataset(folder, seq_len, micro_batch_size, mesh.data_rank, mesh.data_size,
                                    shuffle=False, flag="--eval-data")
        available = len(self.dataset) // self.dataset.samples_per_micro_step
        self.batches = available if max_batches == 0 else min(max_batches, available)
        self.group = pipeline.microbatches if pipeline is not None else 1
        self.batches -= self.batches % self.group
        self.runtime, self.mesh, self.pipeline = runtime, mesh, pipeline

    def evaluate(self, model: nn.Module, autocast_dtype: torch.dtype | None) -> dict[str, float]:
        """``eval_loss`` (nats per token), ``eval_perplexity`` and ``eval_tokens``; leaves the model training."""
        runtime, pipeline = self.runtime, self.pipeline
        totals = torch.zeros(2, dtype=torch.float64, device=runtime.device)  # loss sum, token count
        model.eval()  # no dropout, no activation checkpointing
        if pipeline is not None:
            pipeline.train(False)
        try:
            with torch.no_grad():
                for first in range(0, self.batches, self.group):
                    batches = [self.dataset.batch(position) for position in range(first, first + self.group)]
                    inputs, targets = (torch.cat(column).to(runtime.device) for column in zip(*batches))
                    with runtime.autocast(autocast_dtype):
                        loss = model(inputs, targets) if pipeline is None else pipeline.evaluate(inputs, targets)
                    totals[0] += loss.double() * targets.numel()
                    totals[1] += targets.numel()
                    runtime.mark_step()
        finally:
            model.train()
            if pipeline is not None:
                pipeline.train()
        if runtime.distributed:
            holder = self.mesh.is_loss_holder(pipeline is None or pipeline.has_last)
            totals = self.mesh.sum_over_data(totals, holder)
        loss_sum, tokens = totals.tolist()
        mean = loss_sum / tokens
        return {"eval_loss": mean, "eval_perplexity": math.exp(mean) if mean < 700 else float("inf"),
                "eval_tokens": int(tokens)}
