"""How a rendered job is submitted through a Kueue LocalQueue (`kueue.x-k8s.io`), per Kueue job integration.

Kueue admits a job when its team's ClusterQueue has quota for all of it: the job carries the queue label (and a
priority label), starts suspended where its integration has a `suspend` field (Kueue's webhook would set it too; a
job applied before the webhook answers must not start unqueued), and Kueue lifts the suspension on admission,
writing the chosen flavor's node labels into the pods. A multi-node job may ask Kueue to place all of its pods
within one network layer (a topology request, an annotation on the pod templates Kueue turns into PodSets).

Each integration states what Kueue's webhook demands of it, so the render writes a job Kueue accepts: a RayCluster
(also a RayJob's) under Kueue runs at a fixed size, since Kueue refuses in-tree autoscaling outside its alpha
elastic-jobs mode. Plain dicts, no cdk8s: `eks-training render` imports this.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from eks_training.core.catalog import HOSTNAME_LABEL, NETWORK_LAYER_LABEL_PREFIX
from eks_training.core.names import TRAINING_SERVICE_ACCOUNT
from eks_training.core.validation import invalid
from eks_training.workloads.priorities import DEFAULT_PRIORITY, TRAINING_PRIORITIES

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
PREFERRED_TOPOLOGY = "kueue.x-k8s.io/podset-preferred-topology"
REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-required-topology"
#: Who owns the runtime patch a TrainJob carries its topology request in (Kueue keeps its own, by its own name);
#: Trainer's webhook takes only a domain-prefixed path here, like Kueue's "kueue.x-k8s.io/manager".
TRAINJOB_PATCH_MANAGER = "eks-training/render"
#: The replicated job of our ClusterTrainingRuntimes that runs the trainer (the name Trainer's torch plugin expects).
TRAINJOB_NODE_JOB = "node"


@dataclass(frozen=True)
class TopologyRequest:
    """Place every pod of a multi-node PodSet within one domain of the node label ``level`` (a network layer or
    the hostname): ``required`` admits only then; otherwise Kueue tries that level first and goes up one layer at a
    time when the job does not fit."""

    level: str
    required: bool = False

    def __post_init__(self) -> None:
        if not (self.level.startswith(NETWORK_LAYER_LABEL_PREFIX) or self.level == HOSTNAME_LABEL):
            raise invalid("topology level", self.level, f"a network layer label ({NETWORK_LAYER_LABEL_PREFIX}N) or "
                          f"{HOSTNAME_LABEL}")

    @property
    def annotation(self) -> tuple[str, str]:
        return (REQUIRED_TOPOLOGY if self.required else PREFERRED_TOPOLOGY), self.level


@dataclass(frozen=True)
class KueueSubmission:
    """Where a job queues: its namespace's LocalQueue, its priority, and an optional topology request."""

    local_queue: str
    priority: str = DEFAULT_PRIORITY
    topology: TopologyRequest | None = None

    def __post_init__(self) -> None:
        names = [p.name for p in TRAINING_PRIORITIES]
        if self.priority not in names:
            raise invalid("priority", self.priority, f"one of {', '.join(names)}")


def _path(obj: dict, *keys: str) -> dict:
    node = obj
    for key in keys:
        node = node.setdefault(key, {})
    return node


def _fixed_size_ray_cluster(spec: dict) -> None:
    """A RayCluster spec at its largest size with in-tree autoscaling off (Kueue reserves the quota for all of it).

    Its pods then run as ``training``, which mounts no API token: the ``ray`` account holds KubeRay's autoscaler
    rights (patch the RayCluster, create pods), with which code in a Ray pod could grow its cluster past what Kueue
    admitted. Both accounts carry the namespace's one AWS identity."""
    spec["enableInTreeAutoscaling"] = False
    spec.pop("autoscalerOptions", None)
    for group in spec.get("workerGroupSpecs") or []:
        size = group.get("maxReplicas", group.get("replicas", 1))
        group.update(replicas=size, minReplicas=size, maxReplicas=size)
    for group in [spec.get("headGroupSpec") or {}, *(spec.get("workerGroupSpecs") or [])]:
        pod = (group.get("template") or {}).get("spec")
        if pod is not None:
            pod["serviceAccountName"] = TRAINING_SERVICE_ACCOUNT
            pod["automountServiceAccountToken"] = False


def _trainjob_node_template(obj: dict) -> Iterator[dict]:
    """The trainer pods' template in a runtime patch of our own: Trainer merges it into the runtime's JobSet."""
    patches = obj["spec"].setdefault("runtimePatches", [])
    patch = next((p for p in patches if p.get("manager") == TRAINJOB_PATCH_MANAGER), None)
    if patch is None:
        patch = {"manager": TRAINJOB_PATCH_MANAGER, "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [
            {"name": TRAINJOB_NODE_JOB, "template": {"spec": {"template": {}}}}]}}}}
        patches.append(patch)
    yield patch["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]


@dataclass(frozen=True)
class KueueIntegration:
    """One Kueue job integration: its framework name in Kueue's configuration, the object it admits, where that
    object's `suspend` field is, and the pod templates of its multi-node PodSets (where a topology request goes)."""

    framework: str
    api_version: str
    kind: str
    suspend: tuple[str, ...]
    multi_node_templates: Callable[[dict], Iterator[dict]]
    #: What Kueue's webhook requires of the object beyond the label (None: nothing).
    prepare: Callable[[dict], None] | None = None

    def admits(self, obj: dict) -> bool:
        return obj.get("apiVersion") == self.api_version and obj.get("kind") == self.kind


BATCH_JOB = KueueIntegration("batch/job", "batch/v1", "Job", ("spec", "suspend"),
                             lambda job: iter([job["spec"]["template"]]))
MPIJOB = KueueIntegration("kubeflow.org/mpijob", "kubeflow.org/v2beta1", "MPIJob", ("spec", "runPolicy", "suspend"),
                          lambda job: iter([job["spec"]["mpiReplicaSpecs"]["Worker"]["template"]]))
RAYJOB = KueueIntegration("ray.io/rayjob", "ray.io/v1", "RayJob", ("spec", "suspend"),
                          lambda job: iter(g["template"] for g in job["spec"]["rayClusterSpec"]["workerGroupSpecs"]),
                          prepare=lambda job: _fixed_size_ray_cluster(job["spec"]["rayClusterSpec"]))
RAYCLUSTER = KueueIntegration("ray.io/raycluster", "ray.io/v1", "RayCluster", ("spec", "suspend"),
                              lambda cluster: iter(g["template"] for g in cluster["spec"]["workerGroupSpecs"]),
                              prepare=lambda cluster: _fixed_size_ray_cluster(cluster["spec"]))
TRAINJOB = KueueIntegration("trainer.kubeflow.org/trainjob", "trainer.kubeflow.org/v1alpha1", "TrainJob",
                            ("spec", "suspend"), _trainjob_node_template)
#: Every integration a job kind of ours uses (what Kueue's configuration turns on), plus JobSet: Trainer runs a
#: TrainJob as a JobSet, which Kueue leaves to the TrainJob's workload.
INTEGRATIONS = (BATCH_JOB, MPIJOB, RAYJOB, RAYCLUSTER, TRAINJOB)
KUEUE_FRAMEWORKS = (*(i.framework for i in INTEGRATIONS), "jobset.x-k8s.io/jobset")


def submit(objects: list[dict], integration: KueueIntegration, submission: KueueSubmission, *,
           multi_node: bool) -> list[dict]:
    """``objects`` (a kind's rendered output) with the object ``integration`` admits queued by ``submission``; the
    topology request only on a multi-node job (one pod needs no placement)."""
    queued = copy.deepcopy(objects)
    found = [obj for obj in queued if integration.admits(obj)]
    if not found:
        raise ValueError(f"no {integration.api_version} {integration.kind} among the objects to queue")
    for obj in found:
        labels = _path(obj, "metadata", "labels")
        labels[QUEUE_LABEL] = submission.local_queue
        labels[PRIORITY_LABEL] = submission.priority
        *parents, field = integration.suspend
        _path(obj, *parents)[field] = True
        if integration.prepare is not None:
            integration.prepare(obj)
        if submission.topology is not None and multi_node:
            key, level = submission.topology.annotation
            for template in integration.multi_node_templates(obj):
                _path(template, "metadata", "annotations")[key] = level
    return queued
