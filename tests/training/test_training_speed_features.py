"""The MFU features, on CPU: compiled blocks, SDPA's native GQA, the chunked loss, selective activation
checkpointing, fused AdamW on CUDA, background checkpoint writes and the profiler window."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode
import torch.nn.functional as F

from eks_training.training import loss as loss_module
from eks_training.training.checkpoint import complete_steps
from eks_training.training.config import parse_config
from eks_training.training.device import Runtime, select_runtime
from eks_training.training.loss import chunked_cross_entropy
from eks_training.training.model import build_model
from eks_training.training.parallel import compile_blocks
from eks_training.training.train import train
from eks_training.training.trainer import build_optimizer

from training_helpers import TINY_FLAGS


def _tiny(seed: int = 0):
    torch.manual_seed(seed)
    return build_model("tiny")


def _grads(model, tokens) -> dict[str, torch.Tensor]:
    model.zero_grad()
    model(tokens, tokens).backward()
    return {name: p.grad.clone() for name, p in model.named_parameters()}


def test_native_gqa_matches_repeated_key_value_heads() -> None:
    model, tokens = _tiny().eval(), torch.randint(0, 256, (2, 24))
    assert model.args.n_kv_heads < model.args.n_heads
    with torch.no_grad():
        native = model(tokens)
        for layer in model.layers.values():
            layer.self_attn.native_gqa = False
        repeated = model(tokens)
    torch.testing.assert_close(native, repeated)


def test_chunked_loss_matches_the_full_fp32_loss_and_gradients(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loss_module, "LOSS_CHUNK_ELEMENTS", 256 * 5)  # 5 tokens per chunk: many chunks
    generator = torch.Generator().manual_seed(0)
    hidden = torch.randn(37, 16, generator=generator).bfloat16().requires_grad_()
    weight = torch.randn(256, 16, generator=generator).bfloat16().requires_grad_()
    targets = torch.randint(0, 256, (37,), generator=generator)
    chunked = chunked_cross_entropy(hidden, weight, targets)
    chunked.backward()
    got = hidden.grad.float(), weight.grad.float()
    # The reference: the whole logits upcast at once, as `logits.float()` does, from the same bf16 logits.
    hidden.grad = weight.grad = None
    reference = F.cross_entropy(F.linear(hidden, weight).float(), targets)
    reference.backward()
    assert chunked.dtype == torch.float32
    torch.testing.assert_close(chunked, reference)
    # Gradients agree to bf16 resolution (the chunked ones are rounded once, after scaling, so no worse).
    exact_hidden, exact_weight = (t.detach().double().requires_grad_() for t in (hidden, weight))
    F.cross_entropy(F.linear(exact_hidden, exact_weight), targets).backward()
    for mine, theirs, exact in ((got[0], hidden.grad.float(), exact_hidden.grad), (got[1], weight.grad.float(),
                                                                                    exact_weight.grad)):
        torch.testing.assert_close(mine, theirs, atol=2e-4, rtol=2e-2)
        assert (mine.double() - exact).abs().max() <= (theirs.double() - exact).abs().max() * 1.5 + 1e-6
    # Without gradients (evaluation) only the loss is computed.
    with torch.no_grad():
        torch.testing.assert_close(chunked_cross_entropy(hidden, weight, targets), reference)


def test_evaluation_loss_does_no_gradient_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under no_grad the bf16 loss costs one forward matmul (tokens x vocab x dim multiply-adds), not the fused
    path's forward plus both gradient matmuls, and it allocates no fp32 weight-sized gradient buffer."""
    monkeypatch.setattr(loss_module, "LOSS_CHUNK_ELEMENTS", 256 * 5)
    generator = torch.Generator().manual_seed(0)
    hidden = torch.randn(37, 16, generator=generator).bfloat16().requires_grad_()
    weight = torch.randn(256, 16, generator=generator).bfloat16().requires_grad_()
    targets = torch.randint(0, 256, (37,), generator=generator)
    weight_sized_fp32: list[tuple[int, ...]] = []
    real_zeros = torch.zeros

    def zeros(*args, **kwargs):
        made = real_zeros(*args, **kwargs)
        if made.dtype == torch.float32 and made.shape == weight.shape:
            weight_sized_fp32.append(tuple(made.shape))
        return made

    monkeypatch.setattr(loss_module.torch, "zeros", zeros)
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        loss = chunked_cross_entropy(hidden, weight, targets)
    assert counter.get_total_flops() == 2 * 37 * 256 * 16
    assert weight_sized_fp32 == []
    with FlopCounterMode(display=False) as counter:  # the training path: forward and both gradients
        chunked_cross_entropy(hidden, weight, targets)
    assert counter.get_total_flops() == 3 * 2 * 37 * 256 * 16 and weight_sized_fp32 == [(256, 16)]
    assert loss.dtype == torch.float32 and not loss.requires_grad


def test_selective_activation_checkpointing_keeps_gradients() -> None:
    tokens = torch.randint(0, 256, (2, 16))
    plain = _grads(_tiny(), tokens)
    model = _tiny()
    function, every = select_runtime("cpu", env={}).checkpoint_fn(selective=True)
    assert every == 1
    model.enable_activation_checkpointing(function, every)
    for name, grad in _grads(model, tokens).items():
        torch.testing.assert_close(grad, plain[name], msg=name)


def test_compiled_blocks_keep_names_and_results() -> None:
    tokens = torch.randint(0, 256, (2, 16))
    plain = _grads(_tiny(), tokens)
    model = _tiny()
    from torch._dynamo.utils import counters

    counters.clear()
    # The trainer passes inductor on CUDA; "eager" exercises the same graph capture without a C++ build.
    assert compile_blocks(model, backend="eager") == model.args.n_layers
    assert all(hasattr(block.forward, "_torchdynamo_orig_callable") for block in model.layers.values())
    grads = _grads(model, tokens)
    # Every block reuses one graph: no per-layer recompiles (which would hit dynamo's recompile limit).
    assert counters["stats"]["unique_graphs"] == 1
    assert grads.keys() == plain.keys()  # checkpoints keep their parameter names
    for name, grad in grads.items():
        torch.testing.assert_close(grad, plain[name], msg=name)


def test_adamw_is_fused_on_cuda_only(token_data: Path) -> None:
    config = parse_config(["--data", str(token_data)])
    model = _tiny()
    cpu = build_optimizer(model, config, select_runtime("cpu", env={}))
    cuda_like = build_optimizer(model, config, Runtime("cuda", torch.device("cpu")))
    assert not cpu.defaults["fused"] and cuda_like.defaults["fused"] is True


def test_background_checkpoint_writes_complete_and_resume(token_data: Path, tmp_path: Path) -> None:
    base = ["--data", str(token_data), *TINY_FLAGS, "--checkpoint-every", "2", "--keep-last", "5"]
    losses = {}
    for mode in ("false", "true"):  # the same 4 + 2 steps, saved in the foreground, then in the background
        flags = [*base, "--async-checkpoint", mode, "--checkpoint-dir", str(tmp_path / mode)]
        first = train(parse_config([*flags, "--max-steps", "4"]), select_runtime("cpu", env={}))
        # Background: step 2 was completed when step 4 started saving, step 4 when the run finished.
        assert complete_steps(tmp_path / mode) == [2, 4] and first.final_step == 4
        resumed = train(parse_config([*flags, "--max-steps", "6"]), select_runtime("cpu", env={}))
        assert resumed.resumed_from == 4 and complete_steps(tmp_path / mode) == [2, 4, 6]
        losses[mode] = resumed.losses
    assert sorted(losses["true"]) == [5, 6] and losses["true"] == losses["false"]


def test_profile_steps_write_a_trace(token_data: Path, tmp_path: Path) -> None:
    config = parse_config(["--data", str(token_data), *TINY_FLAGS, "--max-steps", "4", "--profile", "2-3",
                           "--profile-dir", str(tmp_path / "prof")])
    train(config, select_runtime("cpu", env={}))
    trace = json.loads((tmp_path / "prof" / "rank-0.json").read_text())
    names = {event.get("name", "") for event in trace["traceEvents"]}
    assert any("aten::mm" in name or "aten::addmm" in name for name in names)
    assert any(name.startswith("Optimizer.step") for name in names)


def test_background_save_is_marked_complete_only_after_its_writes(tmp_path: Path) -> None:
    from eks_training.training.checkpoint import Checkpointer

    model = _tiny()
    optimizer = torch.optim.AdamW(model.parameters())
    saver = Checkpointer(tmp_path, keep_last=3, model=model, optimizer=optimizer, async_save=True)
    assert saver.save(2) == []  # written in the background: not complete yet
    assert complete_steps(tmp_path) == []
    with torch.no_grad():
        model.lm_head.weight.add_(1.0)  # training goes on; the staged copy must not change
    assert saver.save(4) == [tmp_path / "step-2"]
    assert saver.finish() == tmp_path / "step-4" and complete_steps(tmp_path) == [2, 4]
    restored = _tiny(seed=1)
    loader = Checkpointer(tmp_path, keep_last=3, model=restored, optimizer=torch.optim.AdamW(restored.parameters()))
    assert loader.load() == 4
    torch.testing.assert_close(restored.lm_head.weight, model.lm_head.weight)
    (tmp_path / "step-4" / "COMPLETE").unlink()
    assert loader.load() == 2
    torch.testing.assert_close(restored.lm_head.weight, model.lm_head.weight - 1.0)  # step 2: before the change
