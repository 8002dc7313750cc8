"""The change stage on upgrades: what Helm does to CRDs (the mirror's two cert-manager releases, and small charts of
our own rendered by the real helm binary), EKS's version rules, and node group rolls under PodDisruptionBudgets.

The deployed template is ``old``, the new one ``new``; each test asserts findings (ID, destructive or not, what the
line names), never a whole message.
"""

from __future__ import annotations

import copy
import json
import re
from decimal import Decimal
from pathlib import Path

import botocore.session
import pytest
import yaml
from support import upstream_data

from eks_training.core import upstream, versions
from eks_training.infra.tools.check.change.eks_versions import version_changes
from eks_training.infra.tools.check.change.helm_crds import crd_changes, describe
from eks_training.infra.tools.check.change.node_rolls import held_job_kinds
from eks_training.infra.tools.check.change.schemas import ResourceSchemas
from eks_training.infra.tools.check.change.stage import predict_changes
from eks_training.infra.tools.check.change.template_diff import diff_templates
from eks_training.infra.tools.check.placement import Placement, PodTemplate
from eks_training.infra.tools.check.snapshot import HELM_CHART, NodeSource, load_snapshot

CERT_MANAGER = versions.CERT_MANAGER.chart


def _cluster(version: str = "1.36") -> dict:
    return {"Type": "AWS::EKS::Cluster", "Properties": {"Version": version, "RoleArn": "arn:aws:iam::1:role/c",
                                                        "ResourcesVpcConfig": {"SubnetIds": ["subnet-1"]}}}


def _template(version: str = "1.36", **resources) -> dict:
    return {"Resources": {"Cluster": _cluster(version), **copy.deepcopy(resources)}}


def _by_id(changes) -> dict:
    return {change.id: change for change in changes}


def _predict(old: dict, new: dict, **kwargs):
    return predict_changes(old, load_snapshot(copy.deepcopy(new)), region="us-west-2", **kwargs)


# --- Helm and CRDs -------------------------------------------------------------------------------------------------


def _release(version: str, chart: str = CERT_MANAGER, name: str = "cert-manager", **values) -> dict:
    return {"Type": HELM_CHART, "Properties": {"ClusterName": {"Ref": "Cluster"}, "Release": name, "Chart": chart,
                                               "Version": version, "Namespace": name, "Values": json.dumps(values)}}


@upstream_data.requires(upstream.chart_artifact(CERT_MANAGER, "v1.19.1"), upstream.chart_artifact(CERT_MANAGER, "v1.21.1"))
def test_the_cert_manager_upgrade_is_reported_with_its_crd_changes():
    deployed = _template(Cm=_release("v1.19.1", crds={"enabled": True}))
    report = _predict(deployed, _template(Cm=_release("v1.21.1", crds={"enabled": True})))
    found = _by_id(report.changes)
    certificates = found["update:CustomResourceDefinition/certificates.cert-manager.io"]
    assert "v1.19.1 -> cert-manager v1.21.1" in certificates.message
    assert "spec.renewal" in certificates.message and "spec.renewal.policy" not in certificates.message
    assert "spec.replaces" in found["update:CustomResourceDefinition/orders.acme.cert-manager.io"].message
    assert report.verdict == "in place" and "update:Cm" in found

    # Uninstalled: the chart's default crds.keep annotates its CRDs, which then stay; without it they go.
    removed = _by_id(_predict(deployed, _template()).changes)
    assert not removed["retain:CustomResourceDefinition/certificates.cert-manager.io"].destructive
    unkept = _template(Cm=_release("v1.21.1", crds={"enabled": True, "keep": False}))
    deleted = _by_id(_predict(unkept, _template()).changes)["delete:CustomResourceDefinition/issuers.cert-manager.io"]
    assert deleted.destructive and "every Issuer" in deleted.message


def _crd(name: str, versions_: dict, kept: bool = False) -> dict:
    """A CRD of group example.com; ``versions_``: version -> (served, storage, {field: schema})."""
    plural, group = name.split(".", 1)
    meta = {"name": name, **({"annotations": {"helm.sh/resource-policy": "keep"}} if kept else {})}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": meta, "spec": {
        "group": group, "scope": "Namespaced",
        "names": {"kind": plural[:-1].capitalize(), "plural": plural, "singular": plural[:-1], "listKind": "L"},
        "versions": [{"name": v, "served": served, "storage": storage, "schema": {"openAPIV3Schema": {
            "type": "object", "properties": {"spec": {"type": "object", "properties": fields}}}}}
            for v, (served, storage, fields) in versions_.items()]}}


def _chart(root: Path, version: str, *, templates: list[dict] = (), crds: list[dict] = ()) -> Path:
    folder = root / f"widgets-{version}"
    (folder / "templates").mkdir(parents=True)
    (folder / "Chart.yaml").write_text(yaml.safe_dump({"apiVersion": "v2", "name": "widgets", "version": version}))
    (folder / "templates" / "crds.yaml").write_text(yaml.safe_dump_all(templates))
    if crds:
        (folder / "crds").mkdir()
        for crd in crds:
            (folder / "crds" / f"{crd['metadata']['name']}.yaml").write_text(yaml.safe_dump(crd))
    return folder


STRING = {"type": "string"}


def test_helm_leaves_crds_folders_behind_and_deletes_or_refuses_template_crds(tmp_path):
    v1 = {"v1": (True, True, {"size": STRING})}
    old_chart = _chart(tmp_path, "1.0.0", templates=[
        _crd("gadgets.example.com", {"v1alpha1": (True, True, {"size": STRING})}),
        _crd("gizmos.example.com", v1), _crd("doodads.example.com", v1, kept=True)],
        crds=[_crd("widgets.example.com", v1), _crd("sprockets.example.com", v1)])
    new_chart = _chart(tmp_path, "2.0.0", templates=[
        _crd("gadgets.example.com", {"v1": (True, True, {"size": STRING, "color": STRING})}),
        _crd("sprockets.example.com", v1)],
        crds=[_crd("widgets.example.com", {"v1": (True, False, {"size": STRING}),
                                           "v2": (True, True, {"size": STRING, "shape": {"type": "object"}})}),
              _crd("cogs.example.com", v1)])
    charts = {"1.0.0": old_chart, "2.0.0": new_chart}
    old = _template(W=_release("1.0.0", chart="widgets", name="widgets"))
    new = _template(W=_release("2.0.0", chart="widgets", name="widgets"))
    changes, notes = crd_changes(old, new, charts=lambda chart, version: charts[version])
    found = _by_id(changes)
    assert notes == []
    # The storage version of the deployed definition disappears: the API server refuses the update.
    assert found["fail:CustomResourceDefinition/gadgets.example.com"].destructive
    assert "v1alpha1" in found["fail:CustomResourceDefinition/gadgets.example.com"].message
    # Gone from the templates: deleted with its objects, unless kept.
    assert found["delete:CustomResourceDefinition/gizmos.example.com"].destructive
    assert not found["retain:CustomResourceDefinition/doodads.example.com"].destructive
    # crds/ is never upgraded: the new served version and field stay out of the cluster; a new file is never created.
    stale = found["stale:CustomResourceDefinition/widgets.example.com"]
    assert stale.destructive and "versions added v2" in stale.message and "storage version v1 -> v2" in stale.message
    assert found["stale:CustomResourceDefinition/cogs.example.com"].destructive
    # From crds/ to the templates: Helm will not adopt what it did not install in this release.
    assert "ownership" in found["fail:CustomResourceDefinition/sprockets.example.com"].message

    # The same release in both templates: CloudFormation runs no helm upgrade.
    assert crd_changes(old, copy.deepcopy(old), charts=lambda chart, version: charts[version]) == ([], [])
    # A chart no mirror holds: one line naming how to get it, never a guess.
    changes, notes = crd_changes(old, new, charts=lambda chart, version: None)
    assert changes == [] and "widgets 1.0.0 is not at hand" in notes[0] and "helm pull" in notes[0]


def test_a_crd_difference_names_versions_storage_shallowest_fields_and_validation():
    old = _crd("gadgets.example.com", {"v1beta1": (True, True, {"size": STRING}), "v1": (True, False, {"size": STRING})})
    new = _crd("gadgets.example.com", {"v1beta1": (False, False, {"size": STRING}),
                                       "v1": (True, True, {"size": {"type": "string", "enum": ["S", "M"]},
                                                           "shape": {"type": "object", "properties": {"x": STRING}}})})
    difference = describe(old, new)
    assert difference.unserved == ["v1beta1"] and (difference.storage_before, difference.storage_after) == ("v1beta1", "v1")
    assert difference.fields_added == {"v1": ["spec.shape"]}  # not spec.shape.x: the new object is named once
    assert difference.validation == ["v1"]  # the enum
    same = copy.deepcopy(old)
    same["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["description"] = "reworded"
    assert not describe(old, same)


# --- EKS's version rules -------------------------------------------------------------------------------------------


def _group(version: str | None = None, name: str = "gpu", **props) -> dict:
    base = {"ClusterName": {"Ref": "Cluster"}, "NodeRole": "arn:aws:iam::1:role/n", "Subnets": ["subnet-1"],
            "NodegroupName": name, "AmiType": "AL2023_x86_64_NVIDIA", "ScalingConfig": {"MinSize": 0, "MaxSize": 2}}
    if version:
        base["Version"] = version
    return {"Type": "AWS::EKS::Nodegroup", "Properties": {**base, **props}}


def _addon(name: str, version: str | None = None) -> dict:
    props = {"ClusterName": {"Ref": "Cluster"}, "AddonName": name, **({"AddonVersion": version} if version else {})}
    return {"Type": "AWS::EKS::Addon", "Properties": props}


def _versions(old: dict, new: dict, builds=None):
    diff = diff_templates(old, new, ResourceSchemas("us-west-2"))
    changes, notes = version_changes(old, new, diff, addon_builds=builds or {})
    return _by_id(changes), notes


@pytest.mark.parametrize("before, after, refused", [("1.35", "1.36", False), ("1.34", "1.36", True),
                                                     ("1.36", "1.35", True)])
def test_the_control_plane_moves_one_minor_version_at_a_time_and_never_back(before, after, refused):
    report = _predict(_template(before), _template(after))
    found = _by_id(report.changes)
    assert ("fail:Cluster" in found) is refused and ("update:Cluster" in found) is not refused
    if refused:
        assert found["fail:Cluster"].destructive and report.verdict == "refused"
        assert ("deploy 1.35, then 1.36" if after > before else "cannot downgrade") in found["fail:Cluster"].message


def test_node_groups_match_the_control_plane_before_it_moves_and_never_run_ahead():
    found, _ = _versions(_template("1.35", Gpu=_group("1.34")), _template("1.36", Gpu=_group("1.36")))
    assert found["fail:Gpu"].destructive and "runs Kubernetes 1.34" in found["fail:Gpu"].message

    moved, _ = _versions(_template("1.35", Gpu=_group("1.35")), _template("1.36", Gpu=_group("1.36")))
    assert moved == {}
    left, _ = _versions(_template("1.35", Gpu=_group("1.35")), _template("1.36", Gpu=_group("1.35")))
    assert not left["skew:Gpu"].destructive and "refuses the next control-plane update" in left["skew:Gpu"].message
    unnamed, _ = _versions(_template("1.35", Gpu=_group()), _template("1.36", Gpu=_group()))
    assert not unnamed["skew:Gpu"].destructive and "names no Version" in unnamed["skew:Gpu"].message

    ahead, _ = _versions(_template("1.36", Gpu=_group("1.36")), _template("1.36", Gpu=_group("1.37")))
    assert ahead["fail:Gpu"].destructive and "newer than the control plane" in ahead["fail:Gpu"].message
    back, _ = _versions(_template("1.36", Gpu=_group("1.36")), _template("1.36", Gpu=_group("1.35")))
    assert "never moves a node group back" in back["fail:Gpu"].message
    created, _ = _versions(_template("1.36"), _template("1.36", Gpu=_group("1.35")))
    assert "only at the cluster's version" in created["fail:Gpu"].message


def test_add_ons_stay_within_their_skew_and_name_builds_the_new_version_supports():
    found, _ = _versions(_template("1.36", P=_addon("kube-proxy", "v1.36.0-eksbuild.1")),
                         _template("1.36", P=_addon("kube-proxy", "v1.37.1-eksbuild.1")))
    assert found["fail:P"].destructive and "newer than" in found["fail:P"].message
    behind, _ = _versions(_template("1.35", P=_addon("kube-proxy", "v1.32.1-eksbuild.1")),
                          _template("1.36", P=_addon("kube-proxy", "v1.32.1-eksbuild.1")))
    assert behind["fail:P"].destructive and "more than 3 minor versions behind" in behind["fail:P"].message

    old = _template("1.35", Dns=_addon("coredns", "v1.13.2-eksbuild.4"), Cni=_addon("vpc-cni"))
    stays = _template("1.36", Dns=_addon("coredns", "v1.13.2-eksbuild.4"), Cni=_addon("vpc-cni"))
    found, _ = _versions(old, stays)
    assert not found["skew:Dns"].destructive and "describe-addon-versions" in found["skew:Dns"].message
    assert "names no AddonVersion" in found["skew:Cni"].message
    recorded = {"coredns": {"1.36": "v1.13.2-eksbuild.4"}}
    assert "skew:Dns" not in _versions(old, stays, recorded)[0]
    moved = _template("1.36", Dns=_addon("coredns", "v1.14.3-eksbuild.16"), Cni=_addon("vpc-cni"))
    found, notes = _versions(old, moved)
    assert "skew:Dns" not in found and "coredns v1.14.3-eksbuild.16" in notes[0]


def test_the_rules_are_the_ones_ekss_api_reference_states():
    # The sentences eks_versions cites, as the pinned botocore's model of the EKS API carries them.
    eks = botocore.session.get_session().get_service_model("eks")

    def doc(operation: str, member: str | None = None) -> str:
        model = eks.operation_model(operation)
        text = model.input_shape.members[member].documentation if member else model.documentation
        return " ".join(re.sub(r"<[^>]+>", "", text).split())

    assert ("all of your node groups' Kubernetes versions must match the cluster's Kubernetes version in order to "
            "update the cluster") in doc("UpdateClusterVersion")
    assert "equal to the current Kubernetes version for the cluster" in doc("CreateNodegroup")
    assert "You cannot roll back a node group to an earlier Kubernetes version" in doc("UpdateNodegroupVersion")
    assert "Pod disruption budget" in doc("UpdateNodegroupVersion", "force")
    assert "must match one of the versions returned by" in doc("CreateAddon", "addonVersion")


# --- node group rolls under PodDisruptionBudgets ---------------------------------------------------------------


def _training_job(pods: int, min_available) -> list[dict]:
    labels = {"eks-training/job": "train"}
    return [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "train", "namespace": "ml"},
             "spec": {"replicatedJobs": [{"name": "workers", "replicas": 2, "template": {"spec": {
                 "parallelism": pods // 2, "template": {"metadata": {"labels": labels}, "spec": {"containers": [{}]}}}}}]}},
            {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "train", "namespace": "ml"},
             "spec": {"minAvailable": min_available, "selector": {"matchLabels": labels}}}]


def test_a_budget_holds_a_job_only_when_it_allows_no_eviction():
    assert held_job_kinds({"jobset": _training_job(4, 4)}) == {"jobset": "ml/train"}  # 2 replicas x parallelism 2
    assert held_job_kinds({"jobset": _training_job(4, "100%")}) == {"jobset": "ml/train"}
    assert held_job_kinds({"jobset": _training_job(4, 3)}) == {}  # one pod may go, and the job with it
    other = _training_job(4, 4)
    other[1]["metadata"]["namespace"] = "elsewhere"
    assert held_job_kinds({"jobset": other}) == {}


def test_a_roll_waits_for_held_jobs_and_then_fails_unless_forced():
    template = {"Type": "AWS::EC2::LaunchTemplate", "Properties": {"LaunchTemplateData": {"ImageId": "ami-1"}}}
    group = _group("1.36", LaunchTemplate={"Id": {"Ref": "Lt"}, "Version": {"Fn::GetAtt": ["Lt", "LatestVersionNumber"]}})
    old = _template(Lt=template, Gpu=group)
    new = copy.deepcopy(old)
    new["Resources"]["Lt"]["Properties"]["LaunchTemplateData"]["ImageId"] = "ami-2"
    source = NodeSource(name="node group Gpu", kind="node group", instance_type="p5.48xlarge", labels={}, taints=(),
                        capacity={"cpu": Decimal(1)}, security_groups=(), standing=False, on_demand=False,
                        logical_id="Gpu")
    placements = [Placement(PodTemplate("job jobset: JobSet train workers", "ml", {}), fits=[source])]

    held = _by_id(_predict(old, new, placements=placements, jobs={"jobset": _training_job(4, 4)}).changes)["roll:Gpu"]
    assert held.destructive and "PodEvictionFailure" in held.message and "ml/train" in held.message
    assert "are evicted" not in held.message
    loose = _by_id(_predict(old, new, placements=placements, jobs={"jobset": _training_job(4, 3)}).changes)["roll:Gpu"]
    assert not loose.destructive and "running pods of jobset are evicted as their node drains" in loose.message
    new["Resources"]["Gpu"]["Properties"]["ForceUpdateEnabled"] = True
    forced = _by_id(_predict(old, new, placements=placements, jobs={"jobset": _training_job(4, 4)}).changes)["roll:Gpu"]
    assert forced.destructive  # the budget's job is taken down anyway
    assert "ForceUpdateEnabled" in forced.message and "running pods of jobset are evicted" in forced.message
