"""Training namespaces: the Namespace, its accelerator-aware ResourceQuota and container defaults."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import cdk8s
import constructs

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
class TrainingNamespace:
    """A namespace where training jobs run."""

    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    operators: tuple[str, ...] = ()
    quota: NamespaceQuota | None = None
    limit_range: ContainerDefaults | None = field(default_factory=ContainerDefaults)

    def __post_init__(self) -> None:
        check_dns_label("namespace name", self.name)
        where = f"namespace {self.name!r}"
        if self.name in _RESERVED_NAMESPACES:
            raise ValueError(f"namespace name={self.name!r} belongs to Kubernetes: choose a namespace of your own")
        check_labels(f"{where} labels", self.labels)
        if isinstance(self.operators, str):
            raise ValueError(f"{where} operators={self.operators!r} must be a list of {', '.join(OPERATORS)}")
        for operator in self.operators:
            check_choice(f"{where} operator", operator, OPERATORS)
        check_unique(f"{where} operators", list(self.operators))
        if self.quota is not None:
            if not isinstance(self.quota, NamespaceQuota):
                raise ValueError(f"{where} quota={self.quota!r} must be a NamespaceQuota")
            self.quota.hard(where)
        if self.limit_range is not None:
            if not isinstance(self.limit_range, ContainerDefaults):
                raise ValueError(f"{where} limit_range={self.limit_range!r} must be a ContainerDefaults")
            self.limit_range.limit_range_item(where)


def namespace_objects(namespace: TrainingNamespace) -> list[dict]:
    """The Namespace, and its ResourceQuota and LimitRange when configured."""
    labels = common_labels(COMPONENT)
    where = f"namespace {namespace.name!r}"
    namespace_labels = {
        **labels,
        **{f"eks-training/uses-{operator}": "true" for operator in namespace.operators},
        **namespace.labels,
    }
    objects = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace.name, "labels": namespace_labels}}]
    metadata = {"name": "training-quota", "namespace": namespace.name, "labels": labels}
    if namespace.quota is not None:
        objects.append({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": metadata, "spec": {"hard": namespace.quota.hard(where)}})
    if namespace.limit_range is not None:
        objects.append(
            {
                "apiVersion": "v1",
                "kind": "LimitRange",
                "metadata": {**metadata, "name": "training-defaults"},
                "spec": {"limits": [namespace.limit_range.limit_range_item(where)]},
            }
        )
    return objects


class TrainingNamespacesChart(cdk8s.Chart):
    """The training namespaces with their quotas and container defaults."""

    def __init__(self, scope: constructs.Construct, id: str, *, namespaces: Sequence[TrainingNamespace]) -> None:
        super().__init__(scope, id)
        if isinstance(namespaces, (str, bytes)) or not namespaces or not all(isinstance(n, TrainingNamespace) for n in namespaces):
            raise ValueError(f"namespaces={namespaces!r} must be a non-empty list of TrainingNamespace")
        check_unique("namespace names", [namespace.name for namespace in namespaces])
        for namespace in namespaces:
            for obj in namespace_objects(namespace):
                emit(self, obj)
