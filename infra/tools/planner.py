"""Parallelism planner: the layout our trainer runs for a model on a set of nodes, its memory per device, and the
trainer flags that ask for it (what `eks-training plan` prints and `eks-training render --train-args` takes).

Only layouts the trainer runs are considered (:class:`eks_training.training.layout.Layout`: data parallel replicated
(``ddp``) or sharded (``fsdp``, or HSDP inside a node), tensor parallel inside a node, pipeline parallel with the
1F1B or interleaved 1F1B schedule), each checked as the trainer checks it (heads, vocabulary and sequence
divisible by the tensor degree, a block or more per stage, enough microbatches). On Trainium the trainer runs data
parallel only (torch_xla, one process per NeuronCore, ``--parallel ddp``), so that is all the planner offers there.

Preference follows the decision matrix (fewer than 10B parameters: data parallel; 10B-100B: data + tensor parallel;
more than 100B: tensor + pipeline + data), falling back to the next strategy when none of a strategy's layouts fits;
inside a strategy the smallest model-parallel degrees, replicated before sharded, and activation checkpointing only
when needed. A "device" is what one training process owns: a GPU, or a NeuronCore on Trainium.

Memory per device is the trainer's own (:func:`estimate_memory`), the larger of two moments of a step:

* backward: fp32 master weights (4 bytes a parameter; a LoRA run's frozen base in its compute dtype), AdamW's two
  fp32 moments (8 bytes a trainable parameter), the activations every block keeps for backward, the compute-dtype
  weights in use (FSDP's gathered blocks; autocast's bf16 copies without FSDP), and either the output layer's logits,
  their gradients and the output layer's gradient (as backward starts) or, with activation checkpointing, the block
  being recomputed with its gradients (later), whichever is larger;
* the optimizer step: weights, moments and fp32 gradients (4 bytes a trainable parameter), plus the CPU AdamW's
  temporaries (two of the largest parameter; CUDA's fused AdamW has none).

Weights, gradients and moments are divided by the tensor degree, the pipeline (the most loaded rank's stages) and,
under FSDP, the shard group. Activations per token and block, counted from what our decoder saves (dimension d,
key/value width kv, feed-forward width f, h heads): ``8d + 2kv + 4f + h + 2`` elements; under tensor parallelism
the two gathered inputs (attention's and the feed-forward's, ``2d``) are whole and the rest is divided by the degree.
With activation checkpointing a block keeps only its input (d, divided by the tensor degree: sequence parallel)
plus one block's activations while it is recomputed. A pipeline rank keeps the activations of the microbatches in
flight: under 1F1B the first stage has ``pipeline`` of them. Measured on CPU for the tiny and
small models, the estimate is within 20% of the trainer's measured peak (tests/test_planner.py); on GPUs in bf16 it
has not been measured here (no GPU), and allocator fragmentation comes on top (hence :data:`USABLE_MEMORY_FRACTION`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace

from eks_training.core.catalog import instance_facts
from eks_training.core.validation import check_whole_number, invalid
from eks_training.training.layout import Layout, stage_blocks, stage_ids
from eks_training.training.model_sizes import MODEL_SIZES, ModelArgs

GIB = 2**30
MIB = 2**20
#: Fraction of device memory a plan may use; the rest is for the framework, NCCL buffers and fragmentation.
USABLE_MEMORY_FRACTION = 0.9
DATA_PARALLEL_LIMIT = 10e9
TENSOR_PARALLEL_LIMIT = 100e9
#: The Llama 3 shapes the planner interpolates between for a parameter count without a named size.
_REFERENCE_SIZES = ("1b", "8b", "70b", "405b")
_HEAD_DIM = 128
#: A parameter count this close to a named size plans that size (8e9 is Llama 3 8B's 8.03e9).
_NAMED_SIZE_TOLERANCE = 0.05
#: The chunked loss's fp32 logits per chunk (training/loss.py LOSS_CHUNK_ELEMENTS).
_LOSS_CHUNK_ELEMENTS = 1 << 26
DTYPE_BYTES = {"fp32": 4, "bf16": 2}
#: A recomputed block's saved tensors plus the gradients its backward creates, over the saved tensors alone.
_RECOMPUTE_FACTOR = 1.3


def model_args(params: float | None = None, model: str | None = None) -> tuple[str | None, ModelArgs]:
    """The shape to plan for: a named size (``model``, or the one ``params`` is within 5% of), else the Llama 3
    reference shapes interpolated in log(params) (heads of 128 dimensions, 8 key/value heads)."""
    if model is not None:
        if model not in MODEL_SIZES:
            raise invalid("model", model, f"use a named size: {', '.join(MODEL_SIZES)} (or give params)")
        return model, MODEL_SIZES[model]
    if not isinstance(params, (int, float)) or isinstance(params, bool) or not 1e8 <= params <= 1e13:
        raise invalid("params", params, "use a parameter count from 1e8 to 1e13, e.g. 70e9")
    for name, args in MODEL_SIZES.items():
        if abs(args.parameters - params) <= _NAMED_SIZE_TOLERANCE * args.parameters:
            return name, args
    references = [MODEL_SIZES[name] for name in _REFERENCE_SIZES]
    below = max((a for a in references if a.parameters < params), default=references[0], key=lambda a: a.parameters)
    above = min((a for a in references if a.parameters > params), default=references[-1], key=lambda a: a.parameters)
    if below is above:
        w = 0.0
    else:
        w = (math.log(params) - math.log(below.parameters)) / (math.log(above.parameters) - math.log(below.parameters))
    dim = round((below.dim + w * (above.dim - below.dim)) / _HEAD_DIM) * _HEAD_DIM
    ffn = round((below.ffn_dim + w * (above.ffn_dim - below.ffn_dim)) / 256) * 256
    layers = round(below.n_layers + w * (above.n_layers - below.n_layers))
    # Untied, as the larger references: a tied output layer (1b's) would rule out tensor and pipeline layouts.
    return None, replace(below, dim=dim, n_layers=layers, n_heads=dim // _HEAD_DIM, ffn_dim=ffn, tie_embeddings=False)


@dataclass(frozen=True)
class MemoryEstimate:
    """Per-device bytes by term; ``total`` is the larger of the two moments (module docstring)."""

    weights: float
    gradients: float
    optimizer: float
    activations: float
    logits: float
    compute_weights: float
    optimizer_temporaries: float
    recompute: float = 0.0

    @property
    def backward(self) -> float:
        """The peak of backward: the loss's buffers as it starts or, later, a recomputed block's (never both)."""
        return self.weights + self.optimizer + self.activations + max(self.logits, self.recompute) + \
            self.compute_weights

    @property
    def optimizer_step(self) -> float:
        return self.weights + self.optimizer + self.gradients + self.optimizer_temporaries

    @property
    def total(self) -> float:
        return max(self.backward, self.optimizer_step)


def _block_parameters(args: ModelArgs) -> int:
    kv = args.n_kv_heads * args.head_dim
    return 2 * args.dim * args.dim + 2 * args.dim * kv + 3 * args.dim * args.ffn_dim + 2 * args.dim


def _lora_block_parameters(args: ModelArgs, rank: int) -> int:
    """Adapters of the trainer's default --lora-targets (q, k, v, o): A (r x in) plus B (out x r) per projection."""
    kv = args.n_kv_heads * args.head_dim
    return rank * ((args.dim + args.dim) * 2 + (args.dim + kv) * 2)


def _activation_elements(args: ModelArgs, tp: int) -> float:
    """Elements one block keeps for backward per token (counted from our decoder's saved tensors)."""
    d, kv, f, h = args.dim, args.n_kv_heads * args.head_dim, args.ffn_dim, args.n_heads
    gathered = 2 * d if tp > 1 else 0
    return gathered + (8 * d - gathered + 2 * kv + 4 * f + h + 2) / tp


def _in_flight(layout: Layout, pipeline_rank: int, microbatches: int) -> float:
    """Microbatches whose activations a pipeline rank keeps at once, per stage it holds."""
    if layout.pipeline == 1:
        return 1
    warmup = layout.pipeline - pipeline_rank
    if layout.schedule == "interleaved-1f1b":
        # Megatron's interleaved schedule: the first rank holds (1 + (p - 1) / (p v)) times 1F1B's activations.
        warmup = warmup * (1 + (layout.pipeline - 1) / (layout.pipeline * layout.stages_per_rank))
    return min(microbatches, warmup)


def estimate_memory(args: ModelArgs, layout: Layout, *, seq_len: int, micro_batch: int, microbatches: int = 1,
                    activation_checkpointing: bool = False, precision: str = "bf16", lora_rank: int | None = None,
                    fused_optimizer: bool = True) -> MemoryEstimate:
    """Peak bytes per device of the trainer running ``layout`` (the most loaded pipeline rank); see the module
    docstring for each term. ``precision`` is the compute precision (fp32 or bf16); ``fused_optimizer`` is CUDA's
    fused AdamW (False: the CPU's per-tensor AdamW)."""
    tp, shard = layout.tensor, layout.data_shard
    compute = DTYPE_BYTES[precision]
    tokens = seq_len * micro_batch
    blocks = stage_blocks(args.n_layers, layout.stages)
    block = _block_parameters(args)
    embedding = args.vocab_size * args.dim
    worst: MemoryEstimate | None = None
    for rank in range(layout.pipeline):
        stages = stage_ids(layout, rank)
        n_blocks = sum(len(blocks[s]) for s in stages)
        first, last = 0 in stages, layout.stages - 1 in stages
        held = n_blocks * block + (embedding if first else 0) + (embedding + args.dim if last else 0)
        trainable = held if lora_rank is None else n_blocks * _lora_block_parameters(args, lora_rank)
        frozen = held - trainable if lora_rank is not None else 0
        largest = max(args.dim * args.ffn_dim, embedding if (first or last) else 0) / tp
        # Master weights in fp32; a LoRA run's frozen base in its compute dtype.
        weights = (4 * trainable + (compute if lora_rank else 4) * frozen) / tp / shard
        gradients = 4 * trainable / tp / shard
        optimizer = 8 * trainable / tp / shard
        temporaries = 0.0 if fused_optimizer else 2 * 4 * largest / (shard if lora_rank is None else 1)
        per_block = _activation_elements(args, tp) * tokens * (compute if precision == "bf16" else 4)
        recompute = 0.0
        if activation_checkpointing:
            kept = n_blocks * args.dim * tokens / tp * 4
            # One block recomputed at a time, with the gradients its backward makes (a third more, measured).
            recompute = _RECOMPUTE_FACTOR * per_block
        else:
            kept = n_blocks * per_block
        activations = kept * _in_flight(layout, rank, microbatches)
        logits = 0.0
        if last:
            # The output layer's gradient, and the loss's own buffers for one microbatch.
            logits = 4 * embedding / tp / shard
            if tp > 1:  # this rank's vocabulary columns: compute-dtype logits, their fp32 copy, softmax, gradient
                logits += tokens * args.vocab_size / tp * (compute + 12)
            elif precision == "fp32":  # logits and log-softmax kept, their gradients while backward starts
                logits += 4 * tokens * args.vocab_size * 4
            else:  # the chunked loss: fp32 input gradient, fp32 output-layer gradient, one chunk's fp32 logits
                logits += 4 * tokens * args.dim + 4 * embedding + 3 * 4 * min(_LOSS_CHUNK_ELEMENTS,
                                                                               tokens * args.vocab_size)
            logits += 2 * args.dim * tokens * 4  # the final norm's input and output
        compute_weights = 0.0
        if precision == "bf16" and layout.parallel == "fsdp":
            # Gathered blocks: two at a time (one prefetched), or the whole stage under a pipeline (kept gathered
            # from forward to backward).
            gathered = held if layout.pipeline > 1 else 2 * block + embedding
            compute_weights = compute * gathered / tp
        elif precision == "bf16":
            compute_weights = compute * held / tp  # autocast's bf16 copies, kept for backward
        estimate = MemoryEstimate(weights, gradients, optimizer, activations, logits, compute_weights, temporaries,
                                  recompute)
        if worst is None or estimate.total > worst.total:
            worst = estimate
    assert worst is not None
    return worst


@dataclass(frozen=True)
class Plan:
    """A chosen layout, how it runs, and its memory estimate."""

    strategy: str
    instance_type: str
    nodes: int
    devices_per_node: int
    device_memory_gib: float
    layout: Layout
    activation_checkpointing: bool
    model_name: str | None
    args: ModelArgs
    memory: MemoryEstimate
    seq_len: int
    micro_batch: int
    grad_accum: int
    lora_rank: int | None = None

    @property
    def world_size(self) -> int:
        return self.layout.world_size

    @property
    def tp(self) -> int:
        return self.layout.tensor

    @property
    def pp(self) -> int:
        return self.layout.pipeline

    @property
    def dp(self) -> int:
        return self.layout.data

    def trainer_flags(self) -> list[str]:
        """The trainer flags that run this plan (give your model folder as --model when no named size is shown)."""
        flags = ["--model", self.model_name] if self.model_name else []
        flags += ["--seq-len", str(self.seq_len), "--micro-batch-size", str(self.micro_batch),
                  "--grad-accum", str(self.grad_accum), *self.layout.flags()]
        if self.activation_checkpointing:
            flags += ["--activation-checkpointing", "true"]
        if self.lora_rank:
            flags += ["--lora-rank", str(self.lora_rank)]
        return flags

    def describe(self) -> str:
        m, args = self.memory, self.args
        name = f"{self.model_name} " if self.model_name else ""
        return "\n".join([
            f"strategy: {self.strategy}",
            f"model: {name}{args.parameters / 1e9:.3g}B params, {args.n_layers} layers, hidden {args.dim},"
            f" {args.n_heads} heads ({args.n_kv_heads} key/value)",
            f"devices: {self.nodes} x {self.instance_type} = {self.world_size} ({self.device_memory_gib:g} GiB each)",
            f"layout: {self.layout.describe()}, activation checkpointing {'on' if self.activation_checkpointing else 'off'}",
            f"batch: {self.micro_batch} x {self.grad_accum} {'microbatches' if self.pp > 1 else 'accumulated'} x "
            f"data {self.dp} = {self.micro_batch * self.grad_accum * self.dp} samples of {self.seq_len} tokens a step",
            f"memory per device: {m.total / GIB:.2f} GiB (weights {m.weights / GIB:.2f}, gradients {m.gradients / GIB:.2f},"
            f" optimizer {m.optimizer / GIB:.2f}, activations {m.activations / GIB:.2f}, logits {m.logits / GIB:.2f},"
            f" compute weights {m.compute_weights / GIB:.2f})",
            "trainer flags: " + " ".join(self.trainer_flags()),
        ])


class PlanError(ValueError):
    """No plan fits; the message says why, in one line."""


def _powers_of_two_up_to(limit: int) -> list[int]:
    return [2**i for i in range(int(math.log2(limit)) + 1)] if limit >= 1 else [1]


def _microbatches(pp: int, schedule: str, grad_accum: int) -> int:
    """``grad_accum``, raised to what the schedule needs to fill the pipeline (at least one per stage rank)."""
    if pp == 1:
        return grad_accum
    return max(grad_accum, pp) if schedule == "1f1b" else max(grad_accum, pp) // pp * pp


def _strategies(params: float, per_node: int, world: int, neuron: bool) -> list[tuple[str, list[tuple[int, int]]]]:
    """Each strategy's (tensor, pipeline) degrees, smallest first, in the decision matrix's order of preference."""
    data = ("data parallel", [(1, 1)])
    if neuron:
        return [data]
    tensor = ("data + tensor parallel", [(tp, 1) for tp in _powers_of_two_up_to(per_node) if tp > 1])
    widest = _powers_of_two_up_to(per_node)[-1]
    three_d = ("3D (data + tensor + pipeline)", [(widest, pp) for pp in _powers_of_two_up_to(world) if pp > 1])
    if params < DATA_PARALLEL_LIMIT:
        return [data, tensor, three_d]
    if params <= TENSOR_PARALLEL_LIMIT:
        return [tensor, three_d]
    return [three_d]


def _data_modes(neuron: bool, per_node: int, tp: int, data: int) -> list[tuple[str, int]]:
    """Replicated first (least traffic), then sharded inside a node (HSDP), then sharded over every data rank."""
    if neuron:
        return [("ddp", 0)]
    in_node = per_node // tp
    modes = [("ddp", 0)]
    if 1 < in_node < data:
        modes.append(("fsdp", in_node))
    return modes + [("fsdp", 0)]


def plan_parallelism(*, params: float | None = None, model: str | None = None, instance_type: str, nodes: int,
                     seq_len: int = 4096, micro_batch: int = 1, grad_accum: int = 8, lora_rank: int | None = None,
                     tensor_parallel: int | None = None, pipeline_parallel: int | None = None) -> Plan:
    """The first layout (in the order of preference of the module docstring) whose estimated memory fits;
    PlanError, in one line, when none does."""
    model_name, args = model_args(params, model)
    size = args.parameters
    facts = instance_facts(instance_type)
    for field, value, low in (("nodes", nodes, 1), ("seq_len", seq_len, 1), ("micro_batch", micro_batch, 1),
                              ("grad_accum", grad_accum, 1)):
        check_whole_number(field, value, minimum=low)
    if lora_rank is not None:
        check_whole_number("lora_rank", lora_rank, minimum=1, maximum=1024)
    neuron = facts.accelerator == "neuron"
    per_node = facts.neuron_cores if neuron else facts.accelerators
    device_gib = facts.total_accelerator_memory_gib / per_node
    world = nodes * per_node
    budget = device_gib * GIB * USABLE_MEMORY_FRACTION
    for field, forced in (("tensor_parallel", tensor_parallel), ("pipeline_parallel", pipeline_parallel)):
        if forced is not None and (isinstance(forced, bool) or not isinstance(forced, int) or forced < 1 or world % forced):
            raise invalid(field, forced, f"use a divisor of the {world} devices")
    strategies = _strategies(size, per_node, world, neuron or lora_rank is not None)
    if tensor_parallel is not None or pipeline_parallel is not None:
        forced = (tensor_parallel or 1, pipeline_parallel or 1)
        name = "data parallel" if forced == (1, 1) else "data + tensor parallel" if forced[1] == 1 else \
            "3D (data + tensor + pipeline)"
        strategies = [(name, [forced])]
    smallest: tuple[float, str] | None = None
    for strategy, degrees in strategies:
        for checkpointing in (False, True):
            for tp, pp in degrees:
                schedules = ("interleaved-1f1b", "1f1b") if pp > 1 else ("1f1b",)
                for schedule in schedules:
                    if world % (tp * pp):
                        continue
                    microbatches = _microbatches(pp, schedule, grad_accum)
                    for parallel, group in _data_modes(neuron, per_node, tp, world // (tp * pp)):
                        try:
                            layout = Layout(world, parallel, tp, pp, schedule, group)
                            layout.check_model(args, seq_len)
                            layout.check_microbatches(microbatches)
                            layout.check_node(per_node, instance_type)
                        except ValueError:
                            continue
                        memory = estimate_memory(args, layout, seq_len=seq_len, micro_batch=micro_batch,
                                                 microbatches=microbatches, activation_checkpointing=checkpointing,
                                                 lora_rank=lora_rank)
                        if memory.total <= budget:
                            return Plan(strategy, instance_type, nodes, per_node, device_gib, layout, checkpointing,
                                        model_name, args, memory, seq_len, micro_batch, microbatches, lora_rank)
                        described = (f"{layout.describe()}, {parallel}, activation checkpointing "
                                     f"{'on' if checkpointing else 'off'}")
                        if smallest is None or memory.total < smallest[0]:
                            smallest = (memory.total, described)
    what = f"{size / 1e9:.3g}B{' LoRA' if lora_rank else ''}"
    if smallest is None:
        raise PlanError(f"no layout of {world} devices splits {what} as forced (the tensor degree must divide "
                        f"{args.n_heads} heads, {args.n_kv_heads} key/value heads and stay inside a node of "
                        f"{per_node}; a pipeline needs a block per stage)")
    if neuron:
        hint = ("; the trainer runs data parallel only on Neuron (--parallel ddp; torch_xla's tensor and pipeline "
                "parallelism are NeuronX Distributed's): train it on GPUs or a smaller model")
    elif lora_rank is not None:
        hint = "; LoRA trains under data parallelism only: add nodes or use a shorter sequence"
    elif tensor_parallel == 1:
        hint = "; allow tensor parallelism"
    else:
        hint = "; add nodes or use a shorter sequence"
    raise PlanError(f"{what} does not fit on {nodes} x {instance_type}: the smallest layout the trainer runs "
                    f"({smallest[1]}) needs {smallest[0] / GIB:.1f} GiB per device, above {budget / GIB:.1f} GiB "
                    f"usable{hint}")


def deepspeed_config(plan: Plan, *, hf_trainer: bool = False) -> dict:
    """The same plan as a DeepSpeed config, for a DeepSpeed trainer of your own (ours reads the trainer flags):
    FSDP is ZeRO-3, replicated data parallel ZeRO-0. A pipeline has no HF Trainer equivalent: PlanError."""
    if plan.pp > 1:
        raise PlanError(f"--deepspeed-config: the plan pipelines over {plan.pp} stages, which DeepSpeed's config "
                        "for the HF Trainer cannot express; use the trainer flags")
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
        "zero_optimization": {"stage": 3 if plan.layout.parallel == "fsdp" else 0, "overlap_comm": True,
                              "contiguous_gradients": True},
        "activation_checkpointing": {"partition_activations": plan.tp > 1, "contiguous_memory_optimization": False},
    }
    if plan.tp > 1:
        config["tensor_parallel"] = {"autotp_size": plan.tp}
    return config


def deepspeed_json(plan: Plan, *, hf_trainer: bool = False) -> str:
    return json.dumps(deepspeed_config(plan, hf_trainer=hf_trainer), indent=2) + "\n"
