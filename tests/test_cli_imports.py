"""`eks-training list`, `render` and `plan` never load CDK, cdk8s or jsii.

jsii starts a Node process and prints its end-of-life banner: it made these commands take ~2 s. What they
import is the measurable cause, so that is what is held here; the time itself is benchmarks/cli.py's job.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("aws_cdk", "cdk8s", "jsii")
#: Runs `call` in a fresh interpreter and prints its result, its stdout and which of HEAVY it loaded, as JSON.
PROBE = """
import contextlib, io, json, sys
from eks_training.infra.tools.cli import build_parser, main
with contextlib.redirect_stdout(io.StringIO()) as out:
    status = {call}
print(json.dumps({{"status": status, "out": out.getvalue(), "loaded": [m for m in {heavy!r} if m in sys.modules]}}))
"""


def _run(call: str, *argv: str) -> dict:
    probe = PROBE.format(call=call, heavy=HEAVY)
    done = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, check=True, timeout=120)
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("argv", [
    ["list"],
    ["render", "pytorch-job", "--env", "dev", "--dataset", "wiki", "--image", "registry.example/trainer:1"],
    ["render", "mpijob", "--env", "prod", "--namespace", "training", "--nodes", "2", "--dataset", "wiki", "--image", "registry.example/trainer:1"],
    ["plan", "--params", "7e9", "--instance-type", "p5.48xlarge", "--nodes", "2"],
], ids=["list", "render-pytorch-job", "render-mpijob", "plan"])
def test_everyday_commands_do_not_load_cdk(argv: list[str]) -> None:
    result = _run("main(sys.argv[1:])", *argv)
    assert result["status"] == 0 and result["out"]
    assert result["loaded"] == []


def test_the_probe_notices_a_command_that_loads_cdk8s() -> None:
    # `check` reads synthesized charts with cdk8s: adding its arguments imports it, and the probe must see that.
    result = _run("bool(build_parser().parse_known_args(sys.argv[1:]))", "check")
    assert result["status"] is True and "cdk8s" in result["loaded"]
