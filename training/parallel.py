"""Builds the model a run trains: shapes on the meta device, LoRA, activation checkpointing, compiled blocks,
then FSDP2 / HSDP sharding or DDP replication, and only then memory, on the run's device.

No rank ever holds the whole fp32 model unless the whole model is what it trains on (DDP): under FSDP each
rank allocates and initialises only its shards (``to_empty`` after ``fully_shard``), and an exported base
model is read slice by slice (weights.load_folder_weights). The initial weights do not depend on the
sharding, so every world size and both modes start from the same model for the same seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from eks_training.training.config import TrainConfig, invalid
from eks_training.training.device import Runtime
from eks_training.training.lora import apply_lora, freeze_base_to
from eks_training.training.model import Attention, LlamaDecoder, build_model, flops_per_token, weights_folder
from eks_training.training.weights import load_folder_weights

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": None}


@dataclass
class BuiltModel:
    """The model to train (maybe wrapped by DDP), the module inside, and its training FLOPs per token."""

    model: nn.Module
    inner: nn.Module
    token_flops: float
    compiled: bool


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


def device_mesh(config: TrainConfig, runtime: Runtime):
    """1-D mesh over all ranks, or with ``--shard-group-size`` a 2-D (replicate, shard) mesh for HSDP."""
    from torch.distributed.device_mesh import init_device_mesh

    group = config.shard_group_size or runtime.world_size
    if runtime.world_size % group:
        raise invalid("--shard-group-size", group, f"a divisor of the world size {runtime.world_size}")
    if group == runtime.world_size:
        return init_device_mesh(runtime.kind, (runtime.world_size,), mesh_dim_names=("shard",))
    return init_device_mesh(runtime.kind, (runtime.world_size // group, group),
                            mesh_dim_names=("replicate", "shard"))


def _shard(model: nn.Module, config: TrainConfig, runtime: Runtime, precision: str) -> None:
    if runtime.kind == "xla":
        raise invalid("--parallel", "fsdp", "ddp on XLA/Neuron (torch_xla shards with its own FSDP)")
    if not runtime.distributed:
        raise invalid("--parallel", "fsdp", "ddp when not launched by torchrun (FSDP needs a process group)")
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    mesh = device_mesh(config, runtime)
    policy = MixedPrecisionPolicy(param_dtype=DTYPES[precision], reduce_dtype=torch.float32)
    for block in model.blocks():
        fully_shard(block, mesh=mesh, mp_policy=policy)
    fully_shard(model, mesh=mesh, mp_policy=policy)


def build_for_training(config: TrainConfig, runtime: Runtime, precision: str, seq_len: int,
                       compile_backend: str = "inductor") -> BuiltModel:
    """Everything between the flags and a model ready for the optimizer."""
    torch.manual_seed(config.seed)
    model = build_model(config.model, device="meta")
    on_meta = isinstance(model, LlamaDecoder)
    if runtime.kind == "xla":
        for module in model.modules():
            if isinstance(module, Attention):
                module.native_gqa = False  # torch_xla's SDPA has no enable_gqa
    if config.lora_rank:
        apply_lora(model, config.lora_rank, config.lora_alpha, config.lora_dropout, config.lora_targets)
        if precision == "bf16":
            freeze_base_to(model, torch.bfloat16)
    if config.activation_checkpointing:
        function, every = runtime.checkpoint_fn(selective=config.ac_granularity == "selective")
        model.enable_activation_checkpointing(function, every)
    token_flops = flops_per_token(model, seq_len)
    compiled = resolve_switch(config.compile, runtime) and isinstance(model, LlamaDecoder)
    if compiled:
        compile_blocks(model, compile_backend)
    inner = model
    if not on_meta:
        model.to(runtime.device)  # a Hugging Face model arrives with its weights on the host
    if config.parallel == "fsdp":
        _shard(model, config, runtime, precision)
    if on_meta:
        # torch_xla has no seeded device generators: XLA (never sharded here) initialises on the host.
        model.to_empty(device="cpu" if runtime.kind == "xla" else runtime.device)
        model.init_weights(config.seed)
        weights = weights_folder(config.model)
        if weights is not None:
            load_folder_weights(model, weights)
        if runtime.kind == "xla":
            model.to(runtime.device)
    # XLA all-reduces gradients itself (Runtime.reduce_gradients), so no DDP wrapper there.
    if config.parallel == "ddp" and runtime.distributed and runtime.kind != "xla":
        device_ids = [runtime.local_rank] if runtime.kind == "cuda" else None
        model = DistributedDataParallel(model, device_ids=device_ids)
    return BuiltModel(model, inner, token_flops, compiled)
