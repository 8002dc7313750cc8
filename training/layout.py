"""A run's parallel layout: how many ranks replicate or shard the data, split each layer (tensor parallel) and hold
a share of the layers (pipeline parallel); the checks that a layout fits a world size and a model; the trainer flags
that ask for it.

Pure Python, no torch: the trainer checks its flags with it, and so do the planner and the job renderer (which
must not import torch) before anything is launched. :mod:`eks_training.training.mesh` builds the process groups.

Ranks are laid out ``pipeline x data-replicate x data-shard x tensor``, tensor innermost: launchers (torchrun,
mpirun, srun, Ray Train) number a node's processes consecutively, so a tensor-parallel group whose size divides
the processes per node sits inside one node, on its NVLink/NeuronLink, and only data and pipeline traffic crosses
EFA. An expert dimension will borrow from the data-shard ranks (experts are sharded where the data is), so it adds
no factor to the world size.
"""

from __future__ import annotations

from dataclasses import dataclass

from typing import Sequence

from eks_training.training.config import PARALLEL_MODES, PIPELINE_SCHEDULES, TrainConfig, invalid, read_flags
from eks_training.training.model_sizes import DEFAULT_SEQ_LEN_CAP, MODEL_SIZES, ModelArgs

#: Pipeline stages each rank holds: interleaved 1F1B gives every rank two non-adjacent stages (a smaller bubble).
STAGES_PER_RANK = {"1f1b": 1, "interleaved-1f1b": 2}


@dataclass(frozen=True)
class Layout:
    """The degrees of one run; ``shard_group_size`` is the data-parallel ranks that shard one copy of the model
    (HSDP; 0: all of them under ``fsdp``, none under ``ddp``)."""

    world_size: int
    parallel: str = "ddp"
    tensor: int = 1
    pipeline: int = 1
    schedule: str = "1f1b"
    shard_group_size: int = 0
    expert: int = 1

    def __post_init__(self) -> None:
        if self.parallel not in PARALLEL_MODES:
            raise invalid("--parallel", self.parallel, ", ".join(PARALLEL_MODES))
        if self.schedule not in PIPELINE_SCHEDULES:
            raise invalid("--pipeline-schedule", self.schedule, ", ".join(PIPELINE_SCHEDULES))
        for flag, degree in (("--tensor-parallel", self.tensor), ("--pipeline-parallel", self.pipeline)):
            if self.world_size % degree:
                raise invalid(flag, degree, f"a divisor of the world size {self.world_size}")
        if self.world_size % (self.tensor * self.pipeline):
            raise invalid("--pipeline-parallel", self.pipeline, f"a degree whose product with --tensor-parallel "
                          f"{self.tensor} divides the world size {self.world_size}")
        if self.expert > 1:
            if self.tensor > 1 or self.pipeline > 1 or self.parallel != "ddp":
                raise invalid("--expert-parallel", self.expert, "1 unless the run is --parallel ddp without tensor or "
                              "pipeline parallelism (experts are split over the data-parallel ranks)")
            if self.data % self.expert:
                raise invalid("--expert-parallel", self.expert, f"a divisor of the {self.data} data-parallel ranks")
        if self.shard_group_size and self.data % self.shard_group_size:
            raise invalid("--shard-group-size", self.shard_group_size,
                          f"a divisor of the {self.data} data-parallel ranks (world {self.world_size} / tensor "
                          f"{self.tensor} / pipeline {self.pipeline})")

    @classmethod
    def of(cls, config: TrainConfig, world_size: int) -> Layout:
        """The layout a run's flags ask for on ``world_size`` ranks."""
        return cls(world_size, config.parallel, config.tensor_parallel, config.pipeline_parallel,
                   config.pipeline_schedule, config.shard_group_size, config.expert_parallel)

    @property
    def data(self) -> int:
        """Data-parallel ranks: each reads its own samples; the tensor and pipeline ranks of one of them share them."""
        return self.world_size // (self.tensor * self.pipeline)

    @property
    def data_shard(self) -> int:
        """Ranks over which FSDP shards parameters, gradients and optimizer states (1: replicated, DDP)."""
        if self.parallel == "ddp":
            return 1
        return self.shard_group_size or self.data

    @property
    def data_replicate(self) -> int:
        return self.data // self.data_shard

    @property
    def stages_per_rank(self) -> int:
        return STAGES_PER_RANK[self.schedule] if self.pipeline > 1 else 1

    @property
    def stages(self) -> int:
        return self.pipeline * self.stages_per_rank

    @property
    def is_data_parallel_only(self) -> bool:
        return self.tensor == 1 and self.pipeline == 1

    def check_model(self, args: ModelArgs, seq_len: int) -> None:
        """The one-line error when this layout cannot split ``args`` (heads, vocabulary and hidden sizes divisible by
        the tensor degree, a sequence the sequence-parallel ranks split evenly, a block or more per stage)."""
        tp = self.tensor
        if args.is_moe and (tp > 1 or self.pipeline > 1):
            flag, degree = ("--tensor-parallel", tp) if tp > 1 else ("--pipeline-parallel", self.pipeline)
            raise invalid(flag, degree, "1 for a mixture-of-experts model (it splits over data and expert parallel: "
                          "--expert-parallel)")
        if self.expert > 1 and (not args.is_moe or args.n_experts % self.expert):
            raise invalid("--expert-parallel", self.expert, f"a divisor of the model's {args.n_experts} experts per "
                          "block" if args.is_moe else "1 for a dense model (it has no experts to split)")
        if args.tie_embeddings and (tp > 1 or self.pipeline > 1):
            flag, degree = ("--tensor-parallel", tp) if tp > 1 else ("--pipeline-parallel", self.pipeline)
            raise invalid(flag, degree, "1 for a model whose output layer shares the input embedding (tied "
                          "embeddings, as the 1b size): run it data parallel (ddp, fsdp or hsdp)")
        for what, size in (("attention heads", args.n_heads), ("key/value heads", args.n_kv_heads),
                           ("feed-forward size", args.ffn_dim), ("vocabulary size", args.vocab_size),
                           ("sequence length", seq_len)):
            if size % tp:
                raise invalid("--tensor-parallel", tp, f"a divisor of the model's {what} {size}")
        if args.n_layers < self.stages:
            raise invalid("--pipeline-parallel", self.pipeline, f"at most {args.n_layers // self.stages_per_rank} "
                          f"for a model of {args.n_layers} blocks ({self.stages_per_rank} stage(s) per rank with "
                          f"--pipeline-schedule {self.schedule})")

    def check_microbatches(self, microbatches: int) -> None:
        """Pipeline microbatches are ``--grad-accum``: each schedule needs enough of them to fill the pipeline."""
        if self.pipeline == 1:
            return
        if microbatches < self.pipeline:
            raise invalid("--grad-accum", microbatches, f"at least --pipeline-parallel {self.pipeline} (the "
                          "microbatches that fill the pipeline)")
        rounds = max(1, microbatches // self.pipeline)
        if self.schedule == "interleaved-1f1b" and microbatches % rounds:
            raise invalid("--grad-accum", microbatches, f"a multiple of {rounds} with --pipeline-schedule "
                          f"interleaved-1f1b and --pipeline-parallel {self.pipeline} (whole rounds of microbatches)")

    def check_node(self, ranks_per_node: int, where: str = "a node") -> None:
        """Keep each tensor-parallel group inside one node: its collectives run every layer, too often for EFA."""
        if ranks_per_node % self.tensor:
            raise invalid("--tensor-parallel", self.tensor, f"a divisor of the {ranks_per_node} ranks per node of "
                          f"{where}, so each tensor-parallel group stays inside one node")

    def flags(self) -> list[str]:
        """The trainer flags that ask for this layout (defaults left out)."""
        flags = ["--parallel", self.parallel]
        if self.shard_group_size and self.shard_group_size != self.data:
            flags += ["--shard-group-size", str(self.shard_group_size)]
        if self.tensor > 1:
            flags += ["--tensor-parallel", str(self.tensor)]
        if self.pipeline > 1:
            flags += ["--pipeline-parallel", str(self.pipeline), "--pipeline-schedule", self.schedule]
        if self.expert > 1:
            flags += ["--expert-parallel", str(self.expert)]
        return flags

    def describe(self) -> str:
        data = (f"data {self.data} ({self.data_replicate} replicas x {self.data_shard} shards)"
                if self.data_shard > 1 and self.data_replicate > 1 else
                f"data {self.data} ({'sharded' if self.data_shard > 1 else 'replicated'})")
        pipeline = f" x pipeline {self.pipeline} ({self.schedule})" if self.pipeline > 1 else ""
        return f"{data} x tensor {self.tensor}{pipeline}"


def stage_blocks(n_layers: int, stages: int) -> list[range]:
    """Contiguous blocks per pipeline stage, as even as possible (the earlier stages take the remainder)."""
    size, extra = divmod(n_layers, stages)
    bounds = [0]
    for stage in range(stages):
        bounds.append(bounds[-1] + size + (1 if stage < extra else 0))
    return [range(bounds[i], bounds[i + 1]) for i in range(stages)]


def stage_ids(layout: Layout, pipeline_rank: int) -> list[int]:
    """The stages a pipeline rank holds (looped: every ``pipeline``-th stage)."""
    return [pipeline_rank + k * layout.pipeline for k in range(layout.stages_per_rank)]


_LAUNCH_FLAGS = ("parallel", "tensor_parallel", "pipeline_parallel", "pipeline_schedule", "shard_group_size",
                 "expert_parallel", "grad_accum", "model", "seq_len")


def check_launch(argv: Sequence[str], nodes: int, ranks_per_node: int, where: str, *,
                 data_parallel_only: bool = False) -> Layout:
    """The layout trainer flags ``argv`` ask for on ``nodes`` nodes of ``ranks_per_node`` ranks, checked as the
    trainer will check it (a named model's shapes too) and with each tensor-parallel group inside a node; the
    one-line error otherwise. ``data_parallel_only``: the ranks run on XLA (Neuron), where the trainer runs ddp."""
    flags = read_flags(argv, _LAUNCH_FLAGS)
    layout = Layout(nodes * ranks_per_node, flags["parallel"], flags["tensor_parallel"], flags["pipeline_parallel"],
                    flags["pipeline_schedule"], flags["shard_group_size"], flags["expert_parallel"])
    if data_parallel_only:
        for flag, value, allowed in (("--tensor-parallel", layout.tensor, 1), ("--pipeline-parallel", layout.pipeline, 1),
                                     ("--parallel", layout.parallel, "ddp")):
            if value != allowed:
                raise invalid(flag, value, f"{allowed} on {where} (XLA/Neuron: this trainer runs data parallel there; "
                              "torch_xla's sharding, tensor and pipeline parallelism are NeuronX Distributed's)")
    layout.check_node(ranks_per_node, where)
    args = MODEL_SIZES.get(flags["model"])
    if args is not None:
        layout.check_model(args, flags["seq_len"] or min(DEFAULT_SEQ_LEN_CAP, args.max_seq_len))
    layout.check_microbatches(flags["grad_accum"])
    return layout
