"""Tokens/s of the project's trainer against a minimal hand-written loop on the same model, data and parallelism:
one process, DDP on 2 ranks and tensor parallel 2 on 2 ranks.

Fair by construction: both sides run the same model code and its own loss (``model(inputs, targets)``: the chunked
or vocab-parallel cross-entropy), the same AdamW kernel (fused on CUDA, as the trainer builds it, with the same
decay groups), the same compile setting (each block's forward compiled, or none), the same gradient placement before
clipping (tensor parallel's partial sums reduced once) and the same gradient clipping;
the plain loop applies the same tensor-parallel plan (training/tensor_parallel.py) or wraps the model in DDP itself.
What differs is the trainer's own work: its mesh, data iterator, clipping over shards, divergence guard, metrics and
memory accounting.

Both run in one process group, in alternating rounds, so machine noise hits both alike; each round starts from fresh
weights; the first ``--warmup`` steps of a round (compilation, allocator growth, AdamW's state creation, the trainer's
CPU memory count) are left out of the clock, and both stop it only after the device has finished
(``Runtime.synchronize``). Prints a table and the ratio ours/plain per layout (goal: >= 0.95). On a GPU it also
prints MFU.

    python benchmarks/train_step.py [--model tiny] [--seq-len 128] [--micro-batch-size 8] [--steps 30] [--rounds 3]
        [--layouts one,ddp2,tp2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch
from torch.distributed.tensor import DTensor

from eks_training.training.config import parse_config
from eks_training.training.data import TokenDataset, synthetic_tokens, write_token_dir
from eks_training.training.device import running, select_runtime
from eks_training.training.metrics import mfu, peak_flops_for
from eks_training.training.model import build_model, flops_per_token, vocab_size_of
from eks_training.training.parallel import DTYPES, compile_blocks, resolve_switch
from eks_training.training.trainer import Trainer, build_optimizer, resolve_precision

#: Layout name -> (ranks, trainer flags).
LAYOUTS = {"one": (1, []), "ddp2": (2, ["--parallel", "ddp"]), "tp2": (2, ["--tensor-parallel", "2"])}


class _Clock:
    """The wall clock over the trainer's steps after the warmup, read at its reports (each logged step, after its
    metrics, evaluation and saving): started when step ``warmup`` is reported, stopped when the last one is. The
    trainer's logging and memory accounting between them count, as everything the plain loop does counts on its
    clock (the trainer's own ``tokens_per_s`` leaves its logging out, and a mean of window rates favours it)."""

    def __init__(self, runtime, warmup: int, last_step: int) -> None:
        self._runtime, self._warmup, self._last = runtime, warmup, last_step
        self.started: float | None = None
        self.elapsed: float | None = None

    def report(self, metrics: dict[str, Any], checkpoint_folder: Path | None) -> None:
        if metrics.get("step") not in (self._warmup, self._last):
            return
        self._runtime.synchronize()
        if metrics["step"] == self._warmup:
            self.started = time.perf_counter()
        else:
            self.elapsed = time.perf_counter() - self.started


def ours(config, runtime, warmup: int, step_tokens: int) -> float:
    """The trainer's tokens/s over the steps after the warmup, on the clock the plain loop uses."""
    clock = _Clock(runtime, warmup, config.max_steps)
    Trainer(config, runtime, clock).fit()
    return step_tokens * (config.max_steps - warmup) / clock.elapsed


def plain(config, runtime, layout: str, seq_len: int, warmup: int) -> float:
    """The baseline: forward and loss, backward, clip, AdamW step, on the same parallelism. Returns tokens/s."""
    torch.manual_seed(config.seed)
    model = build_model(config.model).to(runtime.device)
    if resolve_switch(config.compile, runtime):
        compile_blocks(model)
    data_rank, data_size = runtime.rank, runtime.world_size
    if layout == "tp2":
        from torch.distributed.device_mesh import init_device_mesh

        from eks_training.training.tensor_parallel import apply_tensor_parallel

        apply_tensor_parallel(model, init_device_mesh(runtime.kind, (runtime.world_size,)))
        data_rank, data_size = 0, 1
    elif layout == "ddp2":
        model = torch.nn.parallel.DistributedDataParallel(
            model, device_ids=[runtime.local_rank] if runtime.kind == "cuda" else None)
    data = TokenDataset(config.data, seq_len, config.micro_batch_size, data_rank, data_size, seed=config.seed)
    optimizer = build_optimizer(model, config, runtime)
    dtype = DTYPES[resolve_precision(config, runtime)]
    started = None
    for step in range(config.max_steps):
        if step == warmup:
            runtime.synchronize()
            started = time.perf_counter()
        inputs, targets = (t.to(runtime.device) for t in data.batch(step))
        with runtime.autocast(dtype):
            loss = model(inputs, targets)
        loss.backward()
        settle_gradients(model)
        torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        runtime.mark_step()
    loss.item()  # the trainer's logging read
    runtime.synchronize()  # and its wait for the device, before the clock stops
    return tokens_per_step(config, data_size, seq_len) * (config.max_steps - warmup) / (time.perf_counter() - started)


def settle_gradients(model: torch.nn.Module) -> None:
    """Give each tensor-parallel gradient its parameter's placement once (the sequence-parallel norms' gradients
    arrive as partial sums), as the trainer does: left partial, every AdamW operation on them all-reduces again, which
    made the plain loop's optimizer step ~5x the trainer's and its ours/plain ratio flatter than the truth."""
    for p in model.parameters():
        if isinstance(p.grad, DTensor) and tuple(p.grad.placements) != tuple(p.placements):
            p.grad = p.grad.redistribute(p.device_mesh, p.placements)


def tokens_per_step(config, data_ranks: int, seq_len: int) -> int:
    """Tokens one step trains over every data-parallel rank (tensor-parallel ranks share theirs; no accumulation)."""
    return config.micro_batch_size * data_ranks * seq_len


def measure(args: argparse.Namespace, data: Path) -> dict[str, list[float]]:
    """This process's share of one layout's rounds (launched by torchrun for two ranks)."""
    _, flags = LAYOUTS[args.layout]
    with running(select_runtime(args.device)) as runtime:
        if runtime.kind == "cpu":
            # One thread per rank on every layout (torchrun's default for several ranks): one process and two
            # compare alike, and a busy machine's other work does not stall a spinning thread pool.
            torch.set_num_threads(1)
        config = parse_config(["--data", str(data), "--model", args.model, "--seq-len", str(args.seq_len),
                               "--micro-batch-size", str(args.micro_batch_size),
                               "--max-steps", str(args.steps + args.warmup), "--log-every", str(args.warmup),
                               "--warmup-steps", "0", "--lr", "1e-3", "--device", args.device,
                               "--metrics-file", os.devnull, *flags])
        results: dict[str, list[float]] = {"ours": [], "plain": []}
        for _ in range(args.rounds):
            data_ranks = 1 if args.layout == "tp2" else runtime.world_size
            results["ours"].append(ours(config, runtime, args.warmup, tokens_per_step(config, data_ranks,
                                                                                      args.seq_len)))
            results["plain"].append(plain(config, runtime, args.layout, args.seq_len, args.warmup))
        results["device"] = runtime.peak_flops_name()  # type: ignore[assignment]
        results["kind"] = runtime.kind  # type: ignore[assignment]
    return results


def _run_layout(args: argparse.Namespace, layout: str, data: Path) -> dict:
    ranks, _ = LAYOUTS[layout]
    out = data.parent / f"{layout}.json"
    argv = [__file__, "--worker", "--layout", layout, "--data", str(data), "--out", str(out),
            *(f"--{k.replace('_', '-')}={v}" for k, v in (("model", args.model), ("seq_len", args.seq_len),
                                                        ("micro_batch_size", args.micro_batch_size),
                                                        ("steps", args.steps), ("warmup", args.warmup),
                                                        ("rounds", args.rounds), ("device", args.device)))]
    launcher = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={ranks}"]
    subprocess.run([*launcher, *argv], check=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    return json.loads(out.read_text())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny")
    parser.add_argument("--seq-len", type=int, default=128)
    parser.add_argument("--micro-batch-size", type=int, default=8)
    parser.add_argument("--steps", type=int, default=30, help="timed steps per round")
    parser.add_argument("--warmup", type=int, default=5, help="untimed steps at the start of each round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--layouts", default="one,ddp2,tp2", help=f"comma-separated: {', '.join(LAYOUTS)}")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--layout", help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        results = measure(args, Path(args.data))
        if int(os.environ.get("RANK", "0")) == 0:
            Path(args.out).write_text(json.dumps(results))
        return 0

    with tempfile.TemporaryDirectory() as scratch:
        vocab = vocab_size_of(build_model(args.model)) if args.model == "tiny" else 32000
        data = write_token_dir(Path(scratch) / "data", [synthetic_tokens(
            args.seq_len * args.micro_batch_size * 2 * (args.steps + args.warmup + 1), vocab)], vocab)
        results = {layout: _run_layout(args, layout, data) for layout in args.layouts.split(",")}

    first = next(iter(results.values()))
    print(f"device: {first['device']}  model: {args.model}  seq {args.seq_len} x batch {args.micro_batch_size} per "
          f"data rank  steps/round {args.steps} (+{args.warmup} untimed)  rounds {args.rounds}")
    print(f"{'layout':<8}{'loop':<7}{'median tokens/s':>17}  rounds")
    for layout, result in results.items():
        for loop in ("ours", "plain"):
            values = result[loop]
            print(f"{layout:<8}{loop:<7}{statistics.median(values):>17,.0f}  {'  '.join(f'{v:,.0f}' for v in values)}")
    for layout, result in results.items():
        paired = statistics.median(o / p for o, p in zip(result["ours"], result["plain"]))
        print(f"ratio ours/plain {layout}: {statistics.median(result['ours']) / statistics.median(result['plain']):.3f}"
              f" (medians); {paired:.3f} (median of each round's ratio)")
    peak = peak_flops_for(first["device"])
    if first["kind"] == "cuda" and peak:
        token_flops = flops_per_token(build_model(args.model), args.seq_len)
        for layout, result in results.items():
            ranks = LAYOUTS[layout][0]
            print(f"MFU {layout} ours: {mfu(statistics.median(result['ours']) / ranks, token_flops, peak):.1%}  "
                  f"plain: {mfu(statistics.median(result['plain']) / ranks, token_flops, peak):.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
