"""What a Makefile target would run, read with a dry run (``make -n``), without redoing the installs."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: The install stamps: up to date for a dry run (the checkout's installs are what they are).
_STAMPS = (".venv/.stamp-runtime", ".venv/.stamp-node", ".venv/.stamp-bytecode", "node_modules/.stamp")
#: How the Makefile starts the package's CLI.
CLI = ".venv/bin/python -m eks_training.infra.tools.cli"


def dry_run(target: str, *variables: str) -> list[str]:
    """The command lines ``make TARGET VARIABLES...`` would run, in order."""
    old = [flag for stamp in _STAMPS for flag in ("-o", stamp)]
    # --no-print-directory: under `make test` this make is a sub-make, which would otherwise print its directory.
    done = subprocess.run(["make", "-n", "--no-print-directory", *old, target, *variables], cwd=REPO, capture_output=True, text=True,
                          check=True, timeout=60)
    return [line for line in done.stdout.splitlines() if line.strip()]


def cli_argv(line: str) -> list[str]:
    """The arguments of one command line that runs the CLI (what ``eks_training.infra.tools.cli.main`` takes)."""
    assert line.startswith(CLI + " "), line
    return shlex.split(line[len(CLI):])
