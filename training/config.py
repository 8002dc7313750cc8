"""Training configuration: command-line flags, an optional YAML file, and their validation.

Precedence is built-in defaults < the file's ``training:`` block < flags given on the command line.
The file may use the source document's key names (``micro_batch_size``, ``gradient_accumulation_steps``,
``gradient_checkpointing``, ``precision``, ``learning_rate``, ``lr_scheduler``, ``warmup_ratio``,
``optimizer``, ``weight_decay``) or this trainer's own field names. Every bad value raises
:class:`InvalidSetting` (a :class:`ConfigError`) with one line naming the field, the value and what is allowed.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import yaml

from eks_training.core.validation import InvalidValue
from eks_training.training.model_sizes import DEFAULT_MODEL
from eks_training.training.telemetry import split_endpoint


class ConfigError(ValueError):
    """A user-facing mistake on the command line or in the settings; its message is one line, and ``main()`` exits 2.

    A bad setting is an :class:`InvalidSetting`; argparse's own usage errors (a flag without its value) are plain
    ConfigErrors."""


class InvalidSetting(ConfigError, InvalidValue):
    """A bad setting, in the project's one format (:func:`eks_training.core.validation.invalid`):
    ``field=value is not allowed: what is allowed``, with ``field``, ``value`` and ``allowed`` as attributes."""


def invalid(name: str, value: Any, allowed: str) -> InvalidSetting:
    """The one-line error of every bad input: field, bad value, what is allowed (an ``InvalidValue`` of core's)."""
    return InvalidSetting(name, value, allowed)


PRECISIONS = ("auto", "bf16", "fp16", "fp32")
PARALLEL_MODES = ("ddp", "fsdp")
PIPELINE_SCHEDULES = ("1f1b", "interleaved-1f1b")
SCHEDULERS = ("cosine", "linear", "constant")
OPTIMIZERS = ("adamw", "adamw_torch", "adamw_torch_fused")
DEVICES = ("auto", "cpu", "cuda", "xla")
AC_GRANULARITIES = ("full", "selective")
AUTO_SWITCH = ("auto", "true", "false")


@dataclass(frozen=True)
class Flag:
    """One trainer option: the single source of its ``--help`` text, its default and its validation."""

    name: str
    kind: str  # int, float, choice, bool, str, list, s3, steps, endpoint
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    low_open: bool = False
    choices: tuple[str, ...] = ()
    allowed_text: str | None = None  # for free-form values, what they name (a folder, a file)

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def allowed(self) -> str:
        """What the one-line error and ``--help`` say is allowed."""
        if self.allowed_text:
            return self.allowed_text
        match self.kind:
            case "int":
                return f"an integer >= {int(self.minimum)}"
            case "float":
                return (f"a number {'>' if self.low_open else '>='} {self.minimum:g}"
                        + (f" and <= {self.maximum:g}" if self.maximum is not None else ""))
            case "choice":
                return ", ".join(self.choices)
            case "bool":
                return "true or false"
            case "list":
                return "a comma-separated list of module names, e.g. q_proj,v_proj"
            case "s3":
                return "s3://BUCKET[/PREFIX]"
            case "steps":
                return "START-END or N (step numbers, START <= END), e.g. 10-12"
            case "endpoint":
                return "tcp://HOST:PORT or udp://HOST:PORT, e.g. tcp://cloudwatch-agent.amazon-cloudwatch:25888"
            case _:
                return "a non-empty string"

    def help_text(self) -> str:
        default = ",".join(self.default) if isinstance(self.default, tuple) else self.default
        default = "none" if default is None else str(default).lower() if isinstance(default, bool) else default
        return f"{self.help} Default: {default}. Allowed: {self.allowed}."


def _int(name: str, default: Any, text: str, minimum: int = 1) -> Flag:
    return Flag(name, "int", default, text, minimum=minimum)


def _float(name: str, default: Any, text: str, minimum: float = 0.0, maximum: float | None = None,
           low_open: bool = False) -> Flag:
    return Flag(name, "float", default, text, minimum=minimum, maximum=maximum, low_open=low_open)


def _choice(name: str, default: str, text: str, choices: tuple[str, ...]) -> Flag:
    return Flag(name, "choice", default, text, choices=choices)


# Every trainer option, in --help order. TrainConfig's fields are built from this list, so a flag cannot
# exist without its help text, default and validation.
FLAGS: tuple[Flag, ...] = (
    Flag("data", "str", None, "Folder of pre-tokenized *.bin shards with meta.json (required).",
         allowed_text="a folder path"),
    Flag("model", "str", DEFAULT_MODEL, "Model: a named Llama size, a folder written by the export command "
         "(python -m eks_training.training.export), or a local Hugging Face model folder.",
         allowed_text="tiny, tiny-moe, small, 1b, 8b, 70b, 405b or a folder path"),
    _int("seq_len", None, "Tokens per sample; none means the model's max_seq_len capped at 2048."),
    _int("max_steps", 1000, "Optimizer steps to train to (a resumed run continues up to this step)."),
    _int("micro_batch_size", 1, "Samples per rank per forward/backward pass."),
    _int("grad_accum", 1, "Micro-batches accumulated per optimizer step."),
    _float("lr", 3e-4, "Peak learning rate.", low_open=True),
    _float("min_lr_ratio", 0.1, "Final learning rate as a fraction of --lr (cosine and linear decay).",
           maximum=1.0),
    _int("warmup_steps", 0, "Steps of linear warmup (overrides --warmup-ratio).", minimum=0),
    _float("warmup_ratio", None, "Warmup as a fraction of --max-steps.", maximum=1.0),
    _choice("lr_scheduler", "cosine", "Learning-rate decay after warmup.", SCHEDULERS),
    _choice("optimizer", "adamw", "Optimizer; every choice is AdamW, fused on CUDA.", OPTIMIZERS),
    _float("weight_decay", 0.1, "AdamW weight decay for matrices (norms and biases are not decayed)."),
    _float("grad_clip", 1.0, "Clip the global gradient norm to this value; 0 disables clipping."),
    _choice("precision", "auto", "Compute precision; auto is bf16 on GPU/Neuron and fp32 on CPU.", PRECISIONS),
    _choice("parallel", "ddp", "Data parallelism: replicate the model (ddp) or shard it (fsdp, FSDP2).",
            PARALLEL_MODES),
    _int("shard_group_size", 0, "With --parallel fsdp, data-parallel ranks that share one copy of the model "
         "(HSDP: shard inside a group, usually a node's GPUs, replicate across groups); 0 shards over all of them.",
         minimum=0),
    _int("tensor_parallel", 1, "Ranks that split every layer (tensor parallel over heads, feed-forward and "
         "vocabulary, sequence parallel between them); a divisor of the ranks per node."),
    _int("pipeline_parallel", 1, "Ranks that each hold a share of the layers (pipeline stages); --grad-accum "
         "micro-batches run through the pipeline per step."),
    _int("expert_parallel", 1, "Ranks over which a mixture-of-experts model's experts are split (expert parallel, "
         "with --parallel ddp): groups of this many data-parallel ranks exchange tokens with an all-to-all; a "
         "divisor of the data-parallel ranks and of the experts per block."),
    _choice("pipeline_schedule", "1f1b", "Pipeline schedule: 1f1b, or interleaved-1f1b (two stages per rank, a "
            "smaller bubble).", PIPELINE_SCHEDULES),
    _choice("device", "auto", "Device; auto is CUDA if present, else Neuron (XLA), else CPU.", DEVICES),
    _choice("compile", "auto", "torch.compile each transformer block; auto is on for CUDA only.", AUTO_SWITCH),
    _choice("document_masking", "auto", "Keep attention inside each document of a packed sample (documents end with "
            "the end-of-document token meta.json names, as data prep writes it); auto is on when meta.json names "
            "one.", AUTO_SWITCH),
    Flag("activation_checkpointing", "bool", False, "Recompute activations in backward to save memory."),
    _choice("ac_granularity", "full", "full recomputes whole blocks; selective keeps matmul and attention "
            "outputs and recomputes the cheap ops between them.", AC_GRANULARITIES),
    Flag("checkpoint_dir", "str", None, "Folder for step-N checkpoints (shared storage for multi-node); "
         "the run resumes from its newest complete one.", allowed_text="a folder path"),
    _int("checkpoint_every", 500, "Save a checkpoint every this many steps (and at the last step)."),
    _int("keep_last", 3, "Complete checkpoints kept locally and in S3."),
    _choice("async_checkpoint", "auto", "Write checkpoints in the background while training continues; "
            "auto is on for CUDA only.", AUTO_SWITCH),
    Flag("s3_uri", "s3", None, "Also upload each checkpoint here, and restore from it on an empty "
         "--checkpoint-dir."),
    _int("lora_rank", 0, "LoRA adapter rank; 0 trains the full model.", minimum=0),
    _float("lora_alpha", 16.0, "LoRA scaling numerator (the update is scaled by alpha / rank).", low_open=True),
    _float("lora_dropout", 0.0, "Dropout on the LoRA input.", maximum=0.99),
    Flag("lora_targets", "list", ("q_proj", "k_proj", "v_proj", "o_proj"),
         "Linear layers that get adapters, by their last name part."),
    _int("seed", 1234, "Seed for weights, data order and dropout.", minimum=0),
    _int("log_every", 10, "Write a metrics line every this many steps (and at the last step)."),
    Flag("metrics_file", "str", None, "Append JSON-lines metrics here instead of stdout (rank 0).",
         allowed_text="a file path"),
    Flag("emf", "bool", False, "Also print each metrics record as one CloudWatch embedded metric format line on "
         "stdout (rank 0), for a log route that delivers EMF to CloudWatch (see training/telemetry.py)."),
    Flag("emf_endpoint", "endpoint", None, "Send each metrics record as EMF to the CloudWatch agent's listener "
         "here (rank 0); an unreachable agent costs a warning, never the run."),
    Flag("job_name", "str", None, "The Job dimension of the EMF metrics; none reads JOB_NAME, else 'unknown'. "
         "The Namespace dimension is POD_NAMESPACE or the pod's service-account namespace.",
         allowed_text="a job name"),
    Flag("tensorboard_dir", "str", None, "Write loss, lr, grad norm, tokens/s, MFU and eval loss as TensorBoard "
         "scalars here (rank 0; needs the tensorboard package), e.g. CHECKPOINT_DIR/tensorboard.",
         allowed_text="a folder path"),
    _float("peak_flops", None, "Peak FLOP/s of one device for MFU; none looks it up from the device name.",
           low_open=True),
    Flag("eval_data", "str", None, "Held-out folder in the --data format; its loss and perplexity are "
         "logged every --eval-every steps and at the end.", allowed_text="a folder path"),
    _int("eval_every", 0, "Evaluate every this many steps; 0 only at the end (needs --eval-data).", minimum=0),
    _int("eval_batches", 50, "Micro-batches per rank per evaluation; 0 reads the whole held-out folder.",
         minimum=0),
    _float("loss_spike_factor", 3.0, "A logged loss above this multiple of the recent average is a spike; "
           "0 disables spike detection."),
    _int("max_loss_spikes", 0, "Stop the run (exit 3) after this many spikes in a row; 0 only logs them.",
         minimum=0),
    _float("exit_timeout", 600.0, "Seconds the run may take from its last step to exit (final save, "
           "uploads, barriers); past it the run logs what it waited for and exits 4. Raise it when the last "
           "checkpoint takes longer to write.", low_open=True),
    _float("collective_timeout", 600.0, "Seconds any collective or barrier may wait for the other ranks; past "
           "it (a peer died or stopped answering) the run prints one line and exits 5.", low_open=True),
    Flag("allow_tcp", "bool", False, "Train even when a job that requested EFA interfaces finds NCCL on TCP "
         "sockets (a warning instead of exit 6; see training/fabric.py)."),
    Flag("profile", "steps", None, "Record a torch profiler trace of these steps (one step: N)."),
    Flag("profile_dir", "str", "profile", "Folder for the profiler trace (rank R writes rank-R.json).",
         allowed_text="a folder path"),
)

FLAG_BY_NAME = {flag.name: flag for flag in FLAGS}


@dataclass(frozen=True)
class TrainConfig:
    """Everything one training run needs; built by :func:`parse_config`. Defaults come from :data:`FLAGS`."""

    data: str
    model: str = FLAG_BY_NAME["model"].default
    seq_len: int | None = None
    max_steps: int = FLAG_BY_NAME["max_steps"].default
    micro_batch_size: int = FLAG_BY_NAME["micro_batch_size"].default
    grad_accum: int = FLAG_BY_NAME["grad_accum"].default
    lr: float = FLAG_BY_NAME["lr"].default
    min_lr_ratio: float = FLAG_BY_NAME["min_lr_ratio"].default
    warmup_steps: int = FLAG_BY_NAME["warmup_steps"].default
    lr_scheduler: str = FLAG_BY_NAME["lr_scheduler"].default
    optimizer: str = FLAG_BY_NAME["optimizer"].default
    weight_decay: float = FLAG_BY_NAME["weight_decay"].default
    grad_clip: float = FLAG_BY_NAME["grad_clip"].default
    precision: str = FLAG_BY_NAME["precision"].default
    parallel: str = FLAG_BY_NAME["parallel"].default
    shard_group_size: int = FLAG_BY_NAME["shard_group_size"].default
    tensor_parallel: int = FLAG_BY_NAME["tensor_parallel"].default
    pipeline_parallel: int = FLAG_BY_NAME["pipeline_parallel"].default
    pipeline_schedule: str = FLAG_BY_NAME["pipeline_schedule"].default
    expert_parallel: int = FLAG_BY_NAME["expert_parallel"].default
    device: str = FLAG_BY_NAME["device"].default
    compile: str = FLAG_BY_NAME["compile"].default
    document_masking: str = FLAG_BY_NAME["document_masking"].default
    activation_checkpointing: bool = FLAG_BY_NAME["activation_checkpointing"].default
    ac_granularity: str = FLAG_BY_NAME["ac_granularity"].default
    checkpoint_dir: str | None = None
    checkpoint_every: int = FLAG_BY_NAME["checkpoint_every"].default
    keep_last: int = FLAG_BY_NAME["keep_last"].default
    async_checkpoint: str = FLAG_BY_NAME["async_checkpoint"].default
    s3_uri: str | None = None
    lora_rank: int = FLAG_BY_NAME["lora_rank"].default
    lora_alpha: float = FLAG_BY_NAME["lora_alpha"].default
    lora_dropout: float = FLAG_BY_NAME["lora_dropout"].default
    lora_targets: tuple[str, ...] = FLAG_BY_NAME["lora_targets"].default
    seed: int = FLAG_BY_NAME["seed"].default
    log_every: int = FLAG_BY_NAME["log_every"].default
    metrics_file: str | None = None
    emf: bool = FLAG_BY_NAME["emf"].default
    emf_endpoint: str | None = None
    job_name: str | None = None
    tensorboard_dir: str | None = None
    peak_flops: float | None = None
    eval_data: str | None = None
    eval_every: int = FLAG_BY_NAME["eval_every"].default
    eval_batches: int = FLAG_BY_NAME["eval_batches"].default
    loss_spike_factor: float = FLAG_BY_NAME["loss_spike_factor"].default
    max_loss_spikes: int = FLAG_BY_NAME["max_loss_spikes"].default
    exit_timeout: float = FLAG_BY_NAME["exit_timeout"].default
    collective_timeout: float = FLAG_BY_NAME["collective_timeout"].default
    allow_tcp: bool = FLAG_BY_NAME["allow_tcp"].default
    profile: tuple[int, int] | None = None
    profile_dir: str = FLAG_BY_NAME["profile_dir"].default


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
        if message.startswith("unrecognized arguments: "):
            raise invalid("arguments", message.removeprefix("unrecognized arguments: "), "the flags listed by --help")
        raise ConfigError(message)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def build_parser() -> argparse.ArgumentParser:
    """The trainer's flags. Every default is None so that only flags actually given override the file."""
    parser = _Parser(prog="python -m eks_training.training.train",
                     description="Train a Llama-style decoder (or a local Hugging Face causal LM) on pre-tokenized "
                                 "data with DDP, FSDP2 or HSDP, tensor and pipeline parallel, on CPU, CUDA or Neuron; "
                                 "resumes from its newest "
                                 "checkpoint. Flags override --config.",
                     epilog="Subcommands: `python -m eks_training.training.export {export,merge} --help` write "
                            "a trained checkpoint as safetensors.")
    parser.add_argument("--config", help="YAML file with a `training:` block (the source document's keys, or "
                                         "these flags' names with underscores); flags given here override it. "
                                         "Default: none. Allowed: a readable YAML file.")
    for spec in FLAGS:
        parser.add_argument(spec.flag, dest=spec.name, default=None, metavar=spec.name.upper(),
                            help=spec.help_text().replace("%", "%%"))
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
    bounds = f"a number {'>' if low_open else '>='} {low:g}" + (f" and <= {high:g}" if high is not None else "")
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
    # YAML reads `compile: true` as a bool; the switch choices spell it as text.
    text = str(value).strip().lower() if isinstance(value, bool) else str(value).strip()
    if text not in choices:
        raise invalid(_flag(name), value, ", ".join(choices))
    return text


def _to_steps(spec: Flag, value: Any) -> tuple[int, int]:
    start, sep, end = str(value).strip().partition("-")
    try:
        first, last = int(start), int(end if sep else start)
    except ValueError:
        raise invalid(spec.flag, value, spec.allowed) from None
    if first < 1 or last < first:
        raise invalid(spec.flag, value, spec.allowed)
    return first, last


def _convert(name: str, value: Any) -> Any:
    """Turn a raw flag/file value into the field's type, validating its range (rules from :data:`FLAGS`)."""
    if value is None:
        return None
    spec = FLAG_BY_NAME[name]
    match spec.kind:
        case "int":
            return _to_int(name, value, int(spec.minimum))
        case "float":
            return _to_float(name, value, spec.minimum, spec.maximum, spec.low_open)
        case "choice":
            return _to_choice(name, value, spec.choices)
        case "bool":
            return _to_bool(name, value)
        case "steps":
            return _to_steps(spec, value)
        case "endpoint":
            try:
                split_endpoint(str(value))
            except ValueError:
                raise invalid(spec.flag, value, spec.allowed) from None
            return str(value).strip()
        case "list":
            items = value if isinstance(value, (list, tuple)) else str(value).split(",")
            targets = tuple(str(item).strip() for item in items if str(item).strip())
            if not targets:
                raise invalid(spec.flag, value, spec.allowed)
            return targets
        case "s3":
            text = str(value)
            if not text.startswith("s3://") or len(text) <= len("s3://") or text[5] == "/":
                raise invalid(spec.flag, value, spec.allowed)
            return text
        case _:
            text = str(value).strip()
            if not text:
                raise invalid(spec.flag, value, spec.allowed)
            return text


def read_flags(argv: Sequence[str], names: Sequence[str]) -> dict[str, Any]:
    """The values of the flags ``names`` in ``argv``, validated, with the defaults of those not given; every other
    flag is left alone (what a launcher reads of a trainer command line it writes)."""
    given, _ = build_parser().parse_known_args(list(argv))
    values = vars(given)
    return {name: FLAG_BY_NAME[name].default if values[name] is None else _convert(name, values[name])
            for name in names}


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
    if config.eval_every and not config.eval_data:
        raise invalid("--eval-every", config.eval_every, "0 unless --eval-data is given")
    if config.shard_group_size and config.parallel != "fsdp":
        raise invalid("--shard-group-size", config.shard_group_size, "0 unless --parallel fsdp")
    model_parallel = [(flag, degree) for flag, degree in (("--tensor-parallel", config.tensor_parallel),
                                                          ("--pipeline-parallel", config.pipeline_parallel))
                      if degree > 1]
    if model_parallel:
        flag, degree = model_parallel[0]
        if config.lora_rank:
            raise invalid("--lora-rank", config.lora_rank, f"0 with {flag} {degree} (adapters train under "
                          "--parallel ddp or fsdp alone)")
        if config.precision == "fp16":
            raise invalid("--precision", "fp16", f"bf16, fp32 or auto with {flag} {degree} (fp16 needs a GradScaler)")
        if config.device == "xla":
            raise invalid(flag, degree, "1 on XLA/Neuron: this trainer runs data parallel there (torch_xla's tensor "
                          "and pipeline parallelism are NeuronX Distributed's, not DTensor's)")
    if config.expert_parallel > 1:
        if config.device == "xla":
            raise invalid("--expert-parallel", config.expert_parallel, "1 on XLA/Neuron (this trainer runs data "
                          "parallel there)")
        if config.lora_rank:
            raise invalid("--lora-rank", config.lora_rank, f"0 with --expert-parallel {config.expert_parallel}")
    if config.s3_uri and not config.checkpoint_dir:
        raise invalid("--checkpoint-dir", None, "a local folder when --s3-uri is given")
    # Checked here, on every rank, so a missing package is exit 2 everywhere, not an error on rank 0 alone.
    if config.tensorboard_dir and importlib.util.find_spec("tensorboard") is None:
        raise invalid("--tensorboard-dir", config.tensorboard_dir, "a folder path, with the tensorboard package "
                      "installed (pip install tensorboard==2.21.0)")
    return config
