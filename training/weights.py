"""Model folders in the Hugging Face layout: ``config.json`` plus safetensors weights under transformers' names.

The export command writes a Llama model this way (``LlamaForCausalLM``), so transformers, vLLM, TGI and the Hub
load it. A Hugging Face Llama folder that the built-in :class:`~eks_training.training.model.LlamaDecoder`
computes exactly (no biases, SiLU, plain rotary without scaling, tied or untied embeddings) is read back as that decoder,
without transformers: each rank maps only the rows of each weight that its shard holds (safetensors slices are
read lazily from the memory-mapped files, one file or an ``model.safetensors.index.json`` set of shards).
Folders of the first export format (``{"format": "eks-training-llama"}``, our own tensor names) still load.
"""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path
from typing import Any

import torch
from torch import nn

from eks_training.training.config import invalid
from eks_training.training.shards import local_block

# `format` in config.json of a folder written by the first export format (a LlamaDecoder under its own names).
LEGACY_EXPORT_FORMAT = "eks-training-llama"
ARCHITECTURE = "LlamaForCausalLM"
#: A mixture-of-experts decoder's architecture (Mixtral's layout of the same blocks, experts in place of the MLP).
MOE_ARCHITECTURE = "MixtralForCausalLM"
_MODEL_TYPES = {"llama": ARCHITECTURE, "mixtral": MOE_ARCHITECTURE}
WEIGHTS_FILE = "model.safetensors"
WEIGHTS_INDEX = "model.safetensors.index.json"
# The Llama default when a config names no rotary base (transformers' LlamaConfig).
_DEFAULT_ROPE_THETA = 10000.0

# Our parameter names -> transformers' LlamaForCausalLM names (the layer index is kept).
_TO_HF = ((re.compile(r"^embed_tokens\."), "model.embed_tokens."),
          (re.compile(r"^norm\."), "model.norm."),
          (re.compile(r"^layers\.(\d+)\.input_norm\."), r"model.layers.\1.input_layernorm."),
          (re.compile(r"^layers\.(\d+)\.post_attention_norm\."), r"model.layers.\1.post_attention_layernorm."),
          # Experts and their router: Mixtral's block_sparse_moe (the files transformers writes for Mixtral).
          (re.compile(r"^layers\.(\d+)\.mlp\.(gate|experts)\."), r"model.layers.\1.block_sparse_moe.\2."),
          (re.compile(r"^layers\."), "model.layers."))
_FROM_HF = ((re.compile(r"^model\.layers\.(\d+)\.input_layernorm\."), r"layers.\1.input_norm."),
            (re.compile(r"^model\.layers\.(\d+)\.post_attention_layernorm\."), r"layers.\1.post_attention_norm."),
            (re.compile(r"^model\.layers\.(\d+)\.block_sparse_moe\."), r"layers.\1.mlp."),
            (re.compile(r"^model\."), ""))

_DTYPE_NAMES = {torch.float32: "float32", torch.bfloat16: "bfloat16", torch.float16: "float16"}


def hf_name(name: str) -> str:
    """transformers' name of one of our LlamaDecoder's tensors (``layers.0.input_norm.weight`` ->
    ``model.layers.0.input_layernorm.weight``)."""
    for pattern, replacement in _TO_HF:
        renamed, count = pattern.subn(replacement, name, count=1)
        if count:
            return renamed
    return name  # lm_head.weight


def our_name(name: str) -> str:
    """The inverse of :func:`hf_name`."""
    for pattern, replacement in _FROM_HF:
        renamed, count = pattern.subn(replacement, name, count=1)
        if count:
            return renamed
    return name


def hf_config(args: dict[str, Any], dtype: torch.dtype) -> dict[str, Any]:
    """``config.json`` of a ``LlamaForCausalLM`` (a ``MixtralForCausalLM`` for a mixture of experts) with the sizes
    ``args`` (a ModelArgs as a dict)."""
    dtype_name = _DTYPE_NAMES[dtype]
    experts = {}
    if args.get("n_experts", 0):
        experts = {"architectures": [MOE_ARCHITECTURE], "model_type": "mixtral",
                   "num_local_experts": args["n_experts"], "num_experts_per_tok": args["experts_per_token"],
                   "router_aux_loss_coef": args["router_aux_loss_coef"], "router_jitter_noise": 0.0,
                   "sliding_window": None, "output_router_logits": False}
    return {
        "architectures": [ARCHITECTURE], "model_type": "llama",
        "vocab_size": args["vocab_size"], "hidden_size": args["dim"], "intermediate_size": args["ffn_dim"],
        "num_hidden_layers": args["n_layers"], "num_attention_heads": args["n_heads"],
        "num_key_value_heads": args["n_kv_heads"], "head_dim": args["dim"] // args["n_heads"],
        "max_position_embeddings": args["max_seq_len"], "rms_norm_eps": args["norm_eps"],
        "hidden_act": "silu", "attention_bias": False, "mlp_bias": False,
        "tie_word_embeddings": bool(args.get("tie_embeddings", False)),
        # transformers 5 reads rope_parameters; 4.x (and vLLM/TGI builds on it) read rope_theta.
        "rope_parameters": {"rope_type": "default", "rope_theta": args["rope_theta"]},
        "rope_theta": args["rope_theta"],
        # `dtype` for transformers 5, `torch_dtype` for 4.x.
        "dtype": dtype_name, "torch_dtype": dtype_name,
        **experts,
    }


def decoder_args(config: dict[str, Any]) -> dict[str, Any] | None:
    """The LlamaDecoder sizes of a Hugging Face ``config.json``, or None when that decoder would not compute
    the same function (another architecture, biases, rotary scaling, another activation, a sliding window or
    router noise in a Mixtral)."""
    architecture = _MODEL_TYPES.get(config.get("model_type"))
    if architecture is None or architecture not in config.get("architectures", [architecture]):
        return None
    experts = {}
    if architecture == MOE_ARCHITECTURE:
        if config.get("sliding_window") is not None or config.get("router_jitter_noise", 0.0):
            return None
        experts = {"n_experts": int(config["num_local_experts"]),
                   "experts_per_token": int(config.get("num_experts_per_tok", 2)),
                   "router_aux_loss_coef": float(config.get("router_aux_loss_coef", 0.001))}
    rope = config.get("rope_parameters") or {}
    rope_type = rope.get("rope_type", rope.get("type", "default"))
    hidden, heads = config.get("hidden_size"), config.get("num_attention_heads")
    if (rope_type != "default" or config.get("rope_scaling") or config.get("attention_bias")
            or config.get("mlp_bias")
            or config.get("hidden_act", "silu") != "silu" or not hidden or not heads
            or (config.get("head_dim") or hidden // heads) != hidden // heads):
        return None
    return {"vocab_size": int(config["vocab_size"]), "dim": int(hidden), "n_layers": int(config["num_hidden_layers"]),
            "n_heads": int(heads), "n_kv_heads": int(config.get("num_key_value_heads") or heads),
            "ffn_dim": int(config["intermediate_size"]), "max_seq_len": int(config["max_position_embeddings"]),
            "rope_theta": float(rope.get("rope_theta", config.get("rope_theta", _DEFAULT_ROPE_THETA))),
            "norm_eps": float(config.get("rms_norm_eps", 1e-6)),
            "tie_embeddings": bool(config.get("tie_word_embeddings", False)), **experts}


def _weight_files(folder: Path) -> dict[str, Path] | None:
    """Tensor name -> safetensors file of a folder (one file or an index of shards); None when it has none."""
    index = folder / WEIGHTS_INDEX
    if index.is_file():
        weight_map = json.loads(index.read_text()).get("weight_map", {})
        return {name: folder / file for name, file in weight_map.items()}
    single = folder / WEIGHTS_FILE
    if not single.is_file():
        return None
    from safetensors import safe_open

    with safe_open(str(single), framework="pt") as source:
        return {name: single for name in source.keys()}


def read_decoder_args(folder: Path) -> dict[str, Any] | None:
    """The LlamaDecoder sizes of a model folder we can read without transformers (a Hugging Face Llama folder
    with safetensors weights, or the first export format), or None for any other folder."""
    try:
        document = json.loads((Path(folder) / "config.json").read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(document, dict):
        return None
    if document.get("format") == LEGACY_EXPORT_FORMAT:
        return dict(document["args"])
    args = decoder_args(document)
    if args is None or not ((Path(folder) / WEIGHTS_INDEX).is_file() or (Path(folder) / WEIGHTS_FILE).is_file()):
        return None
    return args


def write_hf_config(folder: Path, args: dict[str, Any], dtype: torch.dtype) -> None:
    (Path(folder) / "config.json").write_text(json.dumps(hf_config(args, dtype), indent=2) + "\n")


def load_folder_weights(model: nn.Module, folder: Path) -> None:
    """Copy a model folder's weights into a LlamaDecoder, reading only the block of each weight this rank holds.

    Parameters may be FSDP or tensor-parallel shards (DTensors) or plain tensors; LoRA-wrapped layers read their base weight
    under the plain name. Tensors are found under transformers' names, or ours (the first export format).
    """
    from safetensors import safe_open

    files = _weight_files(Path(folder)) or {}
    # our_name leaves our own names (the first export format) as they are.
    by_our_name = {our_name(name): name for name in files}
    with contextlib.ExitStack() as stack, torch.no_grad():
        opened: dict[Path, Any] = {}
        for name, parameter in model.named_parameters():
            key = name.replace(".base.", ".")
            stored = by_our_name.get(key)
            if stored is None:
                if ".lora_" in key:
                    continue  # adapters start fresh (B = 0) and are not part of a base model
                raise invalid("--model", str(folder), f"a model folder with weight {hf_name(key)}")
            path = files[stored]
            if path not in opened:
                opened[path] = stack.enter_context(safe_open(str(path), framework="pt"))
            local, offset = local_block(parameter)
            if local.numel():
                block = tuple(slice(start, start + size) for start, size in zip(offset, local.shape))
                local.copy_(opened[path].get_slice(stored)[block])
