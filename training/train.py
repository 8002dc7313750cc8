"""The trainer: ``torchrun --nproc_per_node N -m eks_training.training.train --data DIR [flags]``.

One loop for CPU (gloo), CUDA (nccl) and Neuron (xla), DDP or FSDP2. It resumes from the newest complete
checkpoint in ``--checkpoint-dir`` (restored from ``--s3-uri`` first when that folder is empty) and logs
``resumed from step N``. Metrics are JSON lines on stdout (or ``--metrics-file``) from rank 0.
Run with ``--help`` for the flags; ``--config FILE`` reads the source document's ``training:`` block.
"""

from __future__ import annotations

import contextlib
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, Sequence

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.distributed.tensor import DTensor
from torch.nn.parallel import DistributedDataParallel

from eks_training.training.checkpoint import Checkpointer, complete_steps
from eks_training.training.config import ConfigError, TrainConfig, invalid, parse_config
from eks_training.training.data import TokenDataset
from eks_training.training.device import Runtime, running, select_runtime
from eks_training.training.lora import apply_lora
from eks_training.training.metrics import MetricsLogger, mfu, peak_flops_for
from eks_training.training.model import build_model, flops_per_token, vocab_size_of
from eks_training.training.s3_sync import BackgroundUploader, S3CheckpointStore
from eks_training.training.schedule import build_scheduler

_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": None}


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
    upload_failures: list[tuple[str, str]] = field(default_factory=list)


def resolve_precision(config: TrainConfig, runtime: Runtime) -> str:
    """``auto`` is bf16 on accelerators and fp32 on CPU (CPU bf16 matmuls are slow)."""
    if config.precision != "auto":
        return config.precision
    return "fp32" if runtime.kind == "cpu" else "bf16"


def _shard_or_replicate(model: nn.Module, config: TrainConfig, runtime: Runtime, precision: str) -> nn.Module:
    if config.parallel == "fsdp":
        if runtime.kind == "xla":
            raise invalid("--parallel", "fsdp", "ddp on XLA/Neuron (torch_xla shards with its own FSDP)")
        if not runtime.distributed:
            raise invalid("--parallel", "fsdp", "ddp when not launched by torchrun (FSDP needs a process group)")
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

        mesh = init_device_mesh(runtime.kind, (runtime.world_size,), mesh_dim_names=("dp",))
        policy = MixedPrecisionPolicy(param_dtype=_DTYPES[precision], reduce_dtype=torch.float32)
        for block in model.blocks():
            fully_shard(block, mesh=mesh, mp_policy=policy)
        fully_shard(model, mesh=mesh, mp_policy=policy)
        return model
    # XLA all-reduces gradients itself (Runtime.reduce_gradients), so no DDP wrapper there.
    if runtime.distributed and runtime.kind != "xla":
        device_ids = [runtime.local_rank] if runtime.kind == "cuda" else None
        return DistributedDataParallel(model, device_ids=device_ids)
    return model


def _build_optimizer(model: nn.Module, config: TrainConfig, runtime: Runtime) -> torch.optim.AdamW:
    trainable = [p for p in model.parameters() if p.requires_grad]
    groups = [
        {"params": [p for p in trainable if p.dim() >= 2], "weight_decay": config.weight_decay},
        # Norm scales and biases are not decayed.
        {"params": [p for p in trainable if p.dim() < 2], "weight_decay": 0.0},
    ]
    fused = config.optimizer == "adamw_torch_fused" and runtime.kind == "cuda"
    return torch.optim.AdamW([g for g in groups if g["params"]], lr=config.lr, betas=(0.9, 0.95), fused=fused or None)


def _gradient_sync(model: nn.Module, enabled: bool) -> contextlib.AbstractContextManager:
    """Skip the gradient all-reduce on non-final micro-steps of an accumulation."""
    if isinstance(model, DistributedDataParallel):
        return contextlib.nullcontext() if enabled else model.no_sync()
    if hasattr(model, "set_requires_gradient_sync"):  # FSDP2
        model.set_requires_gradient_sync(enabled)
    return contextlib.nullcontext()


def _to_float(value: torch.Tensor) -> float:
    return float(value.full_tensor() if isinstance(value, DTensor) else value)


def _restore_from_s3(config: TrainConfig, runtime: Runtime, store: S3CheckpointStore | None) -> None:
    """On a fresh node (no complete local checkpoint), fetch the newest one from S3 before resuming."""
    if store is not None and runtime.local_rank == 0 and not complete_steps(config.checkpoint_dir):
        step = store.download_latest(config.checkpoint_dir)
        if step is not None:
            print(f"restored step-{step} from {config.s3_uri}", file=sys.stderr, flush=True)
    runtime.barrier()


def train(config: TrainConfig, runtime: Runtime, reporter: Reporter | None = None) -> TrainResult:
    """Run (or resume) training to ``config.max_steps``; the process group must already be joined."""
    precision = resolve_precision(config, runtime)
    torch.manual_seed(config.seed)  # identical initial weights on every rank
    model = build_model(config.model)
    seq_len = config.seq_len or min(2048, getattr(getattr(model, "args", None), "max_seq_len", 2048))
    dataset = TokenDataset(config.data, seq_len, config.micro_batch_size, runtime.rank, runtime.world_size,
                           config.seed)
    if dataset.vocab_size > vocab_size_of(model):
        raise invalid("--data", config.data, f"token ids below the model's vocab size {vocab_size_of(model)} "
                      f"(meta.json says vocab_size {dataset.vocab_size})")
    if config.lora_rank:
        apply_lora(model, config.lora_rank, config.lora_alpha, config.lora_dropout, config.lora_targets)
    if config.activation_checkpointing:
        model.enable_activation_checkpointing(runtime.checkpoint_fn(), 1 if config.ac_granularity == "full" else 2)
    token_flops = flops_per_token(model, seq_len)
    model.to(runtime.device)
    model = _shard_or_replicate(model, config, runtime, precision)
    # Under FSDP the mixed-precision policy casts parameters; elsewhere autocast does.
    autocast_dtype = None if config.parallel == "fsdp" else _DTYPES[precision]
    scaler = torch.amp.GradScaler(runtime.kind) if precision == "fp16" else None
    optimizer = _build_optimizer(model, config, runtime)
    scheduler = build_scheduler(optimizer, config.warmup_steps, config.max_steps, config.lr_scheduler,
                                config.min_lr_ratio)

    store = S3CheckpointStore(config.s3_uri) if config.s3_uri else None
    uploader = BackgroundUploader(store, config.keep_last) if store is not None and runtime.is_main else None
    checkpointer = None
    step, position, resumed_from = 0, 0, None
    if config.checkpoint_dir:
        checkpointer = Checkpointer(config.checkpoint_dir, config.keep_last, runtime.rank, runtime.barrier, uploader)
        _restore_from_s3(config, runtime, store)
        state = checkpointer.load_latest(model, optimizer)
        if state is not None:
            step, position, resumed_from = state["step"], state["data_position"], state["step"]
            scheduler.load_state_dict(state["scheduler"])
            if scaler is not None and "grad_scaler" in state:
                scaler.load_state_dict(state["grad_scaler"])

    stream = (open(config.metrics_file, "a") if config.metrics_file else sys.stdout) if runtime.is_main else None
    logger = MetricsLogger(stream, config.max_steps, progress=sys.stderr)
    if resumed_from is not None:
        if runtime.is_main:
            print(f"resumed from step {resumed_from}", file=sys.stderr, flush=True)
        logger.event(event="resumed", step=resumed_from)

    params = [p for p in model.parameters() if p.requires_grad]
    tokens_per_step = config.micro_batch_size * seq_len * config.grad_accum * runtime.world_size
    peak = config.peak_flops or peak_flops_for(runtime.peak_flops_name())
    result = TrainResult(model, optimizer, step, resumed_from)
    window_start, window_steps = time.perf_counter(), 0
    model.train()
    try:
        while step < config.max_steps:
            loss_sum = torch.zeros((), device=runtime.device)
            for micro in range(config.grad_accum):
                inputs, targets = (t.to(runtime.device) for t in dataset.batch(position))
                position += 1
                with _gradient_sync(model, micro == config.grad_accum - 1), runtime.autocast(autocast_dtype):
                    logits = model(inputs)
                loss = F.cross_entropy(logits.float().flatten(0, 1), targets.flatten()) / config.grad_accum
                (scaler.scale(loss) if scaler is not None else loss).backward()
                loss_sum += loss.detach()
            runtime.reduce_gradients(optimizer)
            if scaler is not None:
                scaler.unscale_(optimizer)
            grad_norm = torch.nn.utils.clip_grad_norm_(params, config.grad_clip if config.grad_clip > 0 else float("inf"))
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

            record = None
            if step % config.log_every == 0 or step == config.max_steps:
                # The only host reads of the step: on XLA this is where the graph runs.
                if runtime.distributed:
                    dist.all_reduce(loss_sum, op=dist.ReduceOp.AVG)
                elapsed = time.perf_counter() - window_start
                tokens_per_second = tokens_per_step * window_steps / elapsed
                record = {"step": step, "loss": loss_sum.item(), "lr": learning_rate,
                          "grad_norm": _to_float(grad_norm), "tokens_per_s": tokens_per_second,
                          "mfu": mfu(tokens_per_second / runtime.world_size, token_flops, peak)}
                result.losses[step] = record["loss"]
                logger.event(**record)
            folder = None
            if checkpointer is not None and (step % config.checkpoint_every == 0 or step == config.max_steps):
                trainer_state = {"step": step, "data_position": position, "scheduler": scheduler.state_dict()}
                if scaler is not None:
                    trainer_state["grad_scaler"] = scaler.state_dict()
                save_started = time.perf_counter()
                folder = checkpointer.save(step, model, optimizer, trainer_state)
                window_start += time.perf_counter() - save_started  # saving is not training throughput
            if reporter is not None and (record is not None or folder is not None):
                reporter.report(record or {"step": step}, folder)
            if record is not None:
                window_start, window_steps = time.perf_counter(), 0
    finally:
        if uploader is not None:
            uploader.close()
            result.upload_failures = list(uploader.failed)
        logger.close()
    result.final_step = step
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; user errors print one line and exit 2."""
    try:
        config = parse_config(argv)
        with running(select_runtime(config.device)) as runtime:
            result = train(config, runtime)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if result.upload_failures:
        names = ", ".join(name for name, _ in result.upload_failures)
        print(f"error: checkpoint upload to S3 failed for {names}: {result.upload_failures[0][1]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
