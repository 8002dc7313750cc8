"""EKS's version rules, applied to the Kubernetes versions the two templates give the control plane, the managed node
groups and the EKS add-ons.

The rules, and where EKS documents them:

* the control plane moves one minor version at a time, and never back (EKS user guide, "Update existing cluster to
  new Kubernetes version", docs.aws.amazon.com/eks/latest/userguide/update-cluster.html: "you can update only one
  minor version at a time"; "You can't downgrade the Kubernetes version of an Amazon EKS cluster");
* ``UpdateClusterVersion``: "all of your node groups' Kubernetes versions must match the cluster's Kubernetes version
  in order to update the cluster to a new Kubernetes version"; ``CreateNodegroup``: only the cluster's current
  version; ``UpdateNodegroupVersion``: never back to an earlier version (the EKS API reference, as botocore's model
  ``botocore/data/eks/2017-11-01/service-2.json`` carries it: a test holds these sentences to it);
* what lags: a kubelet or kube-proxy never newer than the API server and at most three minor versions older
  (Kubernetes' version skew policy, kubernetes.io/releases/version-skew-policy, for 1.28 and later);
* ``CreateAddon``/``UpdateAddon`` accept only the builds ``DescribeAddonVersions`` lists for the cluster's version
  (the same model); an add-on whose ``AddonVersion`` does not change is not updated when the control plane moves.

Each rule reads only the templates' fields (``AWS::EKS::Cluster`` ``Version``, ``AWS::EKS::Nodegroup`` ``Version``,
``AWS::EKS::Addon`` ``AddonVersion``): a group or add-on that names no version runs what EKS chose when it was created,
and keeps it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from eks_training.infra.tools.check.change.findings import Change
from eks_training.infra.tools.check.change.template_diff import TemplateDiff

#: How many minor versions a kubelet or kube-proxy may lag the API server (Kubernetes 1.28 and later).
MAX_SKEW = 3
_MINOR = re.compile(r"^v?1\.(\d+)(?:\.|$)")
CLUSTER, NODEGROUP, ADDON = "AWS::EKS::Cluster", "AWS::EKS::Nodegroup", "AWS::EKS::Addon"


@dataclass(frozen=True)
class ControlPlane:
    logical_id: str
    before: str | None
    after: str | None

    @property
    def moves(self) -> bool:
        return self.before != self.after and self.before is not None and self.after is not None


def minor(version: Any) -> int | None:
    """``"1.36"``, ``"v1.35.3-eksbuild.2"`` -> 36, 35; None for anything else (a token, a custom AMI's version)."""
    found = _MINOR.match(version) if isinstance(version, str) else None
    return int(found.group(1)) if found else None


def _version(minor_version: int | None) -> str:
    return f"1.{minor_version}" if minor_version is not None else "unknown"


def control_plane(old: Mapping[str, Any], new: Mapping[str, Any]) -> ControlPlane | None:
    """The cluster kept under one logical ID, with its version before and after (None where none is written)."""
    old_clusters = _of(old, CLUSTER)
    for lid, resource in _of(new, CLUSTER).items():
        if lid in old_clusters:
            before = (old_clusters[lid].get("Properties") or {}).get("Version")
            after = (resource.get("Properties") or {}).get("Version")
            return ControlPlane(lid, before if isinstance(before, str) else None,
                                after if isinstance(after, str) else None)
    return None


def version_changes(old: Mapping[str, Any], new: Mapping[str, Any], diff: TemplateDiff,
                    addon_builds: Mapping[str, Mapping[str, Any]] | None = None) -> tuple[list[Change], list[str]]:
    """(what EKS does with the versions of the new template over the deployed one, what could not be checked).

    ``addon_builds``: add-on -> Kubernetes minor version ("1.36") -> the builds known to run there (default:
    :func:`recorded_addon_builds`)."""
    plane = control_plane(old, new)
    if plane is None or plane.logical_id in diff.replaced:
        return [], []  # a new cluster starts at its version: nothing to move
    changes: list[Change] = []
    notes: list[str] = []
    before, after = minor(plane.before), minor(plane.after)
    if plane.before != plane.after and (before is None or after is None):
        notes.append(f"change stage: the cluster's version moves {plane.before} -> {plane.after}: not a literal minor "
                     "version, so EKS's version rules are not checked")
        return changes, notes
    if before is not None and after is not None:
        if after < before:
            changes.append(Change("fail", plane.logical_id, (
                f"EKS cluster {plane.logical_id}: Kubernetes {plane.before} -> {plane.after}: EKS cannot downgrade a "
                "control plane, so the update fails"), destructive=True))
            return changes, notes
        if after > before + 1:
            steps = ", then ".join(_version(m) for m in range(before + 1, after + 1))
            changes.append(Change("fail", plane.logical_id, (
                f"EKS cluster {plane.logical_id}: Kubernetes {plane.before} -> {plane.after} skips a minor version: EKS "
                f"updates a control plane one minor version at a time, so the update fails; deploy {steps}"),
                destructive=True))
            return changes, notes
    changes += _node_group_rules(old, new, diff, before, after)
    addon_changes, addon_notes = _addon_rules(old, new, before, after, addon_builds)
    return changes + addon_changes, notes + addon_notes


def _node_group_rules(old: Mapping[str, Any], new: Mapping[str, Any], diff: TemplateDiff, before: int | None,
                      after: int | None) -> list[Change]:
    changes = []
    upgrade = before is not None and after is not None and after == before + 1
    old_groups, new_groups = _of(old, NODEGROUP), _of(new, NODEGROUP)
    for lid, resource in sorted(old_groups.items()):
        deployed = _group_version(resource)
        if upgrade and deployed is not None and deployed < before:
            changes.append(Change("fail", lid, (
                f"node group {_group_name(lid, resource)} runs Kubernetes {_version(deployed)}, and EKS updates the "
                f"control plane ({_version(before)} -> {_version(after)}) only while every managed node group runs "
                f"its version (UpdateClusterVersion): the update fails; move the group to {_version(before)} first"),
                destructive=True))
    for lid, resource in sorted(new_groups.items()):
        name = _group_name(lid, resource)
        written = _group_version(resource)
        change = diff.changes.get(lid)
        created = lid not in old_groups or (change is not None and change.action == "replace")
        if _custom_ami(resource):
            continue  # its nodes run what their AMI holds; EKS takes no Version for it
        if created:
            if written is not None and after is not None and written != after:
                changes.append(Change("fail", lid, (
                    f"node group {name} is created at Kubernetes {_version(written)}, but EKS creates a managed node "
                    f"group only at the cluster's version ({_version(after)}: CreateNodegroup), so the create fails"),
                    destructive=True))
            continue
        deployed = _group_version(old_groups[lid])
        running = written if written is not None else deployed
        if written is not None and deployed is not None and written < deployed:
            changes.append(Change("fail", lid, (
                f"node group {name}: Kubernetes {_version(deployed)} -> {_version(written)}: EKS never moves a node "
                "group back to an earlier version (UpdateNodegroupVersion), so the update fails"), destructive=True))
        elif running is not None and after is not None and running > after:
            changes.append(Change("fail", lid, (
                f"node group {name} would run Kubernetes {_version(running)}, newer than the control plane's "
                f"{_version(after)}: EKS refuses a node group ahead of its cluster, so the update fails"),
                destructive=True))
        elif running is not None and after is not None and after - running > MAX_SKEW:
            changes.append(Change("fail", lid, (
                f"node group {name} stays on Kubernetes {_version(running)}, more than {MAX_SKEW} minor versions "
                f"behind the control plane's {_version(after)}: beyond the kubelet's allowed skew"), destructive=True))
        elif upgrade and running is not None and running < after:
            changes.append(Change("skew", lid, (
                f"node group {name} stays on Kubernetes {_version(running)} behind the control plane's "
                f"{_version(after)} (a kubelet may lag {MAX_SKEW} minor versions): EKS refuses the next control-plane "
                f"update until the group runs {_version(after)}")))
        elif upgrade and deployed is None:
            then = (f"this deploy then moves it to {_version(written)}" if written is not None else
                    f"it keeps that version (no Version here either), and EKS refuses the next update until the group "
                    f"runs {_version(after)}")
            changes.append(Change("skew", lid, (
                f"node group {name} names no Version in the deployed template: it runs the Kubernetes version it was "
                f"created with, and EKS refuses this control-plane update ({_version(before)} -> {_version(after)}) if "
                f"that is below {_version(before)} (UpdateClusterVersion); {then}")))
    return changes


def _addon_rules(old: Mapping[str, Any], new: Mapping[str, Any], before: int | None, after: int | None,
                 addon_builds: Mapping[str, Mapping[str, Any]] | None) -> tuple[list[Change], list[str]]:
    if after is None:
        return [], []
    builds = recorded_addon_builds() if addon_builds is None else addon_builds
    moves = before is not None and before != after
    old_addons = {_addon_name(r): r for r in _of(old, ADDON).values()}
    changes, notes, unknown = [], [], []
    for lid, resource in sorted(_of(new, ADDON).items()):
        name = _addon_name(resource)
        version = (resource.get("Properties") or {}).get("AddonVersion")
        deployed = ((old_addons.get(name) or {}).get("Properties") or {}).get("AddonVersion")
        if name == "kube-proxy" and minor(version) is not None:
            proxy = minor(version)
            if proxy > after or after - proxy > MAX_SKEW:
                why = ("newer than" if proxy > after else f"more than {MAX_SKEW} minor versions behind")
                changes.append(Change("fail", lid, (
                    f"EKS add-on kube-proxy {version} is built for Kubernetes {_version(proxy)}, {why} the control "
                    f"plane's {_version(after)}: beyond kube-proxy's allowed skew, so EKS refuses it"),
                    destructive=True))
            elif moves and proxy < after:
                changes.append(Change("skew", lid, (
                    f"EKS add-on kube-proxy stays at {version} (Kubernetes {_version(proxy)}) behind the control "
                    f"plane's {_version(after)}: allowed, but it should follow the cluster")))
            continue
        if not isinstance(version, str):
            if moves and name in old_addons:
                changes.append(Change("skew", lid, (
                    f"EKS add-on {name} names no AddonVersion: it keeps the build EKS chose when it was created when "
                    f"the control plane moves to {_version(after)} (CloudFormation has no change to make); pin a "
                    "build of the new version")))
            continue
        known = (builds.get(name) or {}).get(_version(after))
        if known is not None and version in _as_versions(known):
            continue
        if moves and version == deployed:
            changes.append(Change("skew", lid, (
                f"EKS add-on {name} stays at {version}, chosen for Kubernetes {_version(before)}, when the control "
                f"plane moves to {_version(after)}: CloudFormation does not update it; whether EKS supports it there is "
                f"not recorded here (`aws eks describe-addon-versions --addon-name {name} --kubernetes-version "
                f"{_version(after)}`)")))
        elif version != deployed:
            unknown.append(f"{name} {version}")
    if unknown:
        notes.append(f"change stage: EKS accepts an add-on build only where it supports the cluster's version "
                     f"{_version(after)}; not recorded here for {', '.join(unknown)} (`aws eks describe-addon-versions "
                     f"--kubernetes-version {_version(after)} --addon-name NAME` lists them)")
    return changes, notes


def recorded_addon_builds() -> dict[str, dict[str, Any]]:
    """The add-on builds eks-training records per Kubernetes version (``EKS_ADDON_VERSIONS`` in
    :mod:`eks_training.core.versions`, where this release has it), as add-on -> version -> build(s)."""
    from eks_training.core import versions

    table = getattr(versions, "EKS_ADDON_VERSIONS", None) or {}
    return {name: dict(by_version) for name, by_version in table.items() if isinstance(by_version, Mapping)}


def _as_versions(known: Any) -> set[str]:
    items = known if isinstance(known, (list, tuple, set, frozenset)) else [known]
    return {str(getattr(item, "version", item)) for item in items}


def _of(template: Mapping[str, Any], type_: str) -> dict[str, dict]:
    return {lid: r for lid, r in (template.get("Resources") or {}).items() if r.get("Type") == type_}


def _group_version(resource: Mapping[str, Any]) -> int | None:
    return minor((resource.get("Properties") or {}).get("Version"))


def _group_name(lid: str, resource: Mapping[str, Any]) -> str:
    name = (resource.get("Properties") or {}).get("NodegroupName")
    return name if isinstance(name, str) else lid


def _custom_ami(resource: Mapping[str, Any]) -> bool:
    return (resource.get("Properties") or {}).get("AmiType") == "CUSTOM"


def _addon_name(resource: Mapping[str, Any]) -> str:
    return str((resource.get("Properties") or {}).get("AddonName"))
