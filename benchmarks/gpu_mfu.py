"""Tokens/s and MFU of the trainer on GPUs: a 1B-class Llama in bf16, with torch.compile off and on.

Run through ``benchmarks/gpu_mfu.sh`` (one process per visible GPU; FSDP2 when there are several). Each
mode trains ``--window`` steps ``--windows + 1`` times; the first window (compilation, allocator warm-up) is
dropped and the median of the rest is reported. The trainer's own metrics are used: tokens/s and MFU are
computed after the device has finished the window's work (``Runtime.synchronize``), so nothing still queued
is counted. ``--dry-run`` runs the same code on CPU with the tiny model (what the test suite runs).

    python benchmarks/gpu_mfu.py [--model 1b] [--seq-len 2048] [--micro-batch-size 4] [--window 10]
        [--windows 3] [--compile off,on] [--activation-checkpointing false] [--dry-run]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import torch

from eks_training.training.config import parse_config
from eks_training.training.data import write_token_dir
from eks_training.training.device import running, select_runtime
from eks_training.training.model import MODEL_SIZES
from eks_training.training.train import train


class _Records:
    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def report(self, metrics: dict[str, Any], checkpoint_folder: Path | None) -> None:
        if "tokens_per_s" in metrics:
            self.records.append(metrics)


def _data(folder: Path, vocab: int, tokens: int) -> Path:
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(0, vocab, (tokens,), generator=generator).tolist()
    return write_token_dir(folder, [ids], vocab)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="1b")
    parser.add_argument("--seq-len", type=int, default=2048)
    parser.add_argument("--micro-batch-size", type=int, default=4)
    parser.add_argument("--window", type=int, default=10, help="steps per timed window")
    parser.add_argument("--windows", type=int, default=3, help="timed windows after the warm-up one")
    parser.add_argument("--compile", default="off,on", help="comma-separated modes to run: off, on")
    parser.add_argument("--activation-checkpointing", default="false")
    parser.add_argument("--dry-run", action="store_true", help="CPU, tiny model, eager compile: checks the script")
    args = parser.parse_args(argv)
    if args.dry_run:
        args.model, args.seq_len, args.micro_batch_size, args.window, args.windows = "tiny", 32, 2, 2, 1

    runtime = select_runtime("cpu" if args.dry_run else "auto")
    if runtime.kind != "cuda" and not args.dry_run:
        print("error: GPUs=0 is not allowed: run on a GPU machine (torch sees no CUDA device here), or pass --dry-run",
              file=sys.stderr)
        return 2
    steps = args.window * (args.windows + 1)
    rows = []
    with running(runtime), tempfile.TemporaryDirectory() as scratch:
        vocab = MODEL_SIZES[args.model].vocab_size
        samples = steps * args.micro_batch_size * runtime.world_size + 8
        data = _data(Path(scratch) / f"data-{runtime.rank}", vocab, samples * args.seq_len + 1)
        for mode in args.compile.split(","):
            flags = ["--data", str(data), "--model", args.model, "--seq-len", str(args.seq_len),
                     "--micro-batch-size", str(args.micro_batch_size), "--max-steps", str(steps),
                     "--log-every", str(args.window), "--compile", "true" if mode == "on" else "false",
                     "--activation-checkpointing", args.activation_checkpointing, "--metrics-file", os.devnull,
                     "--parallel", "fsdp" if runtime.world_size > 1 else "ddp", "--warmup-steps", "1"]
            if args.dry_run:
                flags += ["--precision", "fp32", "--peak-flops", "1e9", "--device", "cpu"]
            else:
                flags += ["--precision", "bf16"]
            if runtime.kind == "cuda":
                torch.cuda.reset_peak_memory_stats()
            records = _Records()
            # inductor on GPU; "eager" in the dry run keeps the same capture path without a C++ toolchain.
            train(parse_config(flags), runtime, reporter=records, compile_backend="eager" if args.dry_run else "inductor")
            timed = records.records[1:]  # the first window holds compilation and warm-up
            tokens = statistics.median(r["tokens_per_s"] for r in timed)
            mfus = [r["mfu"] for r in timed if r["mfu"] is not None]
            memory = torch.cuda.max_memory_allocated() / 2**30 if runtime.kind == "cuda" else 0.0
            rows.append((mode, tokens, statistics.median(mfus) if mfus else None, memory))
    if runtime.is_main:
        name = runtime.peak_flops_name()
        print(f"device: {name} x {runtime.world_size}  model: {args.model}  seq {args.seq_len} x micro-batch "
              f"{args.micro_batch_size}  window {args.window} steps x {args.windows} (after 1 warm-up window)")
        print(f"{'compile':<9}{'tokens/s':>14}{'tokens/s/GPU':>15}{'MFU':>8}{'peak GiB':>10}")
        for mode, tokens, mfu, memory in rows:
            mfu_text = f"{mfu:.1%}" if mfu is not None else "n/a"
            print(f"{mode:<9}{tokens:>14,.0f}{tokens / runtime.world_size:>15,.0f}{mfu_text:>8}{memory:>10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
