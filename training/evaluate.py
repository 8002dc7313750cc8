"""Held-out evaluation: mean next-token loss and perplexity over a folder in the ``--data`` format.

Each rank reads its own micro-batches of the held-out samples in stored order (no shuffle, so every
evaluation sees the same tokens), and the sums of loss and token counts are added over ranks.
"""

from __future__ import annotations

import math

import torch
import torch.distributed as dist
from torch import nn

from eks_training.training.data import TokenDataset
from eks_training.training.device import Runtime


class Evaluator:
    """Evaluates a model on ``--eval-data``; ``max_batches`` caps the micro-batches per rank (0: all)."""

    def __init__(self, folder: str, seq_len: int, micro_batch_size: int, runtime: Runtime, max_batches: int) -> None:
        self.dataset = TokenDataset(folder, seq_len, micro_batch_size, runtime.rank, runtime.world_size,
                                    shuffle=False, flag="--eval-data")
        available = len(self.dataset) // self.dataset.samples_per_micro_step
        self.batches = available if max_batches == 0 else min(max_batches, available)
        self.runtime = runtime

    def evaluate(self, model: nn.Module, autocast_dtype: torch.dtype | None) -> dict[str, float]:
        """``eval_loss`` (nats per token), ``eval_perplexity`` and ``eval_tokens``; leaves the model training."""
        runtime = self.runtime
        totals = torch.zeros(2, dtype=torch.float64, device=runtime.device)  # loss sum, token count
        model.eval()  # no dropout, no activation checkpointing
        try:
            with torch.no_grad():
                for position in range(self.batches):
                    inputs, targets = (t.to(runtime.device) for t in self.dataset.batch(position))
                    with runtime.autocast(autocast_dtype):
                        loss = model(inputs, targets)
                    totals[0] += loss.double() * targets.numel()
                    totals[1] += targets.numel()
                    runtime.mark_step()
        finally:
            model.train()
        if runtime.distributed:
            dist.all_reduce(totals, op=dist.ReduceOp.SUM)
        loss_sum, tokens = totals.tolist()
        mean = loss_sum / tokens
        return {"eval_loss": mean, "eval_perplexity": math.exp(mean) if mean < 700 else float("inf"),
                "eval_tokens": int(tokens)}
