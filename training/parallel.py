"""Builds the model a run trains: shapes on the meta device, LoRA, pipeline stages, then per stage tensor
parallelism, activation checkpointing, compiled blocks and FSDP2 / HSDP sharding, in that order, and only then
memory, on the run's device; or DDP replication for plain data parallelism.

The model is written once (training/model.py); every parallelism is applied to it here, by the functions of its
own module (tensor_parallel, pipeline), over the process groups of one :class:`ParallelMesh`. No rank ever holds
the whole fp32 model unless the whole model is what it trains on (DDP): each rank allocates and initialises only
its pieces (``to_empty`` after sharding), and an exported base model is read slice by slice
(weights.load_folder_weights). The initial weights do not depend on the layout, so every layout starts from the
same model for the same seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from eks_training.training.config import TrainConfig, invalid
from eks_training.training.device import Runtime
from eks_training.training.layout import Layout
from eks_training.training.lora import apply_lora, freeze_base_to
from eks_training.training.mesh import ParallelMesh
from eks_training.training.model import Attention, LlamaDecoder, build_model, flops_per_token, weights_folder
from eks_training.training.moe import MoEFeedForward, expert_parameter_names
from eks_training.training.pipeline import Pipeline, merged_view, split_stages
from eks_training.training.tensor_parallel import apply_tensor_parallel
from eks_training.training.weights import load_folder_weights

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": None}


@dataclass
class BuiltModel:
    """The model to train (maybe wrapped by DDP), the module inside, its training FLOPs per token, the mesh it is
    laid out on and, under pipeline parallelism, the pipeline that runs it (``model`` is then the rank's stages
    seen as one module, for the optimizer and the checkpoints)."""

    model: nn.Module
    inner: nn.Module
    token_flops: float
    compiled: bool
    mesh: ParallelMesh
    pipeline: Pipeline | None = None


def resolve_switch(value: str, runtime: Runtime) -> bool:
    """An auto/true/false flag: auto is on for CUDA only (compile and async saves pay off there)."""
    return runtime.kind == "cuda" if value == "auto" else value == "true"


def compile_blocks(model: nn.Module, backend: str = "inductor") -> int:
    """``torch.compile`` each transformer block's ``forward`` in place; returns how many blocks.

    Per block rather than the whole model: one small graph compiled once and reused by every layer, and a
    graph break costs one block, not the step. Only ``forward`` is compiled, so the module's call path, where
    FSDP2 hangs its per-block gather/free hooks and activation checkpointing wraps the call, stays eager,
    and parameter names (checkpoint keys) do not change.
    """
    blocks = model.blocks()
    for block in blocks:
        block.forward = torch.compile(block.forward, backend=backend)
    return len(blocks)


def _shard(model: nn.Module, config: TrainConfig, runtime: Runtime, precision: str, mesh: ParallelMesh) -> None:
    if runtime.kind == "xla":
        raise invalid("--parallel", "fsdp", "ddp on XLA/Neuron (torch_xla shards with its own FSDP)")
    if not runtime.distributed:
        raise invalid("--parallel", "fsdp", "ddp when not launched by torchrun (FSDP needs a process group)")
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    policy = MixedPrecisionPolicy(param_dtype=DTYPES[precision], reduce_dtype=torch.float32)
    # Under a pipeline each block runs once per microbatch: keep it gathered from its forward to its backward
    # rather than gathering it again for every microbatch.
    reshard = mesh.layout.pipeline == 1
    for block in model.blocks():
        fully_shard(block, mesh=mesh.fsdp_mesh(), mp_policy=policy, reshard_after_forward=reshard)
    fully_shard(model, mesh=mesh.fsdp_mesh(), mp_policy=policy, reshard_after_forward=reshard)


def _check_layout(config: TrainConfig, runtime: Runtime, layout: Layout, model: nn.Module, seq_len: int) -> None:
    if layout.expert > 1:
        if not isinstance(model, LlamaDecoder):
            raise invalid("--expert-parallel", layout.expert, f"1 for {config.model} (expert parallelism splits the "
                          "built-in decoder's experts: a named size or a Mixtral/Llama folder it reads)")
        layout.check_model(model.args, seq_len)
    if layout.is_data_parallel_only:
        return
    flag, degree = ("--tensor-parallel", layout.tensor) if layout.tensor > 1 else ("--pipeline-parallel",
                                                                                   layout.pipeline)
    if runtime.kind == "xla":
        raise invalid(flag, degree, "1 on XLA/Neuron: this trainer runs data parallel there (torch_xla's tensor "
                      "and pipeline parallelism are NeuronX Distributed's, not DTensor's)")
    if not isinstance(model, LlamaDecoder):
        raise invalid(flag, degree, f"1 for {config.model} (tensor and pipeline parallelism split the built-in "
                      "decoder: a named size, an exported folder or a Hugging Face Llama folder)")
    layout.check_model(model.args, seq_len)
    layout.check_microbatches(config.grad_accum)


def build_for_training(config: TrainConfig, runtime: Runtime, precision: str, seq_len: int,
                       compile_backend: str = "inductor") -> BuiltModel:
    """Everything between the flags and a model ready for the optimizer."""
    layout = Layout.of(config, runtime.world_size)
    torch.manual_seed(config.seed)
    model = build_model(config.model, device="meta")
    on_meta = isinstance(model, LlamaDecoder)
    _check_layout(config, runtime, layout, model, seq_len)
    mesh = ParallelMesh(layout, runtime.kind)
    if runtime.kind == "xla":
        for module in model.modules():
            if isinstance(module, Attention):
                module.native_gqa = False  # torch_xla's SDPA has no enable_gqa
    if config.lora_rank:
        apply_lora(model, config.lora_rank, config.lora_alpha, config.lora_dropout, config.lora_targets)
        if precision == "bf16":
            freeze_base_to(model, torch.bfloat16)
    token_flops = flops_per_token(model, seq_len)
    compiled = resolve_switch(config.compile, runtime) and on_meta
    if not on_meta:
        model.to(runtime.device)  # a Hugging Face model arrives with its weights on the host
    # Pipeline splitting is its own step; the rest applies to each stage (the whole model without a pipeline).
    parts = split_stages(model, layout, mesh.pipeline_rank) if layout.pipeline > 1 else [(0, model)]
    for _, part in parts:
        if layout.tensor > 1:
            apply_tensor_parallel(part, mesh.tensor_mesh)
        if config.activation_checkpointing:
            function, every = runtime.checkpoint_fn(selective=config.ac_granularity == "selective")
            part.enable_activation_checkpointing(function, every)
        if compiled:
            compile_blocks(part, compile_backend)
        if config.parallel == "fsdp":
            _shard(part, config, runtime, precision, mesh)
        if on_meta:
            _materialize(part, config, runtime)
    experts = [m for m in model.modules() if isinstance(m, MoEFeedForward)]
    if experts and runtime.distributed:
        mesh.build_expert_groups()
        for moe in experts:
            moe.shard_experts(mesh.expert_group, mesh.data_stats_group)
    pipeline = None
    if layout.pipeline > 1:
        pipeline = Pipeline(parts, layout, mesh.pipeline_group, runtime.device, config.grad_accum)
        model = merged_view([part for _, part in parts])
    inner = model
    # XLA all-reduces gradients itself (Runtime.reduce_gradients), so no DDP wrapper there; tensor and pipeline
    # layouts average replicated gradients by hand (ParallelMesh.all_reduce_gradients).
    if (config.parallel == "ddp" and runtime.distributed and runtime.kind != "xla"
            and layout.is_data_parallel_only):
        device_ids = [runtime.local_rank] if runtime.kind == "cuda" else None
        if layout.expert > 1:  # each rank's experts are its own: their gradients are settled by hand
            DistributedDataParallel._set_params_and_buffers_to_ignore_for_model(model, expert_parameter_names(model))
        model = DistributedDataParallel(model, device_ids=device_ids)
    return BuiltModel(model, inner, token_flops, compiled, mesh, pipeline)


def _materialize(model: LlamaDecoder, config: TrainConfig, runtime: Runtime) -> None:
    """Allocate this rank's pieces and fill them: seeded initial weights, or the model folder's."""
    # torch_xla has no seeded device generators: XLA (never sharded here) initialises on the host.
    model.to_empty(device="cpu" if runtime.kind == "xla" else runtime.device)
    model.init_weights(config.seed)
    weights = weights_folder(config.model)
    if weights is not None:
        load_folder_weights(model, weights)
    if runtime.kind == "xla":
        model.to(runtime.device)
