"""Kueue in the deploy check: would each queued job be admitted, and would its pods then find a node?

Read from the app's own objects (ResourceFlavors, ClusterQueues, LocalQueues, Topologies, WorkloadPriorityClasses),
this does what Kueue's flavor assigner does with a job, as far as it decides where pods go:

* a job's PodSets (a batch Job's pods, an MPIJob's launcher and workers, a RayJob's head, worker groups and
  submitter, a TrainJob's trainer pods from its ClusterTrainingRuntime) each take one flavor of the queue, tried in
  order: a topology request needs a topology-aware flavor whose Topology has the level, a PodSet without one a
  quota-only flavor; the flavor's node taints must be tolerated and its node labels must satisfy the pod's node
  selector and required affinity, restricted to the label keys the queue's flavors use; every resource the pods
  request must be covered by the queue and fit its nominal quota plus what its cohort can lend;
* the admitted pods, with the flavor's node labels added to their node selector, must then fit a node source that
  can have a node (for a topology-aware flavor: one whose nodes exist before the job, as Kueue counts only Ready
  nodes), and a required topology level must be a label those nodes carry;
* every nominal quota must be usable: the flavor describes nodes that can exist, and no more accelerators than
  those sources can hold;
* a namespace's ResourceQuota must allow what its queue admits (nominal plus borrowable, over every flavor): the API
  server refuses pods beyond it, so a job Kueue admitted past it would never start.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from eks_training.core.catalog import ACCELERATOR_RESOURCE
from eks_training.infra.tools.check.kube import pod_requests, quantity, selector_mismatches, untolerated_taints, why_not
from eks_training.infra.tools.check.placement import PodTemplate
from eks_training.infra.tools.check.snapshot import NodeSource, PlatformSnapshot
from eks_training.workloads.job_queueing import (
    BATCH_JOB,
    INTEGRATIONS,
    MPIJOB,
    PREFERRED_TOPOLOGY,
    PRIORITY_LABEL,
    QUEUE_LABEL,
    RAYCLUSTER,
    RAYJOB,
    REQUIRED_TOPOLOGY,
    TRAINJOB,
)
from eks_training.workloads.job_trainjob import trainjob_pod_spec

#: KubeRay's default submitter pod, as Kueue counts it (a RayJob in K8sJobMode without a submitter template).
_RAY_SUBMITTER = {"containers": [{"name": "ray-job-submitter", "resources": {
    "requests": {"cpu": "500m", "memory": "200Mi"}, "limits": {"cpu": "1", "memory": "1Gi"}}}],
    "restartPolicy": "Never"}

Finding = tuple[str, str, str]  # subject, field, message


@dataclass(frozen=True)
class PodSet:
    """What Kueue admits as one unit of a job: ``count`` pods of ``spec``, and its topology request (None: none)."""

    name: str
    count: int
    spec: Mapping[str, Any]
    topology: tuple[str, bool] | None = None  # (level, required)


@dataclass
class KueueObjects:
    """The app's Kueue objects by name."""

    flavors: dict[str, dict] = field(default_factory=dict)
    topologies: dict[str, list[str]] = field(default_factory=dict)
    cluster_queues: dict[str, dict] = field(default_factory=dict)
    local_queues: dict[tuple[str, str], str] = field(default_factory=dict)  # (namespace, name) -> ClusterQueue
    priorities: set[str] = field(default_factory=set)
    runtimes: dict[str, dict] = field(default_factory=dict)  # ClusterTrainingRuntimes


def kueue_objects(snap: PlatformSnapshot) -> KueueObjects:
    found = KueueObjects()
    for _, obj in snap.objects():
        kind, meta = obj.get("kind"), obj.get("metadata") or {}
        name = meta.get("name")
        if not str(obj.get("apiVersion", "")).startswith(("kueue.x-k8s.io/", "trainer.kubeflow.org/")):
            continue
        if kind == "ResourceFlavor":
            found.flavors[name] = obj
        elif kind == "Topology":
            found.topologies[name] = [level["nodeLabel"] for level in obj["spec"]["levels"]]
        elif kind == "ClusterQueue":
            found.cluster_queues[name] = obj
        elif kind == "LocalQueue":
            found.local_queues[(meta.get("namespace"), name)] = obj["spec"]["clusterQueue"]
        elif kind == "WorkloadPriorityClass":
            found.priorities.add(name)
        elif kind == "ClusterTrainingRuntime":
            found.runtimes[name] = obj
    return found


# --- the PodSets Kueue makes of a job --------------------------------------------------------------------------------


def _topology(template: Mapping[str, Any]) -> tuple[str, bool] | None:
    annotations = (template.get("metadata") or {}).get("annotations") or {}
    if REQUIRED_TOPOLOGY in annotations:
        return annotations[REQUIRED_TOPOLOGY], True
    if PREFERRED_TOPOLOGY in annotations:
        return annotations[PREFERRED_TOPOLOGY], False
    return None


def _podset(name: str, count: int, template: Mapping[str, Any]) -> PodSet:
    return PodSet(name, int(count), dict((template or {}).get("spec") or {}), _topology(template or {}))


def _ray_podsets(spec: Mapping[str, Any]) -> list[PodSet]:
    podsets = [_podset("head", 1, spec["headGroupSpec"]["template"])]
    for group in spec.get("workerGroupSpecs") or []:
        count = group.get("replicas", group.get("minReplicas", 1)) * group.get("numOfHosts", 1)
        podsets.append(_podset(group["groupName"], count, group["template"]))
    return podsets


def podsets(obj: Mapping[str, Any], runtimes: Mapping[str, dict]) -> list[PodSet] | str:
    """The job's PodSets as Kueue counts them, or why they cannot be known (a TrainJob's runtime that is missing)."""
    kind, spec = obj.get("kind"), obj.get("spec") or {}
    if BATCH_JOB.admits(obj):
        return [_podset("main", spec.get("parallelism", 1), spec["template"])]
    if MPIJOB.admits(obj):
        return [_podset(role.lower(), replica.get("replicas", 1), replica["template"])
                for role, replica in (spec.get("mpiReplicaSpecs") or {}).items()]
    if RAYCLUSTER.admits(obj):
        return _ray_podsets(spec)
    if RAYJOB.admits(obj):
        sets = _ray_podsets(spec["rayClusterSpec"])
        if spec.get("submissionMode", "K8sJobMode") == "K8sJobMode":
            sets.append(_podset("submitter", 1, spec.get("submitterPodTemplate") or {"spec": _RAY_SUBMITTER}))
        return sets
    if TRAINJOB.admits(obj):
        name = spec["runtimeRef"]["name"]
        if name not in runtimes:
            return f"names ClusterTrainingRuntime {name!r}, which the app does not create (it has " \
                   f"{', '.join(sorted(runtimes)) or 'none'})"
        template = trainjob_pod_spec(obj, runtimes[name])
        return [_podset("node", spec["trainer"].get("numNodes", 1), template)]
    return f"is a {kind}, which no Kueue integration of ours admits"


def trainjob_pods(owner: str, obj: Mapping[str, Any], runtimes: Mapping[str, dict]) -> list[PodTemplate]:
    """A TrainJob's trainer pods, as Trainer makes them from its runtime (none when the runtime is missing)."""
    if not TRAINJOB.admits(obj):
        return []
    found = podsets(obj, runtimes)
    if isinstance(found, str):
        return []
    namespace = (obj.get("metadata") or {}).get("namespace") or "default"
    return [PodTemplate(f"{owner}: TrainJob {obj['metadata']['name']} {p.name}", namespace, p.spec) for p in found]


# --- admission -----------------------------------------------------------------------------------------------------


def _restricted(spec: Mapping[str, Any], keys: set[str]) -> dict:
    """The pod's node selector and required affinity on ``keys`` only (what Kueue matches a flavor's labels with)."""
    restricted: dict = {"nodeSelector": {k: v for k, v in (spec.get("nodeSelector") or {}).items() if k in keys}}
    terms = ((((spec.get("affinity") or {}).get("nodeAffinity") or {})
              .get("requiredDuringSchedulingIgnoredDuringExecution") or {}).get("nodeSelectorTerms")) or []
    kept = []
    for term in terms:
        expressions = [e for e in term.get("matchExpressions") or [] if e.get("key") in keys]
        if not expressions:
            return restricted  # a term with nothing on these keys matches every flavor
        kept.append({"matchExpressions": expressions})
    if kept:
        restricted["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": kept}}}
    return restricted


@dataclass(frozen=True)
class Quotas:
    """One ClusterQueue's quota per (flavor, resource): nominal, and at most how much more it can borrow."""

    covered: tuple[str, ...]
    flavors: tuple[str, ...]
    nominal: Mapping[tuple[str, str], Decimal]
    borrowable: Mapping[tuple[str, str], Decimal]


def queue_quotas(name: str, kueue: KueueObjects) -> Quotas:
    queue = kueue.cluster_queues[name]
    cohort = queue["spec"].get("cohortName")

    def nominal_of(cq: Mapping[str, Any]) -> dict[tuple[str, str], tuple[Decimal, Decimal | None]]:
        amounts = {}
        for group in cq["spec"].get("resourceGroups") or []:
            for flavor in group["flavors"]:
                for resource in flavor["resources"]:
                    limit = resource.get("borrowingLimit")
                    amounts[(flavor["name"], resource["name"])] = (
                        quantity(resource["nominalQuota"]), None if limit is None else quantity(limit))
        return amounts

    own = nominal_of(queue)
    lenders = [nominal_of(cq) for other, cq in kueue.cluster_queues.items()
               if other != name and cohort is not None and cq["spec"].get("cohortName") == cohort]
    borrowable = {}
    for key, (_, limit) in own.items():
        lendable = sum((lender.get(key, (Decimal(0), None))[0] for lender in lenders), Decimal(0))
        borrowable[key] = lendable if limit is None else min(limit, lendable)
    groups = queue["spec"].get("resourceGroups") or []
    covered = tuple(r for g in groups for r in g["coveredResources"])
    flavors = tuple(f["name"] for g in groups for f in g["flavors"])
    return Quotas(covered, flavors, {k: v[0] for k, v in own.items()}, borrowable)


@dataclass
class Admission:
    """Where each PodSet of a job goes (PodSet name -> flavor), or why the queue can never admit the job."""

    flavors: dict[str, str] = field(default_factory=dict)
    borrows: bool = False
    refusal: str | None = None


def admit(sets: list[PodSet], queue: str, kueue: KueueObjects) -> Admission:
    """Kueue's flavor assignment of ``sets`` in ClusterQueue ``queue`` with every quota free (can it ever fit?)."""
    quotas = queue_quotas(queue, kueue)
    keys = {key for name in quotas.flavors for key in (kueue.flavors.get(name, {}).get("spec", {}).get("nodeLabels") or {})}
    tas_only = bool(quotas.flavors) and all((kueue.flavors.get(n, {}).get("spec") or {}).get("topologyName")
                                            for n in quotas.flavors)
    used: dict[tuple[str, str], Decimal] = {}
    result = Admission()
    for podset in sets:
        per_pod = pod_requests(podset.spec)
        uncovered = sorted(r for r, amount in per_pod.items() if amount and r not in quotas.covered)
        if uncovered:
            result.refusal = f"PodSet {podset.name} requests {', '.join(uncovered)}, which ClusterQueue {queue} does " \
                             "not cover: Kueue never admits the job"
            return result
        reasons = []
        for name in quotas.flavors:
            flavor = (kueue.flavors.get(name) or {}).get("spec")
            if flavor is None:
                reasons.append(f"{name}: no such ResourceFlavor")
                continue
            why = _flavor_mismatch(podset, flavor, kueue, keys, tas_only)
            if why:
                reasons.append(f"{name}: {why}")
                continue
            short = []
            borrows = False
            for resource, amount in per_pod.items():
                if not amount:
                    continue
                total = used.get((name, resource), Decimal(0)) + amount * podset.count
                nominal = quotas.nominal.get((name, resource), Decimal(0))
                lendable = quotas.borrowable.get((name, resource), Decimal(0))
                if total > nominal + lendable:
                    extra = f" + {_amount(resource, lendable)} borrowable" if lendable else ""
                    short.append(f"{resource} {_amount(resource, total)} > quota {_amount(resource, nominal)}{extra}")
                borrows |= total > nominal
            if short:
                reasons.append(f"{name}: {'; '.join(short)}")
                continue
            for resource, amount in per_pod.items():
                used[(name, resource)] = used.get((name, resource), Decimal(0)) + amount * podset.count
            result.flavors[podset.name] = name
            result.borrows |= borrows
            break
        else:
            result.refusal = f"PodSet {podset.name} ({podset.count} pods) fits no flavor of ClusterQueue {queue}: " \
                             + " | ".join(reasons[:3])
            return result
    return result


def _flavor_mismatch(podset: PodSet, flavor: Mapping[str, Any], kueue: KueueObjects, keys: set[str],
                     tas_only: bool) -> str | None:
    topology = flavor.get("topologyName")
    wants_topology = podset.topology is not None or tas_only
    if wants_topology and not topology:
        return "quota only, and the PodSet asks for topology-aware placement"
    if not wants_topology and topology:
        return "topology-aware only, and the PodSet makes no topology request"
    if podset.topology is not None:
        levels = kueue.topologies.get(topology)
        if levels is None:
            return f"its Topology {topology!r} does not exist"
        if podset.topology[0] not in levels:
            return f"its Topology {topology} has no level {podset.topology[0]}"
    tolerations = [*(podset.spec.get("tolerations") or []), *(flavor.get("tolerations") or [])]
    untolerated = untolerated_taints(tolerations, flavor.get("nodeTaints") or [])
    if untolerated:
        return f"taint {untolerated[0]['key']}:{untolerated[0]['effect']} not tolerated"
    mismatches = selector_mismatches(_restricted(podset.spec, keys), flavor.get("nodeLabels") or {})
    if mismatches:
        return f"node labels fail the pod's {mismatches[0]}"
    return None


def _amount(resource: str, amount: Decimal) -> str:
    return f"{amount / 2**30:.0f}Gi" if resource == "memory" else format(amount.normalize(), "f")


def admitted_spec(podset: PodSet, flavor: Mapping[str, Any]) -> dict:
    """The pod spec Kueue lets run: the flavor's node labels joined to the node selector, its tolerations added."""
    spec = dict(podset.spec)
    spec["nodeSelector"] = {**(spec.get("nodeSelector") or {}), **(flavor.get("nodeLabels") or {})}
    spec["tolerations"] = [*(spec.get("tolerations") or []), *(flavor.get("tolerations") or [])]
    return spec


# --- the findings --------------------------------------------------------------------------------------------------


def sources_of(flavor: Mapping[str, Any], sources: list[NodeSource]) -> list[NodeSource]:
    """The node sources a flavor describes: those whose nodes carry all of its node labels."""
    labels = flavor.get("nodeLabels") or {}
    return [s for s in sources if all(s.labels.get(k) == v for k, v in labels.items())]


def source_limit(snap: PlatformSnapshot, source: NodeSource, resource: str) -> Decimal:
    """The most of ``resource`` a node source ever holds: a node group's largest size, a Karpenter pool's limit."""
    per_node = source.capacity.get(resource, Decimal(0))
    resource_props = snap.resources.get(source.logical_id, {}).get("Properties", {})
    if source.kind == "node group":
        return per_node * int((resource_props.get("ScalingConfig") or {}).get("MaxSize", 0) or 0)
    pool = next((obj for lid, obj in snap.objects() if lid == source.logical_id and obj.get("kind") == "NodePool"
                 and source.labels.get("karpenter.sh/nodepool") == obj["metadata"]["name"]), None)
    limit = ((pool or {}).get("spec") or {}).get("limits", {}).get(resource)
    return quantity(limit) if limit is not None else Decimal("Infinity")


@dataclass(frozen=True)
class Admitted:
    """Where one job, submitted through one LocalQueue, is admitted: PodSet -> flavor, and whether it borrows."""

    job: str
    local_queue: str
    flavors: Mapping[str, str]
    borrows: bool


def queue_findings(snap: PlatformSnapshot, jobs: Mapping[str, list[dict]] | None, advertised: Mapping[str, set[str]],
                   admitted: list[Admitted] | None = None) -> list[Finding]:
    """Failures of the app's Kueue queues and of every queued job of ``jobs``; each admission found is appended to
    ``admitted``."""
    kueue = kueue_objects(snap)
    findings: list[Finding] = []
    admitted = [] if admitted is None else admitted
    if not kueue.cluster_queues:
        queued = [kind for kind, objects in (jobs or {}).items() for obj in objects
                  if QUEUE_LABEL in ((obj.get("metadata") or {}).get("labels") or {})]
        for kind in queued:
            findings.append((f"job {kind}", f"metadata.labels.{QUEUE_LABEL}",
                             "names a Kueue queue, and the app installs no ClusterQueue: the job stays suspended"))
        return findings
    findings += _quota_findings(snap, kueue)
    findings += _namespace_quota_findings(snap, kueue)
    for kind, objects in (jobs or {}).items():
        for obj in objects:
            if not any(i.admits(obj) for i in INTEGRATIONS):
                continue
            findings += _job_findings(f"job {kind}", obj, snap, kueue, advertised, admitted)
    return findings


def _job_findings(owner: str, obj: Mapping[str, Any], snap: PlatformSnapshot, kueue: KueueObjects,
                  advertised: Mapping[str, set[str]], admitted: list[Admitted]) -> Iterator[Finding]:
    meta = obj.get("metadata") or {}
    subject = f"{owner}: {obj['kind']} {meta.get('name')}"
    labels = meta.get("labels") or {}
    namespace = meta.get("namespace") or "default"
    if QUEUE_LABEL not in labels:
        if any(ns == namespace for ns, _ in kueue.local_queues):
            yield (subject, f"metadata.labels.{QUEUE_LABEL}", f"missing: namespace {namespace} queues its jobs, and "
                   "this one would run outside its team's quota")
        return
    if (namespace, labels[QUEUE_LABEL]) not in kueue.local_queues:
        yield (subject, f"metadata.labels.{QUEUE_LABEL}", f"{labels[QUEUE_LABEL]!r} is no LocalQueue of namespace "
               f"{namespace}: the job stays suspended")
        return
    priority = labels.get(PRIORITY_LABEL)
    if priority is not None and priority not in kueue.priorities:
        yield (subject, f"metadata.labels.{PRIORITY_LABEL}", f"{priority!r} is no WorkloadPriorityClass "
               f"({', '.join(sorted(kueue.priorities)) or 'none'}): Kueue refuses the job")
    sets = podsets(obj, kueue.runtimes)
    if isinstance(sets, str):
        yield (subject, "spec", sets)
        return
    # The same job, submitted through every LocalQueue of the app.
    for (queue_namespace, local), cluster_queue in sorted(kueue.local_queues.items()):
        if cluster_queue not in kueue.cluster_queues:
            yield (f"LocalQueue {queue_namespace}/{local}", "spec.clusterQueue",
                   f"{cluster_queue!r} is no ClusterQueue of the app")
            continue
        where = f"{subject} through LocalQueue {queue_namespace}/{local}"
        admission = admit(sets, cluster_queue, kueue)
        if admission.refusal:
            yield (where, "admission", admission.refusal)
            continue
        admitted.append(Admitted(subject, f"{queue_namespace}/{local}", admission.flavors, admission.borrows))
        for podset in sets:
            flavor_name = admission.flavors[podset.name]
            flavor = kueue.flavors[flavor_name]["spec"]
            yield from _landing(where, podset, flavor_name, flavor, snap, kueue, advertised)


def _landing(where: str, podset: PodSet, flavor_name: str, flavor: Mapping[str, Any], snap: PlatformSnapshot,
             kueue: KueueObjects, advertised: Mapping[str, set[str]]) -> Iterator[Finding]:
    spec = admitted_spec(podset, flavor)
    fits = [s for s in snap.node_sources if not why_not(spec, labels=s.labels, taints=s.taints,
                                                         allocatable=s.allocatable(advertised.get(s.name, set())))]
    subject = f"{where} PodSet {podset.name}"
    if not any(s.can_have_nodes for s in fits):
        described = [s.name for s in sources_of(flavor, snap.node_sources)]
        yield (subject, f"flavor {flavor_name}",
               f"admitted there, its pods land on no node that can exist (the flavor describes "
               f"{', '.join(described) or 'no node source'}{'; they fit only ' + ', '.join(s.name for s in fits) if fits else ''})")
        return
    if podset.topology is None and not flavor.get("topologyName"):
        return
    level, required = podset.topology or (None, False)
    if not any(s.standing for s in fits):
        yield (subject, f"flavor {flavor_name}", "topology-aware, and none of its nodes exist before a job asks "
               f"({', '.join(s.name for s in fits)}): Kueue places by topology on Ready nodes only, so it never "
               "admits the job")
    if required and level and not any(level in s.labels for s in fits):
        yield (subject, f"annotations.{REQUIRED_TOPOLOGY}", f"requires {level}, which no node of "
               f"{', '.join(s.name for s in fits)} carries: Kueue never admits the job")


def _quota_findings(snap: PlatformSnapshot, kueue: KueueObjects) -> Iterator[Finding]:
    totals: dict[tuple[str, str], Decimal] = {}
    for name in kueue.cluster_queues:
        quotas = queue_quotas(name, kueue)
        for (flavor_name, resource), amount in quotas.nominal.items():
            if not amount:
                continue
            totals[(flavor_name, resource)] = totals.get((flavor_name, resource), Decimal(0)) + amount
            flavor = (kueue.flavors.get(flavor_name) or {}).get("spec")
            if flavor is None:
                yield (f"ClusterQueue {name}", f"flavor {flavor_name}", "is no ResourceFlavor of the app")
                continue
            if not any(s.can_have_nodes for s in sources_of(flavor, snap.node_sources)):
                described = [s.name for s in sources_of(flavor, snap.node_sources)]
                yield (f"ClusterQueue {name}", f"flavor {flavor_name} {resource}",
                       f"quota {_amount(resource, amount)} on nodes that never exist "
                       f"({', '.join(described) or 'no node source has its labels'}): jobs admitted there never run")
    accelerators = set(ACCELERATOR_RESOURCE.values())
    for (flavor_name, resource), total in totals.items():
        flavor = (kueue.flavors.get(flavor_name) or {}).get("spec")
        if flavor is None or resource not in accelerators:
            continue
        sources = sources_of(flavor, snap.node_sources)
        limit = sum((source_limit(snap, s, resource) for s in sources), Decimal(0)) if sources else Decimal(0)
        if total > limit:
            yield (f"flavor {flavor_name}", resource, f"the queues' quotas add up to {_amount(resource, total)}, more "
                   f"than its nodes ever hold ({_amount(resource, limit)}): jobs admitted beyond that never run")


def _namespace_quota_findings(snap: PlatformSnapshot, kueue: KueueObjects) -> Iterator[Finding]:
    """Each ResourceQuota of a namespace that submits to a ClusterQueue allows all that queue admits."""
    hard_limits: dict[str, list[tuple[str, dict]]] = {}
    for _, obj in snap.objects():
        if obj.get("kind") == "ResourceQuota" and obj.get("apiVersion") == "v1":
            meta = obj.get("metadata") or {}
            hard_limits.setdefault(meta.get("namespace") or "default", []).append(
                (meta.get("name"), (obj.get("spec") or {}).get("hard") or {}))
    for (namespace, local), cluster_queue in sorted(kueue.local_queues.items()):
        if cluster_queue not in kueue.cluster_queues or namespace not in hard_limits:
            continue
        quotas = queue_quotas(cluster_queue, kueue)
        admitted: dict[str, Decimal] = {}
        for (flavor, resource), nominal in quotas.nominal.items():
            extra = quotas.borrowable.get((flavor, resource), Decimal(0))
            admitted[resource] = admitted.get(resource, Decimal(0)) + nominal + extra
        for quota_name, hard in hard_limits[namespace]:
            for resource, most in sorted(admitted.items()):
                key = next((k for k in (f"requests.{resource}", resource) if k in hard), None)
                if key is None or resource == "pods":
                    continue
                limit = quantity(hard[key])
                if limit < most:
                    yield (f"ResourceQuota {namespace}/{quota_name}", f"spec.hard.{key}",
                           f"{_amount(resource, limit)} is below what ClusterQueue {cluster_queue} admits through "
                           f"LocalQueue {namespace}/{local} ({_amount(resource, most)}, borrowing included): Kueue "
                           "would admit jobs whose pods the API server then refuses")
