"""LoRA at scale: checkpoints hold adapters and optimizer state only, the frozen base is bf16, and merge/export
write a merged model in safetensors that loads back as --model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from eks_training.training import export
from eks_training.training.config import parse_config
from eks_training.training.device import select_runtime
from eks_training.training.lora import LoRALinear
from eks_training.training.model import LlamaDecoder, ModelArgs
from eks_training.training.parallel import build_for_training
from eks_training.training.train import train
from eks_training.training.weights import decoder_args, hf_name, our_name

from training_helpers import TINY_FLAGS


def _folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and p.suffix == ".distcp")


def _run(token_data: Path, ckpt: Path, *flags: str):
    config = parse_config(["--data", str(token_data), *TINY_FLAGS, "--max-steps", "4", "--checkpoint-dir", str(ckpt),
                           "--checkpoint-every", "4", *flags])
    return train(config, select_runtime("cpu", env={}))


def test_lora_checkpoint_holds_adapters_only_and_exports_merged(token_data: Path, tmp_path: Path) -> None:
    full = _run(token_data, tmp_path / "full")
    lora = _run(token_data, tmp_path / "lora", "--lora-rank", "4", "--lora-alpha", "8")
    full_bytes, lora_bytes = _folder_bytes(tmp_path / "full" / "step-4"), _folder_bytes(tmp_path / "lora" / "step-4")
    # Adapters + AdamW's two moments (the tiny model's adapters are 3% of it) and per-tensor framing.
    assert lora_bytes < full_bytes / 5, (lora_bytes, full_bytes)
    stored = torch.distributed.checkpoint.FileSystemReader(str(tmp_path / "lora" / "step-4")).read_metadata()
    model_keys = {k.removeprefix("model.") for k in stored.state_dict_metadata if k.startswith("model.")}
    assert model_keys and all(".lora_A." in k or ".lora_B." in k for k in model_keys)
    del full

    # merge: the merged model computes what the trained adapters did, in one plain layer per projection.
    out = tmp_path / "merged"
    assert export.main(["merge", "--checkpoint-dir", str(tmp_path / "lora"), "--out", str(out), "--dtype", "fp32"]) == 0
    weights = load_file(str(out / "model.safetensors"))
    assert not any("lora" in name or ".base." in name for name in weights)
    assert not list(out.glob("adapter*"))  # the adapters are in their own folder, not beside the merged model
    adapter = tmp_path / "merged-adapter"
    assert set(load_file(str(adapter / "adapter_model.safetensors"))) == {
        "base_model.model." + hf_name(name) for name, p in lora.model.named_parameters() if p.requires_grad}
    assert json.loads((adapter / "adapter_config.json").read_text())["r"] == 4
    merged = LlamaDecoder(ModelArgs(**decoder_args(json.loads((out / "config.json").read_text()))))
    merged.load_state_dict({our_name(name): tensor for name, tensor in weights.items()})
    tokens = torch.randint(0, 256, (2, 16), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        torch.testing.assert_close(merged(tokens), lora.model.eval()(tokens), atol=1e-5, rtol=1e-4)

    # The exported folder is a --model: the trainer reads it back (shard by shard) to the same weights.
    config = parse_config(["--data", str(token_data), *TINY_FLAGS, "--model", str(out)])
    rebuilt = build_for_training(config, select_runtime("cpu", env={}), "fp32", 32).model
    with torch.no_grad():
        torch.testing.assert_close(rebuilt.eval()(tokens), merged(tokens))


def test_frozen_base_is_bf16_and_adapters_stay_fp32(token_data: Path) -> None:
    config = parse_config(["--data", str(token_data), *TINY_FLAGS, "--lora-rank", "4", "--precision", "bf16"])
    model = build_for_training(config, select_runtime("cpu", env={}), "bf16", 32).model
    layer = model.layers["0"].self_attn.q_proj
    assert isinstance(layer, LoRALinear)
    assert layer.base.weight.dtype == torch.bfloat16 and model.lm_head.weight.dtype == torch.bfloat16
    assert layer.lora_A.weight.dtype == torch.float32 and layer.lora_A.weight.requires_grad
    assert model.embed_tokens.weight.dtype == torch.float32  # a lookup into the fp32 residual stream


def test_export_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert export.main(["export", "--checkpoint-dir", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"error: --checkpoint-dir='{tmp_path}' is not allowed: a folder holding complete step-N checkpoints"]
