"""The example CDK app builds a platform from the constructs alone, and synthesizes."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "custom_platform_app.py"


def test_example_imports_only_the_constructs() -> None:
    tree = ast.parse(EXAMPLE.read_text())
    ours = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            and node.module and node.module.startswith("eks_training")]
    assert ours and all(module.startswith("eks_training.constructs.") for module in ours), ours


@pytest.mark.slow
def test_example_synthesizes_cluster_p5_group_and_fsx(tmp_path: Path) -> None:
    env = {**os.environ, "CDK_OUTDIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, str(EXAMPLE)], env=env, capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    template = json.loads((tmp_path / "SmallTrainingPlatform.template.json").read_text())
    resources = list(template["Resources"].values())

    def of_type(type_: str) -> list[dict]:
        return [r["Properties"] for r in resources if r["Type"] == type_]

    assert len(of_type("AWS::EKS::Cluster")) == 1
    p5 = [g for g in of_type("AWS::EKS::Nodegroup") if g.get("InstanceTypes") == ["p5.48xlarge"]]
    assert len(p5) == 1 and p5[0]["ScalingConfig"] == {"MinSize": 0, "DesiredSize": 0, "MaxSize": 2}
    [fsx] = of_type("AWS::FSx::FileSystem")
    assert fsx["FileSystemType"] == "LUSTRE" and fsx["LustreConfiguration"]["DeploymentType"] == "PERSISTENT_2"
    assert len(of_type("AWS::FSx::DataRepositoryAssociation")) == 2
    [template_data] = [t["LaunchTemplateData"] for t in of_type("AWS::EC2::LaunchTemplate")]
    assert len(template_data["NetworkInterfaces"]) == 32, "p5.48xlarge takes one EFA interface per network card"
