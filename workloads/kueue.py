"""Kueue's objects for the training platform (`kueue.x-k8s.io/v1beta2`): what jobs are admitted by, and where to.

* a **ResourceFlavor** per node source and instance type: the node labels Kueue writes into an admitted job's pods
  (its pool and instance type), and the taints its nodes carry, so Kueue sends a job only to nodes it tolerates
  (the flavor adds no tolerations: that would send CPU-only jobs to accelerated nodes);
* a **Topology** per depth of the EC2 network hierarchy, for topology-aware flavors (`topologyName`);
* a **ClusterQueue** per team: its nominal quota on every flavor (accelerators, CPU, memory, EFA interfaces), the
  namespaces it serves, preemption of lower-priority jobs of the same queue and reclaim of what it lent;
* a **Cohort** per cohort name: its queues borrow each other's idle quota;
* a **LocalQueue** of the team's name in each of its namespaces (what jobs name in `kueue.x-k8s.io/queue-name`);
* a **WorkloadPriorityClass** per training priority.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import cdk8s
import constructs

from eks_training.core.catalog import EFA_RESOURCE, HOSTNAME_LABEL, network_layer_label
from eks_training.core.validation import invalid
from eks_training.workloads.k8s_objects import check_dns_label, check_labels, check_unique
from eks_training.workloads.labels import common_labels
from eks_training.workloads.priorities import TRAINING_PRIORITIES, TrainingPriority
from eks_training.workloads.typed_objects import emit_object

COMPONENT = "kueue"
KUEUE_API = "kueue.x-k8s.io/v1beta2"
#: The resources every queue covers; the accelerator and EFA ones join where a flavor's nodes have them.
BASE_RESOURCES = ("cpu", "memory")


def topology_name(layers: int) -> str:
    """The Topology of nodes that carry ``layers`` EC2 network layers."""
    return f"ec2-network-{layers}-layers"


@dataclass(frozen=True)
class NetworkTopology:
    """The EC2 network hierarchy of ``layers`` layers (top first), then the node itself."""

    layers: int

    @property
    def name(self) -> str:
        return topology_name(self.layers)

    @property
    def levels(self) -> tuple[str, ...]:
        return (*(network_layer_label(n) for n in range(1, self.layers + 1)), HOSTNAME_LABEL)


@dataclass(frozen=True)
class Flavor:
    """A ResourceFlavor: the nodes it stands for (``node_labels``), the taints they carry, and the Topology of a
    topology-aware flavor (None: quota only)."""

    name: str
    node_labels: Mapping[str, str]
    node_taints: tuple[Mapping[str, str], ...] = ()
    topology: NetworkTopology | None = None

    def __post_init__(self) -> None:
        check_dns_label("flavor name", self.name)
        check_labels(f"flavor {self.name!r} node_labels", self.node_labels)
        if not self.node_labels:
            raise invalid(f"flavor {self.name!r} node_labels", {}, "the labels its nodes carry (an empty set would "
                          "send jobs anywhere)")


@dataclass(frozen=True)
class Quota:
    """A queue's nominal quota on one flavor (resource name -> amount, Kubernetes quantities) and how much of each
    resource it may borrow beyond it (absent: no limit)."""

    flavor: str
    nominal: Mapping[str, str | int]
    borrowing_limit: Mapping[str, str | int] = field(default_factory=dict)


@dataclass(frozen=True)
class TeamQueue:
    """A team's ClusterQueue, the namespaces whose LocalQueue (of the same name) submits to it, and its cohort."""

    name: str
    namespaces: tuple[str, ...]
    quotas: tuple[Quota, ...]
    cohort: str | None = None

    def __post_init__(self) -> None:
        check_dns_label("queue name", self.name)
        if not self.namespaces:
            raise invalid(f"queue {self.name!r} namespaces", [], "at least one namespace (its LocalQueue submits here)")
        for namespace in self.namespaces:
            check_dns_label(f"queue {self.name!r} namespace", namespace)
        check_unique(f"queue {self.name!r} quota flavors", [q.flavor for q in self.quotas])
        if self.cohort is not None:
            check_dns_label(f"queue {self.name!r} cohort", self.cohort)


def resource_flavor(flavor: Flavor) -> dict:
    spec: dict = {"nodeLabels": dict(flavor.node_labels)}
    if flavor.node_taints:
        spec["nodeTaints"] = [dict(t) for t in flavor.node_taints]
    if flavor.topology is not None:
        spec["topologyName"] = flavor.topology.name
    return {"apiVersion": KUEUE_API, "kind": "ResourceFlavor",
            "metadata": {"name": flavor.name, "labels": common_labels(COMPONENT)}, "spec": spec}


def topology(network: NetworkTopology) -> dict:
    return {"apiVersion": KUEUE_API, "kind": "Topology",
            "metadata": {"name": network.name, "labels": common_labels(COMPONENT)},
            "spec": {"levels": [{"nodeLabel": level} for level in network.levels]}}


def covered_resources(queues: Sequence[TeamQueue]) -> list[str]:
    """cpu and memory, then every other resource some quota names, in a stable order (one resource group: Kueue
    allows a resource in only one group of a queue, and the accelerated flavors all cover cpu and memory)."""
    extra = sorted({name for q in queues for quota in q.quotas for name in quota.nominal} - set(BASE_RESOURCES),
                   key=lambda name: (name == EFA_RESOURCE, name))
    return [*BASE_RESOURCES, *extra]


def cluster_queue(queue: TeamQueue, flavors: Sequence[Flavor], resources: Sequence[str]) -> dict:
    """The team's ClusterQueue: every flavor listed (a flavor it holds no quota on is still one it may borrow)."""
    by_flavor = {q.flavor: q for q in queue.quotas}
    unknown = sorted(set(by_flavor) - {f.name for f in flavors})
    if unknown:
        raise invalid(f"queue {queue.name!r} quota flavor", unknown[0], f"one of {', '.join(f.name for f in flavors)}")
    entries = []
    for flavor in flavors:
        quota = by_flavor.get(flavor.name, Quota(flavor.name, {}))
        items = []
        for resource in resources:
            item: dict = {"name": resource, "nominalQuota": quota.nominal.get(resource, 0)}
            if resource in quota.borrowing_limit:
                item["borrowingLimit"] = quota.borrowing_limit[resource]
            items.append(item)
        entries.append({"name": flavor.name, "resources": items})
    spec: dict = {
        "namespaceSelector": {"matchExpressions": [
            {"key": "kubernetes.io/metadata.name", "operator": "In", "values": list(queue.namespaces)}]},
        # A job that cannot fit waits without holding back smaller ones behind it.
        "queueingStrategy": "BestEffortFIFO",
        # A higher-priority job of the team evicts a lower one; lent quota comes back when the lender needs it.
        "preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any",
                       "borrowWithinCohort": {"policy": "Never"}},
        "resourceGroups": [{"coveredResources": list(resources), "flavors": entries}],
    }
    if queue.cohort is not None:
        spec["cohortName"] = queue.cohort
    return {"apiVersion": KUEUE_API, "kind": "ClusterQueue",
            "metadata": {"name": queue.name, "labels": common_labels(COMPONENT)}, "spec": spec}


def cohort(name: str) -> dict:
    return {"apiVersion": KUEUE_API, "kind": "Cohort", "metadata": {"name": name, "labels": common_labels(COMPONENT)},
            "spec": {}}


def local_queue(queue: TeamQueue, namespace: str) -> dict:
    return {"apiVersion": KUEUE_API, "kind": "LocalQueue",
            "metadata": {"name": queue.name, "namespace": namespace, "labels": common_labels(COMPONENT)},
            "spec": {"clusterQueue": queue.name}}


def workload_priority_class(priority: TrainingPriority) -> dict:
    return {"apiVersion": KUEUE_API, "kind": "WorkloadPriorityClass",
            "metadata": {"name": priority.name, "labels": common_labels(COMPONENT)},
            "value": priority.value, "description": priority.description}


def kueue_objects(*, flavors: Sequence[Flavor], queues: Sequence[TeamQueue],
                  priorities: Sequence[TrainingPriority] = TRAINING_PRIORITIES) -> list[dict]:
    """Every object of the platform's queueing, cluster-scoped ones first (LocalQueues name a ClusterQueue)."""
    if isinstance(flavors, (str, bytes)) or not flavors or not all(isinstance(f, Flavor) for f in flavors):
        raise invalid("flavors", flavors, "use a non-empty list of Flavor")
    if isinstance(queues, (str, bytes)) or not queues or not all(isinstance(q, TeamQueue) for q in queues):
        raise invalid("queues", queues, "use a non-empty list of TeamQueue")
    check_unique("flavor names", [f.name for f in flavors])
    check_unique("queue names", [q.name for q in queues])
    owners = [namespace for q in queues for namespace in q.namespaces]
    check_unique("queue namespaces (one queue each)", owners)
    resources = covered_resources(queues)
    networks = sorted({f.topology for f in flavors if f.topology is not None}, key=lambda t: t.layers)
    cohorts = sorted({q.cohort for q in queues if q.cohort is not None})
    return [
        *(topology(network) for network in networks),
        *(resource_flavor(f) for f in flavors),
        *(cohort(name) for name in cohorts),
        *(cluster_queue(q, flavors, resources) for q in queues),
        *(local_queue(q, namespace) for q in queues for namespace in q.namespaces),
        *(workload_priority_class(p) for p in priorities),
    ]


class KueueQueuesChart(cdk8s.Chart):
    """Kueue's flavors, topologies, cohorts, queues and priorities (see :func:`kueue_objects`)."""

    def __init__(self, scope: constructs.Construct, id: str, *, flavors: Sequence[Flavor], queues: Sequence[TeamQueue],
                 priorities: Sequence[TrainingPriority] = TRAINING_PRIORITIES) -> None:
        super().__init__(scope, id)
        for obj in kueue_objects(flavors=flavors, queues=queues, priorities=priorities):
            emit_object(self, obj)
