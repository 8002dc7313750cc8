"""The planner speaks the trainer: what it recommends parses with the trainer's own flags and passes the checks the
trainer and `render` make. (Its memory estimate against the trainer's measured peak: tests/training/
test_training_memory.py.)"""

from __future__ import annotations

import shlex

import pytest

from eks_training.infra.tools.planner import (
    GIB,
    PlanError,
    deepspeed_config,
    estimate_memory,
    model_args,
    plan_parallelism,
)
from eks_training.training.config import parse_config
from eks_training.training.layout import Layout, check_launch
from eks_training.training.model_sizes import MODEL_SIZES


@pytest.mark.parametrize(("model", "nodes"), [("8b", 1), ("70b", 4), ("405b", 16)])
def test_recommended_layouts_on_p5_are_flags_the_trainer_runs(model: str, nodes: int) -> None:
    plan = plan_parallelism(model=model, instance_type="p5.48xlarge", nodes=nodes)
    flags = plan.trainer_flags()
    config = parse_config(["--data", "/fsx/data/wiki/train", *flags])
    assert (config.model, config.seq_len, config.grad_accum) == (model, plan.seq_len, plan.grad_accum)
    # The layout the flags ask for on the job's ranks is the plan's, with each tensor group inside a node.
    assert check_launch(flags, nodes, 8, "p5.48xlarge") == plan.layout
    assert plan.memory.total <= 0.9 * 80 * GIB


def test_the_largest_models_take_the_layouts_the_decision_matrix_names() -> None:
    assert plan_parallelism(model="8b", instance_type="p5.48xlarge", nodes=1).strategy == "data parallel"
    seventy = plan_parallelism(model="70b", instance_type="p5.48xlarge", nodes=4)
    assert seventy.strategy == "data + tensor parallel" and seventy.tp > 1 and seventy.pp == 1
    big = plan_parallelism(params=405e9, instance_type="p5.48xlarge", nodes=16)
    assert big.strategy.startswith("3D") and big.model_name == "405b" and (big.tp, big.layout.parallel) == (8, "fsdp")
    assert big.pp > 1 and big.grad_accum >= big.pp
    assert "--tensor-parallel 8" in shlex.join(big.trainer_flags())


@pytest.mark.parametrize("model", ["8b", "70b", "405b"])
def test_on_trainium_the_planner_offers_only_what_the_trainer_runs_there(model: str) -> None:
    # The trainer runs data parallel only under torch_xla: a large model has no layout there, said in one line.
    with pytest.raises(PlanError, match=r"does not fit on 4 x trn1.32xlarge: the smallest layout the trainer runs "
                                        r"\(data 128 \(replicated\) x tensor 1, ddp.*data parallel only on Neuron"):
        plan_parallelism(model=model, instance_type="trn1.32xlarge", nodes=4)


def test_a_model_that_fits_a_neuron_core_gets_neuron_flags() -> None:
    plan = plan_parallelism(model="small", instance_type="trn1.32xlarge", nodes=2, seq_len=2048)
    assert plan.layout == Layout(64, "ddp") and plan.devices_per_node == 32
    check_launch(plan.trainer_flags(), 2, 32, "trn1.32xlarge", data_parallel_only=True)


def test_terms_scale_with_the_layout() -> None:
    args = MODEL_SIZES["70b"]
    whole = estimate_memory(args, Layout(8, "fsdp"), seq_len=4096, micro_batch=1)
    split = estimate_memory(args, Layout(16, "fsdp", tensor=2), seq_len=4096, micro_batch=1)
    # Tensor 2 over the same 8 data ranks halves what every rank holds of the weights and moments.
    assert split.weights == pytest.approx(whole.weights / 2, rel=0.01)
    assert split.optimizer == pytest.approx(whole.optimizer / 2, rel=0.01)
    piped = estimate_memory(args, Layout(16, "fsdp", pipeline=2), seq_len=4096, micro_batch=1, microbatches=8)
    assert piped.weights == pytest.approx(whole.weights / 2, rel=0.05)
    replicated = estimate_memory(args, Layout(8, "ddp"), seq_len=4096, micro_batch=1)
    assert replicated.weights == pytest.approx(8 * whole.weights, rel=1e-9)


def test_shapes_come_from_the_trainers_named_sizes_or_are_interpolated() -> None:
    assert model_args(8e9) == ("8b", MODEL_SIZES["8b"])
    assert model_args(model="405b")[1].n_layers == 126
    name, between = model_args(30e9)
    assert name is None and 32 < between.n_layers < 80 and 4096 < between.dim < 8192 and between.dim % 128 == 0
    assert between.n_heads * 128 == between.dim


def test_deepspeed_config_says_the_same_layout() -> None:
    plan = plan_parallelism(model="8b", instance_type="p5.48xlarge", nodes=2, micro_batch=2, grad_accum=4)
    config = deepspeed_config(plan)
    assert config["train_batch_size"] == 2 * 4 * plan.dp
    assert config["zero_optimization"]["stage"] == (3 if plan.layout.parallel == "fsdp" else 0)
    assert deepspeed_config(plan, hf_trainer=True)["train_batch_size"] == "auto"
    with pytest.raises(PlanError, match="pipelines over"):
        deepspeed_config(plan_parallelism(model="405b", instance_type="p5.48xlarge", nodes=16))


@pytest.mark.parametrize(("options", "message"), [
    ({"params": -1}, "params=-1"),
    ({"nodes": 0}, "nodes=0"),
    ({"instance_type": "m5.large"}, "instance_type='m5.large' is not allowed: use a supported accelerated"),
    ({"tensor_parallel": 3}, "tensor_parallel=3"),
    ({"params": None, "model": "9b"}, "model='9b' is not allowed: use a named size"),
])
def test_bad_planner_inputs(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        plan_parallelism(**{"params": 8e9, "instance_type": "p5.48xlarge", "nodes": 2, **options})


def test_forced_tensor_parallelism_outside_a_node_is_refused() -> None:
    with pytest.raises(PlanError, match="no layout of 16 devices splits"):
        plan_parallelism(model="70b", instance_type="p5.48xlarge", nodes=2, tensor_parallel=16)
