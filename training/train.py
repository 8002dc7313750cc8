"""The trainer: ``torchrun --nproc_per_node N -m eks_training.training.train --data DIR [flags]``.

One loop for CPU (gloo), CUDA (nccl) and Neuron (xla), DDP, FSDP2 or HSDP. It resumes from the newest
complete checkpoint in ``--checkpoint-dir`` (restored from ``--s3-uri`` first when that folder is empty) and
logs ``resumed from step N``; the data position is the number of samples the job has consumed, so a resume
on another world size or micro-batch size continues the same sample order. Metrics are strict JSON lines on
stdout (or ``--metrics-file``) from rank 0. Exit codes: 0 done, 1 a checkpoint upload failed, 2 a bad
flag, 3 training diverged (NaN/inf, or too many loss spikes), 4 the run could not exit cleanly in time.
Run with ``--help`` for the flags; ``--config FILE`` reads the source document's ``training:`` block.
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, Sequence

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.tensor import DTensor
from torch.nn.parallel import DistributedDataParallel

from eks_training.training.checkpoint import Checkpointer, complete_steps
from eks_training.training.config import ConfigError, TrainConfig, invalid, parse_config
from eks_training.training.data import TokenDataset
from eks_training.training.device import Runtime, ShutdownError, running, select_runtime
from eks_training.training.evaluate import Evaluator
from eks_training.training.guard import DivergenceGuard, TrainingDiverged
from eks_training.training.lora import lora_settings
from eks_training.training.metrics import MetricsLogger, mfu, peak_flops_for
from eks_training.training.model import default_seq_len, vocab_size_of
from eks_training.training.parallel import DTYPES, build_for_training, resolve_switch
from eks_training.training.profiling import StepProfiler
from eks_training.training.s3_sync import BackgroundUploader, S3CheckpointStore
from eks_training.training.schedule import build_scheduler
from eks_training.training.shutdown import EXIT_DIVERGED, EXIT_HUNG, ExitWatchdog, exit_now
from eks_training.training.telemetry import open_sinks

_DTYPES = DTYPES  # kept for callers of the earlier name (benchmarks)


class Reporter(Protocol):
    """Receives each logged record, with the checkpoint folder when one was saved at that step (Ray Train)."""

    def report(self, metrics: dict[str, Any], checkpoint_folder: Path | None) -> None: ...


@dataclass
class TrainResult:
    """What a finished run leaves behind."""

    model: nn.Module
    optimizer: torch.optim.Optimizer
    final_step: int
    resumed_from: int | None
    losses: dict[int, float] = field(default_factory=dict)
    evals: dict[int, dict[str, float]] = field(default_factory=dict)
    samples_consumed: int = 0
    upload_failures: list[tuple[str, str]] = field(default_factory=list)


def resolve_precision(config: TrainConfig, runtime: Runtime) -> str:
    """``auto`` is bf16 on accelerators and fp32 on CPU (CPU bf16 matmuls are slow)."""
    if config.precision != "auto":
        return config.precision
    return "fp32" if runtime.kind == "cpu" else "bf16"


def _build_optimizer(model: nn.Module, config: TrainConfig, runtime: Runtime) -> torch.optim.AdamW:
    trainable = [p for p in model.parameters() if p.requires_grad]
    groups = [
        {"params": [p for p in trainable if p.dim() >= 2], "weight_decay": config.weight_decay},
        # Norm scales and biases are not decayed.
        {"params": [p for p in trainable if p.dim() < 2], "weight_decay": 0.0},
    ]
    # One fused kernel per parameter group instead of a launch per tensor: on CUDA for every AdamW choice.
    fused = runtime.kind == "cuda"
    return torch.optim.AdamW([g for g in groups if g["params"]], lr=config.lr, betas=(0.9, 0.95), fused=fused or None)


def _gradient_sync(model: nn.Module, enabled: bool) -> contextlib.AbstractContextManager:
    """Skip the gradient all-reduce on non-final micro-steps of an accumulation."""
    if isinstance(model, DistributedDataParallel):
        return contextlib.nullcontext() if enabled else model.no_sync()
    if hasattr(model, "set_requires_gradient_sync"):  # FSDP2
        model.set_requires_gradient_sync(enabled)
    return contextlib.nullcontext()


def _global(value: torch.Tensor) -> torch.Tensor:
    return value.full_tensor() if isinstance(value, DTensor) else value


def _restore_from_s3(config: TrainConfig, runtime: Runtime, store: S3CheckpointStore | None) -> None:
    """On a fresh node (no complete local checkpoint), fetch the newest one from S3 before resuming."""
    if store is not None and runtime.local_rank == 0 and not complete_steps(config.checkpoint_dir):
        step = store.download_latest(config.checkpoint_dir)
        if step is not None:
            print(f"restored step-{step} from {config.s3_uri}", file=sys.stderr, flush=True)
    runtime.barrier()


def _samples_consumed(state: dict[str, Any], samples_per_micro_step: int) -> int:
    """The global data position of a checkpoint. Checkpoints written before it was global hold micro-steps
    per rank, which only the saving job's world size and micro-batch size can convert (assumed unchanged)."""
    if "samples_consumed" in state:
        return int(state["samples_consumed"])
    return int(state["data_position"]) * samples_per_micro_step


def train(config: TrainConfig, runtime: Runtime, reporter: Reporter | None = None,
          watchdog: ExitWatchdog | None = None, compile_backend: str = "inductor") -> TrainResult:
    """Run (or resume) training to ``config.max_steps``; the process group must already be joined.

    ``watchdog`` (the command line's) is armed after the last step, bounding the final writes and uploads.
    """
    precision = resolve_precision(config, runtime)
    seq_len = config.seq_len or default_seq_len(config.model)
    built = build_for_training(config, runtime, precision, seq_len, compile_backend)
    model = built.model
    dataset = TokenDataset(config.data, seq_len, config.micro_batch_size, runtime.rank, runtime.world_size,
                           config.seed)
    if dataset.vocab_size > vocab_size_of(built.inner):
        raise invalid("--data", config.data, f"token ids below the model's vocab size {vocab_size_of(built.inner)} "
                      f"(meta.json says vocab_size {dataset.vocab_size})")
    evaluator = (Evaluator(config.eval_data, seq_len, config.micro_batch_size, runtime, config.eval_batches)
                 if config.eval_data else None)
    # Under FSDP the mixed-precision policy casts parameters; elsewhere autocast does.
    autocast_dtype = None if config.parallel == "fsdp" else DTYPES[precision]
    scaler = torch.amp.GradScaler(runtime.kind) if precision == "fp16" else None
    optimizer = _build_optimizer(model, config, runtime)
    scheduler = build_scheduler(optimizer, config.warmup_steps, config.max_steps, config.lr_scheduler,
                                config.min_lr_ratio)

    store = S3CheckpointStore(config.s3_uri) if config.s3_uri else None
    uploader = BackgroundUploader(store, config.keep_last) if store is not None and runtime.is_main else None
    checkpointer = None
    step, consumed, resumed_from = 0, 0, None
    if config.checkpoint_dir:
        checkpointer = Checkpointer(config.checkpoint_dir, config.keep_last, runtime.rank, runtime.barrier, uploader,
                                    adapters_only=config.lora_rank > 0,
                                    async_save=resolve_switch(config.async_checkpoint, runtime))
        _restore_from_s3(config, runtime, store)
        state = checkpointer.load_latest(model, optimizer)
        if state is not None:
            step, resumed_from = state["step"], state["step"]
            consumed = _samples_consumed(state, dataset.samples_per_micro_step)
            scheduler.load_state_dict(state["scheduler"])
            if scaler is not None and "grad_scaler" in state:
                scaler.load_state_dict(state["grad_scaler"])

    stream = (open(config.metrics_file, "a") if config.metrics_file else sys.stdout) if runtime.is_main else None
    # Rank 0 also hands each record to the telemetry sinks (--emf, --emf-endpoint, --tensorboard-dir).
    logger = MetricsLogger(stream, config.max_steps, progress=sys.stderr,
                           sinks=open_sinks(config) if runtime.is_main else ())
    if resumed_from is not None:
        if runtime.is_main:
            print(f"resumed from step {resumed_from}", file=sys.stderr, flush=True)
        logger.event(event="resumed", step=resumed_from, samples_consumed=consumed)

    params = [p for p in model.parameters() if p.requires_grad]
    tokens_per_step = dataset.samples_per_micro_step * seq_len * config.grad_accum
    peak = config.peak_flops or peak_flops_for(runtime.peak_flops_name())
    guard = DivergenceGuard(config.loss_spike_factor, config.max_loss_spikes)
    profiler = StepProfiler(config.profile, config.profile_dir, runtime.rank, runtime.kind)
    lora = lora_settings(built.inner)
    result = TrainResult(model, optimizer, step, resumed_from)
    window_start, window_steps = time.perf_counter(), 0
    finished = False
    model.train()
    try:
        while step < config.max_steps:
            profiler.before_step(step + 1)
            loss_sum = None
            for micro in range(config.grad_accum):
                inputs, targets = (t.to(runtime.device) for t in dataset.batch_at(consumed))
                consumed += dataset.samples_per_micro_step
                with _gradient_sync(model, micro == config.grad_accum - 1), runtime.autocast(autocast_dtype):
                    loss = model(inputs, targets) / config.grad_accum
                (scaler.scale(loss) if scaler is not None else loss).backward()
                loss_sum = loss.detach() if loss_sum is None else loss_sum + loss.detach()
            runtime.reduce_gradients(optimizer)
            if scaler is not None:
                scaler.unscale_(optimizer)
            grad_norm = torch.nn.utils.clip_grad_norm_(params, config.grad_clip if config.grad_clip > 0 else float("inf"))
            # The norm is global (after the gradient all-reduce), so every rank reaches the same verdict.
            if scaler is None:  # with fp16 the scaler skips overflowing steps itself
                guard.observe(_global(grad_norm))
            learning_rate = scheduler.get_last_lr()[0]
            if scaler is not None:
                scaler.step(optimizer)
                scaler.update()
                runtime.mark_step()
            else:
                runtime.optimizer_step(optimizer)
            optimizer.zero_grad(set_to_none=True)
            scheduler.step()
            step += 1
            window_steps += 1
            last = step == config.max_steps

            record = None
            if step % config.log_every == 0 or last:
                # The only host reads of the step: on XLA this is where the graph runs.
                if runtime.distributed:
                    dist.all_reduce(loss_sum, op=dist.ReduceOp.AVG)
                guard.observe(loss_sum)
                loss_value, norm_value = loss_sum.item(), float(_global(grad_norm))
                runtime.synchronize()  # the clock stops when the device is done, not when work is queued
                elapsed = time.perf_counter() - window_start
                tokens_per_second = tokens_per_step * window_steps / elapsed
                record = {"step": step, "loss": loss_value, "lr": learning_rate, "grad_norm": norm_value,
                          "tokens_per_s": tokens_per_second, "samples_consumed": consumed,
                          "mfu": mfu(tokens_per_second / runtime.world_size, built.token_flops, peak)}
                result.losses[step] = loss_value
                logger.event(**record)
                guard.raise_if_diverged(step)
                spike = guard.spike(loss_value)
                if spike is not None:
                    logger.event(event="loss_spike", step=step, **spike)
                    if runtime.is_main:
                        print(f"warning: loss spike at step {step}: {spike['loss']:.4g} is {spike['factor']:.1f}x "
                              f"the recent mean", file=sys.stderr, flush=True)
                    if guard.too_many_spikes:
                        raise TrainingDiverged(f"training diverged at step {step}: {guard.consecutive_spikes} "
                                               f"loss spikes in a row (--max-loss-spikes {config.max_loss_spikes})")
            save_now = checkpointer is not None and (step % config.checkpoint_every == 0 or last)
            eval_now = evaluator is not None and (last or (config.eval_every and step % config.eval_every == 0))
            folders: list[Path] = []
            if save_now or eval_now:
                guard.raise_if_diverged(step)  # a diverged model is neither evaluated nor saved
                runtime.synchronize()  # queued training work belongs to the training window, not the pause
                paused = time.perf_counter()
                if eval_now:
                    metrics = evaluator.evaluate(model, autocast_dtype)
                    result.evals[step] = metrics
                    logger.event(event="eval", step=step, **metrics)
                if save_now:
                    trainer_state = {"step": step, "samples_consumed": consumed, "scheduler": scheduler.state_dict(),
                                     "model": config.model, "seed": config.seed, "lora": lora}
                    if scaler is not None:
                        trainer_state["grad_scaler"] = scaler.state_dict()
                    folders = checkpointer.save(step, model, optimizer, trainer_state)
                window_start += time.perf_counter() - paused  # evaluating and saving are not training throughput
            if reporter is not None and (record is not None or folders):
                reporter.report(record or {"step": step}, folders[-1] if folders else None)
            if record is not None:
                window_start, window_steps = time.perf_counter(), 0
            profiler.after_step(step)
        finished = True
    except TrainingDiverged as error:
        logger.event(event="diverged", step=step, reason=str(error))
        raise
    finally:
        if watchdog is not None:
            watchdog.arm("the final checkpoint write" if finished else "cleanup after an error")
        profiler.close()
        try:
            if finished and checkpointer is not None:
                folder = checkpointer.finish()
                if folder is not None and reporter is not None:
                    reporter.report({"step": step}, folder)
        finally:
            if uploader is not None:
                if watchdog is not None:
                    watchdog.waiting_for("the S3 upload queue")
                uploader.close(timeout=watchdog.remaining() if watchdog is not None else None)
                result.upload_failures = list(uploader.failed)
            logger.close()
            if watchdog is not None:
                watchdog.waiting_for("the caller of train() to leave the run")
    result.final_step, result.samples_consumed = step, consumed
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; user errors print one line and exit 2 (see the module docstring for the others)."""
    try:
        config = parse_config(argv)
        watchdog = ExitWatchdog(config.exit_timeout, rank=int(os.environ.get("RANK", "0")))
        with running(select_runtime(config.device), watchdog) as runtime:
            result = train(config, runtime, watchdog=watchdog)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except TrainingDiverged as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_DIVERGED
    except ShutdownError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_HUNG
    if result.upload_failures:
        names = ", ".join(name for name, _ in result.upload_failures)
        print(f"error: checkpoint upload to S3 failed for {names}: {result.upload_failures[0][1]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    if hasattr(faulthandler, "register"):
        # `kill -USR1 <pid>` prints every thread's stack (benchmarks/soak_exit.py uses it on a hung rank).
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    exit_now(main())
