"""A deploy installs each chart from its digest-checked package; a review synth names the repository and says which
package a deploy would verify and ship (constructs.chart_source)."""

from __future__ import annotations

import shutil
from pathlib import Path

import aws_cdk as cdk
import pytest

from eks_training.addons import EfaDevicePlugin
from eks_training.constructs.chart_source import SHIP_VERIFIED_CHARTS
from eks_training.constructs.cluster import TrainingCluster
from eks_training.constructs.network import TrainingNetwork
from eks_training.core import upstream, versions
from eks_training.core.validation import InvalidValue
from eks_training.infra.tools.check.snapshot import HELM_CHART, load_snapshot

MIRROR = upstream.mirror_root()
pytestmark = pytest.mark.skipif(MIRROR is None, reason="needs the upstream mirror (EKS_TRAINING_MIRROR)")
EFA = versions.EFA_DEVICE_PLUGIN


def _synth(outdir: Path, ship: bool):
    context = {"@aws-cdk/aws-eks:defaultToAL2023": True, **({SHIP_VERIFIED_CHARTS: "true"} if ship else {})}
    app = cdk.App(outdir=str(outdir), context=context)
    stack = cdk.Stack(app, "Charts", env=cdk.Environment(region="eu-west-1"))
    net = TrainingNetwork(stack, "Net", availability_zones=["eu-west-1a", "eu-west-1b"], training_az="eu-west-1a",
                          vpc_endpoints=False, training_ips=200, cidr="10.30.0.0/16")
    cluster = TrainingCluster(stack, "Cluster", vpc=net.vpc, version="1.34", system_min_size=1, system_desired_size=1,
                              vpc_cidr="10.30.0.0/16", admin_role_arns=["arn:aws:iam::${AWS::AccountId}:role/admin"])
    EfaDevicePlugin(stack, "Efa", cluster=cluster)
    assembly = app.synth()
    return assembly.get_stack_by_name("Charts"), stack


def _efa_release(template: dict) -> dict:
    (props,) = [r["Properties"] for r in template["Resources"].values()
                if r["Type"] == HELM_CHART and r["Properties"]["Release"] == EFA.release]
    return props


def test_a_review_synth_names_the_repository_and_says_what_a_deploy_verifies(tmp_path, monkeypatch):
    monkeypatch.delenv(upstream.MIRROR_ENV, raising=False)  # a bare clone: nothing of upstream at hand
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    artifact, stack = _synth(tmp_path / "out", ship=False)
    props = _efa_release(artifact.template)
    assert (props["Chart"], props["Version"], props["Repository"]) == (EFA.chart, EFA.version, EFA.repository)
    assert "ChartAssetURL" not in props
    infos = [str(m.entry.data) for m in artifact.messages
             if m.level == cdk.cx_api.SynthesisMessageLevel.INFO and EFA.chart in str(m.entry.data)]
    pin = upstream.chart_artifact(EFA.chart, EFA.version)
    assert infos and "a deploy" in infos[0] and (pin.sha256 or pin.tree_sha256) in infos[0]


def test_a_deploy_synth_ships_the_verified_package_and_pulls_nothing(tmp_path):
    artifact, _ = _synth(tmp_path / "out", ship=True)
    props = _efa_release(artifact.template)
    assert "Chart" not in props and "Repository" not in props and "Version" not in props
    assert props["ChartAssetURL"] and props["EksTrainingChart"]["Chart"] == EFA.chart
    # What ships is, file for file, the tree whose digest matched its pin.
    (shipped,) = [folder for folder in (tmp_path / "out").glob("asset.*")
                  if (folder / "Chart.yaml").is_file() and f"name: {EFA.chart}" in (folder / "Chart.yaml").read_text()]
    assert upstream.tree_digest(shipped) == upstream.tree_digest(upstream.chart_dir(EFA.chart, EFA.version))
    # The deploy check reads the shipped release as the chart it is.
    (release,) = [r for r in load_snapshot(artifact.template).releases if r.release == EFA.release]
    assert (release.chart, release.version) == (EFA.chart, EFA.version)


def test_a_deploy_synth_without_the_verified_package_is_one_line(tmp_path, monkeypatch):
    monkeypatch.delenv(upstream.MIRROR_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with pytest.raises(InvalidValue) as raised:
        _synth(tmp_path / "out", ship=True)
    message = str(raised.value)
    assert "\n" not in message and f"chart {EFA.chart} {EFA.version}" in message and "fetch-upstream" in message


def test_a_deploy_synth_refuses_a_package_that_differs_from_its_pin(tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    shutil.copytree(MIRROR / "charts" / f"{EFA.chart}-{EFA.version}", mirror / "charts" / f"{EFA.chart}-{EFA.version}")
    (mirror / "charts" / f"{EFA.chart}-{EFA.version}" / "values.yaml").write_text("image: {repository: evil}\n")
    monkeypatch.setenv(upstream.MIRROR_ENV, str(mirror))
    with pytest.raises(upstream.DigestMismatch):
        _synth(tmp_path / "out", ship=True)
