"""Pipeline parallelism (``torch.distributed.pipelining``): the decoder split into stages, and the schedule that runs
a step's micro-batches through them.

Splitting is its own step, before any other parallelism: each stage is a :class:`LlamaDecoder` that keeps its own
blocks (and the embedding on the first stage, the final norm and output layer on the last), under the same
parameter names as the whole model, so tensor parallelism, activation checkpointing, compile and FSDP then apply to
each stage as they would to the whole model, and checkpoints move between layouts. With ``1f1b`` a rank
holds one stage; with ``interleaved-1f1b`` two (stage ``r`` and ``r + pipeline``).

The step's ``--grad-accum`` micro-batches are the pipeline's microbatches; the targets travel with them to every
stage, and the last stage returns its loss, which the schedule backpropagates (gradients scaled by one over the
microbatches: the mean over the step, as without a pipeline).
"""

from __future__ import annotations

import copy
from typing import Sequence

import torch
from torch import nn

from eks_training.training.layout import Layout, stage_blocks, stage_ids
from eks_training.training.model import LlamaDecoder, document_ids


def split_stages(model: LlamaDecoder, layout: Layout, pipeline_rank: int) -> list[tuple[int, LlamaDecoder]]:
    """This rank's stages of ``model`` (built on the meta device, so the copies cost nothing), by stage id."""
    blocks = stage_blocks(model.args.n_layers, layout.stages)
    stages = []
    for stage in stage_ids(layout, pipeline_rank):
        part = copy.deepcopy(model)
        for key in list(part.layers):
            if int(key) not in blocks[stage]:
                del part.layers[key]
        if stage != 0:
            part.embed_tokens = None
        if stage != layout.stages - 1:
            part.norm, part.lm_head = None, None
        stages.append((stage, part))
    return stages


def merged_view(parts: Sequence[LlamaDecoder]) -> LlamaDecoder:
    """One module over a rank's stages, naming each parameter as the whole model does: what the optimizer and the
    checkpointer see. It is never run (the schedule runs the stages)."""
    view = LlamaDecoder.__new__(LlamaDecoder)  # the stages may be FSDP's subclasses: a plain one, unbuilt
    nn.Module.__init__(view)
    view.args = parts[0].args
    view.embed_tokens = next((p.embed_tokens for p in parts if p.embed_tokens is not None), None)
    view.layers = nn.ModuleDict({key: block for part in parts for key, block in part.layers.items()})
    view.norm = next((p.norm for p in parts if p.norm is not None), None)
    view.lm_head = next((p.lm_head for p in parts if p.lm_head is not None), None)
    return view


def _last_stage_loss(output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    # The last stage's forward already returned the micro-batch's mean loss (it was given the targets).
    return output


class Pipeline:
    """This rank's stages and the schedule that runs ``microbatches`` micro-batches through them per step."""

    def __init__(self, parts: list[tuple[int, LlamaDecoder]], layout: Layout, group, device: torch.device,
                 microbatches: int) -> None:
        from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleInterleaved1F1B

        self.parts = [module for _, module in parts]
        self.has_first = any(stage == 0 for stage, _ in parts)
        self.has_last = any(stage == layout.stages - 1 for stage, _ in parts)
        self.microbatches = microbatches
        self.device = device
        stages = [PipelineStage(module, stage, layout.stages, device, group=group) for stage, module in parts]
        if layout.schedule == "interleaved-1f1b":
            self.schedule = ScheduleInterleaved1F1B(stages, microbatches, loss_fn=_last_stage_loss, scale_grads=True)
        else:
            self.schedule = Schedule1F1B(stages[0], microbatches, loss_fn=_last_stage_loss, scale_grads=True)

    def train(self, mode: bool = True) -> None:
        for part in self.parts:
            part.train(mode)

    def _run(self, inputs: torch.Tensor, targets: torch.Tensor, *, backward: bool) -> torch.Tensor:
        losses: list[torch.Tensor] = []
        args = (inputs,) if self.has_first else ()
        run = self.schedule.step if backward else self.schedule.eval
        # Document indices travel with the microbatches like the targets: a stage without the embedding has no token
        # ids to find the documents in.
        document_end = self.parts[0].document_end
        extra = {"documents": document_ids(inputs, document_end)} if document_end is not None else {}
        run(*args, target=targets if self.has_last else None, losses=losses if self.has_last else None,
            return_outputs=False, targets=targets, **extra)
        if not self.has_last:
            return torch.zeros((), device=self.device)
        return torch.stack([loss.detach() for loss in losses]).mean()

    def step(self, inputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Forward and backward of one optimizer step's samples (``microbatches`` micro-batches of them, stacked);
        returns their mean loss on the last stage's ranks, zero elsewhere."""
        return self._run(inputs, targets, backward=True)

    def evaluate(self, inputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """The mean loss of ``inputs`` (forward only), on the last stage's ranks; zero elsewhere."""
        return self._run(inputs, targets, backward=False)
