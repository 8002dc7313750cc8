"""Where every pod the platform creates would land, and whether a node can exist there.

Pod templates come from every source a deploy would run: the rendered Helm releases, our own manifests (core
workloads and the pod templates inside custom resources), the JupyterHub profiles and every job kind of
``eks-training render``. Node sources come from the template (see :mod:`.snapshot`). An extended resource
counts on a node only where the device-plugin DaemonSet that advertises it lands on that node.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from eks_training.core.catalog import EFA_RESOURCE
from eks_training.infra.tools.check.kube import pod_requests, why_not
from eks_training.infra.tools.check.snapshot import DEVICE_RESOURCES, NodeSource

#: Kinds whose pod template sits at spec.template.spec.
_WORKLOAD_KINDS = ("Deployment", "StatefulSet", "DaemonSet", "Job", "ReplicaSet")
#: Slinky custom resources: their main container's key in spec (the pod template is spec.template).
_SLINKY_CONTAINERS = {"Controller": "slurmctld", "RestApi": "slurmrestd", "Accounting": "slurmdbd",
                      "LoginSet": "login", "NodeSet": "slurmd"}


@dataclass(frozen=True)
class DevicePlugin:
    """A device plugin: the DaemonSet that advertises extended resources, and the chart that installs it."""

    #: The DaemonSet's name in its chart; a release named otherwise prefixes it (``<release>-<name>``).
    daemonset: str
    #: What it covers: an accelerator kind of the catalog, or "efa".
    covers: str
    resources: tuple[str, ...]
    chart: str
    #: Where the chart reads the DaemonSet's nodeSelector, tolerations and affinity (a path into its values).
    placement_values: tuple[str, ...] = ()


DEVICE_PLUGINS = (
    DevicePlugin("nvidia-device-plugin", "nvidia", DEVICE_RESOURCES["nvidia"], "nvidia-device-plugin"),
    DevicePlugin("neuron-device-plugin", "neuron", DEVICE_RESOURCES["neuron"], "neuron-helm-chart", ("devicePlugin",)),
    DevicePlugin("aws-efa-k8s-device-plugin", "efa", (EFA_RESOURCE,), "aws-efa-k8s-device-plugin"),
)


def device_plugin(owner: str) -> DevicePlugin | None:
    """The device plugin whose DaemonSet ``owner`` ("helm <release>: DaemonSet <name>") names, if any."""
    name = owner.rsplit(" ", 1)[-1]
    return next((p for p in DEVICE_PLUGINS if name == p.daemonset or name.endswith("-" + p.daemonset)), None)


@dataclass(frozen=True)
class PodTemplate:
    """One pod template: who creates it (``owner``), its namespace and PodSpec."""

    owner: str
    namespace: str
    spec: Mapping[str, Any]
    daemonset: bool = False

    @property
    def accelerated(self) -> bool:
        return any(name in pod_requests(self.spec) for names in DEVICE_RESOURCES.values() for name in names)

    def advertises(self) -> tuple[str, ...]:
        if not self.daemonset:
            return ()
        plugin = device_plugin(self.owner)
        return plugin.resources if plugin else ()


@dataclass
class Placement:
    """Where one pod template lands: the sources it fits, and why it does not fit each other source."""

    pod: PodTemplate
    fits: list[NodeSource] = field(default_factory=list)
    rejected: dict[str, list[str]] = field(default_factory=dict)

    @property
    def reachable(self) -> list[NodeSource]:
        """The fitting sources that ever have a node (standing or created on demand)."""
        return [s for s in self.fits if s.can_have_nodes]


def pod_templates(owner: str, obj: Mapping[str, Any]) -> Iterator[PodTemplate]:
    """Every pod template inside one Kubernetes object (core workloads and the custom resources we create)."""
    kind, spec = obj.get("kind"), obj.get("spec") or {}
    namespace = (obj.get("metadata") or {}).get("namespace") or "default"
    name = f"{owner}: {kind} {(obj.get('metadata') or {}).get('name')}"

    def one(label: str, template: Mapping[str, Any] | None, extra: Iterable[Mapping[str, Any]] = ()) -> Iterator[PodTemplate]:
        pod_spec = dict((template or {}).get("spec") or {})
        if extra:
            pod_spec["containers"] = [*extra, *(pod_spec.get("containers") or [])]
        if pod_spec.get("containers"):
            yield PodTemplate(f"{name}{label}", namespace, pod_spec, daemonset=kind == "DaemonSet")

    if kind == "Job" and "tasks" in spec:  # Volcano's batch.volcano.sh Job
        for task in spec["tasks"]:
            yield from one(f" task {task.get('name')}", task.get("template"))
    elif kind in _WORKLOAD_KINDS:
        yield from one("", spec.get("template"))
    elif kind == "CronJob":
        yield from one("", ((spec.get("jobTemplate") or {}).get("spec") or {}).get("template"))
    elif kind == "Pod":
        yield from one("", {"spec": spec})
    elif kind == "MPIJob":
        for role, replica in (spec.get("mpiReplicaSpecs") or {}).items():
            yield from one(f" {role.lower()}", replica.get("template"))
    elif kind == "RayCluster":
        yield from _ray(one, spec)
    elif kind == "RayJob":
        yield from _ray(one, spec.get("rayClusterSpec") or {})
        if spec.get("submitterPodTemplate"):
            yield from one(" submitter", spec["submitterPodTemplate"])
    elif kind in _SLINKY_CONTAINERS:
        main = dict(spec.get(_SLINKY_CONTAINERS[kind]) or {})
        main.setdefault("name", _SLINKY_CONTAINERS[kind])
        yield from one("", {"spec": (spec.get("template") or {}).get("spec") or {}}, [main])


def _ray(one, spec: Mapping[str, Any]) -> Iterator[PodTemplate]:
    yield from one(" head", (spec.get("headGroupSpec") or {}).get("template"))
    for group in spec.get("workerGroupSpecs") or []:
        yield from one(f" workers {group.get('groupName')}", group.get("template"))


def jupyterhub_profile_pods(values: Mapping[str, Any], namespace: str) -> Iterator[PodTemplate]:
    """The notebook pod each JupyterHub profile asks KubeSpawner for (node selector, tolerations, resources)."""
    singleuser = values.get("singleuser") or {}
    for profile in singleuser.get("profileList") or [{"slug": "default", "kubespawner_override": {}}]:
        override = profile.get("kubespawner_override") or {}
        # KubeSpawner's K/M/G/T are binary multiples: "12G" is 12Gi to Kubernetes.
        memory = str(override.get("mem_guarantee", ""))
        requests = {**({"cpu": str(override["cpu_guarantee"])} if "cpu_guarantee" in override else {}),
                    **({"memory": memory + "i" if memory[-1:] in "KMGT" and memory else memory} if memory else {}),
                    **{k: str(v) for k, v in (override.get("extra_resource_guarantees") or {}).items()}}
        spec = {"nodeSelector": override.get("node_selector") or singleuser.get("nodeSelector") or {},
                "tolerations": override.get("tolerations") or singleuser.get("extraTolerations") or [],
                "containers": [{"name": "notebook", "resources": {"requests": requests}}]}
        yield PodTemplate(f"jupyterhub profile {profile.get('slug')}", namespace, spec)


def advertised_by_source(sources: list[NodeSource], pods: list[PodTemplate]) -> tuple[dict[str, set[str]], dict[str, list[str]]]:
    """Which extended resources each node source gets (by source name), and where each device plugin lands."""
    advertised: dict[str, set[str]] = {s.name: set() for s in sources}
    landing: dict[str, list[str]] = {}
    for pod in pods:
        resources = pod.advertises()
        if not resources:
            continue
        landing[pod.owner] = []
        for source in sources:
            # A DaemonSet pod needs only CPU/memory: extended resources are what it brings, not what it asks for.
            if not why_not(pod.spec, labels=source.labels, taints=source.taints, allocatable=source.allocatable(set())):
                advertised[source.name].update(resources)
                landing[pod.owner].append(source.name)
    return advertised, landing


def place(pods: list[PodTemplate], sources: list[NodeSource], advertised: Mapping[str, set[str]]) -> list[Placement]:
    """Each pod template against each node source."""
    placements = []
    for pod in pods:
        placement = Placement(pod)
        for source in sources:
            reasons = why_not(pod.spec, labels=source.labels, taints=source.taints,
                              allocatable=source.allocatable(advertised.get(source.name, set())))
            if reasons:
                placement.rejected[source.name] = reasons
            else:
                placement.fits.append(source)
        placements.append(placement)
    return placements
