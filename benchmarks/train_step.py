"""Tokens/s of the project's trainer against a minimal hand-written loop on the same model and data.

Both run in this process, in alternating rounds, so machine noise hits both alike; each round starts from
fresh weights and is timed from its first step to its last (setup excluded); both stop the clock only after
the device has finished (``Runtime.synchronize``: CUDA synchronize, XLA wait_device_ops), so queued work is
counted on every device. Prints a table and the ratio ours/plain (goal: >= 0.95). On a GPU it also prints MFU.

    python benchmarks/train_step.py [--model tiny] [--seq-len 128] [--micro-batch-size 8] [--steps 30] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

from eks_training.training.config import parse_config
from eks_training.training.data import TokenDataset, synthetic_tokens, write_token_dir
from eks_training.training.device import select_runtime
from eks_training.training.metrics import mfu, peak_flops_for
from eks_training.training.model import build_model, flops_per_token, vocab_size_of
from eks_training.training.train import _DTYPES, resolve_precision, train


class _LastRecord:
    """Keeps the trainer's final report (its tokens/s covers the whole round: log_every == steps)."""

    def __init__(self) -> None:
        self.record: dict[str, Any] = {}

    def report(self, metrics: dict[str, Any], checkpoint_folder: Path | None) -> None:
        self.record = metrics


def plain_loop(config, runtime, seq_len: int) -> float:
    """The baseline: forward, loss, backward, clip, AdamW step. Returns tokens/s."""
    torch.manual_seed(config.seed)
    model = build_model(config.model).to(runtime.device)
    data = TokenDataset(config.data, seq_len, config.micro_batch_size, seed=config.seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, betas=(0.9, 0.95), weight_decay=config.weight_decay)
    dtype = _DTYPES[resolve_precision(config, runtime)]
    started = time.perf_counter()
    for step in range(config.max_steps):
        inputs, targets = (t.to(runtime.device) for t in data.batch(step))
        with runtime.autocast(dtype):
            logits = model(inputs)
        loss = F.cross_entropy(logits.float().flatten(0, 1), targets.flatten())
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        runtime.mark_step()
    loss.item()  # the trainer's logging read
    runtime.synchronize()  # and its wait for the device, before the clock stops
    return config.max_steps * config.micro_batch_size * seq_len / (time.perf_counter() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny")
    parser.add_argument("--seq-len", type=int, default=128)
    parser.add_argument("--micro-batch-size", type=int, default=8)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--device", default="auto")
    args = parser.parse_args(argv)

    runtime = select_runtime(args.device)
    with tempfile.TemporaryDirectory() as scratch:
        vocab = vocab_size_of(build_model(args.model)) if args.model == "tiny" else 32000
        data = write_token_dir(Path(scratch), [synthetic_tokens(args.seq_len * args.micro_batch_size * 64, vocab)], vocab)
        config = parse_config(["--data", str(data), "--model", args.model, "--seq-len", str(args.seq_len),
                               "--micro-batch-size", str(args.micro_batch_size), "--max-steps", str(args.steps),
                               "--log-every", str(args.steps), "--device", args.device, "--lr", "1e-3",
                               "--metrics-file", os.devnull])
        ours, plain = [], []
        for _ in range(args.rounds):
            last = _LastRecord()
            train(config, runtime, reporter=last)
            ours.append(last.record["tokens_per_s"])
            plain.append(plain_loop(config, runtime, args.seq_len))

    ours_median, plain_median = statistics.median(ours), statistics.median(plain)
    print(f"device: {runtime.peak_flops_name()}  model: {args.model}  seq {args.seq_len} x batch "
          f"{args.micro_batch_size}  steps/round {args.steps}  rounds {args.rounds}")
    print(f"{'loop':<8}{'median tokens/s':>18}  rounds")
    for name, values, median in (("ours", ours, ours_median), ("plain", plain, plain_median)):
        print(f"{name:<8}{median:>18,.0f}  {'  '.join(f'{v:,.0f}' for v in values)}")
    paired = statistics.median(o / p for o, p in zip(ours, plain))
    print(f"ratio ours/plain: {ours_median / plain_median:.3f} (medians); {paired:.3f} (median of each round's "
          f"ratio: adjacent runs share the machine's load); {max(ours) / max(plain):.3f} (best rounds)")
    peak = peak_flops_for(runtime.peak_flops_name())
    if runtime.kind == "cuda" and peak:
        token_flops = flops_per_token(build_model(args.model), args.seq_len)
        print(f"MFU ours: {mfu(ours_median, token_flops, peak):.1%}  plain: {mfu(plain_median, token_flops, peak):.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
