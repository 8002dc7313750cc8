"""The decoder, LoRA, the schedule, the data reader and the metrics maths, in-process on CPU."""

from __future__ import annotations

import dataclasses
import io
import json
import math
from functools import partial
from pathlib import Path

import pytest
import torch

from eks_training.training.config import ConfigError
from eks_training.training.data import TokenDataset, write_token_dir
from eks_training.training.lora import LoRALinear, apply_lora, merge_lora
from eks_training.training.metrics import MetricsLogger, mfu, peak_flops_for
from eks_training.training.model import MODEL_SIZES, LlamaDecoder, build_model, document_ids, flops_per_token
from eks_training.training.schedule import lr_multiplier


def tiny(seed: int = 0) -> LlamaDecoder:
    torch.manual_seed(seed)
    return build_model("tiny")


def test_decoder_is_causal_and_shapes_match() -> None:
    model = tiny().eval()
    tokens = torch.randint(0, 256, (2, 16))
    changed = tokens.clone()
    changed[:, 10:] = (changed[:, 10:] + 1) % 256
    with torch.no_grad():
        logits, logits_changed = model(tokens), model(changed)
    assert logits.shape == (2, 16, 256)
    torch.testing.assert_close(logits[:, :10], logits_changed[:, :10])  # the past never sees the future
    assert not torch.allclose(logits[:, 10:], logits_changed[:, 10:])


def test_activation_checkpointing_keeps_gradients() -> None:
    tokens = torch.randint(0, 256, (2, 16))
    grads = []
    for checkpointed in (False, True):
        model = tiny()
        if checkpointed:
            # As the trainer does (training.device): the reentrant variant is deprecated and warns.
            model.enable_activation_checkpointing(partial(torch.utils.checkpoint.checkpoint, use_reentrant=False), every=1)
        model(tokens).sum().backward()
        grads.append(model.layers["0"].self_attn.q_proj.weight.grad.clone())
    torch.testing.assert_close(grads[0], grads[1])


@pytest.mark.parametrize(("size", "published"), [("1b", 1_235_814_400), ("8b", 8_030_261_248),
                                                   ("70b", 70_553_706_496), ("405b", 405_853_388_800)])
def test_llama_sizes_have_published_parameter_counts(size: str, published: int) -> None:
    """Llama-3.2-1B (tied embeddings), Llama-3.1-8B/70B/405B: the counts of their safetensors headers."""
    with torch.device("meta"):
        model = LlamaDecoder(MODEL_SIZES[size])
    assert sum(p.numel() for p in model.parameters()) == MODEL_SIZES[size].parameters == published


def test_tied_embeddings_share_one_weight_and_count_as_a_matmul() -> None:
    args = dataclasses.replace(MODEL_SIZES["tiny"], tie_embeddings=True)
    model = LlamaDecoder(args)
    assert model.lm_head.weight is model.embed_tokens.weight
    model.to_empty(device="cpu")  # as the trainer materialises a meta model
    model.init_weights(0)
    assert model.lm_head.weight is model.embed_tokens.weight
    (model(torch.randint(0, 256, (2, 8))).sum()).backward()
    assert model.embed_tokens.weight.grad is not None
    matmuls = sum(p.numel() for p in model.parameters())  # the shared weight is the output layer's matmul
    assert flops_per_token(model, 32) == 6 * matmuls + 12 * args.n_layers * args.dim * 32


def test_flops_per_token_is_six_n_plus_attention() -> None:
    model = tiny()
    args = model.args
    n = sum(p.numel() for p in model.parameters()) - args.vocab_size * args.dim
    assert flops_per_token(model, 32) == 6 * n + 12 * args.n_layers * args.dim * 32


def test_lora_starts_equal_trains_only_adapters_and_merges_exactly() -> None:
    model = tiny()
    tokens = torch.randint(0, 256, (2, 16))
    with torch.no_grad():
        base_logits = model(tokens)
    wrapped = apply_lora(model, rank=4, alpha=8, dropout=0.0, targets=["q_proj", "k_proj", "v_proj", "o_proj"])
    assert len(wrapped) == 4 * model.args.n_layers
    with torch.no_grad():
        torch.testing.assert_close(model(tokens), base_logits)  # B = 0 at init
    trainable = {name for name, p in model.named_parameters() if p.requires_grad}
    assert trainable and all(".lora_A." in name or ".lora_B." in name for name in trainable)
    frozen_before = {name: p.detach().clone() for name, p in model.named_parameters() if not p.requires_grad}
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    for _ in range(3):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(tokens).flatten(0, 1), tokens.flatten()).backward()
        optimizer.step()
    for name, p in model.named_parameters():
        if name in frozen_before:
            assert torch.equal(p, frozen_before[name]), name
    model.eval()
    with torch.no_grad():
        unmerged = model(tokens)
        assert not torch.allclose(unmerged, base_logits)
        assert merge_lora(model) == len(wrapped)
        assert not any(isinstance(m, LoRALinear) for m in model.modules())
        torch.testing.assert_close(model(tokens), unmerged, atol=1e-5, rtol=1e-4)


def test_lora_unknown_target_is_a_one_line_error() -> None:
    with pytest.raises(ConfigError, match=r"--lora-targets='qkv' is not allowed: linear layer names .*q_proj"):
        apply_lora(tiny(), 4, 8, 0.0, ["qkv"])


def test_schedule_warms_up_then_decays_to_the_floor() -> None:
    values = [lr_multiplier(s, warmup_steps=10, total_steps=110, kind="cosine", min_ratio=0.1) for s in range(111)]
    assert values[0] == pytest.approx(0.1) and values[9] == pytest.approx(1.0)
    assert all(a < b for a, b in zip(values[:10], values[1:10]))
    assert values[60] == pytest.approx(0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * 0.5)))
    assert all(a >= b for a, b in zip(values[10:], values[11:]))
    assert values[110] == pytest.approx(0.1)
    assert lr_multiplier(50, 10, 110, "constant") == 1.0


def test_token_batches_are_deterministic_and_split_across_ranks(tmp_path: Path) -> None:
    folder = write_token_dir(tmp_path, [list(range(200)), list(range(1000, 1300))], vocab_size=70000)
    assert json.loads((folder / "meta.json").read_text())["dtype"] == "uint32"
    ranks = [TokenDataset(folder, seq_len=9, micro_batch_size=2, rank=r, world_size=2, seed=3) for r in (0, 1)]
    inputs, targets = ranks[0].batch(5)
    assert inputs.shape == (2, 9) and torch.equal(inputs[:, 1:], targets[:, :-1])
    assert inputs.dtype == torch.long
    again = TokenDataset(folder, 9, 2, 0, 2, seed=3).batch(5)
    assert torch.equal(again[0], inputs)
    # One epoch over both ranks visits each sample exactly once.
    per_epoch = len(ranks[0]) // 4
    firsts = {int(r.batch(p)[0][i, 0]) for r in ranks for p in range(per_epoch) for i in range(2)}
    assert len(firsts) == per_epoch * 4


def test_token_folder_errors_name_the_flag(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^--data=.* is not allowed: a folder with meta.json"):
        TokenDataset(tmp_path, 8, 1)
    write_token_dir(tmp_path, [list(range(10))], vocab_size=256)
    with pytest.raises(ConfigError, match=rf"^--data={str(tmp_path)!r} is not allowed: at least 4 samples of 9 tokens \(found 1\)"):
        TokenDataset(tmp_path, 8, micro_batch_size=2, world_size=2)


def test_mfu_and_json_lines() -> None:
    assert peak_flops_for("NVIDIA H100 80GB HBM3") == 989e12 and peak_flops_for("cpu") is None
    assert mfu(1000.0, 6e9, 989e12) == pytest.approx(1000 * 6e9 / 989e12)
    assert mfu(1000.0, 6e9, None) is None
    stream = io.StringIO()
    MetricsLogger(stream, total_steps=2).event(step=1, loss=2.5, lr=1e-3, grad_norm=0.5, tokens_per_s=10.0, mfu=None)
    record = json.loads(stream.getvalue())
    assert record["step"] == 1 and record["loss"] == 2.5 and record["mfu"] is None and "time" in record


def test_progress_bar_only_on_a_terminal() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    bar, pipe = Terminal(), io.StringIO()
    MetricsLogger(io.StringIO(), 4, progress=bar).event(step=2, loss=1.0, tokens_per_s=100.0)
    MetricsLogger(io.StringIO(), 4, progress=pipe).event(step=2, loss=1.0)
    assert "2/4" in bar.getvalue() and "loss 1.0000" in bar.getvalue()
    assert pipe.getvalue() == ""


def test_document_masking_keeps_each_packed_document_to_itself() -> None:
    """Two documents packed in one row (the first ends with the end token 7): changing the first leaves the second's
    logits unchanged, and they equal the second document's logits computed on its own."""
    model = tiny().eval()
    first, second = torch.randint(8, 256, (1, 11)), torch.randint(8, 256, (1, 13))
    end = torch.tensor([[7]])
    packed = torch.cat([first, end, second], dim=1)
    other = torch.cat([torch.randint(8, 256, (1, 11)), end, second], dim=1)
    with torch.no_grad():
        unmasked = model(packed)[:, 12:], model(other)[:, 12:]
        model.document_end = 7
        masked = model(packed)[:, 12:], model(other)[:, 12:]
        alone = model(second)
    assert not torch.allclose(*unmasked)  # without the mask the second document sees the first
    torch.testing.assert_close(masked[0], masked[1], rtol=0, atol=0)
    torch.testing.assert_close(masked[0], alone, rtol=1e-5, atol=1e-5)  # rotary is relative: its offset is moot
    # The end token belongs to the document it ends.
    assert document_ids(packed, 7)[0, 11].item() == 0 and document_ids(packed, 7)[0, 12].item() == 1


def test_document_masking_is_on_for_data_prep_output_and_refused_without_boundaries(tmp_path: Path) -> None:
    from eks_training.training.config import parse_config
    from eks_training.training.device import select_runtime
    from eks_training.training.trainer import Trainer

    flags = ["--model", "tiny", "--seq-len", "16", "--micro-batch-size", "2", "--max-steps", "2", "--precision",
             "fp32"]
    plain = write_token_dir(tmp_path / "plain", [list(range(8, 200))], 256)
    prepared = write_token_dir(tmp_path / "prepared", [list(range(8, 200))], 256)
    meta = json.loads((prepared / "meta.json").read_text())
    (prepared / "meta.json").write_text(json.dumps({**meta, "eod_token": "<|endoftext|>", "eod_token_id": 7}))
    runtime = select_runtime("cpu", env={})
    trainer = Trainer(parse_config(["--data", str(prepared), *flags]), runtime)
    assert trainer.document_masking and trainer.model.document_end == 7
    assert not Trainer(parse_config(["--data", str(prepared), *flags, "--document-masking", "false"]),
                       runtime).document_masking
    assert not Trainer(parse_config(["--data", str(plain), *flags]), runtime).document_masking
    with pytest.raises(ConfigError, match=r"^--document-masking='true' is not allowed: auto or false for --data"):
        Trainer(parse_config(["--data", str(plain), *flags, "--document-masking", "true"]), runtime)
