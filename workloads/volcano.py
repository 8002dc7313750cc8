"""Volcano queues (gang-scheduled training shares the cluster by queue) and training PriorityClasses."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cdk8s
import constructs

from eks_training.core.validation import invalid
from eks_training.workloads.k8s_objects import (
    check_dns_subdomain,
    check_int,
    check_quantity,
    check_unique,
    emit,
    quantity_value,
)
from eks_training.workloads.labels import common_labels
from eks_training.workloads.priorities import TRAINING_PRIORITIES, TrainingPriority
from eks_training.workloads.typed_objects import emit_typed

COMPONENT = "volcano"
QUEUE_API = "scheduling.volcano.sh/v1beta1"
# Volcano creates these queues itself; owning them from CloudFormation would delete them with the stack.
VOLCANO_OWNED_QUEUES = ("default", "root")


@dataclass(frozen=True)
class QueueResources:
    """An amount of cluster resources for a queue; unset ones are left out."""

    cpu: str | int | None = None
    memory: str | None = None
    nvidia_gpus: int | None = None
    neuron_devices: int | None = None

    def to_k8s(self, field: str) -> dict[str, str]:
        """The Kubernetes resource list, each quantity checked (`field` names it in errors)."""
        named = {
            "cpu": self.cpu,
            "memory": self.memory,
            "nvidia.com/gpu": self.nvidia_gpus,
            "aws.amazon.com/neuron": self.neuron_devices,
        }
        resources = {name: check_quantity(f"{field} {name}", v) for name, v in named.items() if v is not None}
        if not resources:
            raise ValueError(f"{field} sets no resource: give at least one of cpu, memory, nvidia_gpus, neuron_devices")
        return resources


@dataclass(frozen=True)
class VolcanoQueue:
    """A Volcano queue. `weight` shares what is left over; `deserved` is what it gets back by reclaiming;
    `guarantee` is reserved for it alone; `capability` is its ceiling. `reclaimable` lets other queues take
    back what it borrowed beyond `deserved`."""

    name: str
    weight: int = 1
    capability: QueueResources | None = None
    deserved: QueueResources | None = None
    guarantee: QueueResources | None = None
    reclaimable: bool = True

    def __post_init__(self) -> None:
        check_dns_subdomain("queue name", self.name)
        if self.name in VOLCANO_OWNED_QUEUES:
            raise invalid("queue name", self.name, "choose another name (Volcano creates this queue itself)")
        check_int(f"queue {self.name!r} weight", self.weight, minimum=1, maximum=65535)
        if not isinstance(self.reclaimable, bool):
            raise invalid(f"queue {self.name!r} reclaimable", self.reclaimable, "use true or false")
        for attribute in ("capability", "deserved", "guarantee"):
            value = getattr(self, attribute)
            if value is not None and not isinstance(value, QueueResources):
                raise invalid(f"queue {self.name!r} {attribute}", value, "use a QueueResources")
            if value is not None:
                value.to_k8s(f"queue {self.name!r} {attribute}")
        self._check_order("guarantee", "deserved")
        self._check_order("deserved", "capability")
        self._check_order("guarantee", "capability")

    def _check_order(self, lower: str, upper: str) -> None:
        """Volcano requires guarantee <= deserved <= capability for every resource both set."""
        low, high = getattr(self, lower), getattr(self, upper)
        if low is None or high is None:
            return
        low_list, high_list = low.to_k8s(f"queue {self.name!r} {lower}"), high.to_k8s(f"queue {self.name!r} {upper}")
        for resource in low_list.keys() & high_list.keys():
            if quantity_value(resource, low_list[resource]) > quantity_value(resource, high_list[resource]):
                raise ValueError(
                    f"queue {self.name!r} {lower} {resource}={low_list[resource]} exceeds {upper}"
                    f" {resource}={high_list[resource]}: {lower} must not be larger"
                )


def volcano_queue(queue: VolcanoQueue) -> dict:
    """The `scheduling.volcano.sh/v1beta1` Queue object (cluster-scoped)."""
    where = f"queue {queue.name!r}"
    spec: dict = {"weight": queue.weight, "reclaimable": queue.reclaimable}
    if queue.capability is not None:
        spec["capability"] = queue.capability.to_k8s(f"{where} capability")
    if queue.deserved is not None:
        spec["deserved"] = queue.deserved.to_k8s(f"{where} deserved")
    if queue.guarantee is not None:
        spec["guarantee"] = {"resource": queue.guarantee.to_k8s(f"{where} guarantee")}
    return {
        "apiVersion": QUEUE_API,
        "kind": "Queue",
        "metadata": {"name": queue.name, "labels": common_labels(COMPONENT)},
        "spec": spec,
    }


def priority_class(priority: TrainingPriority) -> dict:
    """The `scheduling.k8s.io/v1` PriorityClass; never the global default, so untagged pods keep priority 0."""
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": priority.name, "labels": common_labels(COMPONENT)},
        "value": priority.value,
        "globalDefault": False,
        "preemptionPolicy": "PreemptLowerPriority" if priority.preempts else "Never",
        "description": priority.description,
    }


class VolcanoQueuesChart(cdk8s.Chart):
    """Volcano queues for training, plus the training PriorityClasses when `priority_classes` is true."""

    def __init__(
        self,
        scope: constructs.Construct,
        id: str,
        *,
        queues: Sequence[VolcanoQueue],
        priority_classes: bool = True,
    ) -> None:
        super().__init__(scope, id)
        if isinstance(queues, (str, bytes)) or not queues or not all(isinstance(q, VolcanoQueue) for q in queues):
            raise invalid("queues", queues, "use a non-empty list of VolcanoQueue")
        check_unique("queue names", [queue.name for queue in queues])
        from eks_training.workloads.imports.sh.volcano.scheduling import Queue  # generated by `make imports`

        for queue in queues:
            emit_typed(self, Queue, volcano_queue(queue))
        if priority_classes:
            for priority in TRAINING_PRIORITIES:
                emit(self, priority_class(priority))
