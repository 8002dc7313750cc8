"""Flag and config-file parsing: the source document's `training:` block, precedence, one-line errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from eks_training.training.config import ConfigError, parse_config

from training_helpers import quiet_env

# The source document's ConfigMap block, as written there (note `2e-5`, which YAML 1.1 reads as a string).
SOURCE_BLOCK = """
training:
  micro_batch_size: 1
  gradient_accumulation_steps: 32
  gradient_checkpointing: true
  activation_checkpointing_granularity: selective
  precision: bf16
  learning_rate: 2e-5
  lr_scheduler: cosine
  warmup_ratio: 0.03
  optimizer: adamw_torch_fused
  weight_decay: 0.01
"""


def test_source_document_block_is_read(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(SOURCE_BLOCK)
    config = parse_config(["--config", str(path), "--data", "/data", "--max-steps", "1000"])
    assert (config.micro_batch_size, config.grad_accum) == (1, 32)
    assert config.activation_checkpointing is True and config.ac_granularity == "selective"
    assert config.precision == "bf16" and config.lr == pytest.approx(2e-5)
    assert config.lr_scheduler == "cosine" and config.optimizer == "adamw_torch_fused"
    assert config.weight_decay == pytest.approx(0.01)
    assert config.warmup_steps == 30  # 0.03 of 1000 steps


def test_flags_override_the_file(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(SOURCE_BLOCK)
    config = parse_config(["--config", str(path), "--data", "/d", "--grad-accum", "4", "--lr", "1e-3",
                           "--precision", "fp32", "--warmup-steps", "5", "--lora-targets", "q_proj,v_proj"])
    assert (config.grad_accum, config.lr, config.precision, config.warmup_steps) == (4, 1e-3, "fp32", 5)
    assert config.micro_batch_size == 1  # untouched keys still come from the file
    assert config.lora_targets == ("q_proj", "v_proj")


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (["--micro-batch-size", "0"], ["--micro-batch-size", "'0'", "integer >= 1"]),
        (["--lr", "fast"], ["--lr", "'fast'", "number > 0"]),
        (["--parallel", "zero3"], ["--parallel", "'zero3'", "ddp, fsdp"]),
        (["--precision", "int8"], ["--precision", "'int8'", "auto, bf16, fp16, fp32"]),
        (["--s3-uri", "bucket/x", "--checkpoint-dir", "/c"], ["--s3-uri", "'bucket/x'", "s3://BUCKET"]),
        (["--warmup-steps", "50", "--max-steps", "10"], ["--warmup-steps", "50", "fewer than --max-steps"]),
        (["--precision", "fp16", "--parallel", "fsdp"], ["--precision", "'fp16'", "bf16"]),
        (["--activation-checkpointing", "maybe"], ["--activation-checkpointing", "'maybe'", "true or false"]),
    ],
)
def test_bad_flags_name_field_value_and_allowed(argv: list[str], fragments: list[str]) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(["--data", "/d", *argv])
    message = str(caught.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message


def test_bad_file_key_and_value(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("training:\n  micro_batch_sise: 2\n")
    with pytest.raises(ConfigError, match=r"training\.micro_batch_sise=2 is not allowed: keys .*micro_batch_size"):
        parse_config(["--config", str(path), "--data", "/d"])
    path.write_text("training:\n  gradient_accumulation_steps: -3\n")
    with pytest.raises(ConfigError, match=r"--grad-accum=-3 is not allowed: an integer >= 1"):
        parse_config(["--config", str(path), "--data", "/d"])
    path.write_text("model: x\n")
    with pytest.raises(ConfigError, match="`training:` block"):
        parse_config(["--config", str(path), "--data", "/d"])


@pytest.mark.parametrize(
    ("argv", "field", "value", "allowed"),
    [
        (["--grad-accum", "0"], "--grad-accum", "0", "an integer >= 1"),
        (["--precision", "fp8"], "--precision", "fp8", "auto, bf16, fp16, fp32"),
        (["--bogus", "1"], "arguments", "--bogus 1", "the flags listed by --help"),
    ],
)
def test_a_bad_setting_is_the_projects_one_format_with_its_parts(argv, field, value, allowed) -> None:
    """The trainer's errors are core's InvalidValue (field, value, allowed), and still the ConfigError main() maps to 2."""
    import pickle

    from eks_training.core.validation import InvalidValue

    with pytest.raises(ConfigError) as caught:
        parse_config(["--data", "/d", *argv])
    error = caught.value
    assert isinstance(error, InvalidValue)
    assert (error.field, error.value, error.allowed) == (field, value, allowed)
    assert str(error) == f"{field}={value!r} is not allowed: {allowed}"
    # It crosses process boundaries (data-prep workers, Ray) whole.
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), str(copy), copy.field) == (type(error), str(error), field)


def test_cli_prints_one_line_and_exits_2(token_data: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "eks_training.training.train", "--data", str(token_data),
                           "--model", "huge"], capture_output=True, text=True, env=quiet_env(), timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: --model='huge' is not allowed: one of tiny, tiny-moe, small, 1b, 8b, 70b, 405b, an exported model folder or a "
        "local Hugging Face model folder with config.json"]


def test_help_describes_every_flag_with_default_and_allowed_values() -> None:
    import dataclasses

    from eks_training.training.config import FLAGS, TrainConfig, build_parser

    # One source of truth: every config field is a flag (warmup_ratio becomes warmup_steps) and vice versa.
    assert {f.name for f in dataclasses.fields(TrainConfig)} == {flag.name for flag in FLAGS} - {"warmup_ratio"}
    actions = [a for a in build_parser()._actions if a.dest != "help"]
    assert len(actions) == len(FLAGS) + 1  # + --config
    for action in actions:
        assert action.help and "Default: " in action.help and "Allowed: " in action.help, action.option_strings
        assert len(action.help.split("Default: ")[0].strip()) > 15, action.option_strings  # a real sentence
    done = subprocess.run([sys.executable, "-m", "eks_training.training.train", "--help"], capture_output=True,
                          text=True, env=quiet_env(), timeout=60)
    assert done.returncode == 0
    text = " ".join(done.stdout.split())  # argparse wraps lines
    for flag in FLAGS:
        assert flag.flag in text
    assert "--lr-scheduler LR_SCHEDULER Learning-rate decay after warmup. Default: cosine. Allowed: cosine, linear, " \
           "constant." in text
    assert "Default: 1000. Allowed: an integer >= 1." in text  # --max-steps


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--eval-every", "5"], "--eval-every=5 is not allowed: 0 unless --eval-data is given"),
        (["--shard-group-size", "4"], "--shard-group-size=4 is not allowed: 0 unless --parallel fsdp"),
        (["--profile", "9-3"], "--profile='9-3' is not allowed: START-END or N (step numbers, START <= END), "
                                     "e.g. 10-12"),
        (["--compile", "yes"], "--compile='yes' is not allowed: auto, true, false"),
        (["--exit-timeout", "0"], "--exit-timeout='0' is not allowed: a number > 0"),
    ],
)
def test_new_flags_reject_bad_values_in_one_line(argv: list[str], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(["--data", "/d", *argv])
    assert str(caught.value) == message


def test_the_default_model_is_small_for_the_trainer_and_render() -> None:
    # One default: the trainer's, the one `eks-training render` writes into jobs, the one the README trains.
    from eks_training.infra.tools.cli import build_parser

    assert parse_config(["--data", "/d"]).model == "small"
    assert build_parser().parse_args(["render", "pytorch-job", "--env", "dev"]).model == "small"
