"""Every command the README shows runs as printed, offline, in a checkout holding only what git tracks.

The README's shell blocks are read in order. A block that talks to AWS or a cluster (or is the README's own test
command) is left out, and which ones were is asserted, so a new offline command cannot slip through unrun; every
other block runs with bash (`set -euo pipefail`) from the checkout's root, like a user pasting it. `make synth ENV=X`
lines are what CI's fresh-clone stage runs for real: here the session's synthesized app of that environment stands
in for their `cdk.out/`. The corpus the README's tokenizer and `data prepare` blocks read is made first.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from conftest import synthesized_environment

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
#: How a README block that is a command (not sample output) begins.
_COMMAND = re.compile(r"^(\.venv/bin/|make |npx |aws |kubectl |export |mkdir |bucket\(\)|[A-Z_]+=)")
#: What needs an AWS account, a cluster (or a pod of it: /fsx) or the network, or is the README's own test command
#: (never run inside it); building a mirror downloads upstream. The change stage's blocks read the deployed stack or the template a user kept of it; the
#: command `make change` runs is run against a saved template in tests/check/test_change_stage.py.
NEEDS_OUTSIDE = ("aws ", "kubectl ", "make deploy", "make test", "cdk bootstrap", "cdk deploy", "eks-training preflight",
                 "eks-training status", "s3://$", "$(bucket", "/fsx/", "--previous-stack",
                 "fetch-upstream --trust-on-first-use")
_SYNTH_LINE = re.compile(r"^make synth(?: ENV=(\w+))?\s*(#.*)?$")


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(info string, dedented body) of every fenced block, indented ones in lists too, in order."""
    blocks, opened, indent, info, body = [], False, "", "", []
    for line in text.splitlines():
        fence = re.match(r"^( *)```(.*)$", line)
        if not opened and fence:
            opened, indent, info, body = True, fence.group(1), fence.group(2).strip(), []
        elif opened and fence and fence.group(1) == indent and not fence.group(2).strip():
            blocks.append((info, textwrap.dedent("\n".join(body)) + "\n"))
            opened = False
        elif opened:
            body.append(line)
    return blocks


def shell_blocks(text: str) -> list[str]:
    """The README's fenced shell blocks whose first line is a command (not sample output), in order."""
    return [body for info, body in fenced_blocks(text) if info in ("", "bash", "sh")
            and _COMMAND.match(next((line.strip() for line in body.splitlines() if line.strip()), ""))]


def test_the_readme_names_its_offline_and_outside_commands() -> None:
    blocks = shell_blocks(README.read_text())
    outside = [b for b in blocks if any(marker in b for marker in NEEDS_OUTSIDE)]
    offline = [b for b in blocks if b not in outside]
    shown = " ".join(offline)
    for command in ("eks-training list", "eks-training render", "eks-training plan", "eks-training check",
                    "eks_training.infra.tools.review", "make diagram", "eks-training plot", "eks-training data prepare",
                    "examples/custom_platform_app.py", "eks-training fetch-upstream", "eks_training.training.evaluate",
                    "--model tiny --data datasets/tiny/train"):
        assert command in shown, f"the README shows no offline block with {command!r}"
    assert outside, "the deploy and the first model's AWS steps are in blocks of their own"


#: The Makefile's install targets (stamps): what the linked-in .venv, node_modules and .tools already hold.
_INSTALL_STAMPS = (".venv/.stamp-runtime", ".venv/.stamp-node", ".venv/.stamp-bytecode", ".venv/.stamp-dev",
                   "node_modules/.stamp", ".tools/checkov-venv/.stamp")


def _checkout(into: Path) -> Path:
    """The files git tracks (as the working tree has them), with the environment's installs linked in."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, check=True, capture_output=True).stdout.split(b"\0")
    for name in filter(None, (f.decode() for f in files)):
        source = REPO / name
        if source.is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)
    for installed in (".venv", "node_modules", ".tools"):
        if (REPO / installed).exists():
            (into / installed).symlink_to(REPO / installed)
    return into


def _corpus(root: Path) -> None:
    """A small corpus of .txt files, as the tokenizer and data-prepare blocks read it."""
    words = ("the model reads tokens and learns to predict the next one; checkpoints land on the workspace; "
             "every node joins the job through the rendezvous and trains in step with the others").split()
    for index in range(12):
        text = " ".join(words[(index + k) % len(words)] for k in range(400))
        (root / "corpus" / f"part-{index:02d}.txt").parent.mkdir(parents=True, exist_ok=True)
        (root / "corpus" / f"part-{index:02d}.txt").write_text(text + "\n")


@pytest.mark.slow
def test_every_offline_readme_block_runs_as_printed(tmp_path: Path, synth_root: Path) -> None:
    checkout = _checkout(tmp_path / "checkout")
    _corpus(checkout)
    blocks = [b for b in shell_blocks(README.read_text()) if not any(marker in b for marker in NEEDS_OUTSIDE)]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    # The installs are the repository's, linked in: make in the checkout must never redo them (a `pip install -e .`
    # there would point the shared venv at this temporary copy), so their stamps count as up to date.
    # On make's command line: GNU make ignores -o in a MAKEFLAGS it inherits, and a stamp older than pyproject.toml
    # (or none) then ran `pip install -e .` into the shared venv and `npm ci` into the linked node_modules.
    keep_installs = "make() { command make " + " ".join(f"-o {stamp}" for stamp in _INSTALL_STAMPS) + ' "$@"; }\n'
    for number, block in enumerate(blocks, 1):
        script = []
        for line in block.splitlines():
            synth = _SYNTH_LINE.match(line.strip())
            if synth:
                name = synth.group(1) or "dev"
                if not (checkout / "cdk.out" / f"EksTraining-{name}.template.json").exists():
                    shutil.copytree(synthesized_environment(name, synth_root).outdir, checkout / "cdk.out",
                                    dirs_exist_ok=True)
                continue
            script.append(line)
        done = subprocess.run(["bash", "-c", "set -euo pipefail\n" + keep_installs + "\n".join(script)], cwd=checkout, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"README block {number} failed:\n{block}\n--- output:\n{(done.stdout + done.stderr)[-3000:]}"
        assert "end-of-life" not in done.stdout + done.stderr, f"README block {number} printed Node's end-of-life banner"
