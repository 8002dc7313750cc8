"""The training loss: next-token cross-entropy in fp32 without an fp32 copy of all the logits."""

from __future__ import annotations

from typing import Callable

import torch
import torch.nn.functional as F
from torch import nn

#: Mean loss of ``(hidden, output_layer, targets)``: the model's last step, replaceable by a parallel form.
OutputLoss = Callable[[torch.Tensor, nn.Linear, torch.Tensor], torch.Tensor]

# Most logits (tokens x vocab) upcast to fp32 at once by the chunked loss: 2**26 floats = 256 MiB.
LOSS_CHUNK_ELEMENTS = 1 << 26


class _LinearCrossEntropy(torch.autograd.Function):
    """Summed cross-entropy of ``hidden @ weight.T`` whose gradients are computed during forward, chunk by
    chunk: each chunk's logits are upcast to fp32, turned into their gradient (softmax - one-hot) and folded
    into the input and weight gradients at once, then dropped. Nothing of size tokens x vocab outlives its
    chunk and nothing is recomputed in backward (the FLOPs are those of a plain forward and backward)."""

    @staticmethod
    def forward(ctx, hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor, chunk: int) -> torch.Tensor:
        want_hidden, want_weight = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        total = torch.zeros((), dtype=torch.float32, device=hidden.device)
        # Gradients are kept in fp32 until backward scales them: no rounding before the 1/tokens factor.
        grad_hidden = torch.empty(hidden.shape, dtype=torch.float32, device=hidden.device) if want_hidden else None
        grad_weight = torch.zeros(weight.shape, dtype=torch.float32, device=weight.device) if want_weight else None
        for start in range(0, hidden.shape[0], chunk):
            rows, labels = hidden[start:start + chunk], targets[start:start + chunk]
            logits = F.linear(rows, weight).float()
            log_probs = logits.log_softmax(dim=-1)
            total += -log_probs.gather(1, labels[:, None]).sum()
            if want_hidden or want_weight:
                grad_logits = log_probs.exp_()
                grad_logits[torch.arange(rows.shape[0], device=rows.device), labels] -= 1.0
                grad_logits = grad_logits.to(rows.dtype if rows.dtype != torch.float32 else logits.dtype)
                if want_hidden:
                    grad_hidden[start:start + chunk] = grad_logits @ weight.to(grad_logits.dtype)
                if want_weight:
                    grad_weight += (grad_logits.t() @ rows.to(grad_logits.dtype)).float()
        ctx.save_for_backward(*(g for g in (grad_hidden, grad_weight) if g is not None))
        ctx.dtypes = hidden.dtype, weight.dtype
        return total

    @staticmethod
    def backward(ctx, grad_total: torch.Tensor):
        saved = list(ctx.saved_tensors)
        grad_hidden = (saved.pop(0) * grad_total).to(ctx.dtypes[0]) if ctx.needs_input_grad[0] else None
        grad_weight = (saved.pop(0) * grad_total).to(ctx.dtypes[1]) if ctx.needs_input_grad[1] else None
        return grad_hidden, grad_weight, None, None


def _logits_dtype(hidden: torch.Tensor, weight: torch.Tensor) -> torch.dtype:
    """The dtype ``F.linear(hidden, weight)`` will produce (autocast decides when it is on)."""
    device = hidden.device.type
    if torch.is_autocast_enabled(device):
        return torch.get_autocast_dtype(device)
    return torch.promote_types(hidden.dtype, weight.dtype)


def chunked_cross_entropy(hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of ``hidden @ weight.T`` against ``targets``, in fp32.

    With bf16/fp16 logits, upcasting all of them at once costs tokens x vocab x 4 bytes (2 GiB for 4k tokens
    of a 128k vocabulary), kept for backward. Here they are handled per chunk of tokens
    (:class:`_LinearCrossEntropy`). fp32 logits need no copy and take the plain path.
    """
    if _logits_dtype(hidden, weight) == torch.float32:
        return F.cross_entropy(F.linear(hidden, weight), targets)
    chunk = max(1, LOSS_CHUNK_ELEMENTS // weight.shape[0])
    if not (torch.is_grad_enabled() and (hidden.requires_grad or weight.requires_grad)):
        # Evaluation: the fused path would still build the gradients its inputs ask for (a function's forward sees
        # requires_grad, not the grad mode), at twice the forward's FLOPs and an fp32 weight-sized buffer.
        return _chunked_loss_sum(hidden, weight, targets, chunk) / hidden.shape[0]
    return _LinearCrossEntropy.apply(hidden, weight, targets, chunk) / hidden.shape[0]


def _chunked_loss_sum(hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor, chunk: int) -> torch.Tensor:
    """Summed cross-entropy, chunk by chunk in fp32, with no gradient work."""
    total = torch.zeros((), dtype=torch.float32, device=hidden.device)
    for start in range(0, hidden.shape[0], chunk):
        logits = F.linear(hidden[start:start + chunk], weight).float()
        total += F.cross_entropy(logits, targets[start:start + chunk], reduction="sum")
    return total


def head_cross_entropy(hidden: torch.Tensor, head: nn.Linear, targets: torch.Tensor) -> torch.Tensor:
    """The output layer and the mean next-token loss of ``hidden`` ``(batch, seq, dim)`` (one process, or any
    data-parallel layout: the whole vocabulary is on this rank)."""
    return chunked_cross_entropy(hidden.flatten(0, 1), head.weight, targets.flatten())
