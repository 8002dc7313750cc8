"""What a checkpoint restores besides model and optimizer: the run's progress and this process's RNG.

Both follow the ``state_dict()`` / ``load_state_dict()`` shape the checkpointer saves through, so it never
needs to know what is inside them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from eks_training.training.config import invalid


@dataclass
class TrainState:
    """How far the run has got (optimizer steps), plus what it trains.

    ``model``, ``seed``, ``lora`` and ``data`` are saved so that export can rebuild the model (and find the
    tokenizer) from a checkpoint folder alone; on load they are left as this run's configuration says (a resume
    trains what it was told to). ``model``, ``dataset`` (a fingerprint of the data folder), ``seq_len`` and
    ``vocab_size`` are what :meth:`refuse_other_run` compares: a checkpoint folder of another configuration is
    refused rather than resumed.
    """

    step: int = 0
    model: str = ""
    seed: int = 0
    lora: dict[str, Any] | None = None
    data: str = ""
    dataset: str = ""
    seq_len: int = 0
    vocab_size: int = 0

    def state_dict(self) -> dict[str, Any]:
        return {"step": self.step, "model": self.model, "seed": self.seed, "lora": self.lora, "data": self.data,
                "dataset": self.dataset, "seq_len": self.seq_len, "vocab_size": self.vocab_size}

    def refuse_other_run(self, saved: dict[str, Any], folder: Path) -> None:
        """Raise the one-line error when checkpoint ``folder`` (whose rank-0 state is ``saved``) was written by
        a run of another model, dataset, sequence length or vocabulary. Checkpoints that predate recording a
        field are not compared on it."""
        ours = {"--model": self.model, "--data": self.dataset, "--seq-len": self.seq_len,
                "vocabulary size": self.vocab_size}
        theirs = {"--model": saved.get("model"), "--data": saved.get("dataset"), "--seq-len": saved.get("seq_len"),
                  "vocabulary size": saved.get("vocab_size")}
        for field, value in ours.items():
            if theirs[field] not in (None, "", 0) and theirs[field] != value:
                shown = saved.get("data") if field == "--data" else theirs[field]
                raise invalid("--checkpoint-dir", str(folder.parent),
                              f"a folder of this run's checkpoints: {folder.name} was written with {field} {shown} "
                              f"(this run: {self.data if field == '--data' else value}); give the job its own "
                              "--name or --checkpoint-dir")

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
