"""Which nodes a deploy replaces under running pods, and which pods they evict.

Managed node groups: CloudFormation passes a change of ``Version``, ``ReleaseVersion`` or ``LaunchTemplate`` (its
version moves with every change of the launch template's data) to EKS's ``UpdateNodegroupVersion``, which rolls
every node: a new node up, an old one drained, repeat (docs.aws.amazon.com/eks/latest/userguide/
managed-node-update-behavior.html). The drain evicts through PodDisruptionBudgets: "If the pods don't leave the node
within 15 minutes and there's no force flag, the upgrade phase fails with a PodEvictionFailure error"; with
``ForceUpdateEnabled`` it deletes the pods anyway (the same page; ``UpdateNodegroupVersion``'s ``force``). So a job
whose pods a budget holds (one that allows no disruption while they all run) is not evicted: the update waits 15
minutes on its node, fails, and the stack rolls back; ``karpenter.sh/do-not-disrupt`` means nothing to EKS. Other
properties (labels, taints, scaling, ``UpdateConfig``) go through ``UpdateNodegroupConfig`` and keep the nodes;
create-only ones replace the group (:mod:`.template_diff`), whose deletion drains with the same budgets.

A roll is routine, a note and no refusal, when nothing a budget holds runs there: EKS replaces the nodes
``UpdateConfig`` at a time, each evicted pod gets SIGTERM and its grace period (the trainer saves a checkpoint on it),
and its job requeues and resumes from that checkpoint. A roll through a budget is refused: unforced, the deploy fails
while that job runs; forced, the job the budget protects is taken down anyway. A replacement (a new instance or
capacity type) is refused until acknowledged: the old group is deleted in the same deploy, whatever runs there.

Karpenter (kubernetes-sigs/karpenter v1.14.1 ``pkg/controllers/nodeclaim/disruption/drift.go``, aws/karpenter-provider-aws
v1.14.1 ``pkg/cloudprovider/drift.go``): a node drifts when its NodePool's ``spec.template`` hash changes (the hash
leaves out ``requirements`` and ``resources``: ``hash:"ignore"`` in ``pkg/apis/v1/nodeclaim.go``), when it no
longer meets the pool's requirements, or when its EC2NodeClass changes (the hashed fields, or the AMIs, subnets,
security groups and reservations its selector terms resolve to). Karpenter replaces drifted nodes within the pool's
disruption budgets (a budget of 0 nodes for ``Drifted`` holds them until they are empty) and waits for pods
annotated ``karpenter.sh/do-not-disrupt`` and for pods a PodDisruptionBudget does not let it evict (it disrupts only
nodes whose pods it can evict: kubernetes-sigs/karpenter ``pkg/utils/pdb``). Limits, weights and budgets themselves
drift nothing. An AMI alias (``al2023@latest``) resolves per Kubernetes version (aws/karpenter-provider-aws
``pkg/providers/amifamily``): when the control plane moves, every node of a class with an alias drifts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from eks_training.infra.tools.check.change.findings import Change
from eks_training.infra.tools.check.change.manifests import Manifests
from eks_training.infra.tools.check.change.template_diff import TemplateDiff
from eks_training.infra.tools.check.network_policy import selector_matches
from eks_training.infra.tools.check.placement import Placement

#: Node group properties EKS applies through UpdateNodegroupVersion, which replaces every node.
ROLLING_PROPERTIES = ("Version", "ReleaseVersion", "LaunchTemplate")
DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt"


def node_group_changes(diff: TemplateDiff, placements: Sequence[Placement],
                       held: Mapping[str, str] | None = None) -> list[Change]:
    """Every managed node group that rolls, with what its drain does to the jobs there (``held``: job kind -> the
    PodDisruptionBudget that refuses its pods' eviction, :func:`held_job_kinds`)."""
    changes = []
    for change in diff.of("update"):
        if change.type != "AWS::EKS::Nodegroup":
            continue
        rolling = [p for p in ROLLING_PROPERTIES if p in change.changed]
        if not rolling:
            continue
        why = ", ".join(_why_rolls(prop, change, diff) for prop in rolling)
        props = change.new.get("Properties") or {}
        name = props.get("NodegroupName") or change.logical_id
        jobs, _ = evicted(placements, lambda s: s.logical_id == change.logical_id)
        force = bool(props.get("ForceUpdateEnabled"))
        held_here = [kind for kind in jobs if kind in (held or {})]
        changes.append(Change("roll", change.logical_id, (
            f"node group {name} rolls every node, {_pace(props)} ({why}): each is drained and replaced; "
            f"{_drain(change.logical_id, placements, held or {}, force, rolling=True)}"),
            # Routine unless a budget holds a job there: the deploy then fails (or, forced, breaks the budget).
            destructive=bool(held_here)))
    return changes


def _pace(props: Mapping[str, Any]) -> str:
    """How many nodes EKS takes down at once (``UpdateConfig``; EKS's default is one)."""
    config = props.get("UpdateConfig") or {}
    if "MaxUnavailablePercentage" in config:
        return f"{config['MaxUnavailablePercentage']}% of its nodes at a time (UpdateConfig)"
    count = config.get("MaxUnavailable", 1)
    source = "UpdateConfig" if "MaxUnavailable" in config else "EKS's default: no UpdateConfig"
    return f"{count} node{'s' if str(count) != '1' else ''} at a time ({source})"


def replaced_node_group_evictions(logical_id: str, placements: Sequence[Placement],
                                  held: Mapping[str, str] | None = None, force: bool = False) -> str:
    """What deleting the group's nodes (a replacement or a removal) does to the pods that may run there now."""
    jobs, others = evicted(placements, lambda s: s.logical_id == logical_id)
    if not jobs:
        # The check places the jobs it renders for the new config; jobs submitted before the change may still run.
        return ("every pod still running there is evicted with its node (no job kind rendered for the new config "
                f"lands there{f'; {others} platform pod templates move' if others else ''}): drain it first "
                "(README: Rename or remove a namespace, pool, queue or node group)")
    return _drain(logical_id, placements, held or {}, force)


def _drain(logical_id: str, placements: Sequence[Placement], held: Mapping[str, str], force: bool,
           rolling: bool = False) -> str:
    """What EKS's drain of a managed node group does to the pods that may run there (``rolling``: one node at a time,
    each replaced, rather than the whole group deleted)."""
    jobs, others = evicted(placements, lambda s: s.logical_id == logical_id)
    evictions = _requeued if rolling else _evictions
    if force:
        return ("pods are deleted even where a PodDisruptionBudget holds them (ForceUpdateEnabled); "
                + evictions(jobs, others))
    waiting = [kind for kind in jobs if kind in held]
    free = [kind for kind in jobs if kind not in held]
    parts = []
    if free or not waiting:
        parts.append(evictions(free, others))
    if waiting:
        budgets = ", ".join(f"{kind} ({held[kind]})" for kind in waiting)
        parts.append(f"while a job of {budgets} runs on a node, its PodDisruptionBudget refuses the eviction: EKS "
                     "waits 15 minutes, then the update fails (PodEvictionFailure) and the stack rolls back; "
                     "drain the group first or wait for those jobs to end")
    return "; ".join(parts)


def karpenter_changes(before: Manifests, after: Manifests, placements: Sequence[Placement],
                      protected: set[str], *, control_plane_move: str | None = None) -> list[Change]:
    """Every NodePool whose nodes drift, with what Karpenter does to the pods on them (``protected``: job kinds it
    waits for; ``control_plane_move``: "1.35 -> 1.36" when the cluster's version moves)."""
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
        aliases = [t["alias"] for t in ((new_classes.get(class_name) or {}).get("spec") or {}).get("amiSelectorTerms") or []
                   if isinstance(t, Mapping) and t.get("alias")]
        if control_plane_move and aliases:
            reasons.append(f"its AMI alias {aliases[0]} resolves to the new version's AMIs when the control plane "
                           f"moves {control_plane_move}")
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
        tail = (f"; it waits for {', '.join(waits)} ({DO_NOT_DISRUPT} or a PodDisruptionBudget)" if waits else "")
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
    """Job kinds Karpenter does not disrupt: every pod template carries ``karpenter.sh/do-not-disrupt: "true"``, or
    a PodDisruptionBudget holds their pods (:func:`held_job_kinds`)."""
    protected = set(held_job_kinds(jobs))
    for kind, objects in (jobs or {}).items():
        annotations = list(_pod_template_annotations(objects))
        if annotations and all(str(a.get(DO_NOT_DISRUPT)).lower() == "true" for a in annotations):
            protected.add(kind)
    return protected


def held_job_kinds(jobs: Mapping[str, list[dict]] | None) -> dict[str, str]:
    """Job kind -> the PodDisruptionBudget (``namespace/name``) among its rendered objects that selects its pods and
    allows no eviction while they all run: ``maxUnavailable`` 0, ``minAvailable`` 100%, or ``minAvailable`` at least
    the number of pods it selects (replicas x parallelism of the templates; where that cannot be counted, as for a
    TrainJob whose pods its runtime makes, any ``minAvailable`` is taken to hold them)."""
    held = {}
    for kind, objects in (jobs or {}).items():
        objects = [o for o in objects or [] if isinstance(o, dict)]
        templates = [t for obj in objects if obj.get("kind") != "PodDisruptionBudget" for t in _labelled_pods(obj)]
        for budget in (o for o in objects if o.get("kind") == "PodDisruptionBudget"):
            namespace = (budget.get("metadata") or {}).get("namespace")
            spec = budget.get("spec") or {}
            selected = [count for ns, labels, count in templates
                        if ns in (namespace, None) and selector_matches(spec.get("selector"), labels)]
            if selected and _allows_no_eviction(spec, selected):
                held[kind] = f"{namespace}/{(budget.get('metadata') or {}).get('name')}"
                break
    return held


def _allows_no_eviction(spec: Mapping[str, Any], selected: list[int | None]) -> bool:
    if str(spec.get("maxUnavailable")) in ("0", "0%"):
        return True
    minimum = spec.get("minAvailable")
    if str(minimum) == "100%":
        return True
    if not isinstance(minimum, int) or minimum < 1:
        return False
    return None in selected or minimum >= sum(selected)  # type: ignore[arg-type]


#: Labels a controller puts on the pods it makes from an object's templates (their values: the object's name), which
#: a PodDisruptionBudget may select although no template carries them.
_CONTROLLER_LABELS = {
    ("batch", "Job"): ("batch.kubernetes.io/job-name", "job-name"),
    ("batch.volcano.sh", "Job"): ("volcano.sh/job-name",),
    ("jobset.x-k8s.io", "JobSet"): ("jobset.sigs.k8s.io/jobset-name",),
    ("trainer.kubeflow.org", "TrainJob"): ("jobset.sigs.k8s.io/jobset-name",),  # its JobSet takes its name
    ("kubeflow.org", "MPIJob"): ("training.kubeflow.org/job-name",),  # launcher and workers (MPI Operator 0.8)
}


def _controller_labels(obj: Mapping[str, Any]) -> dict[str, str]:
    group = str(obj.get("apiVersion") or "").rpartition("/")[0] or str(obj.get("apiVersion") or "")
    name = (obj.get("metadata") or {}).get("name")
    keys = _CONTROLLER_LABELS.get((group, obj.get("kind")), ()) if name else ()
    return {key: name for key in keys}


def _labelled_pods(obj: Any, count: int | None = 1, namespace: str | None = None,
                   given: Mapping[str, str] | None = None) -> Iterable[tuple[str | None, dict, int | None]]:
    """(namespace, labels, how many pods) of every pod template in ``obj``, the counts multiplied down the tree
    (``replicas``, ``parallelism``), the labels with those the object's controller adds (``given``); label sets
    outside a pod template (a TrainJob's pod overrides) count as unknown."""
    if isinstance(obj, list):
        for item in obj:
            yield from _labelled_pods(item, count, namespace, given)
        return
    if not isinstance(obj, dict):
        return
    if "kind" in obj:
        namespace = (obj.get("metadata") or {}).get("namespace") or namespace
        given = {**(given or {}), **_controller_labels(obj)}
    for key in ("replicas", "parallelism"):
        if isinstance(obj.get(key), int) and count is not None:
            count *= obj[key]
    template = obj.get("template")
    pod = isinstance(template, dict) and isinstance(template.get("spec"), dict) and "containers" in template["spec"]
    if pod:
        yield namespace, {**dict((template.get("metadata") or {}).get("labels") or {}), **(given or {})}, count
    elif "kind" not in obj and isinstance((obj.get("metadata") or {}).get("labels"), dict):
        yield namespace, {**dict(obj["metadata"]["labels"]), **(given or {})}, None
    for key, value in obj.items():
        if key != "metadata" and not (pod and key == "template"):
            yield from _labelled_pods(value, count, namespace, given)


def _pod_template_annotations(objects: Iterable[Any]) -> Iterable[Mapping[str, Any]]:
    for obj in objects:
        if isinstance(obj, dict):
            template = obj.get("template")
            if isinstance(template, dict) and isinstance(template.get("spec"), dict) and "containers" in template["spec"]:
                yield (template.get("metadata") or {}).get("annotations") or {}
            yield from _pod_template_annotations(obj.values())
        elif isinstance(obj, list):
            yield from _pod_template_annotations(obj)


def _requeued(jobs: Sequence[str], others: int) -> str:
    if jobs:
        return (f"running pods of {', '.join(jobs)} are evicted as their node drains: each gets SIGTERM and its grace "
                "period to save a checkpoint, and its job requeues and resumes from it"
                + (f"; {others} platform pod templates move" if others else ""))
    return _evictions(jobs, others)


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
