"""The example CDK app builds a platform from the constructs alone, and synthesizes."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "custom_platform_app.py"


def test_example_imports_only_the_constructs_and_add_ons() -> None:
    """Another app's view of the library: constructs, add-ons and the values they take; no config, no stack of ours."""
    tree = ast.parse(EXAMPLE.read_text())
    ours = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            and node.module and node.module.startswith("eks_training")]
    allowed = ("eks_training.constructs.", "eks_training.infra.addons.", "eks_training.workloads.volcano")
    assert ours and all(module.startswith(allowed) for module in ours), ours


@pytest.fixture(scope="module")
def example_assembly(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("example-cdk-out")
    proc = subprocess.run([sys.executable, str(EXAMPLE)], env={**os.environ, "CDK_OUTDIR": str(out)},
                          capture_output=True, text=True, timeout=300, cwd=out)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def _check(app: str, capsys) -> tuple[int, str]:
    from eks_training.infra.tools.cli import main

    status = main(["check", "--app", app])
    return status, capsys.readouterr().out


@pytest.mark.slow
def test_example_synthesizes_cluster_p5_group_and_fsx(example_assembly: Path) -> None:
    template = json.loads((example_assembly / "SmallTrainingPlatform.template.json").read_text())
    resources = list(template["Resources"].values())

    def of_type(type_: str) -> list[dict]:
        return [r["Properties"] for r in resources if r["Type"] == type_]

    assert len(of_type("AWS::EKS::Cluster")) == 1
    p5 = [g for g in of_type("AWS::EKS::Nodegroup") if g.get("InstanceTypes") == ["p5.48xlarge"]]
    # No DesiredSize: the group starts at its minimum, and a size set by hand survives the next deploy.
    assert len(p5) == 1 and p5[0]["ScalingConfig"] == {"MinSize": 0, "MaxSize": 2}
    [fsx] = of_type("AWS::FSx::FileSystem")
    assert fsx["FileSystemType"] == "LUSTRE" and fsx["LustreConfiguration"]["DeploymentType"] == "PERSISTENT_2"
    assert len(of_type("AWS::FSx::DataRepositoryAssociation")) == 2
    # The p5 group's (the system node group has one of its own, which pins IMDS and the root volume).
    [template_data] = [t["LaunchTemplateData"] for t in of_type("AWS::EC2::LaunchTemplate") if "NetworkInterfaces" in t["LaunchTemplateData"]]
    assert len(template_data["NetworkInterfaces"]) == 32, "p5.48xlarge takes one EFA interface per network card"


@pytest.mark.slow
def test_the_check_passes_the_example_and_its_device_plugins_cover_the_p5_group(example_assembly: Path, capsys) -> None:
    status, report = _check(str(example_assembly), capsys)
    assert status == 0, report
    plugins = report.split("DEVICE PLUGIN", 1)[1].split("\n\n", 1)[0]
    for plugin in ("nvidia-device-plugin", "aws-efa-k8s-device-plugin"):
        (line,) = [line for line in plugins.splitlines() if f"DaemonSet {plugin}" in line]
        assert line.rstrip().endswith("node group h100"), line
    assert report.rstrip().endswith("0 failures: PASS")


@pytest.mark.slow
def test_the_check_fails_the_example_with_a_toleration_removed(example_assembly: Path, tmp_path: Path, capsys) -> None:
    """The same app with the GPU taint's toleration taken off the NVIDIA plugin: its DaemonSet never reaches the p5
    nodes, so nvidia.com/gpu is never advertised there, and the check says so."""
    broken = tmp_path / "broken"
    shutil.copytree(example_assembly, broken)
    template_file = broken / "SmallTrainingPlatform.template.json"
    template = json.loads(template_file.read_text())
    (release,) = [r for r in template["Resources"].values() if r["Type"] == "Custom::AWSCDK-EKS-HelmChart"
                  and r["Properties"]["Release"] == "nvidia-device-plugin"]
    values = json.loads(release["Properties"]["Values"]) if isinstance(release["Properties"]["Values"], str) else None
    assert values is not None and values["tolerations"], "the example's plugin tolerates the GPU taint"
    release["Properties"]["Values"] = json.dumps({**values, "tolerations": []})
    template_file.write_text(json.dumps(template))

    status, report = _check(str(broken), capsys)
    assert status == 1
    failures = report.split("FAILURES:", 1)[1]
    assert "[device plugin] helm nvidia-device-plugin: DaemonSet nvidia-device-plugin" in failures
    assert "does not land on node group h100" in failures and "nvidia.com/gpu is never advertised there" in failures
