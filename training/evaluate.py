"""Held-out evaluation: mean next-token loss and perplexity over a folder in the ``--data`` format.

Each data-parallel rank reads its own micro-batches of the held-out samples in stored order (no shuffle, so every
evaluation sees the same tokens), and the sums of loss and token counts are added over the data-parallel ranks.
Under pipeline parallelism the micro-batches run through the pipeline, as many at a time as a step's microbatches.

As a command, on one process on CPU, it evaluates a trained checkpoint (or an exported model folder) on a held-out
folder and prints one line:

    python -m eks_training.training.evaluate --checkpoint-dir DIR --eval-data FOLDER [--step N] [--max-batches N]
    python -m eks_training.training.evaluate --model FOLDER --eval-data FOLDER
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Sequence

import torch
from torch import nn

from eks_training.training.config import ConfigError, invalid
from eks_training.training.data import TokenDataset
from eks_training.training.device import Runtime
from eks_training.training.layout import Layout
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


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise ConfigError(message)


def evaluate_trained(eval_data: str, *, checkpoint_dir: str | None = None, model_spec: str | None = None,
                     step: int | None = None, seq_len: int | None = None, micro_batch_size: int = 1,
                     max_batches: int = 0) -> tuple[str, dict[str, float]]:
    """Evaluate a checkpoint of ``checkpoint_dir`` (its newest complete step, or ``step``) or the model
    ``model_spec`` on ``eval_data``, on CPU; returns what was evaluated (for the report) and the metrics."""
    from eks_training.training.export import _checkpoint_folder, load_trained_model
    from eks_training.training.safe_load import load_rank_state
    from eks_training.training.model import build_model, default_seq_len, weights_folder
    from eks_training.training.weights import load_folder_weights

    if checkpoint_dir is None and model_spec is None:
        raise invalid("--checkpoint-dir", None, "a training run's checkpoint folder, or --model FOLDER (an exported "
                      "model)")
    if checkpoint_dir is not None:
        folder = _checkpoint_folder(checkpoint_dir, step)
        model, _ = load_trained_model(folder, model_spec)
        saved = load_rank_state(folder / "trainer-rank-0.pt")
        seq_len = seq_len or saved.get("seq_len") or default_seq_len(saved["model"])
        subject = f"{folder.name} of {checkpoint_dir}"
    else:
        assert model_spec is not None
        model = build_model(model_spec)
        weights = weights_folder(model_spec)
        if weights is not None:
            load_folder_weights(model, weights)
        seq_len = seq_len or default_seq_len(model_spec)
        subject = model_spec
    runtime = Runtime("cpu", torch.device("cpu"))
    evaluator = Evaluator(eval_data, seq_len, micro_batch_size, runtime, max_batches,
                          ParallelMesh(Layout(world_size=1), "cpu"))
    if evaluator.batches == 0:
        raise invalid("--eval-data", eval_data, f"a folder with at least {evaluator.dataset.samples_per_micro_step} "
                      f"sample(s) of {seq_len + 1} tokens (--seq-len {seq_len}, --micro-batch-size {micro_batch_size})")
    return subject, evaluator.evaluate(model, None)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m eks_training.training.evaluate``: one line of eval loss and perplexity; a mistake prints one
    line and exits 2."""
    parser = _Parser(prog="python -m eks_training.training.evaluate",
                     description="Evaluate a trained checkpoint or model folder on held-out data (one process, CPU).")
    parser.add_argument("--checkpoint-dir", help="The training run's --checkpoint-dir (its newest complete step).")
    parser.add_argument("--step", type=int, help="With --checkpoint-dir: this complete step instead of the newest.")
    parser.add_argument("--model", help="Without --checkpoint-dir: a model folder (what export writes) or a named "
                        "size; with it: the run's --model, if its recorded path moved.")
    parser.add_argument("--eval-data", required=True, help="A folder in the --data format (data prepare's eval/).")
    parser.add_argument("--seq-len", type=int, help="Tokens per sample. Default: the run's, or the model's "
                        "max_seq_len capped at 2048.")
    parser.add_argument("--micro-batch-size", type=int, default=1, help="Samples per forward pass. Default: 1.")
    parser.add_argument("--max-batches", type=int, default=0, help="At most this many micro-batches (0: all).")
    try:
        args = parser.parse_args(argv)
        subject, metrics = evaluate_trained(args.eval_data, checkpoint_dir=args.checkpoint_dir, model_spec=args.model,
                                            step=args.step, seq_len=args.seq_len,
                                            micro_batch_size=args.micro_batch_size, max_batches=args.max_batches)
    except (ConfigError, ValueError) as error:
        print(f"error: {str(error).splitlines()[0]}", file=sys.stderr)
        return 2
    print(f"{subject} on {Path(args.eval_data)}: eval_loss {metrics['eval_loss']:.4f}, "
          f"perplexity {metrics['eval_perplexity']:.2f}, {metrics['eval_tokens']} tokens")
    return 0


if __name__ == "__main__":
    sys.exit(main())
