"""The Trainer's pieces on the tiny model, in this process: one step, gradient accumulation, and a checkpoint
that restores everything the next step depends on."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import torch

from eks_training.training.config import parse_config
from eks_training.training.device import select_runtime
from eks_training.training.trainer import Trainer

from training_helpers import TINY_FLAGS


def _trainer(data: Path, *flags: str) -> Trainer:
    return Trainer(parse_config(["--data", str(data), *TINY_FLAGS, *flags]), select_runtime("cpu", env={}))


def _params(trainer: Trainer) -> dict[str, torch.Tensor]:
    return {name: p.detach().clone() for name, p in trainer.model.named_parameters()}


def _capture_gradients(trainer: Trainer) -> dict[str, torch.Tensor]:
    """The gradients the optimizer steps with (after accumulation and clipping), captured as it starts."""
    captured: dict[str, torch.Tensor] = {}
    names = {id(p): name for name, p in trainer.model.named_parameters()}

    def before_step(optimizer, args, kwargs) -> None:
        for group in optimizer.param_groups:
            for p in group["params"]:
                captured[names[id(p)]] = p.grad.detach().clone()

    trainer.optimizer.register_step_pre_hook(before_step)
    return captured


def test_train_step_changes_the_parameters_and_returns_the_loss(token_data: Path) -> None:
    trainer = _trainer(token_data, "--max-steps", "5")
    before = _params(trainer)
    batch = trainer.data.take(1)
    with torch.no_grad():
        expected = trainer.model(*batch[0]).item()  # the loss of the weights the step starts from
    output = trainer.train_step(batch)
    assert output.step == trainer.state.step == 1
    assert output.loss.item() == pytest.approx(expected, rel=1e-6)
    assert output.lr == pytest.approx(3e-3 / 2)  # first of 2 warmup steps (--lr 3e-3 --warmup-steps 2)
    assert output.grad_norm.item() > 0
    after = _params(trainer)
    assert all(p.grad is None for p in trainer.model.parameters())  # gradients are cleared for the next step
    changed = [name for name in before if not torch.equal(before[name], after[name])]
    assert sorted(changed) == sorted(before)  # every trainable parameter moved
    assert trainer.data.samples_consumed == 4 and trainer.tokens_consumed == 4 * 32


def test_gradient_accumulation_matches_one_big_batch(token_data: Path) -> None:
    accumulated = _trainer(token_data, "--max-steps", "5", "--micro-batch-size", "2", "--grad-accum", "2")
    big = _trainer(token_data, "--max-steps", "5", "--micro-batch-size", "4", "--grad-accum", "1")
    assert all(torch.equal(a, b) for a, b in zip(_params(accumulated).values(), _params(big).values()))
    grads_accumulated, grads_big = _capture_gradients(accumulated), _capture_gradients(big)

    # The same 4 global samples: 2 micro-steps of 2, or one micro-step of 4.
    micro_batches = accumulated.data.take(2)
    (whole,) = big.data.take(1)
    assert torch.equal(torch.cat([inputs for inputs, _ in micro_batches]), whole[0])
    small_step, big_step = accumulated.train_step(micro_batches), big.train_step([whole])

    assert small_step.loss.item() == pytest.approx(big_step.loss.item(), rel=1e-5)
    assert small_step.grad_norm.item() == pytest.approx(big_step.grad_norm.item(), rel=1e-4)
    assert sorted(grads_accumulated) == sorted(grads_big) and grads_big
    for name, grad in grads_big.items():
        torch.testing.assert_close(grads_accumulated[name], grad, rtol=1e-4, atol=1e-6, msg=name)
    assert accumulated.data.samples_consumed == big.data.samples_consumed == 4


def test_a_fresh_trainer_loaded_from_a_checkpoint_takes_the_uninterrupted_runs_next_step(
        token_data: Path, tmp_path: Path) -> None:
    # LoRA dropout makes each step's loss depend on the RNG; accumulation makes the data position move 2
    # micro-batches per step.
    flags = ("--max-steps", "8", "--grad-accum", "2", "--lora-rank", "4", "--lora-dropout", "0.3",
             "--checkpoint-dir", str(tmp_path / "ckpt"), "--keep-last", "2")
    reference = _trainer(token_data, *flags)
    for _ in range(3):
        reference.train_step(reference.data.take(2))
    assert reference.checkpointer.save(3) == [tmp_path / "ckpt" / "step-3"]
    saved_rng, saved_params = torch.get_rng_state(), _params(reference)
    saved_optimizer = copy.deepcopy(reference.optimizer.state_dict()["state"])  # the next step updates in place
    expected = reference.train_step(reference.data.take(2))
    expected_params = _params(reference)

    torch.manual_seed(999)  # a new process would not share this one's RNG position
    fresh = _trainer(token_data, *flags)
    assert fresh.state.step == 0 and fresh.data.samples_consumed == 0
    assert fresh.restore() == 3
    assert fresh.state.step == 3 and fresh.data.samples_consumed == 3 * 2 * 4
    assert fresh.scheduler.last_epoch == 3
    for name, value in _params(fresh).items():
        assert torch.equal(value, saved_params[name]), name
    assert torch.equal(torch.get_rng_state(), saved_rng)
    restored_optimizer = fresh.optimizer.state_dict()["state"]
    assert sorted(restored_optimizer) == sorted(saved_optimizer)
    for index, values in saved_optimizer.items():
        for key in ("step", "exp_avg", "exp_avg_sq"):
            torch.testing.assert_close(restored_optimizer[index][key], values[key], rtol=0, atol=0)

    got = fresh.train_step(fresh.data.take(2))
    assert got.step == expected.step == 4
    assert got.lr == expected.lr
    assert got.loss.item() == pytest.approx(expected.loss.item(), abs=1e-6)
    for name, value in _params(fresh).items():
        torch.testing.assert_close(value, expected_params[name], rtol=1e-6, atol=1e-7, msg=name)


def test_checkpointer_loads_a_named_step_and_refuses_an_incomplete_one(token_data: Path, tmp_path: Path) -> None:
    trainer = _trainer(token_data, "--max-steps", "4", "--checkpoint-dir", str(tmp_path), "--keep-last", "3")
    trainer.train_step(trainer.data.take(1))
    trainer.checkpointer.save(1)
    at_step_1 = _params(trainer)
    trainer.train_step(trainer.data.take(1))
    trainer.checkpointer.save(2)
    (tmp_path / "step-3").mkdir()  # a save cut short: no COMPLETE marker
    assert trainer.checkpointer.latest() == 2

    assert trainer.checkpointer.load(1) == 1
    assert trainer.state.step == 1 and trainer.data.samples_consumed == 4
    for name, value in _params(trainer).items():
        assert torch.equal(value, at_step_1[name]), name
    with pytest.raises(ValueError, match=r"^step=3 is not allowed: a complete checkpoint under .*\[1, 2\]"):
        trainer.checkpointer.load(3)
    assert trainer.checkpointer.load() == 2 and trainer.state.step == 2
