"""The export format: a folder with ``config.json`` (the Llama sizes) and ``model.safetensors``.

The export command writes it; the trainer reads it back as ``--model``, each rank mapping only the rows of
each weight that its shard holds (safetensors slices are read lazily from the memory-mapped file).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
from torch import nn

from eks_training.training.config import invalid
from eks_training.training.shards import local_rows

# `format` in config.json of a folder written by the export command (a LlamaDecoder in safetensors).
EXPORT_FORMAT = "eks-training-llama"


def read_export_config(folder: Path) -> dict[str, Any] | None:
    """The model sizes recorded in an exported folder, or None for any other folder."""
    try:
        document = json.loads((Path(folder) / "config.json").read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(document, dict) or document.get("format") != EXPORT_FORMAT:
        return None
    return dict(document["args"])


def write_export_config(folder: Path, args: dict[str, Any]) -> None:
    (Path(folder) / "config.json").write_text(json.dumps({"format": EXPORT_FORMAT, "args": args}, indent=2))


def load_exported_weights(model: nn.Module, path: Path) -> None:
    """Copy an exported model's weights into ``model``, reading only the rows this rank holds.

    Parameters may be FSDP shards (DTensors) or plain tensors; LoRA-wrapped layers read their base weight
    under the plain name. Each read maps just the slice it needs, so no rank holds the whole model.
    """
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as source, torch.no_grad():
        stored = set(source.keys())
        for name, parameter in model.named_parameters():
            key = name.replace(".base.", ".")
            if key not in stored:
                if ".lora_" in key:
                    continue  # adapters start fresh (B = 0) and are not part of an exported base
                raise invalid("--model", str(path.parent), f"an exported model with weight {key}")
            local, first = local_rows(parameter)
            if local.shape[0]:
                local.copy_(source.get_slice(key)[first:first + local.shape[0]])
