"""Write a trained checkpoint as a standard Hugging Face model folder.

    python -m eks_training.training.export export --checkpoint-dir DIR --out OUT [--step N] [--dtype bf16]
    python -m eks_training.training.export merge  --checkpoint-dir DIR --out OUT [--adapter-out DIR] [--step N]

Both read the newest complete ``step-N`` folder (or ``--step``). ``export`` writes the whole model as
``LlamaForCausalLM`` (``config.json``, ``model.safetensors`` under transformers' tensor names, and the tokenizer
files of the run's data when data prep left them there), with LoRA adapters folded into their base layers when
the run trained adapters: ``transformers.AutoModelForCausalLM.from_pretrained(OUT)`` loads it, and so do vLLM,
TGI and the Hub. ``merge`` is for LoRA runs only: it writes the same merged model (no adapter files in it) plus,
in ``--adapter-out`` (default: ``OUT-adapter``), the adapters alone as a peft LoRA folder
(``adapter_config.json`` + ``adapter_model.safetensors``) that ``peft.PeftModel.from_pretrained`` loads on the
base. A LoRA checkpoint holds no base weights, so the base is rebuilt from what the run was given: a named size
from its seed, or a model folder (``--model`` overrides the recorded one when that folder has moved). The output
folder is itself a valid ``--model``. Runs on one process on CPU; bad options print one line and exit 2.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any, Sequence

import torch
from torch import nn
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict, set_model_state_dict

from eks_training.training.checkpoint import complete_steps, step_folder_name
from eks_training.training.config import ConfigError, invalid
from eks_training.training.lora import LoRALinear, apply_lora, merge_lora
from eks_training.training.model import LlamaDecoder, build_model, weights_folder
from eks_training.training.safe_load import dcp_load, load_rank_state
from eks_training.training.weights import hf_name, load_folder_weights, write_hf_config

_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise ConfigError(message)


def _checkpoint_folder(root: str, step: int | None) -> Path:
    steps = complete_steps(root)
    if not steps:
        raise invalid("--checkpoint-dir", root, "a folder holding complete step-N checkpoints")
    if step is None:
        return Path(root) / step_folder_name(steps[-1])
    if step not in steps:
        raise invalid("--step", step, "a complete step in --checkpoint-dir: " + ", ".join(map(str, steps)))
    return Path(root) / step_folder_name(step)


def load_trained_model(folder: Path, model_spec: str | None = None) -> tuple[nn.Module, dict[str, Any] | None]:
    """The model of checkpoint ``folder`` on CPU, with adapters (not yet merged); returns it and its LoRA
    settings (None for a full-model run)."""
    state = load_rank_state(folder / "trainer-rank-0.pt")
    spec = model_spec or state.get("model")
    if spec is None:
        raise invalid("--model", None, "the model the run trained (this checkpoint predates recording it)")
    lora = state.get("lora")
    torch.manual_seed(state.get("seed", 0))  # a named size's initial weights come from the run's seed
    model = build_model(spec)
    weights = weights_folder(spec)
    if weights is not None:
        load_folder_weights(model, weights)
    if lora:
        apply_lora(model, int(lora["rank"]), float(lora["alpha"]), 0.0, lora["targets"])
    options = StateDictOptions(ignore_frozen_params=bool(lora), strict=not lora)
    wanted = {"model": get_model_state_dict(model, options=options)}
    dcp_load(wanted, folder)  # only the model's entries are read, not the optimizer's
    set_model_state_dict(model, wanted["model"], options=options)
    return model, lora


def _save_safetensors(tensors: dict[str, torch.Tensor], path: Path, dtype: torch.dtype) -> None:
    from safetensors.torch import save_file

    save_file({name: t.detach().to(dtype).contiguous() for name, t in tensors.items()}, str(path),
              metadata={"format": "pt"})


def write_model(model: nn.Module, out: Path, dtype: torch.dtype) -> Path:
    """A merged model as a Hugging Face folder: ``config.json`` and ``model.safetensors`` (a transformers model
    inside :class:`HuggingFaceCausalLM` saves itself)."""
    out.mkdir(parents=True, exist_ok=True)
    if isinstance(model, LlamaDecoder):
        # A tied output layer is the embedding: transformers re-ties it from tie_word_embeddings.
        tensors = {hf_name(name): tensor for name, tensor in model.state_dict().items()
                   if not (model.args.tie_embeddings and name == "lm_head.weight")}
        _save_safetensors(tensors, out / "model.safetensors", dtype)
        write_hf_config(out, asdict(model.args), dtype)
    else:
        model.inner.to(dtype).save_pretrained(out, safe_serialization=True)
    return out / "model.safetensors"


def _peft_key(model: nn.Module, name: str) -> str:
    """peft's name of an adapter tensor: ``base_model.model.`` and the transformers name of the layer."""
    hf = hf_name(name) if isinstance(model, LlamaDecoder) else name.removeprefix("inner.")
    return "base_model.model." + hf


def write_adapters(model: nn.Module, lora: dict[str, Any], out: Path, base: str | None) -> Path:
    """The adapters alone (fp32) as a peft LoRA folder; ``base`` is the base model's folder, when it is one."""
    out.mkdir(parents=True, exist_ok=True)
    adapters = {_peft_key(model, name): p for name, p in model.named_parameters()
                if ".lora_A." in name or ".lora_B." in name}
    _save_safetensors(adapters, out / "adapter_model.safetensors", torch.float32)
    config = {"peft_type": "LORA", "task_type": "CAUSAL_LM", "r": lora["rank"], "lora_alpha": lora["alpha"],
              "lora_dropout": 0.0, "target_modules": sorted(lora["targets"]), "bias": "none",
              "fan_in_fan_out": False, "use_rslora": False, "use_dora": False, "inference_mode": True,
              "base_model_name_or_path": base}
    (out / "adapter_config.json").write_text(json.dumps(config, indent=2) + "\n")
    return out / "adapter_model.safetensors"


# What a transformers tokenizer folder holds; data prep copies tokenizer.json into each split it writes.
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


def copy_tokenizer(data: str | None, out: Path) -> list[str]:
    """Copy the tokenizer files found in the run's ``--data`` folder into ``out``; returns their names. A bare
    ``tokenizer.json`` (what data prep leaves) gets a ``tokenizer_config.json`` naming its end-of-document and
    beginning-of-text tokens from the data's meta.json, so ``AutoTokenizer.from_pretrained(out)`` loads it."""
    if not data or not Path(data).is_dir():
        return []
    folder = Path(data)
    copied = [name for name in TOKENIZER_FILES if (folder / name).is_file()]
    for name in copied:
        shutil.copyfile(folder / name, out / name)
    if "tokenizer.json" in copied and "tokenizer_config.json" not in copied:
        try:
            meta = json.loads((folder / "meta.json").read_text())
        except (OSError, ValueError):
            meta = {}
        config = {"tokenizer_class": "PreTrainedTokenizerFast"}
        for key, field in (("eos_token", "eod_token"), ("bos_token", "bos_token")):
            if meta.get(field):
                config[key] = meta[field]
        (out / "tokenizer_config.json").write_text(json.dumps(config, indent=2) + "\n")
        copied.append("tokenizer_config.json")
    return copied


def run(command: str, checkpoint_dir: str, out: str, step: int | None = None, dtype: str = "bf16",
        model_spec: str | None = None, adapter_out: str | None = None) -> Path:
    """Export or merge one checkpoint; returns the model folder written."""
    folder = _checkpoint_folder(checkpoint_dir, step)
    model, lora = load_trained_model(folder, model_spec)
    state = load_rank_state(folder / "trainer-rank-0.pt")
    target = Path(out)
    if command == "merge":
        if not lora:
            raise invalid("--checkpoint-dir", checkpoint_dir, "a LoRA run's checkpoints for merge (use export)")
        base = model_spec or state.get("model")
        adapters = Path(adapter_out or f"{target}-adapter")
        write_adapters(model, lora, adapters, str(Path(base).resolve()) if base and Path(base).is_dir() else None)
        readable_by_others(adapters)
    merge_lora(model)
    assert not any(isinstance(m, LoRALinear) for m in model.modules())
    write_model(model, target, _DTYPES[dtype])
    copy_tokenizer(state.get("data"), target)
    readable_by_others(target)
    return target


def readable_by_others(folder: Path) -> None:
    """Files 0644 and folders 0755 under ``folder``: a model is exported to be served and shared (by a serving
    pod under another user, a teammate's notebook), which a restrictive umask (0600 files) would prevent."""
    folder.chmod(0o755)
    for path in folder.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(prog="python -m eks_training.training.export", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("export", "merge"),
                        help="export: the whole model; merge: a LoRA run's merged model plus its adapters")
    parser.add_argument("--checkpoint-dir", required=True, help="The training run's --checkpoint-dir.")
    parser.add_argument("--out", required=True, help="Folder to write (a valid --model afterwards).")
    parser.add_argument("--step", type=int, default=None, help="Checkpoint step. Default: the newest complete one.")
    parser.add_argument("--dtype", default="bf16", choices=tuple(_DTYPES), help="Weight dtype. Default: bf16.")
    parser.add_argument("--adapter-out", default=None, help="merge: folder for the peft adapter. Default: OUT-adapter.")
    parser.add_argument("--model", default=None, help="The run's --model, if its recorded path moved. "
                                                      "Default: the one in the checkpoint.")
    try:
        args = parser.parse_args(argv)
        target = run(args.command, args.checkpoint_dir, args.out, args.step, args.dtype, args.model, args.adapter_out)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {target}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
