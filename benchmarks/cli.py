"""Time the everyday `eks-training` commands (list, render, plan) as a user runs them, and print a table.

Usage: .venv/bin/python benchmarks/cli.py [--runs 7]
Each run is a fresh process of the installed `eks-training` script (from this interpreter's bin/), so interpreter
start-up and every import count. The goal is under 1 s each: none of them may load CDK, cdk8s or jsii
(tests/test_cli_imports.py holds that; this script measures what it buys).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

COMMANDS = {
    "list": ["list"],
    "render": ["render", "pytorch-job", "--env", "dev", "--dataset", "x", "--image", "r/i:1"],
    "plan": ["plan", "--params", "70e9", "--instance-type", "p5.48xlarge", "--nodes", "4"],
}
GOAL_S = 1.0


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    script = Path(sys.executable).with_name("eks-training")
    if not script.exists():
        print(f"error: {script} is missing: run `make install-dev` first", file=sys.stderr)
        return 2
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(runs):  # interleaved, so a burst of load on a shared machine hits every command alike
        for name, argv in COMMANDS.items():
            times[name].append(timed([str(script), *argv]))
    print(f"{'command':<10}{'median s':>10}{'min s':>8}{'max s':>8}  goal < {GOAL_S:.0f} s")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:<10}{median:>10.2f}{min(values):>8.2f}{max(values):>8.2f}  {'ok' if median < GOAL_S else 'SLOW'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
