"""The :class:`Trainer`: one object that owns a run's model, optimizer, schedule, data position and progress.

:meth:`Trainer.train_step` is one optimizer step, :meth:`Trainer.evaluate` one held-out evaluation, and
:meth:`Trainer.fit` the loop around them (logging, evaluation and checkpoint cadence, divergence checks, the
bounded shutdown). Everything a checkpoint restores is handed to the :class:`Checkpointer` once, here, so a
resumed trainer continues exactly where the saved one was.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Protocol, Sequence

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.tensor import DTensor
from torch.nn.parallel import DistributedDataParallel

from eks_training.training.checkpoint import Checkpointer, Stateful, complete_steps
from eks_training.training.config import TrainConfig, invalid
from eks_training.training.data import TokenDataset
from eks_training.training.data_iterator import Batch, DataIterator
from eks_training.training.device import Runtime
from eks_training.training.evaluate import Evaluator
from eks_training.training.goodput import GoodputMeter
from eks_training.training.guard import DivergenceGuard, TrainingDiverged
from eks_training.training.lora import lora_settings
from eks_training.training.memory import PeakMemory
from eks_training.training.mesh import clip_gradients_
from eks_training.training.metrics import MetricsLogger, mfu, peak_flops_for
from eks_training.training.model import LlamaDecoder, default_seq_len, vocab_size_of
from eks_training.training.moe import expert_parallel_grad_norm, expert_parameters, settle_expert_gradients
from eks_training.training.parallel import DTYPES, BuiltModel, build_for_training, resolve_switch
from eks_training.training.preemption import StopRequest
from eks_training.training.profiling import StepProfiler
from eks_training.training.safe_load import load_rank_state
from eks_training.training.s3_sync import BackgroundUploader, S3CheckpointStore
from eks_training.training.schedule import build_scheduler
from eks_training.training.shutdown import ExitWatchdog
from eks_training.training.telemetry import open_sinks
from eks_training.training.train_state import RNGState, TrainState


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
    #: Stopped on request (SIGTERM) after saving ``final_step``: the process exits "resume", not "done".
    stopped: bool = False


@dataclass
class StepOutput:
    """One optimizer step's results, left on the device: reading them forces a sync (a graph run on XLA),
    so :meth:`Trainer.fit` reads them only at logging steps."""

    step: int
    # The mean over the step's micro-batches: this rank's, until fit() averages it over ranks (in place)
    # at a logging step.
    loss: torch.Tensor
    grad_norm: torch.Tensor  # global: taken after the gradient all-reduce
    lr: float  # the rate this step used


def resolve_precision(config: TrainConfig, runtime: Runtime) -> str:
    """``auto`` is bf16 on accelerators and fp32 on CPU (CPU bf16 matmuls are slow)."""
    if config.precision != "auto":
        return config.precision
    return "fp32" if runtime.kind == "cpu" else "bf16"


def prepare_metrics_file(path: str) -> None:
    """Create ``--metrics-file``'s folder; on every rank, so a bad path is one line and exit 2 everywhere rather
    than rank 0's traceback at the first record and its peers' failed collectives."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_dir():
            raise IsADirectoryError(21, "a folder, not a file")
        if not os.access(target.parent, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
            raise PermissionError(13, "not writable")
    except OSError as error:
        raise invalid("--metrics-file", path, f"a file path in a folder this process can create and write "
                      f"({error.strerror})") from None


def build_optimizer(model: nn.Module, config: TrainConfig, runtime: Runtime) -> torch.optim.AdamW:
    trainable = [p for p in model.parameters() if p.requires_grad]
    groups = [
        {"params": [p for p in trainable if p.dim() >= 2], "weight_decay": config.weight_decay},
        # Norm scales and biases are not decayed.
        {"params": [p for p in trainable if p.dim() < 2], "weight_decay": 0.0},
    ]
    # One fused kernel per parameter group instead of a launch per tensor: on CUDA for every AdamW choice.
    fused = runtime.kind == "cuda"
    return torch.optim.AdamW([g for g in groups if g["params"]], lr=config.lr, betas=(0.9, 0.95), fused=fused or None)


def enable_document_masking(config: TrainConfig, document_end: int | None, built: BuiltModel) -> bool:
    """Keep attention inside each packed document (``--document-masking``); returns whether it is on."""
    switch = config.document_masking
    if switch == "false":
        return False
    if document_end is None:
        if switch == "true":
            raise invalid("--document-masking", switch, "auto or false for --data whose meta.json names no "
                          "end-of-document token (eod_token_id, as data prep writes it)")
        return False
    decoders = built.pipeline.parts if built.pipeline is not None else [built.inner]
    if not all(isinstance(decoder, LlamaDecoder) for decoder in decoders):
        if switch == "true":
            raise invalid("--document-masking", switch, f"auto or false for {config.model} (a model run through "
                          "transformers attends across documents; the built-in decoder masks them)")
        return False
    for decoder in decoders:
        decoder.document_end = document_end
    return True


def gradient_sync(model: nn.Module, enabled: bool) -> contextlib.AbstractContextManager:
    """Skip the gradient all-reduce on non-final micro-steps of an accumulation."""
    if isinstance(model, DistributedDataParallel):
        return contextlib.nullcontext() if enabled else model.no_sync()
    if hasattr(model, "set_requires_gradient_sync"):  # FSDP2
        model.set_requires_gradient_sync(enabled)
    return contextlib.nullcontext()


def _global(value: torch.Tensor) -> torch.Tensor:
    return value.full_tensor() if isinstance(value, DTensor) else value


class _ThroughputWindow:
    """Training time since the last logged step; evaluation and checkpoint pauses are cut out of it."""

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime
        self.restart()

    def restart(self) -> None:
        self.started, self.steps = time.perf_counter(), 0

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        self._runtime.synchronize()  # queued training work belongs to the training window, not the pause
        paused = time.perf_counter()
        yield
        self.started += time.perf_counter() - paused


class Trainer:
    """A run built from its configuration; the process group must already be joined.

    ``watchdog`` (the command line's) is armed after the last step, bounding the final writes and uploads.
    ``stop`` (the command line's SIGTERM handler) ends the run early at a step boundary, after a checkpoint.
    """

    def __init__(self, config: TrainConfig, runtime: Runtime, reporter: Reporter | None = None, *,
                 watchdog: ExitWatchdog | None = None, compile_backend: str = "inductor",
                 stop: StopRequest | None = None) -> None:
        self.config, self.runtime, self.reporter, self.watchdog = config, runtime, reporter, watchdog
        self.stop = stop
        if config.metrics_file:
            prepare_metrics_file(config.metrics_file)
        self.precision = resolve_precision(config, runtime)
        self.seq_len = config.seq_len or default_seq_len(config.model)
        built = build_for_training(config, runtime, self.precision, self.seq_len, compile_backend)
        self.model, self.token_flops = built.model, built.token_flops
        self.mesh, self.pipeline = built.mesh, built.pipeline
        # Samples are split over the data-parallel ranks; a rank's tensor and pipeline peers read the same ones.
        dataset = TokenDataset(config.data, self.seq_len, config.micro_batch_size, self.mesh.data_rank,
                               self.mesh.data_size, config.seed)
        if dataset.vocab_size > vocab_size_of(built.inner):
            raise invalid("--data", config.data, f"token ids below the model's vocab size "
                          f"{vocab_size_of(built.inner)} (meta.json says vocab_size {dataset.vocab_size})")
        self.data = DataIterator(dataset)
        self.document_masking = enable_document_masking(config, dataset.document_end, built)
        self.evaluator = (Evaluator(config.eval_data, self.seq_len, config.micro_batch_size, runtime,
                                    config.eval_batches, self.mesh, self.pipeline) if config.eval_data else None)
        # Under FSDP the mixed-precision policy casts parameters; elsewhere autocast does.
        self.autocast_dtype = None if config.parallel == "fsdp" else DTYPES[self.precision]
        self.scaler = torch.amp.GradScaler(runtime.kind) if self.precision == "fp16" else None
        self.optimizer = build_optimizer(self.model, config, runtime)
        self.scheduler = build_scheduler(self.optimizer, config.warmup_steps, config.max_steps,
                                         config.lr_scheduler, config.min_lr_ratio)
        self.state = TrainState(model=config.model, seed=config.seed, lora=lora_settings(built.inner),
                                data=config.data, dataset=dataset.fingerprint, seq_len=self.seq_len,
                                vocab_size=vocab_size_of(built.inner))
        self.guard = DivergenceGuard(config.loss_spike_factor, config.max_loss_spikes)
        self._params = [p for p in self.model.parameters() if p.requires_grad]
        # Under expert parallelism each rank's experts are its own (not DDP's): settled and normed by hand.
        self._experts = expert_parameters(built.inner) if self.mesh.layout.expert > 1 else []
        self.tokens_per_step = dataset.samples_per_micro_step * self.seq_len * config.grad_accum
        self.peak_flops = config.peak_flops or peak_flops_for(runtime.peak_flops_name())
        self.store = S3CheckpointStore(config.s3_uri) if config.s3_uri else None
        self.uploader = (BackgroundUploader(self.store, config.keep_last)
                         if self.store is not None and runtime.is_main else None)
        self.checkpointer = self._build_checkpointer() if config.checkpoint_dir else None
        # A dispatch mode counts CPU tensors; compiled blocks are left to run unobserved.
        self.memory = PeakMemory(runtime.device, enabled=not built.compiled)
        # Nodes: torchrun starts LOCAL_WORLD_SIZE ranks on each; the instance type is the pod's (INSTANCE_TYPE).
        self.goodput = GoodputMeter(config.checkpoint_dir, instance_type=os.environ.get("INSTANCE_TYPE") or None,
                                    nodes=max(1, runtime.world_size // int(os.environ.get("LOCAL_WORLD_SIZE") or 1)),
                                    write=runtime.is_main)
        self.model.train()
        if self.pipeline is not None:
            self.pipeline.train()

    def _build_checkpointer(self) -> Checkpointer:
        config, runtime = self.config, self.runtime
        states: dict[str, Stateful] = {"scheduler": self.scheduler, "rng": RNGState()}
        if self.scaler is not None:
            states["grad_scaler"] = self.scaler
        return Checkpointer(config.checkpoint_dir, config.keep_last, self.model, self.optimizer, states=states,
                            progress=(self.state, self.data), rank=runtime.rank, barrier=runtime.barrier,
                            uploader=self.uploader, adapters_only=config.lora_rank > 0,
                            async_save=resolve_switch(config.async_checkpoint, runtime),
                            group_timeout=config.collective_timeout)

    @property
    def tokens_consumed(self) -> int:
        """Training tokens the whole job has consumed (targets; each sample predicts ``seq_len`` of them)."""
        return self.data.samples_consumed * self.seq_len

    def restore(self) -> int | None:
        """Resume from the newest complete checkpoint (fetched from S3 first on a fresh node); returns its step."""
        if self.checkpointer is None:
            return None
        config, runtime = self.config, self.runtime
        if self.store is not None and runtime.local_rank == 0 and not complete_steps(config.checkpoint_dir):
            step = self.store.download_latest(config.checkpoint_dir)
            if step is not None:
                print(f"restored step-{step} from {config.s3_uri}", file=sys.stderr, flush=True)
        runtime.barrier()  # no rank reads the folder before the download is done
        latest = self.checkpointer.latest()
        if latest is None:
            return None
        folder = self.checkpointer.folder(latest)
        self.state.refuse_other_run(load_rank_state(folder / "trainer-rank-0.pt"), folder)
        return self.checkpointer.load(latest)

    def _forward_backward(self, micro_batches: Sequence[Batch]) -> torch.Tensor:
        """Gradients of the mean loss over ``micro_batches`` (accumulated; the data-parallel reduction once, at the
        last one); returns that mean loss (zero on ranks without the last pipeline stage)."""
        runtime, scaler = self.runtime, self.scaler
        if self.pipeline is not None:  # the micro-batches are the pipeline's microbatches
            inputs, targets = (torch.cat(column).to(runtime.device) for column in zip(*micro_batches))
            with runtime.autocast(self.autocast_dtype):
                return self.pipeline.step(inputs, targets)
        count = len(micro_batches)
        loss_sum = None
        for index, batch in enumerate(micro_batches):
            inputs, targets = (t.to(runtime.device) for t in batch)
            with gradient_sync(self.model, index == count - 1), runtime.autocast(self.autocast_dtype):
                loss = self.model(inputs, targets) / count
            (scaler.scale(loss) if scaler is not None else loss).backward()
            loss_sum = loss.detach() if loss_sum is None else loss_sum + loss.detach()
        return loss_sum

    def _clip(self) -> torch.Tensor:
        """Clip to ``--grad-clip`` by the global norm, which it returns (over every shard and pipeline stage)."""
        clip = self.config.grad_clip if self.config.grad_clip > 0 else float("inf")
        if self._experts:
            norm = expert_parallel_grad_norm(self._params, self._experts, self.mesh.expert_group)
            clip_gradients_(self._params, clip, norm)
            return norm
        if self.mesh.layout.is_data_parallel_only:
            return torch.nn.utils.clip_grad_norm_(self._params, clip)
        norm = self.mesh.grad_norm(self._params)
        clip_gradients_(self._params, clip, norm)
        return norm

    def train_step(self, micro_batches: Sequence[Batch]) -> StepOutput:
        """One optimizer step over ``micro_batches`` (gradients accumulated, all-reduced once at the end)."""
        runtime, scaler, optimizer = self.runtime, self.scaler, self.optimizer
        loss_sum = self._forward_backward(micro_batches)
        if self._experts:
            settle_expert_gradients(self._experts, self.mesh.expert_replica_group, self.mesh.data_size)
        if not self.mesh.layout.is_data_parallel_only:
            self.mesh.settle_gradients(self._params)
        if self.mesh.replicates_by_hand:
            self.mesh.all_reduce_gradients(self._params)
        runtime.reduce_gradients(optimizer)
        if scaler is not None:
            scaler.unscale_(optimizer)
        grad_norm = self._clip()
        # The norm is global (after the gradient all-reduce), so every rank reaches the same verdict.
        if scaler is None:  # with fp16 the scaler skips overflowing steps itself
            self.guard.observe(_global(grad_norm))
        learning_rate = self.scheduler.get_last_lr()[0]
        if scaler is not None:
            scaler.step(optimizer)
            scaler.update()
            runtime.mark_step()
        else:
            runtime.optimizer_step(optimizer)
        optimizer.zero_grad(set_to_none=True)
        self.scheduler.step()
        self.state.step += 1
        return StepOutput(self.state.step, loss_sum, grad_norm, learning_rate)

    def evaluate(self) -> dict[str, float] | None:
        """Held-out loss and perplexity (``--eval-data``), or None when the run has no evaluation set."""
        if self.evaluator is None:
            return None
        return self.evaluator.evaluate(self.model, self.autocast_dtype)

    def fit(self) -> TrainResult:
        """Run (or resume) training to ``--max-steps``."""
        config, runtime = self.config, self.runtime
        resumed_from = self.restore()
        stream = (open(config.metrics_file, "a") if config.metrics_file else sys.stdout) if runtime.is_main else None
        # Rank 0 also hands each record to the telemetry sinks (--emf, --emf-endpoint, --tensorboard-dir).
        logger = MetricsLogger(stream, config.max_steps, progress=sys.stderr,
                               sinks=open_sinks(config) if runtime.is_main else ())
        if resumed_from is not None and resumed_from >= config.max_steps:
            # Nothing to train: say so rather than log a resume and report a finished run of zero steps.
            if runtime.is_main:
                print(f"already complete: {self.checkpointer.folder(resumed_from)} is at step {resumed_from} and "
                      f"--max-steps is {config.max_steps}; nothing to train (raise --max-steps to train further)",
                      file=sys.stderr, flush=True)
            logger.event(event="already_complete", step=resumed_from, max_steps=config.max_steps)
        elif resumed_from is not None:
            if runtime.is_main:
                print(f"resumed from step {resumed_from}", file=sys.stderr, flush=True)
            logger.event(event="resumed", step=resumed_from, samples_consumed=self.data.samples_consumed)
        profiler = StepProfiler(config.profile, config.profile_dir, runtime.rank, runtime.kind)
        result = TrainResult(self.model, self.optimizer, self.state.step, resumed_from)
        window = _ThroughputWindow(runtime)
        finished = False
        self.goodput.training_starts()
        try:
            while self.state.step < config.max_steps:
                profiler.before_step(self.state.step + 1)
                with self.memory.step(self.model, self.optimizer):
                    output = self.train_step(self.data.take(config.grad_accum))
                window.steps += 1
                step, last = output.step, output.step == config.max_steps
                record = None
                if step % config.log_every == 0 or last:
                    record = self._log(output, window, logger)
                    result.losses[step] = record["loss"]
                self.goodput.step_done(step)
                self.goodput.save()
                stopping = not last and self._stop_agreed(record is not None)
                if stopping and self.watchdog is not None:
                    self.watchdog.arm(f"the checkpoint of step {step} on SIGTERM")
                folders = self._evaluate_and_save(step, last, window, logger, result, stopping)
                if self.reporter is not None and (record is not None or folders):
                    self.reporter.report(record or {"step": step}, folders[-1] if folders else None)
                if record is not None:
                    window.restart()
                profiler.after_step(step)
                if stopping:
                    result.stopped = True
                    self._announce_stop(step, logger)
                    break
            finished = True
        except TrainingDiverged as error:
            logger.event(event="diverged", step=self.state.step, reason=str(error))
            raise
        finally:
            self._shut_down(finished, profiler, logger, result)
        result.final_step, result.samples_consumed = self.state.step, self.data.samples_consumed
        return result

    def _stop_agreed(self, logged: bool) -> bool:
        """Whether any rank was asked to stop; checked by every rank after every step (on XLA, where a host read
        runs the graph, only at logging steps)."""
        if self.stop is None or not (logged or self.runtime.reads_host_every_step):
            return False
        return self.stop.agreed(self.runtime.device, self.runtime.distributed)

    def _announce_stop(self, step: int, logger: MetricsLogger) -> None:
        saved = self.checkpointer is not None
        logger.event(event="stopped", step=step, signal="SIGTERM", checkpoint_saved=saved)
        if self.runtime.is_main:
            where = f"saved {self.checkpointer.folder(step)}" if saved else "no --checkpoint-dir: nothing saved"
            print(f"stopped on SIGTERM after step {step}: {where}; the next start resumes there",
                  file=sys.stderr, flush=True)

    def _log(self, output: StepOutput, window: _ThroughputWindow, logger: MetricsLogger) -> dict[str, Any]:
        """The logging step's record; the only host reads of a step (on XLA this is where the graph runs)."""
        runtime, step = self.runtime, output.step
        if runtime.distributed:
            holder = self.mesh.is_loss_holder(self.pipeline is None or self.pipeline.has_last)
            output.loss = self.mesh.sum_over_data(output.loss, holder) / self.mesh.data_size
        self.guard.observe(output.loss)
        loss_value, norm_value = output.loss.item(), float(_global(output.grad_norm))
        runtime.synchronize()  # the clock stops when the device is done, not when work is queued
        tokens_per_second = self.tokens_per_step * window.steps / window.elapsed()
        record = {"step": step, "loss": loss_value, "lr": output.lr, "grad_norm": norm_value,
                  "tokens_per_s": tokens_per_second, "samples_consumed": self.data.samples_consumed,
                  "mfu": mfu(tokens_per_second / runtime.world_size, self.token_flops, self.peak_flops),
                  "peak_memory_mib": self._peak_memory()}
        logger.event(**record)
        self.guard.raise_if_diverged(step)
        spike = self.guard.spike(loss_value)
        if spike is not None:
            logger.event(event="loss_spike", step=step, **spike)
            if runtime.is_main:
                print(f"warning: loss spike at step {step}: {spike['loss']:.4g} is {spike['factor']:.1f}x "
                      f"the recent mean", file=sys.stderr, flush=True)
            if self.guard.too_many_spikes:
                raise TrainingDiverged(f"training diverged at step {step}: {self.guard.consecutive_spikes} loss "
                                       f"spikes in a row (--max-loss-spikes {self.config.max_loss_spikes})")
        return record

    def _peak_memory(self) -> float | None:
        """The largest rank's peak tensor memory in MiB (pipeline stages and shards differ): what runs out first."""
        peak = self.memory.peak_mib
        if peak is None or not self.runtime.distributed:
            return peak
        value = torch.tensor(peak, dtype=torch.float64, device=self.runtime.device)
        dist.all_reduce(value, op=dist.ReduceOp.MAX)
        return value.item()

    def _evaluate_and_save(self, step: int, last: bool, window: _ThroughputWindow, logger: MetricsLogger,
                           result: TrainResult, stopping: bool = False) -> list[Path]:
        """Evaluate and checkpoint when their cadence (or the last step, or a stop) says so; returns completed
        folders. A stopping run saves and skips the evaluation: the grace period is for the checkpoint."""
        config = self.config
        save_now = self.checkpointer is not None and (step % config.checkpoint_every == 0 or last or stopping)
        eval_now = self.evaluator is not None and not stopping and \
            (last or (config.eval_every and step % config.eval_every == 0))
        if not (save_now or eval_now):
            return []
        self.guard.raise_if_diverged(step)  # a diverged model is neither evaluated nor saved
        folders: list[Path] = []
        with window.paused():  # evaluating and saving are not training throughput
            if eval_now:
                metrics = self.evaluate()
                result.evals[step] = metrics
                logger.event(event="eval", step=step, **metrics)
                self.goodput.paused("evaluation")
            if save_now:
                folders = self.checkpointer.save(step)
                self.goodput.paused("checkpoint")
        self.goodput.save()
        return folders

    def _shut_down(self, finished: bool, profiler: StepProfiler, logger: MetricsLogger, result: TrainResult) -> None:
        """Complete the last background save, drain the S3 uploads and close the logs, within the watchdog's
        bound; runs after an error too (then without the final save)."""
        watchdog = self.watchdog
        if watchdog is not None:
            watchdog.arm("the final checkpoint write" if finished else "cleanup after an error")
        profiler.close()
        try:
            if finished and self.checkpointer is not None:
                folder = self.checkpointer.finish()
                self.goodput.paused("checkpoint")
                if folder is not None and self.reporter is not None:
                    self.reporter.report({"step": self.state.step}, folder)
        finally:
            # The job's time so far, across its runs (training/goodput.py); rank 0's logger writes it.
            logger.event(event="goodput", step=self.state.step, **self.goodput.record())
            self.goodput.save()
            if self.uploader is not None:
                if watchdog is not None:
                    watchdog.waiting_for("the S3 upload queue")
                self.uploader.close(timeout=watchdog.remaining() if watchdog is not None else None)
                result.upload_failures = list(self.uploader.failed)
            logger.close()
            if watchdog is not None:
                watchdog.waiting_for("the caller of train() to leave the run")
