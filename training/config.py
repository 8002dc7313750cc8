"""Training configuration: command-line flags, an optional YAML file, and their validation.

Precedence is built-in defaults < the file's ``training:`` block < flags given on the command line.
The file may use the source document's key names (``micro_batch_size``, ``gradient_accumulation_steps``,
``gradient_checkpointing``, ``precision``, ``learning_rate``, ``lr_scheduler``, ``warmup_ratio``,
``optimizer``, ``weight_decay``) or this trainer's own field names. Every bad value raises
:class:`ConfigError` with one line naming the field, the value and what is allowed.
"""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import yaml


class ConfigError(ValueError):
    """A user-facing configuration mistake; its message is one line."""


def invalid(name: str, value: Any, allowed: str) -> ConfigError:
    """Build the one-line error used for every bad input: field, bad value, what is allowed."""
    return ConfigError(f"{name}: got {value!r}; allowed: {allowed}")


PRECISIONS = ("auto", "bf16", "fp16", "fp32")
PARALLEL_MODES = ("ddp", "fsdp")
SCHEDULERS = ("cosine", "linear", "constant")
OPTIMIZERS = ("adamw", "adamw_torch", "adamw_torch_fused")
DEVICES = ("auto", "cpu", "cuda", "xla")
AC_GRANULARITIES = ("full", "selective")


@dataclass(frozen=True)
class TrainConfig:
    """Everything one training run needs; built by :func:`parse_config`."""

    data: str
    model: str = "tiny"
    seq_len: int | None = None
    max_steps: int = 1000
    micro_batch_size: int = 1
    grad_accum: int = 1
    lr: float = 3e-4
    min_lr_ratio: float = 0.1
    warmup_steps: int = 0
    lr_scheduler: str = "cosine"
    optimizer: str = "adamw"
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    precision: str = "auto"
    parallel: str = "ddp"
    device: str = "auto"
    activation_checkpointing: bool = False
    ac_granularity: str = "full"
    checkpoint_dir: str | None = None
    checkpoint_every: int = 500
    keep_last: int = 3
    s3_uri: str | None = None
    lora_rank: int = 0
    lora_alpha: float = 16.0
    lora_dropout: float = 0.0
    lora_targets: tuple[str, ...] = ("q_proj", "k_proj", "v_proj", "o_proj")
    seed: int = 1234
    log_every: int = 10
    metrics_file: str | None = None
    peak_flops: float | None = None


# The source document's `training:` keys, mapped to this trainer's fields.
SOURCE_DOCUMENT_KEYS = {
    "micro_batch_size": "micro_batch_size",
    "per_device_train_batch_size": "micro_batch_size",
    "gradient_accumulation_steps": "grad_accum",
    "gradient_checkpointing": "activation_checkpointing",
    "activation_checkpointing_granularity": "ac_granularity",
    "learning_rate": "lr",
    "precision": "precision",
    "lr_scheduler": "lr_scheduler",
    "optimizer": "optimizer",
    "weight_decay": "weight_decay",
    "warmup_ratio": "warmup_ratio",
}

_FIELDS = {f.name: f for f in dataclasses.fields(TrainConfig)}
# warmup_ratio is not stored: it becomes warmup_steps once max_steps is known.
_ACCEPTED_KEYS = sorted(set(_FIELDS) | set(SOURCE_DOCUMENT_KEYS) | {"warmup_ratio"})


class _Parser(argparse.ArgumentParser):
    """argparse that raises ConfigError (one line) instead of printing usage and exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        if message.startswith("unrecognized arguments"):
            message += "; allowed: the flags listed by --help"
        raise ConfigError(message)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def build_parser() -> argparse.ArgumentParser:
    """The trainer's flags. Every default is None so that only flags actually given override the file."""
    parser = _Parser(prog="python -m eks_training.training.train", description=__doc__.splitlines()[0])
    parser.add_argument("--config", help="YAML file with a `training:` block (the source document's keys)")
    for name in _FIELDS:
        parser.add_argument(_flag(name), dest=name, default=None, metavar=name.upper())
    parser.add_argument("--warmup-ratio", dest="warmup_ratio", default=None, help="warmup as a fraction of max steps")
    return parser


def _to_int(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool):
        raise invalid(_flag(name), value, f"an integer >= {minimum}")
    try:
        number = int(str(value).strip())
    except ValueError:
        raise invalid(_flag(name), value, f"an integer >= {minimum}") from None
    if number < minimum:
        raise invalid(_flag(name), value, f"an integer >= {minimum}")
    return number


def _to_float(name: str, value: Any, low: float, high: float | None = None, low_open: bool = False) -> float:
    bounds = f"a number {'>' if low_open else '>='} {low}" + (f" and <= {high}" if high is not None else "")
    if isinstance(value, bool):
        raise invalid(_flag(name), value, bounds)
    try:
        # YAML 1.1 reads `2e-5` (no dot) as a string, so strings are accepted here.
        number = float(str(value).strip())
    except ValueError:
        raise invalid(_flag(name), value, bounds) from None
    if number != number or number < low or (low_open and number == low) or (high is not None and number > high):
        raise invalid(_flag(name), value, bounds)
    return number


def _to_bool(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes", "on"):
        return True
    if text in ("false", "0", "no", "off"):
        return False
    raise invalid(_flag(name), value, "true or false")


def _to_choice(name: str, value: Any, choices: Sequence[str]) -> str:
    text = str(value).strip()
    if text not in choices:
        raise invalid(_flag(name), value, ", ".join(choices))
    return text


def _convert(name: str, value: Any) -> Any:
    """Turn a raw flag/file value into the field's type, validating its range."""
    if value is None:
        return None
    match name:
        case "seq_len" | "max_steps" | "micro_batch_size" | "grad_accum" | "checkpoint_every" | "keep_last" | "log_every":
            return _to_int(name, value, 1)
        case "warmup_steps" | "lora_rank" | "seed":
            return _to_int(name, value, 0)
        case "lr":
            return _to_float(name, value, 0.0, low_open=True)
        case "min_lr_ratio" | "warmup_ratio" | "lora_dropout":
            return _to_float(name, value, 0.0, 1.0 if name != "lora_dropout" else 0.99)
        case "weight_decay" | "grad_clip":
            return _to_float(name, value, 0.0)
        case "lora_alpha" | "peak_flops":
            return _to_float(name, value, 0.0, low_open=True)
        case "precision":
            return _to_choice(name, value, PRECISIONS)
        case "parallel":
            return _to_choice(name, value, PARALLEL_MODES)
        case "lr_scheduler":
            return _to_choice(name, value, SCHEDULERS)
        case "optimizer":
            return _to_choice(name, value, OPTIMIZERS)
        case "device":
            return _to_choice(name, value, DEVICES)
        case "ac_granularity":
            return _to_choice(name, value, AC_GRANULARITIES)
        case "activation_checkpointing":
            return _to_bool(name, value)
        case "lora_targets":
            items = value if isinstance(value, (list, tuple)) else str(value).split(",")
            targets = tuple(str(item).strip() for item in items if str(item).strip())
            if not targets:
                raise invalid(_flag(name), value, "a comma-separated list of module names, e.g. q_proj,v_proj")
            return targets
        case "s3_uri":
            text = str(value)
            if not text.startswith("s3://") or len(text) <= len("s3://") or text[5] == "/":
                raise invalid(_flag(name), value, "s3://BUCKET[/PREFIX]")
            return text
        case _:
            text = str(value).strip()
            if not text:
                raise invalid(_flag(name), value, "a non-empty string")
            return text


def read_config_file(path: str | Path) -> dict[str, Any]:
    """Read a YAML file's ``training:`` block into field names (source-document keys translated)."""
    source = Path(path)
    try:
        document = yaml.safe_load(source.read_text())
    except OSError as error:
        raise invalid("--config", str(path), f"a readable YAML file ({error.strerror})") from None
    except yaml.YAMLError as error:
        raise invalid("--config", str(path), f"valid YAML ({str(error).splitlines()[0]})") from None
    if not isinstance(document, dict) or not isinstance(document.get("training"), dict):
        raise invalid("--config", str(path), "a YAML mapping with a `training:` block")
    values: dict[str, Any] = {}
    for key, value in document["training"].items():
        if key not in _ACCEPTED_KEYS:
            raise invalid(f"training.{key}", value, "keys " + ", ".join(_ACCEPTED_KEYS))
        values[SOURCE_DOCUMENT_KEYS.get(key, key)] = value
    return values


def parse_config(argv: Sequence[str] | None = None) -> TrainConfig:
    """Parse flags (and ``--config FILE``) into a validated :class:`TrainConfig`."""
    args = vars(build_parser().parse_args(argv))
    config_file = args.pop("config")
    raw: dict[str, Any] = read_config_file(config_file) if config_file else {}
    raw.update({name: value for name, value in args.items() if value is not None})
    values = {name: _convert(name, value) for name, value in raw.items()}

    warmup_ratio = values.pop("warmup_ratio", None)
    if "data" not in values:
        raise invalid("--data", None, "a directory of pre-tokenized *.bin files with meta.json")
    config = TrainConfig(**values)
    if "warmup_steps" not in values and warmup_ratio is not None:
        config = dataclasses.replace(config, warmup_steps=round(warmup_ratio * config.max_steps))
    if config.warmup_steps >= config.max_steps:
        raise invalid("--warmup-steps", config.warmup_steps, f"fewer than --max-steps ({config.max_steps})")
    if config.precision == "fp16" and config.parallel == "fsdp":
        raise invalid("--precision", "fp16", "bf16, fp32 or auto with --parallel=fsdp (fp16 needs a GradScaler)")
    if config.s3_uri and not config.checkpoint_dir:
        raise invalid("--checkpoint-dir", None, "a local folder when --s3-uri is given")
    return config
