"""Parallelism planner: data/tensor/pipeline parallel degrees and ZeRO stage for a model on a set of nodes.

The strategy starts from the source document's decision matrix (fewer than 10B parameters: data parallel;
10B-100B: data + tensor parallel; more than 100B: 3D, data + tensor + pipeline), then takes the smallest
degrees and ZeRO stage whose estimated per-device memory fits. A "device" is what one training process owns:
a GPU, or a NeuronCore on Trainium (torch-neuronx runs one process per core, each with its share of HBM).

Memory per device, in bytes (P parameters, t tensor, p pipeline, d data parallel; P_d = P / (t*p)):

* weights, bf16: 2 * P_d (divided by d under ZeRO-3);
* gradients, bf16: 2 * T_d, where T_d is the trainable share (P_d, or the LoRA adapters' share);
  divided by d under ZeRO-2 and ZeRO-3;
* Adam states, fp32 master + m + v: 12 * T_d, divided by d under ZeRO-1, 2 and 3;
* activations of the first pipeline stage under 1F1B (it holds p micro-batches of L/p layers each, i.e. L layers),
  after Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models", eq. (2) and
  sec. 4.2 with tensor and sequence parallelism:
  without recomputation  L * s*b*h * (34 + 5*a*s/h) / t,
  with full activation checkpointing  L * 2*s*b*h / t  (only each layer's input is kept),
  (s sequence length, b micro-batch, h hidden size, a attention heads, L layers).

On Trainium only ZeRO-1 is considered: NeuronX Distributed shards optimizer states (ZeRO-1) but not weights
or gradients, which is why a 70B LoRA there needs tensor parallelism.

LoRA adapters (rank r on the q, k, v and o projections, h x h each) add r*(h+h) parameters per projection:
T = L * 4 * 2*r*h. Frozen base weights have no gradients and no optimizer states.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from eks_training.core.catalog import instance_facts
from eks_training.core.validation import check_whole_number, invalid

GIB = 2**30
#: Fraction of device memory a plan may use; the rest is for the framework, NCCL buffers and fragmentation.
USABLE_MEMORY_FRACTION = 0.9
DATA_PARALLEL_LIMIT = 10e9
TENSOR_PARALLEL_LIMIT = 100e9
LORA_PROJECTIONS = 4


@dataclass(frozen=True)
class ModelShape:
    """A decoder-only transformer's shape."""

    params: float
    layers: int
    hidden: int
    heads: int


#: Llama-like reference shapes (Llama 3.2 1B, Llama 3.1 8B and 70B, GPT-3 175B).
REFERENCE_SHAPES = (
    ModelShape(1e9, 16, 2048, 32),
    ModelShape(8e9, 32, 4096, 32),
    ModelShape(70e9, 80, 8192, 64),
    ModelShape(175e9, 96, 12288, 96),
)
_HEAD_DIM = 128


def model_shape(params: float) -> ModelShape:
    """The reference shape for `params`, or layers and hidden size interpolated in log(params) between the two
    nearest references (clamped at the ends), heads of 128 dimensions."""
    if not isinstance(params, (int, float)) or isinstance(params, bool) or not 1e8 <= params <= 1e13:
        raise invalid("params", params, "use a parameter count from 1e8 to 1e13, e.g. 70e9")
    for shape in REFERENCE_SHAPES:
        if math.isclose(shape.params, params, rel_tol=1e-3):
            return shape
    below = max((s for s in REFERENCE_SHAPES if s.params < params), default=REFERENCE_SHAPES[0], key=lambda s: s.params)
    above = min((s for s in REFERENCE_SHAPES if s.params > params), default=REFERENCE_SHAPES[-1], key=lambda s: s.params)
    if below is above:
        return ModelShape(float(params), below.layers, below.hidden, below.heads)
    w = (math.log(params) - math.log(below.params)) / (math.log(above.params) - math.log(below.params))
    layers = round(below.layers + w * (above.layers - below.layers))
    hidden = round((below.hidden + w * (above.hidden - below.hidden)) / _HEAD_DIM) * _HEAD_DIM
    return ModelShape(float(params), layers, hidden, hidden // _HEAD_DIM)


@dataclass(frozen=True)
class MemoryEstimate:
    """Per-device bytes by term."""

    weights: float
    gradients: float
    optimizer: float
    activations: float

    @property
    def total(self) -> float:
        return self.weights + self.gradients + self.optimizer + self.activations


def estimate_memory(shape: ModelShape, *, tp: int, pp: int, dp: int, zero_stage: int, seq_len: int, micro_batch: int,
                    activation_checkpointing: bool, lora_rank: int | None = None) -> MemoryEstimate:
    """Per-device memory of one plan (formula in the module docstring)."""
    params_per_device = shape.params / (tp * pp)
    trainable = shape.params if lora_rank is None else shape.layers * LORA_PROJECTIONS * 2 * lora_rank * shape.hidden
    trainable_per_device = trainable / (tp * pp)
    s, b, h, a = seq_len, micro_batch, shape.hidden, shape.heads
    per_layer = 2 * s * b * h if activation_checkpointing else s * b * h * (34 + 5 * a * s / h)
    return MemoryEstimate(
        weights=2 * params_per_device / (dp if zero_stage >= 3 else 1),
        gradients=2 * trainable_per_device / (dp if zero_stage >= 2 else 1),
        optimizer=12 * trainable_per_device / (dp if zero_stage >= 1 else 1),
        activations=shape.layers * per_layer / tp,
    )


@dataclass(frozen=True)
class Plan:
    """A chosen parallel layout and its memory estimate."""

    strategy: str
    instance_type: str
    nodes: int
    devices_per_node: int
    device_memory_gib: float
    tp: int
    pp: int
    dp: int
    zero_stage: int
    activation_checkpointing: bool
    shape: ModelShape
    memory: MemoryEstimate
    micro_batch: int
    grad_accum: int

    @property
    def world_size(self) -> int:
        return self.tp * self.pp * self.dp

    def describe(self) -> str:
        m = self.memory
        return "\n".join([
            f"strategy: {self.strategy}",
            f"model: {self.shape.params / 1e9:g}B params, {self.shape.layers} layers, hidden {self.shape.hidden},"
            f" {self.shape.heads} heads",
            f"devices: {self.nodes} x {self.instance_type} = {self.world_size} ({self.device_memory_gib:g} GiB each)",
            f"parallelism: data {self.dp} x tensor {self.tp} x pipeline {self.pp}, ZeRO stage {self.zero_stage},"
            f" activation checkpointing {'on' if self.activation_checkpointing else 'off'}",
            f"memory per device: {m.total / GIB:.2f} GiB (weights {m.weights / GIB:.2f}, gradients {m.gradients / GIB:.2f},"
            f" optimizer {m.optimizer / GIB:.2f}, activations {m.activations / GIB:.2f})",
        ])


class PlanError(ValueError):
    """No plan fits; the message says why, in one line."""


def _powers_of_two_up_to(limit: int) -> list[int]:
    return [2**i for i in range(int(math.log2(limit)) + 1)] if limit >= 1 else [1]


def plan_parallelism(*, params: float, instance_type: str, nodes: int, seq_len: int = 4096, micro_batch: int = 1,
                     grad_accum: int = 8, lora_rank: int | None = None, tensor_parallel: int | None = None,
                     pipeline_parallel: int | None = None) -> Plan:
    """The smallest-degree plan that fits, following the decision matrix; PlanError when none fits."""
    shape = model_shape(params)
    facts = instance_facts(instance_type)
    for field, value, low in (("nodes", nodes, 1), ("seq_len", seq_len, 1), ("micro_batch", micro_batch, 1),
                              ("grad_accum", grad_accum, 1)):
        check_whole_number(field, value, minimum=low)
    if lora_rank is not None:
        check_whole_number("lora_rank", lora_rank, minimum=1, maximum=1024)
    per_node = facts.neuron_cores if facts.accelerator == "neuron" else facts.accelerators
    device_gib = facts.total_accelerator_memory_gib / per_node
    world = nodes * per_node
    budget = device_gib * GIB * USABLE_MEMORY_FRACTION
    if params < DATA_PARALLEL_LIMIT:
        strategy, tp_choices, pp_choices = "data parallel", [1], [1]
    elif params <= TENSOR_PARALLEL_LIMIT:
        strategy, tp_choices, pp_choices = "data + tensor parallel", _powers_of_two_up_to(per_node), [1]
    else:
        strategy, tp_choices, pp_choices = "3D (data + tensor + pipeline)", [_powers_of_two_up_to(per_node)[-1]], _powers_of_two_up_to(world)
    for field, forced in (("tensor_parallel", tensor_parallel), ("pipeline_parallel", pipeline_parallel)):
        if forced is not None and (isinstance(forced, bool) or not isinstance(forced, int) or forced < 1 or world % forced):
            raise invalid(field, forced, f"use a divisor of the {world} devices")
    tp_choices = [tensor_parallel] if tensor_parallel is not None else tp_choices
    pp_choices = [pipeline_parallel] if pipeline_parallel is not None else pp_choices
    zero_stages = (1,) if facts.accelerator == "neuron" else (1, 2, 3)
    smallest: tuple[float, str] | None = None
    for checkpointing in (False, True):
        for pp in pp_choices:
            for tp in tp_choices:
                if world % (tp * pp) or shape.heads % tp or pp > shape.layers:
                    continue
                dp = world // (tp * pp)
                for zero in zero_stages:
                    memory = estimate_memory(shape, tp=tp, pp=pp, dp=dp, zero_stage=zero, seq_len=seq_len,
                                             micro_batch=micro_batch, activation_checkpointing=checkpointing,
                                             lora_rank=lora_rank)
                    if memory.total <= budget:
                        return Plan(strategy, instance_type, nodes, per_node, device_gib, tp, pp, dp, zero, checkpointing,
                                    shape, memory, micro_batch, grad_accum)
                    layout = f"tensor {tp} x pipeline {pp} x data {dp}, ZeRO-{zero}, checkpointing {'on' if checkpointing else 'off'}"
                    if smallest is None or memory.total < smallest[0]:
                        smallest = (memory.total, layout)
    if smallest is None:
        raise PlanError(f"no layout of {world} devices fits the forced degrees (tensor parallel must divide {shape.heads} heads)")
    what = f"{params / 1e9:g}B{' LoRA' if lora_rank else ''}"
    hint = "; allow tensor parallelism" if tensor_parallel == 1 else "; add nodes or use LoRA / a shorter sequence"
    raise PlanError(
        f"{what} does not fit on {nodes} x {instance_type}: the smallest plan ({smallest[1]}) needs"
        f" {smallest[0] / GIB:.1f} GiB per device, above {budget / GIB:.1f} GiB usable{hint}"
    )


def deepspeed_config(plan: Plan, *, hf_trainer: bool = False) -> dict:
    """A DeepSpeed config for `plan`. Concrete batch values (train_batch_size = micro x accumulation x data-parallel
    size) unless `hf_trainer`, where "auto" lets the HF Trainer fill them from its own arguments."""
    if hf_trainer:
        batch = {"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto"}
    else:
        batch = {
            "train_batch_size": plan.micro_batch * plan.grad_accum * plan.dp,
            "train_micro_batch_size_per_gpu": plan.micro_batch,
            "gradient_accumulation_steps": plan.grad_accum,
        }
    config: dict = {
        **batch,
        "bf16": {"enabled": True},
        "gradient_clipping": 1.0,
        "zero_optimization": {"stage": plan.zero_stage, "overlap_comm": True, "contiguous_gradients": True},
        "activation_checkpointing": {"partition_activations": plan.tp > 1, "contiguous_memory_optimization": False},
    }
    if plan.tp > 1:
        config["tensor_parallel"] = {"autotp_size": plan.tp}
    return config


def deepspeed_json(plan: Plan, *, hf_trainer: bool = False) -> str:
    return json.dumps(deepspeed_config(plan, hf_trainer=hf_trainer), indent=2) + "\n"
