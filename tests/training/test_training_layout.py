"""The layout's rules without any process group: what each flag combination asks for, the one-line refusals (the
trainer's and Neuron's), how blocks are shared among pipeline stages, and a checkpoint of the earlier optimizer
format still resuming. (Every layout training like one process: test_training_layouts.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import get_state_dict

from eks_training.training.checkpoint import Checkpointer, mark_complete
from eks_training.training.config import ConfigError, parse_config, read_flags
from eks_training.training.device import Runtime
from eks_training.training.layout import Layout, stage_blocks, stage_ids
from eks_training.training.model import MODEL_SIZES, build_model
from eks_training.training.parallel import _check_layout
from eks_training.training.trainer import build_optimizer


def test_a_layout_names_its_groups_and_round_trips_through_its_flags() -> None:
    layout = Layout(64, "fsdp", tensor=8, pipeline=2, schedule="interleaved-1f1b", shard_group_size=2)
    assert (layout.data, layout.data_shard, layout.data_replicate, layout.stages) == (4, 2, 2, 4)
    flags = read_flags(layout.flags(), ("parallel", "tensor_parallel", "pipeline_parallel", "pipeline_schedule",
                                        "shard_group_size"))
    assert Layout(64, *flags.values()) == layout
    assert Layout(8).flags() == ["--parallel", "ddp"] and Layout(8, "fsdp").data_shard == 8
    assert Layout(8, "ddp", tensor=2).data_shard == 1
    assert Layout(8, expert=4).flags() == ["--parallel", "ddp", "--expert-parallel", "4"]
    assert read_flags(Layout(8, expert=4).flags(), ("expert_parallel",)) == {"expert_parallel": 4}


@pytest.mark.parametrize(("layout", "message"), [
    (lambda: Layout(8, tensor=3), "--tensor-parallel=3 is not allowed: a divisor of the world size 8"),
    (lambda: Layout(8, tensor=4, pipeline=4), "--pipeline-parallel=4 is not allowed: a degree whose product with "
                                              "--tensor-parallel 4 divides the world size 8"),
    (lambda: Layout(8, "fsdp", tensor=2, shard_group_size=3), "--shard-group-size=3 is not allowed: a divisor of "
                                                              "the 4 data-parallel ranks"),
    (lambda: Layout(8, tensor=8).check_model(MODEL_SIZES["tiny"], 32), "--tensor-parallel=8 is not allowed: a "
                                                                       "divisor of the model's attention heads 4"),
    (lambda: Layout(2, tensor=2).check_model(MODEL_SIZES["tiny"], 33), "the model's sequence length 33"),
    (lambda: Layout(4, pipeline=2, schedule="interleaved-1f1b").check_model(MODEL_SIZES["tiny"], 32),
     "--pipeline-parallel=2 is not allowed: at most 1 for a model of 2 blocks (2 stage(s) per rank"),
    (lambda: Layout(4, pipeline=4).check_microbatches(2), "--grad-accum=2 is not allowed: at least "
                                                          "--pipeline-parallel 4"),
    (lambda: Layout(4, pipeline=4, schedule="interleaved-1f1b").check_microbatches(9),
     "--grad-accum=9 is not allowed: a multiple of 2"),
    (lambda: Layout(16, tensor=16).check_node(8, "p5.48xlarge"), "a divisor of the 8 ranks per node of p5.48xlarge"),
    (lambda: Layout(6, expert=4), "--expert-parallel=4 is not allowed: a divisor of the 6 data-parallel ranks"),
    (lambda: Layout(4, "fsdp", expert=2), "--expert-parallel=2 is not allowed: 1 unless the run is --parallel ddp"),
    (lambda: Layout(4, tensor=2, expert=2), "--expert-parallel=2 is not allowed: 1 unless the run is --parallel ddp"),
    (lambda: Layout(4, expert=4).check_model(MODEL_SIZES["tiny"], 32), "--expert-parallel=4 is not allowed: 1 for a "
                                                                       "dense model"),
    (lambda: Layout(3, expert=3).check_model(MODEL_SIZES["tiny-moe"], 32), "--expert-parallel=3 is not allowed: a "
                                                                           "divisor of the model's 4 experts"),
    (lambda: Layout(2, tensor=2).check_model(MODEL_SIZES["tiny-moe"], 32), "--tensor-parallel=2 is not allowed: 1 "
                                                                           "for a mixture-of-experts model"),
    (lambda: Layout(2, tensor=2).check_model(MODEL_SIZES["1b"], 32), "--tensor-parallel=2 is not allowed: 1 for a "
                                                                     "model whose output layer shares"),
])
def test_layouts_the_trainer_cannot_run_are_one_line_errors(layout, message: str) -> None:
    with pytest.raises(ConfigError) as refused:
        layout()
    assert message in str(refused.value) and "\n" not in str(refused.value)


@pytest.mark.parametrize(("argv", "message"), [
    (["--tensor-parallel", "2", "--lora-rank", "8"], "--lora-rank=8 is not allowed: 0 with --tensor-parallel 2"),
    (["--pipeline-parallel", "2", "--precision", "fp16"], "--precision='fp16' is not allowed: bf16, fp32 or auto "
                                                          "with --pipeline-parallel 2"),
    (["--tensor-parallel", "2", "--device", "xla"], "--tensor-parallel=2 is not allowed: 1 on XLA/Neuron"),
    (["--pipeline-schedule", "zero-bubble"], "--pipeline-schedule='zero-bubble' is not allowed: 1f1b, "
                                             "interleaved-1f1b"),
])
def test_flag_combinations_the_trainer_refuses(argv: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config(["--data", "/d", *argv])


def test_a_neuron_run_of_a_layout_resolved_at_run_time_is_refused() -> None:
    # --device auto finds Neuron at run time: the same one line, before any group is made.
    config = parse_config(["--data", "/d", "--tensor-parallel", "2"])
    with pytest.raises(ConfigError, match="--tensor-parallel=2 is not allowed: 1 on XLA/Neuron"):
        _check_layout(config, Runtime("xla", torch.device("cpu"), world_size=2), Layout(2, tensor=2),
                      build_model("tiny", device="meta"), 32)


def test_pipeline_stages_share_the_blocks_evenly_and_loop_over_the_ranks() -> None:
    assert [list(r) for r in stage_blocks(10, 4)] == [[0, 1, 2], [3, 4, 5], [6, 7], [8, 9]]
    interleaved = Layout(8, pipeline=2, schedule="interleaved-1f1b")
    assert [stage_ids(interleaved, rank) for rank in (0, 1)] == [[0, 2], [1, 3]]
    assert stage_ids(Layout(8, pipeline=4), 3) == [3]


def test_a_checkpoint_of_the_earlier_optimizer_format_still_resumes(tmp_path: Path) -> None:
    # Saved before optimizer states were keyed per parameter name: the parameter groups as one object.
    config = parse_config(["--data", "/d", "--lr", "1e-3"])
    runtime = Runtime("cpu", torch.device("cpu"))
    torch.manual_seed(0)
    model = build_model("tiny")
    optimizer = build_optimizer(model, config, runtime)
    model(torch.zeros(1, 8, dtype=torch.long), torch.ones(1, 8, dtype=torch.long)).backward()
    optimizer.step()
    model_state, optimizer_state = get_state_dict(model, optimizer)
    folder = tmp_path / "step-1"
    dcp.save({"model": model_state, "optimizer": optimizer_state}, checkpoint_id=folder)
    torch.save({"step": 1}, folder / "trainer-rank-0.pt")
    mark_complete(folder, 1)

    torch.manual_seed(1)
    fresh = build_model("tiny")
    fresh_optimizer = build_optimizer(fresh, config, runtime)
    assert Checkpointer(tmp_path, 2, fresh, fresh_optimizer).load() == 1
    for (name, a), (_, b) in zip(model.state_dict().items(), fresh.state_dict().items()):
        assert torch.equal(a, b), name
    moments = [state["exp_avg"] for state in fresh_optimizer.state.values()]
    assert moments and all(m.abs().sum() > 0 for m in moments[:1])
