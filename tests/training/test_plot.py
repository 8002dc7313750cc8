"""`eks-training plot`: a metrics JSON-lines file becomes one 2x2 PNG; bad input is one line and exit 2."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from PIL import Image, ImageStat

from eks_training.infra.tools.cli import main



def _write_metrics(path: Path, steps: int = 40) -> Path:
    """A run as the trainer logs it: step records, events between them, evals, one resume that repeats steps."""
    lines = []
    for step in range(10, steps * 10 + 1, 10):
        lines.append({"time": 1.0 * step, "step": step, "loss": 10 * math.exp(-step / 150) + 2, "lr": 3e-4,
                      "grad_norm": 1.0, "tokens_per_s": 40000 + 50 * step, "samples_consumed": step * 8,
                      "mfu": 0.3 + step / 4000})
        if step % 100 == 0:
            lines.append({"time": 1.0 * step, "event": "eval", "step": step, "eval_loss": 10 * math.exp(-step / 150) + 2.2,
                          "eval_perplexity": 20.0, "eval_tokens": 4096})
    lines.insert(5, {"time": 55.0, "event": "loss_spike", "step": 50, "loss": 99.0, "recent_mean": 8.0, "factor": 12.0})
    lines.append({"time": 999.0, "event": "resumed", "step": 200, "samples_consumed": 1600})
    lines.append({"time": 1000.0, "step": 210, "loss": None, "lr": 3e-4, "grad_norm": None, "tokens_per_s": 41000.0,
                  "samples_consumed": 1680, "mfu": None})  # a diverged value is written as null
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_plot_writes_a_png_of_four_drawn_panels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    metrics = _write_metrics(tmp_path / "metrics.jsonl")
    output = tmp_path / "curves.png"
    assert main(["plot", str(metrics), "-o", str(output)]) == 0
    assert capsys.readouterr().out == f"wrote {output} (40 steps, 4 evals)\n"
    assert output.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(output) as image:
        image.verify()  # the chunks and their checksums are sound
    with Image.open(output) as image:
        assert image.format == "PNG" and image.size == (1200, 800)  # 12x8 inches at 100 dpi
        # Not blank: white background, dark text and axes, coloured curves.
        assert ImageStat.Stat(image.convert("L")).var[0] > 100
        width, height = image.size
        saturation = image.convert("RGB").convert("HSV").getchannel("S")

        def coloured(box: tuple[int, int, int, int]) -> int:
            """Pixels in a quadrant that are strongly coloured (a curve), not gray (text, grid, axes)."""
            return sum(saturation.crop(box).point(lambda value: 255 if value > 100 else 0).histogram()[255:])

        # Every one of the four panels has a curve drawn in it.
        for box in ((0, 0, width // 2, height // 2), (width // 2, 0, width, height // 2),
                    (0, height // 2, width // 2, height), (width // 2, height // 2, width, height)):
            assert coloured(box) > 200, box


def test_plot_defaults_to_curves_png_in_the_working_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    metrics = _write_metrics(tmp_path / "metrics.jsonl", steps=3)
    monkeypatch.chdir(tmp_path)
    assert main(["plot", str(metrics)]) == 0
    with Image.open(tmp_path / "curves.png") as image:
        assert image.size == (1200, 800)


def test_plot_reads_the_later_value_of_a_repeated_step_and_skips_emf_lines(tmp_path: Path) -> None:
    from eks_training.training.plot import read_curves

    metrics = tmp_path / "metrics.jsonl"
    metrics.write_text("\n".join(json.dumps(r) for r in [
        {"step": 10, "loss": 5.0, "tokens_per_s": 100.0, "mfu": 0.5},
        {"step": 20, "loss": 4.0, "tokens_per_s": 110.0, "mfu": 0.5},
        {"event": "resumed", "step": 10},
        {"step": 20, "loss": 3.5, "tokens_per_s": 120.0, "mfu": 0.25},
        {"_aws": {}, "step": 20, "loss": 1.0, "Namespace": "ns", "Job": "j"},
        {"event": "eval", "step": 20, "eval_loss": 3.75},
        {"step": 30, "loss": None, "tokens_per_second": 130.0},
    ]) + "\n\n")
    curves = read_curves(metrics)
    assert curves.loss == {10: 5.0, 20: 3.5}
    assert curves.tokens_per_second == {10: 100.0, 20: 120.0, 30: 130.0}
    assert curves.mfu_percent == {10: 50.0, 20: 25.0}
    assert curves.eval_loss == {20: 3.75}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "error: METRICS='{path}' is not allowed: an existing JSON-lines metrics file (the trainer's "
               "--metrics-file)"),
        ("", "error: METRICS='{path}' is not allowed: the trainer's --metrics-file after at least one logged step "
             "(this one has no step or eval records with a loss, tokens/s or MFU)"),
        ('{"event": "resumed", "step": 3}\n', "error: METRICS='{path}' is not allowed: the trainer's --metrics-file "
                                              "after at least one logged step (this one has no step or eval records "
                                              "with a loss, tokens/s or MFU)"),
        ('{"step": 1, "loss": 2.0}\n\n{"step": 2, "loss": 1.9\n', "error: METRICS='{path}:3' is not allowed: one JSON "
                                                                 "object per line, as the trainer writes (this line "
                                                                 "is not JSON: Expecting ',' delimiter)"),
        ('{"step": 1, "loss": 2.0}\n[1, 2]\n', "error: METRICS='{path}:2' is not allowed: one JSON object per line, "
                                               "as the trainer writes (this line is a JSON list)"),
    ],
    ids=["missing", "empty", "no-metric-records", "malformed-line", "not-an-object"],
)
def test_bad_metrics_are_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None,
                                             message: str) -> None:
    path = tmp_path / "metrics.jsonl"
    if content is not None:
        path.write_text(content)
    output = tmp_path / "curves.png"
    assert main(["plot", str(path), "-o", str(output)]) == 2
    captured = capsys.readouterr()
    assert captured.err == message.format(path=path) + "\n"
    assert not output.exists()


def test_an_unwritable_output_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    metrics = _write_metrics(tmp_path / "metrics.jsonl", steps=3)
    output = tmp_path / "no-such-folder" / "curves.png"
    assert main(["plot", str(metrics), "-o", str(output)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: -o='{output}' is not allowed: a writable file path (") and err.count("\n") == 1


def test_a_cpu_run_without_mfu_or_evals_still_plots_its_loss_and_throughput(tmp_path: Path) -> None:
    # On CPU the trainer logs "mfu": null (no known peak) and evaluates only with --eval-data.
    metrics = tmp_path / "metrics.jsonl"
    metrics.write_text("".join(json.dumps({"step": s, "loss": 5.0 - s / 10, "tokens_per_s": 900.0 + s, "mfu": None})
                               + "\n" for s in range(5, 25, 5)))
    output = tmp_path / "curves.png"
    assert main(["plot", str(metrics), "-o", str(output)]) == 0
    with Image.open(output) as image:
        saturation = image.convert("RGB").convert("HSV").getchannel("S")
        width, height = image.size

        def coloured(box: tuple[int, int, int, int]) -> int:
            return sum(saturation.crop(box).point(lambda value: 255 if value > 100 else 0).histogram()[255:])

        assert coloured((0, 0, width // 2, height // 2)) > 200  # loss
        assert coloured((0, height // 2, width // 2, height)) > 200  # tokens/s
        assert coloured((width // 2, 0, width, height // 2)) == 0  # no eval curve
        assert coloured((width // 2, height // 2, width, height)) == 0  # no MFU curve
