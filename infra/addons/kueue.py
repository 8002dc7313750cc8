"""Kueue: jobs queue by team quota, and multi-node jobs are placed by network topology (pin: core.versions.KUEUE)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import yaml
from constructs import Construct, IConstruct

from eks_training.constructs.cluster import TrainingCluster
from eks_training.constructs.node_groups import AcceleratedNodeGroup
from eks_training.core.catalog import ACCELERATOR_RESOURCE, EFA_RESOURCE, accelerator_taint
from eks_training.core.names import CPU_FLAVOR, LABEL_INSTANCE_TYPE, SYSTEM_NODE_SELECTOR, TEAM_NODE_SELECTOR, system_placement
from eks_training.core.validation import invalid
from eks_training.core.versions import KUEUE, HelmPin
from eks_training.infra.addons import AddonEntry, ClusterAddon
from eks_training.workloads.job_queueing import KUEUE_FRAMEWORKS
from eks_training.workloads.karpenter import KarpenterPool
from eks_training.workloads.kueue import Flavor, KueueQueuesChart, NetworkTopology, Quota, TeamQueue
from eks_training.workloads.kueue_admission import GangAdmission
from eks_training.workloads.network_policies import OperatorNamespacePolicy, Port
from eks_training.workloads.priorities import TRAINING_PRIORITIES, TrainingPriority

#: The label each node source's own controller puts on its nodes, naming the source: EKS on a managed node group's
#: nodes, Karpenter on a NodePool's (what a flavor selects: Kueue writes it into the admitted pods' node selector).
SOURCE_LABEL = {"node group": "eks.amazonaws.com/nodegroup", "Karpenter pool": "karpenter.sh/nodepool"}
#: Where the release's image comes from: the in-repo chart names the staging registry (the release tooling rewrites
#: it in the published package), so the release and the chart the check renders both name the promoted image.
KUEUE_IMAGE = "registry.k8s.io/kueue/kueue"
#: The ports the API server calls in Kueue's namespace: the admission webhooks and the visibility APIService.
KUEUE_WEBHOOK_PORT, KUEUE_VISIBILITY_PORT = 9443, 8082
#: The chart's webhook configurations (failurePolicy Fail); Kueue's own certificate manager sets their CA bundles.
KUEUE_WEBHOOKS = (("mutatingwebhookconfiguration", "kueue-mutating-webhook-configuration"),
                  ("validatingwebhookconfiguration", "kueue-validating-webhook-configuration"))


def manager_configuration(namespaces: Sequence[str], frameworks: Sequence[str],
                          gang_admission: GangAdmission = GangAdmission()) -> dict:
    """Kueue's `Configuration` (config.kueue.x-k8s.io/v1beta2): the chart's defaults, the job integrations our kinds
    use, only the training namespaces managed (its webhooks see nothing else, so no platform Job elsewhere ever
    waits on Kueue), and all-or-nothing admission (:class:`GangAdmission`)."""
    return {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "health": {"healthProbeBindAddress": ":8081"},
        "metrics": {"bindAddress": ":8443"},
        "webhook": {"port": 9443},
        "leaderElection": {"leaderElect": True, "resourceName": "c1f6bfd2.kueue.x-k8s.io"},
        "controller": {"groupKindConcurrency": {"Job.batch": 5, "Pod": 5, "Workload.kueue.x-k8s.io": 10,
                                                "LocalQueue.kueue.x-k8s.io": 5, "ClusterQueue.kueue.x-k8s.io": 5,
                                                "ResourceFlavor.kueue.x-k8s.io": 1}},
        "clientConnection": {"qps": 300, "burst": 500},
        "managedJobsNamespaceSelector": {"matchExpressions": [
            {"key": "kubernetes.io/metadata.name", "operator": "In", "values": sorted(namespaces)}]},
        "waitForPodsReady": gang_admission.wait_for_pods_ready(),
        "integrations": {"frameworks": list(frameworks)},
    }


class Kueue(ClusterAddon):
    """Kueue's controller and webhooks, and the flavors, queues and priorities that admit the training jobs.

    * ``flavors``: the ResourceFlavors (:class:`Flavor`), in the order queues try them.
    * ``queues``: one :class:`TeamQueue` per team; each of its namespaces gets its LocalQueue.
    * ``priorities``: the WorkloadPriorityClasses. Default: the training priorities.
    * ``frameworks``: Kueue's job integrations. Default: those the platform's job kinds use.
    * ``node_selector``: where Kueue's controller runs. Default: the system nodes.
    * ``gang_admission``: how long an admitted job's pods have to be Ready before it gives its quota back, and how
      it is requeued (:class:`GangAdmission`). Default: ``GangAdmission()``.
    * ``version``: the chart pin. Default: :data:`KUEUE`.

    Its namespace is made by the add-on (baseline Pod Security, default deny, DNS and the API out, the webhook and
    visibility ports in from the VPC).

    Attributes: ``release`` (the Helm release), ``webhooks_ready`` (waiters for its webhooks' CA bundles),
    ``queues_manifest`` (priorities, topology; None without either), ``queue_manifests`` (the construct holding
    each flavor's, cohort's and queue's own manifest), ``queues``, ``gang_admission``.
    """

    def __init__(self, scope: Construct, id: str, *, cluster: TrainingCluster, flavors: Sequence[Flavor],
                 queues: Sequence[TeamQueue], priorities: Sequence[TrainingPriority] = TRAINING_PRIORITIES,
                 frameworks: Sequence[str] = KUEUE_FRAMEWORKS, node_selector: Mapping[str, str] = SYSTEM_NODE_SELECTOR,
                 gang_admission: GangAdmission = GangAdmission(), version: HelmPin = KUEUE,
                 after: Sequence[IConstruct] = ()) -> None:
        super().__init__(scope, id, cluster=cluster, after=after)
        if isinstance(queues, (str, bytes)) or not queues:
            raise invalid(f"{self.node.path}: queues", queues, "at least one TeamQueue (Kueue admits nothing without)")
        #: The team queues, each with the namespaces whose LocalQueue submits to it.
        self.queues: tuple[TeamQueue, ...] = tuple(queues)
        if not isinstance(gang_admission, GangAdmission):
            raise invalid(f"{self.node.path}: gang_admission", gang_admission, "a GangAdmission")
        #: All-or-nothing admission: Kueue's waitForPodsReady.
        self.gang_admission = gang_admission
        namespaces = [namespace for queue in queues for namespace in queue.namespaces]
        values = {
            "controllerManager": {**system_placement(node_selector), "manager": {"image": {
                "repository": KUEUE_IMAGE, "tag": f"v{version.version}", "pullPolicy": "IfNotPresent"}}},
            "managerConfig": {"controllerManagerConfigYaml": yaml.safe_dump(
                manager_configuration(namespaces, frameworks, gang_admission), sort_keys=False)},
        }
        self.release = self.add_release(version, values, namespace=OperatorNamespacePolicy(
            version.namespace, webhook_ports=(Port(KUEUE_WEBHOOK_PORT), Port(KUEUE_VISIBILITY_PORT))))
        # Helm's wait returns before Kueue has written its webhooks' CA bundles: what they admit waits for both.
        self.webhooks_ready = [self.wait_for_webhook(name, kind=kind, after=self.release) for kind, name in KUEUE_WEBHOOKS]
        chart = KueueQueuesChart(self.k8s, "kueue-queues", flavors=list(flavors), queues=list(queues),
                                 priorities=list(priorities))
        # Each flavor, cohort and queue in a manifest of its own: a renamed queue or a removed flavor is deleted (its
        # quota leaves the cohort) instead of staying behind, unmanaged (kubectl never prunes custom objects). The
        # fixed ones (priority classes, the network topology) stay in the shared manifest, which a deployed platform
        # holds: it is updated, and what moves out is taken over by its own manifest, never deleted.
        objects = chart.to_json()
        after = [self.release, *self.webhooks_ready]
        fixed = [o for o in objects if o["kind"] not in _APART]
        self.queues_manifest = self.add_chart("kueue-queues", fixed, after=after) if fixed else None
        self.queue_manifests = self.add_objects_apart("kueue-queue", [o for o in objects if o["kind"] in _APART],
                                                      after=after)


#: The Kueue kinds that come and go with the config, each object in a manifest of its own.
_APART = ("ResourceFlavor", "Cohort", "ClusterQueue", "LocalQueue")


# --- flavors of the nodes an app made ------------------------------------------------------------------------------


def node_group_flavor(group: AcceleratedNodeGroup, *, name: str | None = None, topology: bool = True) -> Flavor:
    """The ResourceFlavor of an accelerated node group: its nodes' group and instance-type labels, its accelerator's
    taint, and (``topology``, default True, where the type carries EC2's network labels) topology-aware placement.

    ``name``: the flavor's (default: the group's ``nodegroup_name``, which the group must then have: its nodes'
    label carries it, and a name CloudFormation generates is known only at deploy time).
    """
    group_name = group.nodegroup_name
    if group_name is None:
        raise invalid(f"{group.node.path}: nodegroup_name", None, "a name of your own for a node group Kueue "
                      "admits jobs to (the flavor selects its nodes by it)")
    layers = group.facts.network_layers if topology else 0
    return Flavor(name or group_name, {SOURCE_LABEL["node group"]: group_name, LABEL_INSTANCE_TYPE: group.instance_type},
                  node_taints=(accelerator_taint(group.accelerator),),
                  topology=NetworkTopology(layers) if layers else None)


def pool_flavors(pool: KarpenterPool) -> list[Flavor]:
    """The ResourceFlavors of a Karpenter pool: one per instance type (``<pool>-<size>`` where it has several, else
    the pool's name), quota only (Kueue places by topology only on nodes that exist; a pool has none until asked)."""
    flavors = []
    for instance_type in pool.instance_types:
        name = pool.name if len(pool.instance_types) == 1 else f"{pool.name}-{instance_type.split('.', 1)[1]}"
        flavors.append(Flavor(name, {SOURCE_LABEL["Karpenter pool"]: pool.name, LABEL_INSTANCE_TYPE: instance_type},
                              node_taints=(accelerator_taint(pool.accelerator),)))
    return flavors


def cpu_flavor() -> Flavor:
    """The team CPU nodes' flavor (CPU jobs such as data preparation; no taint): TrainingCluster.add_team_node_group."""
    return Flavor(CPU_FLAVOR, dict(TEAM_NODE_SELECTOR))


# --- from an environment's config ----------------------------------------------------------------------------------


def flavors_of(config) -> list[Flavor]:
    """A flavor per node source and instance type of the environment: the labels that name its source and type, and
    the taint its nodes carry; topology-aware where the config says its nodes carry network layers (node groups)."""
    flavors = []
    for source in config.kueue_flavors():
        if source.kind == "team":
            flavors.append(Flavor(source.name, dict(TEAM_NODE_SELECTOR)))
            continue
        labels = {SOURCE_LABEL[source.kind]: source.source, LABEL_INSTANCE_TYPE: source.instance_type}
        network = NetworkTopology(source.topology_layers) if source.topology_layers else None
        flavors.append(Flavor(source.name, labels, node_taints=(accelerator_taint(source.accelerator),),
                              topology=network))
    return flavors


def queues_of(config) -> list[TeamQueue]:
    """The environment's queues with each quota in Kubernetes resources (cpu and memory default to what the
    accelerators' whole nodes offer; EFA interfaces follow the nodes)."""
    sources = {f.name: f for f in config.kueue_flavors()}
    queues = []
    for queue in config.services.kueue_queues:
        quotas = []
        for quota in queue.quotas:
            source = sources[quota.flavor]
            amounts = source.resources(quota)
            nominal: dict[str, str | int] = {"cpu": amounts["cpu"], "memory": f"{amounts['memory_gib']}Gi"}
            borrowing = {}
            if source.accelerator is not None:
                resource = ACCELERATOR_RESOURCE[source.accelerator]
                nominal[resource] = amounts["accelerators"]
                if quota.borrowing_limit is not None:
                    borrowing[resource] = quota.borrowing_limit
                if amounts["efa"]:
                    nominal[EFA_RESOURCE] = amounts["efa"]
            quotas.append(Quota(quota.flavor, nominal, borrowing))
        queues.append(TeamQueue(queue.name, tuple(queue.namespaces), tuple(quotas), cohort=queue.cohort))
    return queues


def gang_admission_of(config) -> GangAdmission:
    """The environment's ``services.kueue_gang_admission``."""
    gang = config.services.kueue_gang_admission
    return GangAdmission(timeout_minutes=gang.timeout_minutes, recovery_timeout_minutes=gang.recovery_timeout_minutes,
                         backoff_base_seconds=gang.backoff_base_seconds, backoff_max_seconds=gang.backoff_max_seconds,
                         backoff_limit_count=gang.backoff_limit_count)


ADDON = AddonEntry(
    "kueue", enabled=lambda config: config.services.kueue,
    build=lambda scope, parts, after: Kueue(
        scope, "Kueue", cluster=parts.cluster, flavors=flavors_of(parts.config), queues=queues_of(parts.config),
        gang_admission=gang_admission_of(parts.config),
        # LocalQueues go into the training namespaces.
        after=[*after, *(m for m in (parts.namespaces_manifest,) if m)]))
