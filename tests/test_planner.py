"""Parallelism planner against memory figures computed by hand from the formula's terms."""

from __future__ import annotations

import pytest

from eks_training.infra.tools.planner import PlanError, deepspeed_config, model_shape, plan_parallelism

S = 4096  # sequence length used throughout; micro-batch 1


@pytest.mark.parametrize(
    ("params", "instance_type", "nodes", "lora", "expected_layout", "expected_bytes"),
    [
        # 1B on 1 x p4d (8 x 40 GiB): DP 8, ZeRO-1. Without checkpointing 16 layers of
        # 4096*2048*(34 + 5*32*4096/2048) bytes = 47.5e9 do not fit 36 GiB, so checkpointing is on.
        (1e9, "p4d.24xlarge", 1, None, (8, 1, 1, 1, True),
         2 * 1e9 + 2 * 1e9 + 12 * 1e9 / 8 + 16 * 2 * S * 2048),
        # 8B on 1 x p5 (8 x 80 GiB): weights 16e9 + grads 16e9 + Adam 96e9/8 + 32 layers * 2*s*h.
        (8e9, "p5.48xlarge", 1, None, (8, 1, 1, 1, True),
         2 * 8e9 + 2 * 8e9 + 12 * 8e9 / 8 + 32 * 2 * S * 4096),
        # 70B LoRA r=16 on 4 x trn1 (128 NeuronCores x 16 GiB): TP 8 leaves 17.5e9 B of weights > 14.4 GiB,
        # TP 16 fits: weights 2*70e9/16, LoRA T = 80*4*2*16*8192 split over TP 16, Adam over DP 8.
        (70e9, "trn1.32xlarge", 4, 16, (8, 16, 1, 1, True),
         2 * 70e9 / 16 + 2 * (80 * 4 * 2 * 16 * 8192) / 16 + 12 * (80 * 4 * 2 * 16 * 8192) / 16 / 8 + 80 * 2 * S * 8192 / 16),
        # 175B on 16 x p5: TP 8, DP 16; ZeRO-1 needs 105e9 B, ZeRO-2 shards the gradients too.
        (175e9, "p5.48xlarge", 16, None, (16, 8, 1, 2, True),
         2 * 175e9 / 8 + 2 * 175e9 / 8 / 16 + 12 * 175e9 / 8 / 16 + 96 * 2 * S * 12288 / 8),
        # 175B on 16 x p4d (40 GiB): only ZeRO-3 fits, weights sharded over DP 16 as well.
        (175e9, "p4d.24xlarge", 16, None, (16, 8, 1, 3, True),
         2 * 175e9 / 8 / 16 + 2 * 175e9 / 8 / 16 + 12 * 175e9 / 8 / 16 + 96 * 2 * S * 12288 / 8),
    ],
)
def test_plans_match_hand_computed_memory(params, instance_type, nodes, lora, expected_layout, expected_bytes) -> None:
    plan = plan_parallelism(params=params, instance_type=instance_type, nodes=nodes, seq_len=S, micro_batch=1, lora_rank=lora)
    assert (plan.dp, plan.tp, plan.pp, plan.zero_stage, plan.activation_checkpointing) == expected_layout
    assert plan.memory.total == pytest.approx(expected_bytes, rel=1e-9)


def test_strategy_follows_the_decision_matrix() -> None:
    assert plan_parallelism(params=1e9, instance_type="p5.48xlarge", nodes=1).strategy == "data parallel"
    assert plan_parallelism(params=70e9, instance_type="p5.48xlarge", nodes=4).strategy == "data + tensor parallel"
    assert plan_parallelism(params=175e9, instance_type="p5.48xlarge", nodes=16).strategy.startswith("3D")


def test_70b_lora_on_trn1_without_tensor_parallelism_is_refused_with_reason() -> None:
    with pytest.raises(PlanError, match=r"70B LoRA does not fit on 4 x trn1.32xlarge.*tensor 1 .*allow tensor parallelism"):
        plan_parallelism(params=70e9, instance_type="trn1.32xlarge", nodes=4, lora_rank=16, tensor_parallel=1)


def test_reference_shapes_and_interpolation() -> None:
    assert (model_shape(70e9).layers, model_shape(70e9).hidden, model_shape(70e9).heads) == (80, 8192, 64)
    between = model_shape(30e9)
    assert 32 < between.layers < 80 and 4096 < between.hidden < 8192 and between.hidden % 128 == 0


def test_deepspeed_batch_is_concrete_unless_hf_trainer() -> None:
    plan = plan_parallelism(params=8e9, instance_type="p5.48xlarge", nodes=2, micro_batch=2, grad_accum=4)
    config = deepspeed_config(plan)
    assert config["train_batch_size"] == 2 * 4 * 16
    assert config["gradient_accumulation_steps"] == 4 and config["zero_optimization"]["stage"] == plan.zero_stage
    assert deepspeed_config(plan, hf_trainer=True)["train_batch_size"] == "auto"


@pytest.mark.parametrize(("options", "message"), [
    ({"params": -1}, "params=-1"),
    ({"nodes": 0}, "nodes=0"),
    ({"instance_type": "m5.large"}, "instance_type='m5.large' is not allowed: use a supported accelerated"),
    ({"tensor_parallel": 3}, "tensor_parallel=3"),
])
def test_bad_planner_inputs(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        plan_parallelism(**{"params": 8e9, "instance_type": "p5.48xlarge", "nodes": 2, **options})
