"""Which nodes a deploy replaces under running pods, and which pods they evict.

Managed node groups: CloudFormation passes a change of ``Version``, ``ReleaseVersion`` or ``LaunchTemplate`` (its
version moves with every change of the launch template's data) to EKS's ``UpdateNodegroupVersion``, which rolls
every node: a new node up, an old one drained, repeat (docs.aws.amazon.com/eks/latest/userguide/
managed-node-update-behavior.html). A drain that a PodDisruptionBudget blocks for 15 minutes fails the update, or,
with ``ForceUpdateEnabled``, deletes the pods anyway. Other properties (labels, taints, scaling, ``UpdateConfig``)
go through ``UpdateNodegroupConfig`` and keep the nodes; create-only ones replace the group (:mod:`.template_diff`).

Karpenter (kubernetes-sigs/karpenter v1.14.1 ``pkg/controllers/nodeclaim/disruption/drift.go``, aws/karpenter-provider-aws
v1.14.1 ``pkg/cloudprovider/drift.go``): a node drifts when its NodePool's ``spec.template`` hash changes (the hash
leaves out ``requirements`` and ``resources``: ``hash:"ignore"`` in ``pkg/apis/v1/nodeclaim.go``), when it no
longer meets the pool's requirements, or when its EC2NodeClass changes (the hashed fields, or the AMIs, subnets,
security groups and reservations its selector terms resolve to). Karpenter replaces drifted nodes within the pool's
disruption budgets (a budget of 0 nodes for ``Drifted`` holds them until they are empty) and waits for pods
annotated ``karpenter.sh/do-not-disrupt``. Limits, weights and budgets themselves drift nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from eks_training.infra.tools.check.change.findings import Change
from eks_training.infra.tools.check.change.manifests import Manifests
from eks_training.infra.tools.check.change.template_diff import TemplateDiff
from eks_training.infra.tools.check.placement import Placement

#: Node group properties EKS applies through UpdateNodegroupVersion, which replaces every node.
ROLLING_PROPERTIES = ("Version", "ReleaseVersion", "LaunchTemplate")
DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt"


def node_group_changes(diff: TemplateDiff, placements: Sequence[Placement]) -> list[Change]:
    """Every managed node group that rolls, with the pods it evicts (EKS drains through PodDisruptionBudgets only;
    ``karpenter.sh/do-not-disrupt`` means nothing to it)."""
    changes = []
    for change in diff.of("update"):
        if change.type != "AWS::EKS::Nodegroup":
            continue
        rolling = [p for p in ROLLING_PROPERTIES if p in change.changed]
        if not rolling:
            continue
        why = ", ".join(_why_rolls(prop, change, diff) for prop in rolling)
        props = change.new.get("Properties") or {}
        force = bool(props.get("ForceUpdateEnabled"))
        jobs, others = evicted(placements, lambda s: s.logical_id == change.logical_id)
        name = props.get("NodegroupName") or change.logical_id
        drain = ("pods are deleted even where a PodDisruptionBudget holds them (ForceUpdateEnabled)" if force else
                 "a PodDisruptionBudget that holds a pod for 15 minutes fails the update")
        changes.append(Change("roll", change.logical_id, (
            f"node group {name} rolls every node ({why}): each is drained and replaced; {drain}; "
            f"{_evictions(jobs, others)}"), destructive=bool(jobs)))
    return changes


def replaced_node_group_evictions(logical_id: str, placements: Sequence[Placement]) -> str:
    jobs, others = evicted(placements, lambda s: s.logical_id == logical_id)
    return _evictions(jobs, others)


def karpenter_changes(before: Manifests, after: Manifests, placements: Sequence[Placement],
                      protected: set[str]) -> list[Change]:
    """Every NodePool whose nodes drift, with what Karpenter does to the pods on them."""
    old_pools, new_pools = _objects(before, "NodePool"), _objects(after, "NodePool")
    old_classes, new_classes = _objects(before, "EC2NodeClass"), _objects(after, "EC2NodeClass")
    changed_classes = {name for name in new_classes
                       if name in old_classes and _spec(old_classes[name]) != _spec(new_classes[name])}
    changes = []
    for name, pool in sorted(new_pools.items()):
        if name not in old_pools:
            continue
        reasons = _pool_drift(old_pools[name], pool)
        class_name = (((pool.get("spec") or {}).get("template") or {}).get("spec") or {}).get("nodeClassRef", {}).get("name")
        if class_name in changed_classes:
            reasons.append(f"its EC2NodeClass {class_name} changes")
        if not reasons:
            continue
        jobs, others = evicted(placements, lambda s: s.labels.get("karpenter.sh/nodepool") == name)
        if _drift_held(pool):
            changes.append(Change("drift", f"NodePool/{name}", (
                f"NodePool {name}'s nodes drift ({'; '.join(reasons)}); its disruption budget allows 0 drifted nodes "
                "at a time, so Karpenter replaces each only once it is empty")))
            continue
        unprotected = [kind for kind in jobs if kind not in protected]
        waits = [kind for kind in jobs if kind in protected]
        tail = f"; it waits for {', '.join(waits)} ({DO_NOT_DISRUPT})" if waits else ""
        changes.append(Change("drift", f"NodePool/{name}", (
            f"NodePool {name}'s nodes drift ({'; '.join(reasons)}): Karpenter drains and replaces them within the "
            f"pool's disruption budget; {_evictions(unprotected, others)}{tail}"), destructive=bool(unprotected)))
    return changes


def evicted(placements: Sequence[Placement], on: Any) -> tuple[list[str], int]:
    """(the job kinds whose pods may run on the matching node sources, how many other pod templates may)."""
    jobs: list[str] = []
    others = 0
    for placement in placements:
        if not any(on(source) for source in placement.fits):
            continue
        owner = placement.pod.owner
        if owner.startswith("job "):
            kind = owner[4:].split(":", 1)[0]
            if kind not in jobs:
                jobs.append(kind)
        elif any(word in owner for word in (": NodeSet ", ": RayCluster ")):
            label = owner.split(": ", 1)[-1]
            if label not in jobs:
                jobs.append(label)
        else:
            others += 1
    return jobs, others


def protected_job_kinds(jobs: Mapping[str, list[dict]] | None) -> set[str]:
    """Job kinds whose every pod template carries ``karpenter.sh/do-not-disrupt: "true"``."""
    protected = set()
    for kind, objects in (jobs or {}).items():
        annotations = list(_pod_template_annotations(objects))
        if annotations and all(str(a.get(DO_NOT_DISRUPT)).lower() == "true" for a in annotations):
            protected.add(kind)
    return protected


def _pod_template_annotations(objects: Iterable[Any]) -> Iterable[Mapping[str, Any]]:
    for obj in objects:
        if isinstance(obj, dict):
            template = obj.get("template")
            if isinstance(template, dict) and isinstance(template.get("spec"), dict) and "containers" in template["spec"]:
                yield (template.get("metadata") or {}).get("annotations") or {}
            yield from _pod_template_annotations(obj.values())
        elif isinstance(obj, list):
            yield from _pod_template_annotations(obj)


def _evictions(jobs: Sequence[str], others: int) -> str:
    if jobs:
        return (f"running pods of {', '.join(jobs)} are evicted (their work since the last checkpoint is lost)"
                + (f", and {others} platform pod templates move" if others else ""))
    return f"no job runs there ({others} platform pod templates move)" if others else "no pod lands there"


def _why_rolls(prop: str, change: Any, diff: TemplateDiff) -> str:
    old, new = (change.old.get("Properties") or {}).get(prop), (change.new.get("Properties") or {}).get(prop)
    if prop != "LaunchTemplate":
        return f"{prop} {old} -> {new}"
    template = (new or {}).get("Id", {}).get("Ref") if isinstance((new or {}).get("Id"), dict) else None
    lt = diff.changes.get(template) if template else None
    if lt is not None and lt.action == "update":
        data_old = (lt.old.get("Properties") or {}).get("LaunchTemplateData") or {}
        data_new = (lt.new.get("Properties") or {}).get("LaunchTemplateData") or {}
        keys = sorted(k for k in set(data_old) | set(data_new) if data_old.get(k) != data_new.get(k))
        return f"its launch template {template} gets a new version: LaunchTemplateData {', '.join(keys)} change"
    return "its launch template changes"


def _objects(manifests: Manifests, kind: str) -> dict[str, dict]:
    return {ident.name: obj for objs in manifests.objects.values() for ident, obj in objs.items() if ident.kind == kind}


def _spec(obj: Mapping[str, Any]) -> Any:
    spec = dict(obj.get("spec") or {})
    spec.pop("ipPrefixCount", None)  # hash:"ignore" and resolved nowhere: no drift
    return spec


def _pool_drift(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    old_template = ((old.get("spec") or {}).get("template")) or {}
    new_template = ((new.get("spec") or {}).get("template")) or {}
    reasons = []
    if _hashed(old_template) != _hashed(new_template):
        reasons.append("its spec.template changes")
    old_values = _requirement_values(old_template)
    for key, values in _requirement_values(new_template).items():
        if key not in old_values:
            reasons.append(f"requirement {key} is added (nodes whose {key} it does not admit drift)")
        elif dropped := sorted(set(old_values[key]) - set(values)):
            reasons.append(f"requirement {key} no longer admits {', '.join(dropped)}")
    return reasons


def _hashed(template: Mapping[str, Any]) -> Any:
    spec = {k: v for k, v in (template.get("spec") or {}).items() if k not in ("requirements", "resources")}
    return {"metadata": template.get("metadata") or {}, "spec": spec}


def _requirement_values(template: Mapping[str, Any]) -> dict[str, list[str]]:
    return {r["key"]: list(r.get("values") or []) for r in ((template.get("spec") or {}).get("requirements") or [])
            if r.get("operator") == "In"}


def _drift_held(pool: Mapping[str, Any]) -> bool:
    """Whether a budget without a schedule allows 0 nodes to be disrupted for drift."""
    for budget in ((pool.get("spec") or {}).get("disruption") or {}).get("budgets") or []:
        reasons = budget.get("reasons")
        if str(budget.get("nodes")) in ("0", "0%") and not budget.get("schedule") and (not reasons or "Drifted" in reasons):
            return True
    return False
