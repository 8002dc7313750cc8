"""A regular (non-editable) install of the distribution serves another CDK app that imports our constructs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

OTHER_APP = """
import aws_cdk as cdk
import eks_training.constructs.network as network
from eks_training.constructs.cluster import TrainingCluster
from eks_training.constructs.network import TrainingNetwork

app = cdk.App()
stack = cdk.Stack(app, "OtherTeam", env=cdk.Environment(region="eu-west-1"))
net = TrainingNetwork(stack, "Net", availability_zones=["eu-west-1a", "eu-west-1b"], training_az="eu-west-1a",
                      vpc_endpoints=False)
TrainingCluster(stack, "Cluster", vpc=net.vpc, version="1.34", system_min_size=1, system_desired_size=1)
app.synth()
print(network.__file__)
"""


def test_other_cdk_app_uses_a_regular_install(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(wheels), str(REPO)], check=True, capture_output=True)
    wheel = next(wheels.glob("eks_training-*.whl"))
    # A fresh virtual environment that sees the project's dependencies (but not its editable finder: a path in
    # a .pth file is added to sys.path without processing that folder's own .pth files).
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "project_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site), str(wheel)],
                   check=True, capture_output=True)
    assert not (site / "eks_training" / "constructs" / "__init__.py").exists()

    app_dir = tmp_path / "other-app"
    app_dir.mkdir()
    (app_dir / "app.py").write_text(OTHER_APP)
    out = tmp_path / "cdk.out"
    proc = subprocess.run([str(python), "app.py"], cwd=app_dir, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "CDK_OUTDIR": str(out)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1].startswith(str(site)), "imported the installed copy, not the repo"
    template = json.loads((out / "OtherTeam.template.json").read_text())
    clusters = [r for r in template["Resources"].values() if r["Type"] == "AWS::EKS::Cluster"]
    assert clusters and clusters[0]["Properties"]["Version"] == "1.34"
