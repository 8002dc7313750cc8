"""Tensor and sequence parallelism (DTensor) applied to an unchanged :class:`LlamaDecoder`, and its vocab-parallel loss.

Megatron's split, written as a DTensor plan: the attention projections and the feed-forward's gate/up are
column-parallel (each rank computes its heads / its share of the hidden features), the output projections
row-parallel; between blocks the residual stream is split along the sequence (sequence parallelism), so the norms
run on a slice of the tokens and no rank holds the whole activation. The embedding is split over the vocabulary and
scatters its output along the sequence; the output layer is split over the vocabulary too, and the loss is computed
from the vocabulary shards (:class:`VocabParallelCrossEntropy`) without ever gathering the logits.
"""

from __future__ import annotations

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.tensor import Replicate, Shard
from torch.distributed.tensor.parallel import (
    ColwiseParallel,
    PrepareModuleInput,
    RowwiseParallel,
    SequenceParallel,
    parallelize_module,
)

from eks_training.training.model import LlamaDecoder


class _VocabParallelCrossEntropy(torch.autograd.Function):
    """Mean cross-entropy of logits split over the vocabulary: the max, the sum of exponentials and the target's
    logit are all-reduced over the tensor ranks (three small collectives of one number per token); the gradient,
    softmax minus one-hot, is each rank's own columns."""

    @staticmethod
    def forward(ctx, logits: torch.Tensor, targets: torch.Tensor, vocab_start: int, group) -> torch.Tensor:
        ctx.logits_dtype = logits.dtype
        logits = logits.float()  # in fp32 whatever the compute precision: vocab / tp columns per token
        peak = logits.max(dim=-1).values
        dist.all_reduce(peak, op=dist.ReduceOp.MAX, group=group)
        shifted = logits - peak[:, None]
        exponentials = shifted.exp()
        sums = exponentials.sum(dim=-1)
        dist.all_reduce(sums, group=group)
        mine = (targets >= vocab_start) & (targets < vocab_start + logits.shape[-1])
        columns = (targets - vocab_start).clamp(0, logits.shape[-1] - 1)
        target_logit = shifted.gather(1, columns[:, None]).squeeze(1) * mine
        dist.all_reduce(target_logit, group=group)
        loss = (sums.log() - target_logit).mean()
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(exponentials.div_(sums[:, None]), columns, mine)
        return loss

    @staticmethod
    def backward(ctx, grad_loss: torch.Tensor):
        softmax, columns, mine = ctx.saved_tensors
        rows = torch.arange(softmax.shape[0], device=softmax.device)
        softmax[rows, columns] -= mine.to(softmax.dtype)
        return (softmax * (grad_loss / softmax.shape[0])).to(ctx.logits_dtype), None, None, None


class VocabParallelCrossEntropy:
    """The model's output loss under tensor parallelism: the column-parallel output layer gives this rank's logits
    (``vocab / tp`` of them per token, for every token of the sequence), reduced to the mean loss over the shards."""

    def __init__(self, tp_mesh) -> None:
        self.group = tp_mesh.get_group()
        self.rank = tp_mesh.get_local_rank()

    def __call__(self, hidden: torch.Tensor, head: nn.Linear, targets: torch.Tensor) -> torch.Tensor:
        logits = head(hidden)  # the plan all-gathers the sequence and keeps this rank's vocabulary columns
        local_vocab = logits.shape[-1]
        return _VocabParallelCrossEntropy.apply(logits.flatten(0, 1), targets.flatten(), self.rank * local_vocab,
                                                self.group)


def _clone_output(module: nn.Module, inputs, output: torch.Tensor) -> torch.Tensor:
    # The embedding's output comes straight out of a reduce-scatter; a compiled block that takes it as its input
    # fails in backward (the collective's output buffer is reused), so the blocks get their own copy.
    return output.clone()


def apply_tensor_parallel(model: LlamaDecoder, tp_mesh) -> None:
    """Split ``model`` (whole, or a pipeline stage of it) over ``tp_mesh``, in place."""
    top: dict[str, object] = {}
    if model.embed_tokens is not None:
        top["embed_tokens"] = RowwiseParallel(input_layouts=Replicate(), output_layouts=Shard(1))
        model.embed_tokens.register_forward_hook(_clone_output)
    if model.norm is not None:
        top["norm"] = SequenceParallel()
    if model.lm_head is not None:
        top["lm_head"] = ColwiseParallel(input_layouts=Shard(1), output_layouts=Shard(-1), use_local_output=True)
    if top:
        parallelize_module(model, tp_mesh, top)
    block_plan = {
        "input_norm": SequenceParallel(),
        # Attention and the feed-forward see the whole sequence: their input is gathered once, and their
        # row-parallel output projection reduce-scatters back to sequence slices.
        "self_attn": PrepareModuleInput(input_layouts=(Shard(1), None, None, None),
                                        desired_input_layouts=(Replicate(), None, None, None)),
        "self_attn.q_proj": ColwiseParallel(),
        "self_attn.k_proj": ColwiseParallel(),
        "self_attn.v_proj": ColwiseParallel(),
        "self_attn.o_proj": RowwiseParallel(output_layouts=Shard(1)),
        "post_attention_norm": SequenceParallel(),
        "mlp": PrepareModuleInput(input_layouts=(Shard(1),), desired_input_layouts=(Replicate(),)),
        "mlp.gate_proj": ColwiseParallel(),
        "mlp.up_proj": ColwiseParallel(),
        "mlp.down_proj": RowwiseParallel(output_layouts=Shard(1)),
    }
    for block in model.layers.values():
        parallelize_module(block, tp_mesh, block_plan)
    if model.lm_head is not None:
        model.set_output_loss(VocabParallelCrossEntropy(tp_mesh))
