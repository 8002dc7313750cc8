"""Time a synth per environment against a bare aws_eks_v2 cluster app, side by side, and print the ratio.

Usage: .venv/bin/python benchmarks/synth.py [--rounds 3] [--make]

Each round runs the bare app, then every environment, each in a fresh process with its own output folder, so
start-up (Python, jsii, Node) is counted as a user feels it. Both run as `cdk synth` runs an app (`python app.py` with
the CLI's context), cdk-nag on for ours; `--make` adds `make synth ENV=...` (the CDK CLI, the review and the deploy
check too). It runs in the environment it is started in: CI sets PYTHONDONTWRITEBYTECODE=1, where Python writes no
bytecode cache and only what the install compiled is reused. Wall seconds are the figure; CPU seconds (Python and
Node, user + system) are shown too, as they move less when other work shares the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BARE_APP = """
import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2, aws_eks_v2 as eks
from aws_cdk.lambda_layer_kubectl_v36 import KubectlV36Layer
app = cdk.App()
stack = cdk.Stack(app, "Bare", env=cdk.Environment(region="us-west-2"))
vpc = ec2.Vpc(stack, "Vpc", availability_zones=["us-west-2a", "us-west-2b"])
eks.Cluster(stack, "Cluster", version=eks.KubernetesVersion.V1_36, vpc=vpc,
            default_capacity_type=eks.DefaultCapacityType.NODEGROUP, default_capacity=2,
            kubectl_provider_options=eks.KubectlProviderOptions(kubectl_layer=KubectlV36Layer(stack, "Kubectl")))
app.synth()
"""
TARGET = 1.5


def timed(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (this child and its children) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(args, cwd=cwd, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def app_run(app: Path, context: dict) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as out:
        env = {**os.environ, "CDK_OUTDIR": out, "CDK_CONTEXT_JSON": json.dumps(context)}
        return timed([sys.executable, str(app)], REPO, env)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--make", action="store_true", help="also time `make synth ENV=...` (warm)")
    args = parser.parse_args()
    context = json.loads((REPO / "cdk.json").read_text())["context"]
    envs = ("dev", "staging", "prod")
    names = ["bare", *envs, *([f"make {e}" for e in envs] if args.make else [])]
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    with tempfile.TemporaryDirectory() as tmp:
        bare = Path(tmp) / "bare_app.py"
        bare.write_text(BARE_APP)
        for _ in range(args.rounds):
            runs["bare"].append(app_run(bare, context))
            for env in envs:
                runs[env].append(app_run(REPO / "app.py", {**context, "env": env}))
            if args.make:
                for env in envs:
                    runs[f"make {env}"].append(timed(["make", "synth", f"ENV={env}"], REPO, dict(os.environ)))
    base = statistics.median(wall for wall, _ in runs["bare"])
    print(f"PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r}, {args.rounds} rounds, "
          f"target: an environment's synth within {TARGET}x the bare app's")
    print(f"{'app':<14}{'median s':>10}{'min s':>8}{'cpu s':>8}{'x bare':>8}")
    for name, values in runs.items():
        walls = [wall for wall, _ in values]
        cpu = statistics.median(c for _, c in values)
        print(f"{name:<14}{statistics.median(walls):>10.2f}{min(walls):>8.2f}{cpu:>8.2f}"
              f"{statistics.median(walls) / base:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
