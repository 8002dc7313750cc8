"""The trainer speaks Hugging Face, against real transformers and peft (tiny random Llama configs built here; no hub):
export writes a folder transformers loads to the same logits, a transformers Llama folder trains as our decoder with
the same logits, LoRA runs export a peft adapter folder and a merged folder with no adapter files, and a bf16
folder trains with fp32 master weights."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest
import torch

os.environ["HF_HUB_OFFLINE"] = "1"  # nothing here may reach the hub
transformers = pytest.importorskip("transformers")
peft = pytest.importorskip("peft")

from eks_training.training import export  # noqa: E402
from eks_training.training.config import parse_config  # noqa: E402
from eks_training.training.device import select_runtime  # noqa: E402
from eks_training.training.model import HuggingFaceCausalLM, LlamaDecoder, build_model  # noqa: E402
from eks_training.training.parallel import build_for_training  # noqa: E402
from eks_training.training.train import train  # noqa: E402
from eks_training.training.weights import load_folder_weights  # noqa: E402

from training_helpers import TINY_FLAGS  # noqa: E402

TOKENS = torch.randint(0, 256, (2, 24), generator=torch.Generator().manual_seed(3))


def _random_llama(folder: Path, dtype: torch.dtype = torch.float32, **overrides) -> Path:
    """A randomly initialised LlamaForCausalLM of the tiny model's sizes, saved by transformers itself."""
    sizes = dict(vocab_size=256, hidden_size=64, intermediate_size=176, num_hidden_layers=2, num_attention_heads=4,
                 num_key_value_heads=2, max_position_embeddings=128, rope_theta=500000.0, rms_norm_eps=1e-5,
                 tie_word_embeddings=False)
    torch.manual_seed(11)
    model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**{**sizes, **overrides}))
    model.to(dtype).save_pretrained(folder)
    return folder


def _word_tokenizer():
    from tokenizers import Tokenizer, models, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel(vocab={"[UNK]": 0, "<|endoftext|>": 1, "hello": 2, "world": 3},
                                           unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return tokenizer


def _hf_logits(folder: Path) -> torch.Tensor:
    model = transformers.AutoModelForCausalLM.from_pretrained(folder, local_files_only=True, dtype=torch.float32)
    with torch.no_grad():
        return model.eval()(input_ids=TOKENS).logits


def _train(token_data: Path, checkpoints: Path, *flags: str, steps: int = 3):
    config = parse_config(["--data", str(token_data), *TINY_FLAGS, "--max-steps", str(steps),
                           "--checkpoint-dir", str(checkpoints), "--checkpoint-every", str(steps), *flags])
    return train(config, select_runtime("cpu", env={}))


def test_export_is_a_transformers_folder_with_the_checkpoints_logits(token_data: Path, tmp_path: Path) -> None:
    # A data folder as data prep leaves it: shards, meta.json naming the end-of-document token, tokenizer.json.
    data = tmp_path / "data"
    shutil.copytree(token_data, data)
    _word_tokenizer().save(str(data / "tokenizer.json"))
    meta = json.loads((data / "meta.json").read_text())
    (data / "meta.json").write_text(json.dumps({**meta, "eod_token": "<|endoftext|>"}))
    trained = _train(data, tmp_path / "ckpt")
    out = tmp_path / "hf"
    previous = os.umask(0o077)  # a private umask: the exported folder is still for others to read (serving, sharing)
    try:
        assert export.main(["export", "--checkpoint-dir", str(tmp_path / "ckpt"), "--out", str(out), "--dtype", "fp32"]) == 0
    finally:
        os.umask(previous)
    modes = {path.name: stat.S_IMODE(path.stat().st_mode) for path in [out, *out.iterdir()]}
    assert modes.pop("hf") == 0o755 and set(modes.values()) == {0o644}, modes
    config = json.loads((out / "config.json").read_text())
    assert config["model_type"] == "llama" and config["architectures"] == ["LlamaForCausalLM"]
    tokenizer = transformers.AutoTokenizer.from_pretrained(out, local_files_only=True)
    assert tokenizer.eos_token == "<|endoftext|>" and tokenizer("hello world")["input_ids"] == [2, 3]
    with torch.no_grad():
        ours = trained.model.eval()(TOKENS)
    assert (ours - _hf_logits(out)).abs().max().item() == 0.0


@pytest.mark.parametrize("tied", [False, True], ids=["untied", "tied"])
def test_a_transformers_llama_folder_is_read_as_our_decoder_with_its_logits(tmp_path: Path, tied: bool) -> None:
    folder = _random_llama(tmp_path / "hf", tie_word_embeddings=tied)
    model = build_model(str(folder))
    assert isinstance(model, LlamaDecoder)  # no transformers involved from here on
    assert (model.lm_head.weight is model.embed_tokens.weight) == tied
    load_folder_weights(model, folder)
    with torch.no_grad():
        ours = model.eval()(TOKENS)
    assert (ours - _hf_logits(folder)).abs().max().item() == 0.0
    # And written back: transformers re-ties the output layer from config.json.
    export.write_model(model, tmp_path / "back", torch.float32)
    assert json.loads((tmp_path / "back" / "config.json").read_text())["tie_word_embeddings"] == tied
    assert (ours - _hf_logits(tmp_path / "back")).abs().max().item() == 0.0


@pytest.mark.parametrize("biased", [False, True], ids=["our-decoder", "through-transformers"])
def test_a_bf16_folder_trains_fp32_master_weights(token_data: Path, tmp_path: Path, biased: bool) -> None:
    # Attention biases are not our decoder's shape, so that folder takes the transformers path.
    folder = _random_llama(tmp_path / "bf16", torch.bfloat16, attention_bias=biased)
    config = parse_config(["--data", str(token_data), *TINY_FLAGS, "--model", str(folder), "--lr", "1e-5"])
    built = build_for_training(config, select_runtime("cpu", env={}), "fp32", 32)
    assert isinstance(built.inner, HuggingFaceCausalLM) == biased
    assert {p.dtype for p in built.model.parameters()} == {torch.float32}
    q_proj = next(p for name, p in built.model.named_parameters() if name.endswith("layers.0.self_attn.q_proj.weight"))
    before = q_proj.detach().clone()
    result = _train(token_data, tmp_path / "ckpt", "--model", str(folder), "--lr", "1e-5", "--warmup-steps", "0",
                    steps=5)
    after = next(p for name, p in result.model.named_parameters() if name.endswith("layers.0.self_attn.q_proj.weight"))
    assert after.dtype == torch.float32
    # AdamW moves nearly every entry by about lr per step; in bf16 (8 bits of mantissa) most of them round away.
    changed = (after.detach() != before).float().mean().item()
    assert changed > 0.9, changed


def test_lora_exports_a_peft_adapter_and_a_merged_folder_without_adapter_files(token_data: Path,
                                                                              tmp_path: Path) -> None:
    base = _random_llama(tmp_path / "base")
    lora = _train(token_data, tmp_path / "ckpt", "--model", str(base), "--lora-rank", "4", "--lora-alpha", "8",
                  "--lr", "3e-2")
    out, adapter = tmp_path / "merged", tmp_path / "adapter"
    assert export.main(["merge", "--checkpoint-dir", str(tmp_path / "ckpt"), "--out", str(out),
                        "--adapter-out", str(adapter), "--dtype", "fp32"]) == 0
    with torch.no_grad():
        trained = lora.model.eval()(TOKENS)

    # peft reads our adapter onto the base it names, and computes what the trained run did.
    assert json.loads((adapter / "adapter_config.json").read_text())["base_model_name_or_path"] == str(base.resolve())
    hf_base = transformers.AutoModelForCausalLM.from_pretrained(base, local_files_only=True, dtype=torch.float32)
    with_adapter = peft.PeftModel.from_pretrained(hf_base, adapter)
    with torch.no_grad():
        peft_logits = with_adapter.eval()(input_ids=TOKENS).logits
    torch.testing.assert_close(peft_logits, trained, atol=1e-5, rtol=1e-4)
    with torch.no_grad(), with_adapter.disable_adapter():
        assert (with_adapter(input_ids=TOKENS).logits - peft_logits).abs().max() > 1e-3  # the adapter mattered

    # The merged folder has no adapter files, so transformers loads it as a model even with peft installed.
    assert not list(out.glob("adapter*"))
    torch.testing.assert_close(_hf_logits(out), trained, atol=1e-5, rtol=1e-4)


def test_a_mixtral_folder_is_read_as_our_moe_decoder_and_written_back(tmp_path: Path) -> None:
    """A Mixtral folder built by transformers loads into our mixture-of-experts decoder, and ours exports one that
    transformers loads (as MixtralForCausalLM) and we read back: logits within 1e-5 every way (fp32, CPU)."""
    config = transformers.MixtralConfig(vocab_size=256, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                                        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                                        num_local_experts=4, num_experts_per_tok=2, rope_theta=500000.0,
                                        rms_norm_eps=1e-5, tie_word_embeddings=False)
    torch.manual_seed(5)
    transformers.MixtralForCausalLM(config).save_pretrained(tmp_path / "mixtral")
    model = build_model(str(tmp_path / "mixtral"))
    assert isinstance(model, LlamaDecoder) and model.args.n_experts == 4 and model.args.experts_per_token == 2
    load_folder_weights(model, tmp_path / "mixtral")
    with torch.no_grad():
        ours = model.eval()(TOKENS)
    assert (ours - _hf_logits(tmp_path / "mixtral")).abs().max().item() <= 1e-5
    export.write_model(model, tmp_path / "back", torch.float32)
    written = json.loads((tmp_path / "back" / "config.json").read_text())
    assert written["architectures"] == ["MixtralForCausalLM"] and written["num_local_experts"] == 4
    assert (ours - _hf_logits(tmp_path / "back")).abs().max().item() <= 1e-5
    again = build_model(str(tmp_path / "back"))
    load_folder_weights(again, tmp_path / "back")
    with torch.no_grad():
        assert (ours - again.eval()(TOKENS)).abs().max().item() <= 1e-5
