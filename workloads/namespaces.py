"""Workload namespaces: the Namespace with its Pod Security Admission labels, accelerator-aware ResourceQuota and
container defaults.

Pod Security Admission (built into the API server) admits a pod only if it meets the namespace's ``enforce``
level; ``warn`` and ``audit`` report what a stricter level would reject without blocking it. Levels per namespace:

* training namespaces: enforce ``baseline``. Training pods use accelerators and EFA through device plugins (no
  hostPath, no privileged), an in-memory emptyDir for /dev/shm, and run their images' default user (MPI workers
  start sshd as root): all within baseline; none sets the runAsNonRoot/seccomp/drop-ALL that ``restricted``
  requires. warn/audit ``restricted`` shows what a job would need to change to get there.
* a namespace that runs Slinky (``slurm``): enforce ``privileged``. The Slinky operator starts slurmd privileged
  with BPF, NET_ADMIN, SYS_ADMIN and SYS_NICE (it manages cgroups and devices for job steps inside the pod), which
  baseline rejects; warn/audit ``baseline`` still reports every pod there that goes beyond baseline.
* JupyterHub: enforce ``baseline``, warn/audit ``restricted``; notebooks run the training images like jobs do.
  z2jh's ``singleuser.cloudMetadata.blockWithIptables`` init container is privileged with NET_ADMIN: it must be
  off (the namespace's NetworkPolicies block instance metadata instead) or notebooks are refused.

The Namespace is a cdk8s-plus-28 ``kplus.Namespace`` (plus adds an empty ``spec``, which the API server fills
with its default finalizer as before). ResourceQuota and LimitRange stay plain objects: cdk8s-plus-28 has no class
for either; they are written with ``k8s_objects.emit``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import cdk8s
import cdk8s_plus_28 as kplus
import constructs

from eks_training.core.names import POD_SECURITY_LABEL
from eks_training.core.validation import invalid
from eks_training.workloads.k8s_objects import (
    check_choice,
    check_dns_label,
    check_int,
    check_labels,
    check_quantity,
    check_unique,
    emit,
    quantity_value,
)
from eks_training.workloads.labels import common_labels

COMPONENT = "namespaces"
# Operators whose objects a namespace may hold; each becomes a `eks-training/uses-<operator>: "true"` label.
OPERATORS = ("volcano", "kuberay", "mpi-operator", "slinky", "jupyterhub")
#: Pod Security Standards levels, least to most strict.
PSA_LEVELS = ("privileged", "baseline", "restricted")
PSA_LABEL = POD_SECURITY_LABEL
_RESERVED_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


@dataclass(frozen=True)
class NamespaceQuota:
    """Ceilings for a namespace's requests; unset ones are not limited."""

    cpu: str | int | None = None
    memory: str | None = None
    nvidia_gpus: int | None = None
    neuron_devices: int | None = None
    efa_devices: int | None = None
    pods: int | None = None

    def hard(self, where: str) -> dict[str, str]:
        """The ResourceQuota `hard` map (extended resources can only be quota'd as `requests.<name>`)."""
        named = {
            "requests.cpu": self.cpu,
            "requests.memory": self.memory,
            "requests.nvidia.com/gpu": self.nvidia_gpus,
            "requests.aws.amazon.com/neuron": self.neuron_devices,
            "requests.vpc.amazonaws.com/efa": self.efa_devices,
        }
        hard = {key: check_quantity(f"{where} quota {key}", value) for key, value in named.items() if value is not None}
        if self.pods is not None:
            hard["pods"] = str(check_int(f"{where} quota pods", self.pods, minimum=0))
        if not hard:
            raise ValueError(f"{where} quota sets no limit: give at least one of cpu, memory, nvidia_gpus, neuron_devices, efa_devices, pods")
        return hard


@dataclass(frozen=True)
class ContainerDefaults:
    """Requests (and memory limit) given to containers that set none, so quota'd namespaces still admit them."""

    cpu_request: str | int = "500m"
    memory_request: str = "1Gi"
    memory_limit: str = "4Gi"

    def limit_range_item(self, where: str) -> dict:
        """The LimitRange item for containers."""
        request = check_quantity(f"{where} limit_range memory_request", self.memory_request)
        limit = check_quantity(f"{where} limit_range memory_limit", self.memory_limit)
        if quantity_value("memory_request", request) > quantity_value("memory_limit", limit):
            raise ValueError(
                f"{where} limit_range memory_request={request} exceeds memory_limit={limit}: the request must not be larger"
            )
        return {
            "type": "Container",
            "defaultRequest": {"cpu": check_quantity(f"{where} limit_range cpu_request", self.cpu_request), "memory": request},
            # No default CPU limit: throttling data loaders slows training; memory is limited to protect the node.
            "default": {"memory": limit},
        }


@dataclass(frozen=True)
class PodSecurity:
    """Pod Security Admission levels of a namespace: ``enforce`` rejects, ``warn``/``audit`` only report."""

    enforce: str = "baseline"
    warn: str = "restricted"
    audit: str = "restricted"

    def labels(self, where: str) -> dict[str, str]:
        """The namespace labels (no ``-version`` labels: the policy of the cluster's own version applies)."""
        for mode in ("enforce", "warn", "audit"):
            check_choice(f"{where} pod_security {mode}", getattr(self, mode), PSA_LEVELS)
            # A report level looser than enforce would report nothing: enforce already rejects all it would flag.
            if PSA_LEVELS.index(getattr(self, mode)) < PSA_LEVELS.index(self.enforce):
                raise invalid(f"{where} pod_security {mode}", getattr(self, mode),
                              f"use {self.enforce!r} or stricter (it is looser than enforce={self.enforce!r})")
        return {f"{PSA_LABEL}/{mode}": getattr(self, mode) for mode in ("enforce", "warn", "audit")}


#: Training pods (accelerators, EFA, shm, root in the image) fit baseline; restricted is reported.
TRAINING_POD_SECURITY = PodSecurity()
#: Slinky's slurmd is privileged (BPF, NET_ADMIN, SYS_ADMIN, SYS_NICE): only privileged admits it.
SLURM_POD_SECURITY = PodSecurity(enforce="privileged", warn="baseline", audit="baseline")


@dataclass(frozen=True)
class TrainingNamespace:
    """A namespace where training jobs run."""

    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    operators: tuple[str, ...] = ()
    quota: NamespaceQuota | None = None
    limit_range: ContainerDefaults | None = field(default_factory=ContainerDefaults)
    #: None: derived from ``operators`` (SLURM_POD_SECURITY where Slinky runs, else TRAINING_POD_SECURITY).
    pod_security: PodSecurity | None = None

    @property
    def pod_security_levels(self) -> PodSecurity:
        if self.pod_security is not None:
            return self.pod_security
        return SLURM_POD_SECURITY if "slinky" in self.operators else TRAINING_POD_SECURITY

    def __post_init__(self) -> None:
        check_dns_label("namespace name", self.name)
        where = f"namespace {self.name!r}"
        if self.name in _RESERVED_NAMESPACES:
            raise invalid("namespace name", self.name, "choose a namespace of your own (this one belongs to Kubernetes)")
        check_labels(f"{where} labels", self.labels)
        for key in self.labels:
            if key.startswith(f"{PSA_LABEL}/"):
                raise invalid(f"{where} labels key", key, "leave Pod Security labels to pod_security=PodSecurity(...)")
        if isinstance(self.operators, str):
            raise invalid(f"{where} operators", self.operators, f"use a list of {', '.join(OPERATORS)}")
        for operator in self.operators:
            check_choice(f"{where} operator", operator, OPERATORS)
        check_unique(f"{where} operators", list(self.operators))
        if self.quota is not None:
            if not isinstance(self.quota, NamespaceQuota):
                raise invalid(f"{where} quota", self.quota, "use a NamespaceQuota")
            self.quota.hard(where)
        if self.limit_range is not None:
            if not isinstance(self.limit_range, ContainerDefaults):
                raise invalid(f"{where} limit_range", self.limit_range, "use a ContainerDefaults")
            self.limit_range.limit_range_item(where)
        if self.pod_security is not None and not isinstance(self.pod_security, PodSecurity):
            raise invalid(f"{where} pod_security", self.pod_security, "use a PodSecurity")
        self.pod_security_levels.labels(where)


def api_objects_of(chart: cdk8s.Chart) -> list[cdk8s.ApiObject]:
    """Every ApiObject of ``chart``, in the order it renders them, those inside cdk8s-plus constructs too.

    cdk8s's ``Chart.api_objects`` lists the chart's direct children only; a plus construct holds its ApiObject
    as a child of its own, so a chart built of plus constructs would list none. The charts here return this.
    """
    return [c for c in chart.node.find_all() if isinstance(c, cdk8s.ApiObject) and cdk8s.Chart.of(c) is chart]


def add_namespace(scope: constructs.Construct, namespace: TrainingNamespace) -> kplus.Namespace:
    """The Namespace (a ``kplus.Namespace``) in ``scope``, and its ResourceQuota and LimitRange when configured.

    ResourceQuota and LimitRange stay plain objects: cdk8s-plus-28 has no class for either.
    """
    labels = common_labels(COMPONENT)
    where = f"namespace {namespace.name!r}"
    created = kplus.Namespace(scope, f"Namespace:{namespace.name}", metadata=cdk8s.ApiObjectMetadata(
        name=namespace.name,
        labels={
            **labels,
            **{f"eks-training/uses-{operator}": "true" for operator in namespace.operators},
            **namespace.labels,
            **namespace.pod_security_levels.labels(where),
        }))
    metadata = {"name": "training-quota", "namespace": namespace.name, "labels": labels}
    if namespace.quota is not None:
        emit(scope, {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": metadata, "spec": {"hard": namespace.quota.hard(where)}})
    if namespace.limit_range is not None:
        emit(scope, {
            "apiVersion": "v1",
            "kind": "LimitRange",
            "metadata": {**metadata, "name": "training-defaults"},
            "spec": {"limits": [namespace.limit_range.limit_range_item(where)]},
        })
    return created


class TrainingNamespacesChart(cdk8s.Chart):
    """The training namespaces with their quotas and container defaults."""

    def __init__(self, scope: constructs.Construct, id: str, *, namespaces: Sequence[TrainingNamespace]) -> None:
        super().__init__(scope, id)
        if isinstance(namespaces, (str, bytes)) or not namespaces or not all(isinstance(n, TrainingNamespace) for n in namespaces):
            raise invalid("namespaces", namespaces, "use a non-empty list of TrainingNamespace")
        check_unique("namespace names", [namespace.name for namespace in namespaces])
        for namespace in namespaces:
            add_namespace(self, namespace)

    @property
    def api_objects(self) -> list[cdk8s.ApiObject]:
        """The Namespaces' ApiObjects (inside their plus constructs), quotas and limit ranges, in render order."""
        return api_objects_of(self)
