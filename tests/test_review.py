"""The review output of a synthesized environment: YAML per manifest, Helm releases, summary and cost."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from eks_training.core.catalog import INSTANCE_TYPES
from eks_training.infra.config import GitOpsConfig, load_environment
from eks_training.infra.tools.review import (
    Prices, chart_file_name, main, readable_token, render_cfn_string, strip_tokens, summarize, write_review,
)
from support.k8s_schemas import validate_k8s_object
from support.synth import TOKEN_PLACEHOLDER, Synthesized


def _review(synthesized: Synthesized, tmp_path: Path, config=None) -> tuple[Path, dict]:
    """Run the review on a copy of the synthesized templates (the session's folder stays untouched)."""
    for template in [*synthesized.outdir.glob("*.template.json"), synthesized.outdir / "tree.json"]:
        shutil.copy(template, tmp_path / template.name)
    summary = write_review(tmp_path, config or synthesized.config)
    return tmp_path / "manifests" / synthesized.config.name, summary


def test_manifest_files_hold_the_template_objects(env: Synthesized, tmp_path: Path) -> None:
    folder, summary = _review(env, tmp_path)
    assert set(summary["manifest_files"]) == set(env.kubernetes_manifests)
    for logical_id, file_name in summary["manifest_files"].items():
        text = (folder / file_name).read_text()
        assert "Fn::" not in text and "'Ref'" not in text, f"{file_name} shows a raw CloudFormation intrinsic"
        objects = list(yaml.safe_load_all(text))
        assert strip_tokens(objects, TOKEN_PLACEHOLDER) == env.kubernetes_manifests[logical_id]


def test_helm_releases_listed(env: Synthesized, tmp_path: Path) -> None:
    folder, _ = _review(env, tmp_path)
    listed = yaml.safe_load((folder / "helm-releases.yaml").read_text())["releases"]
    assert {r["release"] for r in listed} == set(env.helm_releases)
    for release in listed:
        expected = env.helm_releases[release["release"]]
        assert (release["chart"], release["version"], release["namespace"]) == (
            expected["Chart"], expected.get("Version"), expected.get("Namespace", "default"))
        assert strip_tokens(release["values"], TOKEN_PLACEHOLDER) == expected.get("Values", {})


def test_karpenter_pools_file_is_named_readably(prod: Synthesized, tmp_path: Path) -> None:
    folder, _ = _review(prod, tmp_path)
    # Each pool in a manifest of its own (its NodePool and EC2NodeClass), in a file named after the pool.
    pools = [obj for path in folder.glob("*.yaml") for obj in yaml.safe_load_all(path.read_text())
             if isinstance(obj, dict) and obj.get("kind") == "NodePool"
             and path.stem.replace("-", "") == obj["metadata"]["name"].replace("-", "")]
    # The config's pools and the Slurm partitions' own (issue 23).
    assert {o["metadata"]["name"] for o in pools if o["kind"] == "NodePool"} == {
        p.name for p in prod.config.capacity.karpenter_pools} | {
        f"slurm-{p.name}" for p in prod.config.services.slurm_partitions}


def test_tokens_are_readable_placeholders() -> None:
    assert readable_token({"Ref": "ClusterC2E21B66"}) == "${Token[Ref:ClusterC2E21B66]}"
    assert readable_token({"Fn::GetAtt": ["Queue", "QueueName"]}) == "${Token[Queue.QueueName]}"
    assert readable_token({"Fn::ImportValue": "x"}) == "${Token[Fn::ImportValue]}"
    joined = {"Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, ":s3:::", {"Ref": "Bucket"}]]}
    assert render_cfn_string(joined) == "arn:${Token[Ref:AWS::Partition]}:s3:::${Token[Ref:Bucket]}"
    assert chart_file_name("ClusterKarpenterPools2803A785") == "karpenter-pools.yaml"
    ids = {"mpioperatorinstall": "mpi-operator-install", "manifestTrainingServiceAccounts": "manifest-TrainingServiceAccounts"}
    assert chart_file_name("Clustermpioperatorinstall1F6D78FA", ids) == "mpi-operator-install.yaml"
    assert chart_file_name("ClustermanifestTrainingServiceAccounts2F10A22B", ids) == "training-service-accounts.yaml"


def test_file_names_are_readable_and_unique(prod: Synthesized, tmp_path: Path) -> None:
    _, summary = _review(prod, tmp_path)
    names = list(summary["manifest_files"].values())
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*\.yaml", n) for n in names), names
    # Words come back from the construct tree: no run-together id like "mpioperatorinstall".
    assert all(len(part) <= 14 for n in names for part in n.removesuffix(".yaml").split("-")), names


def _expected_accelerators_at_full_scale(config) -> int:
    groups = sum(g.max_size * INSTANCE_TYPES[g.instance_type].accelerators for g in config.accelerated_node_groups)
    pools = sum(p.max_accelerators for p in config.capacity.karpenter_pools) if config.services.karpenter else 0
    # Each Slurm partition's own pool holds up to its node count of whole nodes.
    slurm = sum(max(p.replicas, p.max_nodes) * INSTANCE_TYPES[p.instance_type].accelerators
                for p in config.services.slurm_partitions) if config.services.slinky else 0
    return groups + pools + slurm


def test_prod_idle_has_no_accelerators_and_full_scale_costs_more(prod: Synthesized, tmp_path: Path) -> None:
    folder, summary = _review(prod, tmp_path)
    assert json.loads((folder / "summary.json").read_text())["cost"] == summary["cost"]
    cost = summary["cost"]
    assert cost["unpriced"] == []
    assert cost["idle"]["accelerators"] == 0
    assert cost["full_scale"]["accelerators"] == _expected_accelerators_at_full_scale(prod.config)
    assert cost["full_scale"]["per_hour"] > cost["idle"]["per_hour"] > 0
    prices = Prices.load().table
    assert cost["idle"]["items"]["nat_gateways"] == pytest.approx(prod.config.network.nat_gateways * prices["nat_gateway_hour"])
    system, team = prod.config.system_nodes, prod.config.team_nodes
    standing = sorted(v for k, v in cost["idle"]["items"].items() if k.startswith("nodes:") and v > 0)
    # Idle, only the system nodes and the team CPU nodes stand.
    assert standing == pytest.approx(sorted([system.min_size * prices["instance_hour"][system.instance_type],
                                             team.min_size * prices["instance_hour"][team.instance_type]]))


def test_fsx_is_listed_and_priced_per_gb_month(dev: Synthesized) -> None:
    templates = json.loads(json.dumps(dev.templates))
    templates[dev.stack_name]["Resources"]["Scratch"] = {"Type": "AWS::FSx::FileSystem", "Properties": {
        "FileSystemType": "LUSTRE", "StorageCapacity": 2400,
        "LustreConfiguration": {"DeploymentType": "PERSISTENT_2", "PerUnitStorageThroughput": 250}}}
    summary = summarize(templates, dev.config)
    assert {"id": "Scratch", "type": "LUSTRE", "deployment_type": "PERSISTENT_2",
            "capacity_gib": 2400, "per_unit_throughput": 250} in summary["storage"]["fsx"]
    table = Prices.load().table
    hourly = table["fsx_lustre_gb_month"]["PERSISTENT_2/250"] * 2400 / table["hours_per_month"]
    for scenario in ("idle", "full_scale"):
        assert summary["cost"][scenario]["items"]["fsx:Scratch"] == pytest.approx(hourly, rel=1e-3)


def test_summary_lists_capacity_and_operators(prod: Synthesized, tmp_path: Path) -> None:
    _, summary = _review(prod, tmp_path)
    groups = {r["name"]: r for r in summary["capacity"] if r["kind"] == "node group"}
    for group in prod.config.accelerated_node_groups:  # under their EKS names
        assert groups[group.eks_name]["instance_types"] == [group.instance_type]
        assert groups[group.eks_name]["max_accelerators"] == group.max_size * INSTANCE_TYPES[group.instance_type].accelerators
        assert groups[group.eks_name]["efa"] == group.efa
    assert {o["release"]: o["version"] for o in summary["operators"]} == {
        name: r.get("Version") for name, r in prod.helm_releases.items()}
    assert summary["stacks"] == [prod.stack_name]


def test_every_supported_and_configured_type_has_a_price() -> None:
    prices = Prices.load().table
    assert prices["region"] == "us-west-2" and prices["as_of"]
    system_types = {load_environment(e).system_nodes.instance_type for e in ("dev", "staging", "prod")}
    missing = sorted((set(INSTANCE_TYPES) | system_types) - set(prices["instance_hour"]))
    assert missing == [], f"infra/tools/data/prices.json lacks on-demand prices for {missing}"


def test_gitops_applications_written_when_enabled(dev: Synthesized, tmp_path: Path) -> None:
    folder, _ = _review(dev, tmp_path)
    assert not (folder / "argocd").exists()
    config = dev.config.model_copy(update={"gitops": GitOpsConfig(enabled=True, repo_url="https://git.example.com/ml.git")})
    folder, _ = _review(dev, tmp_path, config)
    [path] = (folder / "argocd").glob("*.yaml")
    application = yaml.safe_load(path.read_text())
    validate_k8s_object(application)
    assert application["spec"]["source"]["path"] == f"manifests/{dev.config.name}"


def test_cli_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--env", "nope", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "env='nope' is not allowed: use one of the environments dev, prod, staging" in err
    assert main(["--env", "dev", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "EksTraining-dev.template.json does not exist" in err


def test_cli_prints_summary(dev: Synthesized, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for template in dev.outdir.glob("*.template.json"):
        shutil.copy(template, tmp_path / template.name)
    assert main(["--env", "dev", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "estimated on-demand cost" in out and "capacity:" in out
    assert (tmp_path / "manifests" / "dev" / "summary.json").is_file()
