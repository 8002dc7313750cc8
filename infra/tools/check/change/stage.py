"""The change stage of `eks-training check`: from the deployed template and the new one, every change a deploy
would make, each one line with a stable ID; destructive ones fail the check until acknowledged.

Acknowledging is per run: ``--acknowledge ID`` (repeatable) or ``--acknowledgements FILE`` (one ID a line, ``#``
comments), never a config field, so an acknowledgement covers the changes a person read and no later one.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eks_training.core.validation import invalid
from eks_training.infra.tools.check.change.eks_versions import control_plane, version_changes
from eks_training.infra.tools.check.change.findings import VERBS, Change, sort_key
from eks_training.infra.tools.check.change.helm_crds import crd_changes
from eks_training.infra.tools.check.change.holdings import holding
from eks_training.infra.tools.check.change.manifests import manifest_changes, read_manifests
from eks_training.infra.tools.check.change.node_rolls import (held_job_kinds, karpenter_changes, node_group_changes,
                                                             protected_job_kinds, replaced_node_group_evictions)
from eks_training.infra.tools.check.change.schemas import ResourceSchemas
from eks_training.infra.tools.check.change.template_diff import Move, ResourceChange, TemplateDiff, diff_templates
from eks_training.infra.tools.check.placement import Placement, PodTemplate, advertised_by_source, place
from eks_training.infra.tools.check.snapshot import (HELM_CHART, KUBERNETES_RESOURCE, PlatformSnapshot, load_snapshot,
                                                     references)

#: Resource types whose changes the handler models report object by object (:mod:`.manifests`).
_HANDLED = (KUBERNETES_RESOURCE, HELM_CHART)
_RETAINED = ("Retain", "RetainExceptOnCreate")


@dataclass(frozen=True)
class Previous:
    """The deployed template the check compares with, what it is (a path, a stack), and the acknowledged IDs."""

    #: None: nothing is deployed yet (a first deploy): nothing to compare.
    template: Mapping[str, Any] | None
    name: str = "the deployed template"
    acknowledged: frozenset[str] = frozenset()
    #: Why CloudFormation will not update the deployed stack now (its state), or None.
    refusal: str | None = None
    #: What ``name`` holds when ``template`` is None (e.g. "no stack X in us-west-2: first deploy").
    absent: str | None = None


@dataclass
class ChangeReport:
    """What a deploy of the new template over the deployed one does."""

    #: Where the deployed template came from (a path, a stack).
    previous: str
    changes: list[Change] = field(default_factory=list)
    acknowledged: frozenset[str] = frozenset()
    notes: list[str] = field(default_factory=list)
    #: Where the create-only facts come from.
    sources: list[str] = field(default_factory=list)
    #: Nothing is deployed: the deploy creates everything.
    first_deploy: bool = False

    @property
    def refused(self) -> list[Change]:
        """Destructive changes nobody acknowledged: each fails the check."""
        return [c for c in self.changes if c.destructive and c.id not in self.acknowledged]

    @property
    def verdict(self) -> str:
        if self.first_deploy:
            return "first deploy"
        if not any(c.destructive for c in self.changes):
            return "in place"
        return "refused" if self.refused else "acknowledged"

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for change in self.changes:
            counts[change.verb] = counts.get(change.verb, 0) + 1
        return {verb: counts[verb] for verb in sorted(counts, key=lambda v: VERBS.index(v) if v in VERBS else 99)}

    def lines(self) -> list[str]:
        """One line per change, destructive first: ``!`` refused, ``+`` acknowledged, blank routine."""
        out = []
        for change in sorted(self.changes, key=sort_key):
            mark = ("+" if change.id in self.acknowledged else "!") if change.destructive else " "
            out.append(f"{mark} {change}")
        return out


def predict_changes(previous: Mapping[str, Any], snap: PlatformSnapshot, *, placements: Sequence[Placement] = (),
                    jobs: Mapping[str, list[dict]] | None = None, region: str | None = None,
                    acknowledged: Iterable[str] = (), previous_name: str = "the deployed template",
                    schemas: ResourceSchemas | None = None,
                    rendered: Mapping[str, list[dict]] | None = None,
                    pods: Sequence[PodTemplate] = ()) -> ChangeReport:
    """Every change from the deployed ``previous`` template to ``snap``'s (the new one). ``rendered``: the new
    template's Helm releases as the deploy check rendered them, by release name (rendered here where absent).
    ``pods``: every pod template the check placed (DaemonSets too), placed again on the deployed node sources to say
    what a node group's drain evicts (default: ``placements``, the new template's)."""
    schemas = schemas or ResourceSchemas(region)
    report = ChangeReport(previous_name, acknowledged=frozenset(acknowledged))
    if not schemas.available:
        report.changes.append(Change("fail", "resource-schemas", "; ".join(schemas.missing()) + ": which changes "
                                     "replace a resource cannot be predicted", destructive=True))
        return report
    report.notes += [f"change stage: {problem}" for problem in schemas.missing()]
    report.sources = schemas.sources()
    new = snap.template
    diff = diff_templates(previous, new, schemas)
    running = _placed_on(previous, pods) if pods else placements
    rolls = node_group_changes(diff, running, held_job_kinds(jobs))
    report.changes += _resource_changes(diff, running, {c.subject for c in rolls})
    report.changes += manifest_changes(previous, new, diff, snap)
    crds, crd_notes = crd_changes(previous, new, rendered=rendered)
    report.changes += crds
    report.notes += crd_notes
    report.changes += rolls
    versions, version_notes = version_changes(previous, new, diff)
    refused_updates = {c.subject for c in versions if c.verb == "fail"}
    report.changes = [c for c in report.changes if not (c.verb == "update" and c.subject in refused_updates)]
    report.changes += versions
    report.notes += version_notes
    plane = control_plane(previous, new)
    moves = plane is not None and plane.moves and plane.logical_id not in refused_updates
    report.changes += karpenter_changes(read_manifests(previous), read_manifests(new, diff), placements,
                                        protected_job_kinds(jobs),
                                        control_plane_move=f"{plane.before} -> {plane.after}" if moves else None)
    if diff.unknown_types:
        report.notes.append("change stage: no CloudFormation schema knows " + ", ".join(sorted(diff.unknown_types)) +
                            f" in {schemas.region}: their replacements are not predicted")
    stale = sorted(report.acknowledged - {c.id for c in report.changes})
    if stale:
        report.notes.append(f"change stage: acknowledged but not predicted (a typo, or the change is gone): "
                            f"{', '.join(stale)}")
    return report


def _placed_on(previous: Mapping[str, Any], pods: Sequence[PodTemplate]) -> list[Placement]:
    """``pods`` on the deployed template's node sources: what may run on a node group now, before the deploy changes
    or removes it (a new instance type's group may take none of the jobs its predecessor runs)."""
    sources = load_snapshot(copy.deepcopy(dict(previous))).node_sources
    advertised, _ = advertised_by_source(sources, list(pods))
    return place([p for p in pods if not p.daemonset], sources, advertised)


def _resource_changes(diff: TemplateDiff, placements: Sequence[Placement], rolled: set[str]) -> list[Change]:
    changes = []
    for change in sorted(diff.changes.values(), key=lambda c: c.logical_id):
        if change.type in _HANDLED:
            continue
        if change.action == "replace":
            changes.append(_replacement(change, placements))
        elif change.action == "delete":
            changes.append(_deletion(change, placements))
        elif change.action == "create":
            changes.append(Change("create", change.logical_id, f"{change.type} {change.logical_id} is created"))
        elif change.logical_id not in rolled:
            changes += _update(change, diff)
    changes += [_collision(move) for move in diff.moves]
    return changes


def _replacement(change: ResourceChange, placements: Sequence[Placement]) -> Change:
    lid, type_ = change.logical_id, change.type
    if change.type_changed:
        reason = f"its type changes ({change.old.get('Type')} -> {type_})"
    else:
        by_source: dict[str, list[str]] = {}
        for prop in change.because:
            by_source.setdefault(prop.source, []).append(prop.name)
        reason = "; ".join(f"{', '.join(names)} {'is' if len(names) == 1 else 'are'} create-only in the {source}"
                           for source, names in by_source.items())
        if change.through:
            reason += f", and {'its value is' if len(change.because) == 1 else 'their values are'} new because "
            reason += f"{', '.join(change.through)} {'is' if len(change.through) == 1 else 'are'} replaced"
    verb = "may be replaced" if change.conditional else "is replaced"
    held = holding(type_)
    if change.collides:
        names = ", ".join(f"{name}={value}" for name, value in change.collides)
        return Change("replace", lid, (
            f"{type_} {lid} {verb} ({reason}), but it keeps its name ({names}): CloudFormation cannot replace a "
            "custom-named resource, so the deploy fails"), destructive=True)
    if held is None:
        return Change("replace", lid, f"{type_} {lid} {verb} ({reason}); it holds nothing a re-creation loses")
    kept = change.old.get("UpdateReplacePolicy") in _RETAINED
    loss = (f"the old one is kept (UpdateReplacePolicy {change.old.get('UpdateReplacePolicy')}) and the new one "
            f"starts without {held.what}" if kept else f"loses {held.what}")
    if type_ == "AWS::EKS::Nodegroup":
        loss += f"; {replaced_node_group_evictions(lid, placements)}"
    return Change("replace", lid, f"{type_} {lid} {verb} ({reason}): {loss}", destructive=True)


def _deletion(change: ResourceChange, placements: Sequence[Placement] = ()) -> Change:
    lid, type_ = change.logical_id, change.type
    policy = change.old.get("DeletionPolicy")
    held = holding(type_)
    if policy in _RETAINED:
        what = f" with {held.what}" if held else ""
        return Change("retain", lid, f"{type_} {lid} leaves the stack and is kept{what} (DeletionPolicy {policy}): it "
                                     "lives on in the account, unmanaged, until removed by hand")
    if held is None:
        return Change("delete", lid, f"{type_} {lid} is deleted; it holds nothing a re-creation loses")
    snapshot = " (a snapshot is taken first)" if policy == "Snapshot" else ""
    loss = f"loses {held.what}"
    if type_ == "AWS::EKS::Nodegroup":
        loss += f"; {replaced_node_group_evictions(lid, placements)}"
    return Change("delete", lid, f"{type_} {lid} is deleted{snapshot}: {loss}", destructive=True)


def _update(change: ResourceChange, diff: TemplateDiff) -> list[Change]:
    lid, type_ = change.logical_id, change.type
    found = []
    held = holding(type_)
    policies = [p for p in ("DeletionPolicy", "UpdateReplacePolicy") if p in change.changed]
    for policy in policies:
        before, after = change.old.get(policy, "Delete"), change.new.get(policy, "Delete")
        if held is not None and before in _RETAINED and after not in _RETAINED:
            found.append(Change("update", lid, (
                f"{type_} {lid}: {policy} {before} -> {after}: nothing is lost now, but a later removal or "
                f"replacement deletes {held.what}"), destructive=True))
    if type_ == "AWS::FSx::FileSystem" and "StorageCapacity" in change.changed:
        before = (change.old.get("Properties") or {}).get("StorageCapacity")
        after = (change.new.get("Properties") or {}).get("StorageCapacity")
        if isinstance(before, int) and isinstance(after, int) and after < before:
            found.append(Change("fail", lid, (
                f"FSx file system {lid}: StorageCapacity {before} -> {after}, but FSx storage capacity only grows "
                "(UpdateFileSystem), so the update fails"), destructive=True))
    if type_ == "AWS::EKS::Cluster" and "ResourcesVpcConfig" in change.changed:
        moved = sorted(_vpc_moves(change, diff))
        if moved:
            found.append(Change("fail", lid, (
                f"EKS cluster {lid}: ResourcesVpcConfig names {', '.join(moved)}, which are replaced in a new VPC; "
                "EKS cannot move a cluster to another VPC, so the update fails"), destructive=True))
    properties = [p for p in change.changed if p not in policies]
    if properties and not found:
        found.append(Change("update", lid, f"{type_} {lid} is updated in place ({', '.join(properties)})"))
    return found


def _vpc_moves(change: ResourceChange, diff: TemplateDiff) -> set[str]:
    """Subnets and security groups the cluster names whose VPC is replaced."""
    vpcs = {c.logical_id for c in diff.of("replace") if c.type == "AWS::EC2::VPC"}
    named = set(references((change.new.get("Properties") or {}).get("ResourcesVpcConfig")))
    return {lid for lid in named if lid in diff.changes and diff.changes[lid].action == "replace"
            and set(references(diff.changes[lid].new.get("Properties") or {})) & vpcs}


def _collision(move: Move) -> Change:
    names = ", ".join(f"{name}={value}" for name, value in move.identity)
    return Change("fail", move.new_id, (
        f"{move.type} {move.old_id} becomes {move.new_id} with the same identity ({names}): CloudFormation creates "
        f"{move.new_id} before it deletes {move.old_id}, so the create fails (the name is taken)"), destructive=True)


# --- inputs -----------------------------------------------------------------------------------------------------


def load_previous(path: str | Path, stack_name: str | None = None) -> tuple[dict[str, Any], str]:
    """The deployed template from ``path``: a template file, or a cloud assembly folder (``cdk.out``) holding the
    stack ``stack_name`` (default: its only stack with an EKS cluster). Returns (template, what it is)."""
    from eks_training.infra.tools.check.cloud_assembly import stacks

    where = Path(path).expanduser()
    if where.is_dir():
        if not (where / "manifest.json").is_file():
            raise invalid("--previous", str(path), "a template file or a cloud assembly folder (manifest.json)")
        found = stacks(where)
        chosen = [s for s in found if s.name == stack_name] if stack_name else [s for s in found if s.has_cluster]
        if len(chosen) != 1:
            names = ", ".join(s.name for s in found) or "none"
            raise invalid("--previous", str(path), f"a cloud assembly holding {stack_name or 'one stack with an EKS cluster'} "
                                                   f"(its stacks: {names})")
        return chosen[0].template, f"{path} ({chosen[0].name})"
    try:
        template = json.loads(where.read_text())
    except (OSError, ValueError) as err:
        raise invalid("--previous", str(path), f"a readable template file or cloud assembly folder ({err})") from None
    if not isinstance(template, dict) or not isinstance(template.get("Resources"), dict):
        raise invalid("--previous", str(path), "a CloudFormation template (a JSON object with Resources)")
    return template, str(path)


def read_acknowledgements(ids: Iterable[str] = (), files: Iterable[str] = ()) -> frozenset[str]:
    """IDs from ``--acknowledge`` and from ``--acknowledgements`` files (one a line, ``#`` starts a comment)."""
    found = {i.strip() for i in ids if i.strip()}
    for name in files:
        try:
            text = Path(name).read_text()
        except OSError as err:
            raise invalid("--acknowledgements", name, f"a readable file of change IDs ({err.strerror})") from None
        found |= {line.split("#", 1)[0].strip() for line in text.splitlines()} - {""}
    for item in found:
        if ":" not in item:
            raise invalid("--acknowledge", item, "a change ID as the check prints it, VERB:SUBJECT "
                                                 "(e.g. prune:Namespace/slurm)")
    return frozenset(found)
