"""Held-out evaluation: loss and perplexity every --eval-every steps and at the end, as metrics lines."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from eks_training.training.config import ConfigError, parse_config
from eks_training.training.data import synthetic_tokens, write_token_dir
from eks_training.training.device import select_runtime
from eks_training.training.train import train

from training_helpers import TINY_FLAGS, read_records

SEQ = 32  # TINY_FLAGS' --seq-len


def test_eval_logs_held_out_loss_and_perplexity(token_data: Path, tmp_path: Path) -> None:
    # A held-out stream from another cycle seed: 6 samples of SEQ + 1 tokens fit in 200 tokens.
    held_out = synthetic_tokens(200, 256, seed=7)
    folder = write_token_dir(tmp_path / "heldout", [held_out], 256)
    metrics = tmp_path / "metrics.jsonl"
    config = parse_config(["--data", str(token_data), *TINY_FLAGS, "--micro-batch-size", "2", "--max-steps", "4",
                           "--eval-data", str(folder), "--eval-every", "2", "--eval-batches", "0",
                           "--lora-rank", "4", "--lora-dropout", "0.5", "--metrics-file", str(metrics)])
    result = train(config, select_runtime("cpu", env={}))
    assert sorted(result.evals) == [2, 4]

    # Expected, computed here from the raw token list: every whole sample of the file, in stored order,
    # through the final model with dropout off (6 samples = 3 micro-batches of 2).
    model = result.model.eval()
    windows = torch.tensor([held_out[i * SEQ:i * SEQ + SEQ + 1] for i in range((len(held_out) - 1) // SEQ)])
    with torch.no_grad():
        logits = model(windows[:, :-1])
    expected = F.cross_entropy(logits.flatten(0, 1), windows[:, 1:].flatten()).item()
    final = result.evals[4]
    assert final["eval_tokens"] == windows[:, 1:].numel()
    assert final["eval_loss"] == pytest.approx(expected, rel=1e-5)
    assert final["eval_perplexity"] == pytest.approx(math.exp(expected), rel=1e-5)
    assert result.evals[2]["eval_loss"] != final["eval_loss"]  # the model changed in between

    logged = [r for r in read_records(metrics) if r.get("event") == "eval"]
    assert [r["step"] for r in logged] == [2, 4]
    assert logged[-1]["eval_loss"] == pytest.approx(expected, rel=1e-5)
    json.loads(metrics.read_text().splitlines()[-1], parse_constant=lambda c: pytest.fail(c))


def test_eval_folder_errors_name_the_eval_flag(token_data: Path, tmp_path: Path) -> None:
    config = parse_config(["--data", str(token_data), *TINY_FLAGS, "--max-steps", "3",
                           "--eval-data", str(tmp_path)])
    with pytest.raises(ConfigError, match=r"^--eval-data=.* is not allowed: a folder with meta.json"):
        train(config, select_runtime("cpu", env={}))


def test_evaluate_command_reports_a_checkpoint_in_one_line(token_data: Path, tmp_path: Path, capsys) -> None:
    from eks_training.training import evaluate

    held_out = write_token_dir(tmp_path / "heldout", [synthetic_tokens(200, 256, seed=7)], 256)
    config = parse_config(["--data", str(token_data), *TINY_FLAGS, "--max-steps", "4", "--eval-data", str(held_out),
                           "--eval-every", "4", "--eval-batches", "0", "--checkpoint-dir", str(tmp_path / "ckpt"),
                           "--checkpoint-every", "4"])
    trained = train(config, select_runtime("cpu", env={}))
    capsys.readouterr()
    assert evaluate.main(["--checkpoint-dir", str(tmp_path / "ckpt"), "--eval-data", str(held_out),
                          "--micro-batch-size", "4"]) == 0  # as the run evaluated: whole micro-batches of 4
    line = capsys.readouterr().out
    # The trainer's own evaluation of the same step, on the same folder, with the run's --seq-len (32).
    expected = trained.evals[4]
    assert line == (f"step-4 of {tmp_path / 'ckpt'} on {held_out}: eval_loss {expected['eval_loss']:.4f}, "
                    f"perplexity {expected['eval_perplexity']:.2f}, {expected['eval_tokens']} tokens\n")


def test_evaluate_command_has_usage_and_one_line_errors(tmp_path: Path, capsys) -> None:
    from eks_training.training import evaluate

    with pytest.raises(SystemExit) as exited:
        evaluate.main(["--help"])
    assert exited.value.code == 0 and capsys.readouterr().out.startswith("usage: python -m eks_training.training.evaluate")
    assert evaluate.main(["--eval-data", str(tmp_path)]) == 2
    assert capsys.readouterr().err == ("error: --checkpoint-dir=None is not allowed: a training run's checkpoint "
                                       "folder, or --model FOLDER (an exported model)\n")
    assert evaluate.main(["--checkpoint-dir", str(tmp_path), "--eval-data", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --checkpoint-dir=") and err.count("\n") == 1
