"""What a checkpoint restores besides model and optimizer: the run's progress and this process's RNG.

Both follow the ``state_dict()`` / ``load_state_dict()`` shape the checkpointer saves through, so it never
needs to know what is inside them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import torch


@dataclass
class TrainState:
    """How far the run has got (optimizer steps), plus what it trains.

    ``model``, ``seed`` and ``lora`` are saved so that export can rebuild the model from a checkpoint folder
    alone; on load they are left as this run's configuration says (a resume trains what it was told to).
    """

    step: int = 0
    model: str = ""
    seed: int = 0
    lora: dict[str, Any] | None = None

    def state_dict(self) -> dict[str, Any]:
        return {"step": self.step, "model": self.model, "seed": self.seed, "lora": self.lora}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.step = int(state["step"])


class RNGState:
    """This process's Python, torch and (once initialised) CUDA generators: dropout after a resume draws
    the same numbers as in the uninterrupted run."""

    def state_dict(self) -> dict[str, Any]:
        state = {"python": random.getstate(), "torch": torch.get_rng_state()}
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            state["cuda"] = torch.cuda.get_rng_state()
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        random.setstate(state["python"])
        torch.set_rng_state(state["torch"])
        if "cuda" in state and torch.cuda.is_available():
            torch.cuda.set_rng_state(state["cuda"])
