"""The trainer's data position: this rank's next micro-batches, and how many samples the job has consumed.

The position is global (see :mod:`eks_training.training.data`), so a checkpoint holds one number that any
world size and micro-batch size can continue from.
"""

from __future__ import annotations

from typing import Any

import torch

from eks_training.training.data import TokenDataset

Batch = tuple[torch.Tensor, torch.Tensor]  # inputs, targets


class DataIterator:
    """Hands out micro-batches in the job's sample order; its state is the global position."""

    def __init__(self, dataset: TokenDataset, samples_consumed: int = 0) -> None:
        self.dataset = dataset
        self.samples_consumed = samples_consumed

    def __iter__(self) -> DataIterator:
        return self

    def __next__(self) -> Batch:
        batch = self.dataset.batch_at(self.samples_consumed)
        # Every rank advances by what all ranks consumed together: the position stays global.
        self.samples_consumed += self.dataset.samples_per_micro_step
        return batch

    def take(self, micro_steps: int) -> list[Batch]:
        """The micro-batches of one optimizer step (``--grad-accum`` of them)."""
        return [next(self) for _ in range(micro_steps)]

    def state_dict(self) -> dict[str, Any]:
        return {"samples_consumed": self.samples_consumed}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if "samples_consumed" in state:
            self.samples_consumed = int(state["samples_consumed"])
        else:
            # Checkpoints written before the position was global count micro-steps per rank, which only
            # the saving job's world size and micro-batch size can convert (assumed unchanged).
            self.samples_consumed = int(state["data_position"]) * self.dataset.samples_per_micro_step
