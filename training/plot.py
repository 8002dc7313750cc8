"""`eks-training plot METRICS.jsonl -o curves.png`: the trainer's curves from its JSON-lines metrics file.

One PNG of 2x2 panels against the optimizer step: training loss, eval loss, throughput (tokens/s) and MFU (%).
It reads what the trainer writes with ``--metrics-file`` (or its stdout saved to a file): step records and
``eval`` records; other events (resumed, loss_spike, ...) and EMF lines are skipped. A resumed run appends to
the same file and repeats steps after its checkpoint; the later value of a step wins, as the later run is the
one that continued. Every bad input is one ValueError line in the project's one format
(:func:`eks_training.core.validation.invalid`); the CLI prints it and exits 2.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eks_training.core.validation import invalid

#: The PNG's size in pixels (FIGURE_INCHES x DPI); wide enough for four readable panels on a laptop screen.
FIGURE_INCHES = (12, 8)
DPI = 100

# Throughput was logged as tokens_per_s; the CloudWatch contract spells it tokens_per_second. Accept both.
_THROUGHPUT_KEYS = ("tokens_per_s", "tokens_per_second")


@dataclass
class Curves:
    """Points per curve, keyed by step (so a repeated step keeps its later value)."""

    loss: dict[int, float] = field(default_factory=dict)
    eval_loss: dict[int, float] = field(default_factory=dict)
    tokens_per_second: dict[int, float] = field(default_factory=dict)
    mfu_percent: dict[int, float] = field(default_factory=dict)

    def points(self) -> int:
        return len(self.loss) + len(self.eval_loss) + len(self.tokens_per_second) + len(self.mfu_percent)


def _finite(value: Any) -> float | None:
    """A plottable number, or None (null is how the trainer writes a diverged value)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def read_curves(path: str | Path) -> Curves:
    """Read a metrics JSON-lines file; ValueError naming the file (and line) when it cannot be plotted."""
    source = Path(path)
    try:
        lines = source.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise invalid("METRICS", str(path), "an existing JSON-lines metrics file (the trainer's --metrics-file)") from None
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise invalid("METRICS", str(path), f"a readable JSON-lines metrics file (this one: {reason})") from None
    curves = Curves()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise invalid("METRICS", f"{path}:{number}", "one JSON object per line, as the trainer writes (this "
                                                         f"line is not JSON: {error.msg})") from None
        if not isinstance(record, dict):
            raise invalid("METRICS", f"{path}:{number}", "one JSON object per line, as the trainer writes (this "
                                                         f"line is a JSON {type(record).__name__})")
        step = record.get("step")
        if "_aws" in record or isinstance(step, bool) or not isinstance(step, int):
            continue  # an EMF copy of a record (--emf), or a line without a step: nothing to place on the x axis
        event = record.get("event")
        if event is None:
            for key, target in (("loss", curves.loss), ("mfu", curves.mfu_percent)):
                value = _finite(record.get(key))
                if value is not None:
                    target[step] = value * 100 if key == "mfu" else value
            for key in _THROUGHPUT_KEYS:
                value = _finite(record.get(key))
                if value is not None:
                    curves.tokens_per_second[step] = value
        elif event == "eval":
            value = _finite(record.get("eval_loss"))
            if value is not None:
                curves.eval_loss[step] = value
    if not curves.points():
        raise invalid("METRICS", str(path), "the trainer's --metrics-file after at least one logged step (this one "
                                            "has no step or eval records with a loss, tokens/s or MFU)")
    return curves


def draw(curves: Curves, output: str | Path, title: str | None = None) -> Path:
    """Write the 2x2 PNG; returns its path."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.ticker import EngFormatter
    except ImportError:
        raise ValueError("plot needs the matplotlib package: pip install matplotlib==3.11.2") from None
    # Figure + the Agg canvas directly, not pyplot: no global backend choice, no display needed, no state kept.
    figure = Figure(figsize=FIGURE_INCHES, dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(2, 2, sharex=True)
    # An empty panel says why it is empty: evals need --eval-data, MFU a known peak (a CPU run logs none).
    panels = (
        (axes[0][0], curves.loss, "Training loss", "loss (nats/token)", "tab:blue", "no training loss in this file"),
        (axes[0][1], curves.eval_loss, "Eval loss", "eval loss (nats/token)", "tab:orange",
         "no eval records\n(the trainer evaluates with --eval-data)"),
        (axes[1][0], curves.tokens_per_second, "Throughput", "tokens/s", "tab:green", "no tokens/s in this file"),
        (axes[1][1], curves.mfu_percent, "MFU", "MFU (% of peak)", "tab:red",
         "no MFU in this file\n(needs a known device peak, or --peak-flops)"),
    )
    for ax, points, name, label, color, empty in panels:
        ax.set_title(name)
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
        if points:
            steps = sorted(points)
            # Evals are few: markers show where each one is; step records are dense enough for a line alone.
            ax.plot(steps, [points[s] for s in steps], color=color, linewidth=1.5,
                    marker="o" if len(steps) <= 50 else None, markersize=4)
        else:
            ax.text(0.5, 0.5, empty, ha="center", va="center", transform=ax.transAxes,
                    color="gray")
    axes[1][0].yaxis.set_major_formatter(EngFormatter())  # 51.2k rather than 51234
    for ax in axes[1]:
        ax.set_xlabel("step")
    if title:
        figure.suptitle(title)
    target = Path(output)
    try:
        figure.savefig(target, format="png")
    except OSError as error:
        raise invalid("-o", str(output), f"a writable file path ({error.strerror or error})") from None
    return target


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("metrics", metavar="METRICS", help="the trainer's JSON-lines metrics file (--metrics-file)")
    parser.add_argument("-o", "--output", default="curves.png", help="the PNG to write (default curves.png)")
    parser.add_argument("--title", help="a title over the panels (default: the metrics file's name)")


def run(args: argparse.Namespace) -> int:
    curves = read_curves(args.metrics)
    target = draw(curves, args.output, args.title or Path(args.metrics).name)
    steps = set(curves.loss) | set(curves.tokens_per_second) | set(curves.mfu_percent)
    print(f"wrote {target} ({len(steps)} steps, {len(curves.eval_loss)} evals)")
    return 0
