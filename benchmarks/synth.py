"""Time `python app.py` per environment against a bare aws_eks_v2 cluster app, alternating, and print the ratio.

Usage: .venv/bin/python benchmarks/synth.py [--rounds 3]
Each round runs the bare app, then every environment (cdk-nag on, as `cdk synth` runs it), each in a fresh
process with its own output folder, so start-up (Python, jsii, Node) is counted as a user feels it.
"""

from __future__ import annotations

import argparse
import json
import os
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
from aws_cdk.lambda_layer_kubectl_v33 import KubectlV33Layer
app = cdk.App()
stack = cdk.Stack(app, "Bare", env=cdk.Environment(region="us-west-2"))
vpc = ec2.Vpc(stack, "Vpc", availability_zones=["us-west-2a", "us-west-2b"])
eks.Cluster(stack, "Cluster", version=eks.KubernetesVersion.V1_33, vpc=vpc,
            default_capacity_type=eks.DefaultCapacityType.NODEGROUP, default_capacity=2,
            kubectl_provider_options=eks.KubectlProviderOptions(kubectl_layer=KubectlV33Layer(stack, "Kubectl")))
app.synth()
"""


def timed(args: list[str], context: dict, cwd: Path) -> float:
    with tempfile.TemporaryDirectory() as out:
        env = {**os.environ, "CDK_OUTDIR": out, "CDK_CONTEXT_JSON": json.dumps(context)}
        start = time.perf_counter()
        subprocess.run(args, cwd=cwd, env=env, check=True, capture_output=True)
        return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    context = json.loads((REPO / "cdk.json").read_text())["context"]
    with tempfile.TemporaryDirectory() as tmp:
        bare = Path(tmp) / "bare_app.py"
        bare.write_text(BARE_APP)
        times: dict[str, list[float]] = {"bare": [], "dev": [], "staging": [], "prod": []}
        for _ in range(rounds):
            times["bare"].append(timed([sys.executable, str(bare)], context, REPO))
            for env in ("dev", "staging", "prod"):
                times[env].append(timed([sys.executable, "app.py"], {**context, "env": env}, REPO))
    base = statistics.median(times["bare"])
    print(f"{'app':<10}{'median s':>10}{'min s':>8}{'x bare':>8}")
    for name, values in times.items():
        print(f"{name:<10}{statistics.median(values):>10.2f}{min(values):>8.2f}{statistics.median(values) / base:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
