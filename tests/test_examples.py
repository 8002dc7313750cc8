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
from support.synth import render_tokens

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "custom_platform_app.py"


def test_example_imports_only_the_constructs_and_add_ons() -> None:
    """Another app's view of the library: constructs, add-ons and the values they take; no config, no stack of ours."""
    tree = ast.parse(EXAMPLE.read_text())
    ours = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            and node.module and node.module.startswith("eks_training")]
    allowed = ("eks_training.constructs.", "eks_training.addons", "eks_training.core.catalog")
    assert ours and all(module.startswith(allowed) for module in ours), ours
    assert "eks_training.addons" in ours  # the add-ons' public name


@pytest.fixture(scope="module")
def example_assembly(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("example-cdk-out")
    proc = subprocess.run([sys.executable, str(EXAMPLE)], env={**os.environ, "CDK_OUTDIR": str(out)},
                          capture_output=True, text=True, timeout=300, cwd=out)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def _check(app: str, capsys, *jobs: Path) -> tuple[int, str]:
    from eks_training.infra.tools.cli import main

    status = main(["check", "--app", app, *(f"--job={job}" for job in jobs)])
    return status, capsys.readouterr().out


def _render(app: Path, capsys, *options: str) -> tuple[int, str, str]:
    from eks_training.infra.tools.cli import main

    status = main(["render", "data-prep", "--app", str(app), "--image", "registry.example/trainer:1", "--dataset",
                   "wiki", "--data-input", "s3://corpus-bucket/raw", "--tokenizer", "s3://corpus-bucket/tokenizer.json",
                   *options])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.slow
def test_example_synthesizes_cluster_p5_group_and_fsx(example_assembly: Path) -> None:
    template = json.loads((example_assembly / "SmallTrainingPlatform.template.json").read_text())
    resources = list(template["Resources"].values())

    def of_type(type_: str) -> list[dict]:
        return [r["Properties"] for r in resources if r["Type"] == type_]

    assert len(of_type("AWS::EKS::Cluster")) == 1
    p5 = [g for g in of_type("AWS::EKS::Nodegroup") if g.get("InstanceTypes") == ["p5.48xlarge"]]
    # No DesiredSize: the group starts at its minimum (one node, which Kueue admits the team's jobs to), and a size
    # set by hand survives the next deploy.
    assert len(p5) == 1 and p5[0]["ScalingConfig"] == {"MinSize": 1, "MaxSize": 2}
    [fsx] = of_type("AWS::FSx::FileSystem")
    assert fsx["FileSystemType"] == "LUSTRE" and fsx["LustreConfiguration"]["DeploymentType"] == "PERSISTENT_2"
    assert len(of_type("AWS::FSx::DataRepositoryAssociation")) == 2
    # The p5 group's (the system node group has one of its own, which pins IMDS and the root volume).
    [template_data] = [t["LaunchTemplateData"] for t in of_type("AWS::EC2::LaunchTemplate") if "NetworkInterfaces" in t["LaunchTemplateData"]]
    assert len(template_data["NetworkInterfaces"]) == 32, "p5.48xlarge takes one EFA interface per network card"


@pytest.mark.slow
def test_kueue_flavors_come_from_the_node_group_and_the_team_holds_what_its_jobs_need(example_assembly: Path) -> None:
    template = json.loads((example_assembly / "SmallTrainingPlatform.template.json").read_text())
    objects = [obj for r in template["Resources"].values() if r["Type"] == "Custom::AWSCDK-EKS-KubernetesResource"
               for obj in json.loads(render_tokens(r["Properties"]["Manifest"]))]
    (h100,) = [o["spec"] for o in objects if o["kind"] == "ResourceFlavor" and o["metadata"]["name"] == "h100"]
    assert h100["nodeLabels"] == {"eks.amazonaws.com/nodegroup": "h100", "node.kubernetes.io/instance-type": "p5.48xlarge"}
    assert h100["nodeTaints"] == [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]
    assert h100["topologyName"] == "ec2-network-3-layers"  # p5 nodes carry EC2's three network layers
    research = {(o["kind"], o["metadata"]["name"]) for o in objects if o["metadata"].get("namespace") == "research"}
    assert {("ServiceAccount", "training"), ("PersistentVolumeClaim", "fsx-data"),
            ("PersistentVolumeClaim", "fsx-workspace"), ("NetworkPolicy", "default-deny"),
            ("ResourceQuota", "training-quota"), ("LocalQueue", "research"), ("Role", "eks-training-member")} <= research


@pytest.mark.slow
def test_the_check_passes_the_example_with_a_job_rendered_for_its_team(example_assembly: Path, capsys,
                                                                          tmp_path: Path) -> None:
    status, job, err = _render(example_assembly, capsys, "--namespace", "research", "--name", "tokenize")
    assert status == 0, err
    (tmp_path / "job.yaml").write_text(job)
    assert "kueue.x-k8s.io/queue-name: research" in job and "namespace: research" in job
    status, report = _check(str(example_assembly), capsys, tmp_path / "job.yaml")
    assert status == 0, report
    assert "job job.yaml: Job tokenize" in report and "research/research        main: cpu" in report
    (team,) = [line for line in report.splitlines() if line.startswith("research ")]
    assert "requests a job needs allowed" in team and " 0 beyond" not in team
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


@pytest.mark.slow
def test_render_for_the_examples_team_refuses_what_its_quota_and_namespaces_do_not_hold(example_assembly: Path,
                                                                                         capsys) -> None:
    from eks_training.infra.tools.cli import main

    status = main(["render", "pytorch-job", "--app", str(example_assembly), "--namespace", "research", "--image",
                   "registry.example/trainer:1", "--dataset", "wiki", "--nodes", "2"])
    err = capsys.readouterr().err
    assert status == 2 and err == ("error: --nodes: 2 p5.48xlarge nodes (16 GPUs) is beyond the quota of team "
                                   "'research', 8 GPUs (ResourceQuota research/training-quota): at most 1 such nodes\n")
    status, _, err = _render(example_assembly, capsys, "--namespace", "nope")
    assert status == 2 and "--namespace: 'nope' is not a training namespace of 'SmallTrainingPlatform'" in err
