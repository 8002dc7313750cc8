"""Low-rank adapters (LoRA, Hu et al. 2021) for ``nn.Linear`` layers, written out by hand.

``W x + (alpha / r) * B A dropout(x)`` with A Kaiming-uniform and B zero, so a fresh adapter leaves the
model's output unchanged and only A and B train. The frozen base can be held in bf16 (:func:`freeze_base_to`)
and is not checkpointed: a LoRA run's checkpoints hold adapters and optimizer state only, and the base is
rebuilt from ``--model`` (a named size from the seed, or an exported folder) on resume and export.
"""

from __future__ import annotations

import math
from typing import Iterable

import torch
from torch import nn

from eks_training.training.config import invalid


class LoRALinear(nn.Module):
    """A frozen ``nn.Linear`` plus a trainable rank-``rank`` update."""

    def __init__(self, base: nn.Linear, rank: int, alpha: float, dropout: float = 0.0) -> None:
        super().__init__()
        self.base = base
        self.base.requires_grad_(False)
        self.rank, self.scaling = rank, alpha / rank
        self.dropout = nn.Dropout(dropout) if dropout > 0 else nn.Identity()
        self.lora_A = nn.Linear(base.in_features, rank, bias=False, device=base.weight.device)
        self.lora_B = nn.Linear(rank, base.out_features, bias=False, device=base.weight.device)
        nn.init.kaiming_uniform_(self.lora_A.weight, a=math.sqrt(5))
        nn.init.zeros_(self.lora_B.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x) + self.lora_B(self.lora_A(self.dropout(x))) * self.scaling

    def merged(self) -> nn.Linear:
        """A plain ``nn.Linear`` whose weight already includes the adapter's update."""
        merged = nn.Linear(self.base.in_features, self.base.out_features, bias=self.base.bias is not None,
                           device=self.base.weight.device, dtype=self.base.weight.dtype)
        with torch.no_grad():
            # Summed in fp32: a bf16 base plus a small update would round the update away.
            delta = (self.lora_B.weight.float() @ self.lora_A.weight.float()) * self.scaling
            merged.weight.copy_(self.base.weight.float() + delta)
            if self.base.bias is not None:
                merged.bias.copy_(self.base.bias)
        return merged


def _replace(model: nn.Module, name: str, module: nn.Module) -> None:
    parent_name, _, child = name.rpartition(".")
    setattr(model.get_submodule(parent_name) if parent_name else model, child, module)


def apply_lora(model: nn.Module, rank: int, alpha: float, dropout: float, targets: Iterable[str]) -> list[str]:
    """Wrap every ``nn.Linear`` whose last name part is in ``targets``; freeze everything else.

    Returns the wrapped module names. Raises ConfigError when no module matches a target.
    """
    targets = tuple(targets)
    linears = [(name, module) for name, module in model.named_modules() if isinstance(module, nn.Linear)]
    available = sorted({name.rpartition(".")[2] for name, _ in linears})
    for target in targets:
        if target not in available:
            raise invalid("--lora-targets", target, "linear layer names in this model: " + ", ".join(available))
    model.requires_grad_(False)
    wrapped = [name for name, _ in linears if name.rpartition(".")[2] in targets]
    for name, module in linears:
        if name in wrapped:
            _replace(model, name, LoRALinear(module, rank, alpha, dropout))
    return wrapped


def freeze_base_to(model: nn.Module, dtype: torch.dtype) -> int:
    """Store every frozen ``nn.Linear`` weight in ``dtype`` (bf16 halves the base's memory; it never gets
    gradients, so nothing needs fp32 master copies). Embeddings and norms stay as they are: their outputs
    feed the residual stream and the norms' fp32 arithmetic. Returns how many layers were cast."""
    cast = 0
    for module in model.modules():
        if isinstance(module, nn.Linear) and not any(p.requires_grad for p in module.parameters()):
            module.to(dtype)
            cast += 1
    return cast


def lora_settings(model: nn.Module) -> dict[str, object] | None:
    """Rank, alpha and target names of the adapters in ``model`` (what export needs to rebuild them)."""
    adapters = {name: module for name, module in model.named_modules() if isinstance(module, LoRALinear)}
    if not adapters:
        return None
    first = next(iter(adapters.values()))
    return {"rank": first.rank, "alpha": first.scaling * first.rank,
            "targets": sorted({name.rpartition(".")[2] for name in adapters})}


def merge_lora(model: nn.Module) -> int:
    """Fold every adapter into its base layer in place (for export or inference); returns how many."""
    adapters = [(name, module) for name, module in model.named_modules() if isinstance(module, LoRALinear)]
    for name, module in adapters:
        _replace(model, name, module.merged())
    return len(adapters)
