"""Size and load time of each package `make imports` generated (workloads/imports), in fresh processes.

Usage: .venv/bin/python benchmarks/imports.py [--rounds 5]
A chart pays for a package the first time it writes one of its kinds (eks_training.workloads.typed_objects loads
them on first use): this is that cost, jsii's Node runtime already started (cdk8s imported first, as any chart has).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
IMPORTS = REPO / "workloads" / "imports"
PROBE = """
import time, importlib, cdk8s
start = time.perf_counter()
importlib.import_module("eks_training.workloads.imports.{module}")
print(time.perf_counter() - start)
"""


def size_mb(package: Path) -> float:
    """The package's own files (not a sub-package's, not bytecode), in MB."""
    nested = {p.parent for p in package.rglob("__init__.py")} - {package, package / "_jsii"}
    files = [p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts
             and not any(n in p.parents for n in nested)]
    return sum(p.stat().st_size for p in files) / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    sys.path.insert(0, str(IMPORTS))
    from generate import SOURCES  # noqa: E402  (the list of packages `make imports` writes)

    print(f"{'package':<26}{'group':<24}{'MB':>7}{'import s (median)':>19}{'min s':>8}")
    for source in SOURCES:
        seconds = []
        for _ in range(rounds):
            done = subprocess.run([sys.executable, "-c", PROBE.format(module=source.module)], cwd=REPO,
                                  capture_output=True, text=True, check=True)
            seconds.append(float(done.stdout.strip().splitlines()[-1]))
        mb = size_mb(IMPORTS.joinpath(*source.module.split(".")))
        print(f"{source.module:<26}{source.group:<24}{mb:>7.2f}{statistics.median(seconds):>19.2f}{min(seconds):>8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
