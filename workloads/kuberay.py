"""KubeRay (`ray.io/v1`): a GPU RayCluster for training, and RayJob objects built on the same cluster spec.

The head runs no tasks (`num-cpus: "0"`) so a busy driver never starves the GCS; GPU workers land on the
training instance type, tolerate the GPU taint, request EFA interfaces (without them NCCL silently falls back
to TCP) and mount the namespace's FSx claims at /fsx.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from eks_training.workloads.k8s_objects import (
    check_dns_label,
    check_dns_subdomain,
    check_int,
    check_labels,
    check_quantity,
)
from eks_training.workloads.labels import common_labels
from eks_training.core.preemption import DO_NOT_DISRUPT_ANNOTATION, STOP_DIR_ENV, STOP_WAIT_ENV, torchrun_shutdown_seconds
from eks_training.core.names import TEAM_NODE_SELECTOR
from eks_training.workloads.fsx_volumes import fsx_mounts, fsx_pod_volumes
from eks_training.workloads.job_pods import restricted
from eks_training.core.validation import invalid, is_token

COMPONENT = "kuberay"
RAY_API = "ray.io/v1"
GPU_RESOURCE = "nvidia.com/gpu"
EFA_RESOURCE = "vpc.amazonaws.com/efa"
_RAY_VERSION = re.compile(r"^\d+\.\d+\.\d+$")
_IMAGE = re.compile(r"^[a-z0-9][\w./-]*(:[\w.-]+)?(@sha256:[0-9a-f]{64})?$")
_RAY_IMAGE_TAG = re.compile(r"^(?:docker\.io/)?rayproject/ray(?:-ml)?:(\d+\.\d+\.\d+)")
_HEAD_PORTS = (("gcs-server", 6379), ("dashboard", 8265), ("client", 10001))
#: KubeRay keeps a template's container command when this annotation is "true", and hands its generated
#: `ray start` in KUBERAY_GEN_RAY_START_CMD instead.
OVERWRITE_COMMAND_ANNOTATION = "ray.io/overwrite-container-cmd"
#: The Ray pods' first process: holds `ray start` on SIGTERM until the trainers saved (training/ray_node.py).
RAY_NODE_MODULE = "eks_training.training.ray_node"


def default_ray_image(ray_version: str) -> str:
    """The official Ray GPU image for `ray_version` on Python 3.11."""
    return f"rayproject/ray:{ray_version}-py311-gpu"


@dataclass(frozen=True)
class RayHead:
    """The head pod's size (it schedules, serves the dashboard and the GCS; it runs no tasks).

    The head lives on the team CPU nodes (no accelerator is wasted on it), so its default fits one of them.
    """

    cpu: str | int = "2"
    memory: str = "8Gi"

    def __post_init__(self) -> None:
        check_quantity("head cpu", self.cpu)
        check_quantity("head memory", self.memory)


@dataclass(frozen=True)
class RayGpuWorkers:
    """One GPU worker group: each worker is one whole node of `instance_type`."""

    instance_type: str
    gpus_per_worker: int
    cpu: str | int
    memory: str
    efa_devices: int = 0
    min_replicas: int = 0
    max_replicas: int = 4
    group_name: str = "gpu-workers"

    def __post_init__(self) -> None:
        if not isinstance(self.instance_type, str) or not re.match(r"^[a-z][a-z0-9-]*\.[a-z0-9]+$", self.instance_type):
            raise invalid("worker instance_type", self.instance_type, "use an EC2 type, e.g. 'p5.48xlarge'")
        check_int("worker gpus_per_worker", self.gpus_per_worker, minimum=1, maximum=16)
        check_quantity("worker cpu", self.cpu)
        check_quantity("worker memory", self.memory)
        check_int("worker efa_devices", self.efa_devices, minimum=0, maximum=32)
        check_int("worker min_replicas", self.min_replicas, minimum=0)
        check_int("worker max_replicas", self.max_replicas, minimum=max(1, self.min_replicas))
        check_dns_label("worker group_name", self.group_name)


@dataclass(frozen=True)
class RayStopProtection:
    """What lets a training cluster's pods save before they stop: every pod's first process is
    :data:`RAY_NODE_MODULE` (the image must hold eks_training), which on SIGTERM asks the trainers to save through
    ``stop_dir`` (on the shared file system) and holds Ray for up to the grace period less a margin; the pods carry
    the grace period, Karpenter's do-not-disrupt and ``pod_labels`` (what the job's disruption budget selects)."""

    grace_period_s: int
    stop_dir: str
    pod_labels: Mapping[str, str]

    def __post_init__(self) -> None:
        check_int("grace_period_s", self.grace_period_s, minimum=30, maximum=86400)
        if not isinstance(self.stop_dir, str) or not self.stop_dir.startswith("/"):
            raise invalid("stop_dir", self.stop_dir, "use an absolute path on the file system every pod mounts")
        check_labels("pod_labels", dict(self.pod_labels))


@dataclass(frozen=True)
class RayClusterConfig:
    """Everything that shapes a training RayCluster; shared by RayClusterChart and ray_job()."""

    namespace: str
    name: str
    workers: RayGpuWorkers
    service_account_name: str
    ray_version: str = "2.49.1"
    image: str | None = None
    head: RayHead = field(default_factory=RayHead)
    enable_in_tree_autoscaling: bool = True
    #: Save before a stop (training clusters run our image). @default None: KubeRay's own `ray start`, which ends
    #: every Ray process at once on SIGTERM.
    stop: RayStopProtection | None = None

    def __post_init__(self) -> None:
        check_dns_label("namespace", self.namespace)
        check_dns_label("name", self.name)
        check_dns_subdomain("service_account_name", self.service_account_name)
        if not isinstance(self.ray_version, str) or not _RAY_VERSION.match(self.ray_version):
            raise invalid("ray_version", self.ray_version, "use a Ray release X.Y.Z, e.g. '2.49.1'")
        if not isinstance(self.workers, RayGpuWorkers):
            raise invalid("workers", self.workers, "use a RayGpuWorkers")
        if not isinstance(self.head, RayHead):
            raise invalid("head", self.head, "use a RayHead")
        if self.stop is not None and not isinstance(self.stop, RayStopProtection):
            raise invalid("stop", self.stop, "use a RayStopProtection or None")
        if not isinstance(self.enable_in_tree_autoscaling, bool):
            raise invalid("enable_in_tree_autoscaling", self.enable_in_tree_autoscaling, "use true or false")
        if self.image is not None:
            if not isinstance(self.image, str) or not (_IMAGE.match(self.image) or is_token(self.image)):
                raise invalid("image", self.image, "use a container image reference, e.g. 'repo/name:tag'")
            tagged = _RAY_IMAGE_TAG.match(self.image)
            if tagged and tagged.group(1) != self.ray_version:
                raise invalid("image", self.image, f"use an image of ray_version {self.ray_version} (this one carries "
                                                   f"Ray {tagged.group(1)}), or set ray_version to match it")

    @property
    def container_image(self) -> str:
        """The image for head and workers."""
        return self.image or default_ray_image(self.ray_version)


def _protected(template: dict, stop: RayStopProtection | None) -> dict:
    """``template`` with the pod's first process holding Ray for the trainers' save (see :class:`RayStopProtection`)."""
    if stop is None:
        return template
    template["metadata"]["labels"].update(stop.pod_labels)
    template["metadata"]["annotations"] = {OVERWRITE_COMMAND_ANNOTATION: "true", DO_NOT_DISRUPT_ANNOTATION: "true"}
    spec = template["spec"]
    spec["terminationGracePeriodSeconds"] = stop.grace_period_s
    for container in spec["containers"]:
        container["command"] = ["python", "-m", RAY_NODE_MODULE]
        container["env"] = [*container.get("env", []), {"name": STOP_DIR_ENV, "value": stop.stop_dir},
                            {"name": STOP_WAIT_ENV, "value": str(torchrun_shutdown_seconds(stop.grace_period_s))}]
    return template


def _head_template(config: RayClusterConfig) -> dict:
    resources = {"cpu": check_quantity("head cpu", config.head.cpu), "memory": config.head.memory}
    return _protected({
        "metadata": {"labels": common_labels(COMPONENT)},
        "spec": restricted({
            "serviceAccountName": config.service_account_name,
            "nodeSelector": dict(TEAM_NODE_SELECTOR),
            "containers": [
                {
                    "name": "ray-head",
                    "image": config.container_image,
                    "ports": [{"name": name, "containerPort": port} for name, port in _HEAD_PORTS],
                    "resources": {"requests": resources, "limits": resources},
                    "volumeMounts": fsx_mounts(),
                }
            ],
            "volumes": fsx_pod_volumes(),
        }),
    }, config.stop)


def _worker_template(config: RayClusterConfig) -> dict:
    workers = config.workers
    resources = {"cpu": check_quantity("worker cpu", workers.cpu), "memory": workers.memory, GPU_RESOURCE: str(workers.gpus_per_worker)}
    if workers.efa_devices:
        resources[EFA_RESOURCE] = str(workers.efa_devices)
    return _protected({
        "metadata": {"labels": common_labels(COMPONENT)},
        "spec": restricted({
            "serviceAccountName": config.service_account_name,
            "nodeSelector": {"node.kubernetes.io/instance-type": workers.instance_type},
            "tolerations": [{"key": GPU_RESOURCE, "operator": "Exists", "effect": "NoSchedule"}],
            "containers": [
                {
                    "name": "ray-worker",
                    "image": config.container_image,
                    # Extended resources need requests == limits; equal cpu/memory make the pod Guaranteed.
                    "resources": {"requests": resources, "limits": resources},
                    "volumeMounts": [*fsx_mounts(), {"name": "dshm", "mountPath": "/dev/shm"}],
                }
            ],
            # The container default /dev/shm (64 MiB) is too small for NCCL and Ray's object store.
            "volumes": [*fsx_pod_volumes(), {"name": "dshm", "emptyDir": {"medium": "Memory"}}],
        }),
    }, config.stop)


def ray_cluster_spec(config: RayClusterConfig) -> dict:
    """The RayCluster spec (also a RayJob's `rayClusterSpec`)."""
    workers = config.workers
    spec: dict = {
        "rayVersion": config.ray_version,
        "enableInTreeAutoscaling": config.enable_in_tree_autoscaling,
        "headGroupSpec": {
            "rayStartParams": {"num-cpus": "0", "dashboard-host": "0.0.0.0"},
            "template": _head_template(config),
        },
        "workerGroupSpecs": [
            {
                "groupName": workers.group_name,
                "replicas": workers.min_replicas,
                "minReplicas": workers.min_replicas,
                "maxReplicas": workers.max_replicas,
                "rayStartParams": {},
                "template": _worker_template(config),
            }
        ],
    }
    if config.enable_in_tree_autoscaling:
        # Conservative: a GPU node is requested only for pending work, and idles 10 minutes before release.
        spec["autoscalerOptions"] = {"upscalingMode": "Conservative", "idleTimeoutSeconds": 600}
    return spec


def ray_cluster(config: RayClusterConfig) -> dict:
    """The `ray.io/v1` RayCluster object."""
    return {
        "apiVersion": RAY_API,
        "kind": "RayCluster",
        "metadata": {"name": config.name, "namespace": config.namespace, "labels": common_labels(COMPONENT)},
        "spec": ray_cluster_spec(config),
    }


def ray_job(
    *,
    name: str,
    namespace: str,
    entrypoint: str,
    cluster: RayClusterConfig | None = None,
    cluster_selector: Mapping[str, str] | None = None,
    runtime_env_yaml: str | None = None,
    shutdown_after_job_finishes: bool = True,
    ttl_seconds_after_finished: int = 3600,
    active_deadline_seconds: int | None = None,
    backoff_limit: int = 0,
) -> dict:
    """A `ray.io/v1` RayJob that runs `entrypoint` on a new cluster built from `cluster`, or on an existing
    cluster chosen by `cluster_selector` (exactly one of the two)."""
    check_dns_label("RayJob name", name)
    check_dns_label("RayJob namespace", namespace)
    if not isinstance(entrypoint, str) or not entrypoint.strip():
        raise invalid("RayJob entrypoint", entrypoint, "use a non-empty command, e.g. 'python train.py'")
    if (cluster is None) == (cluster_selector is None):
        raise invalid("RayJob cluster_selector", cluster_selector, "give exactly one of cluster (a new RayCluster) or "
                      f"cluster_selector (an existing one); {'both are given' if cluster is not None else 'neither is given'}")
    if cluster is not None and cluster.namespace != namespace:
        raise invalid("RayJob namespace", namespace, f"use the cluster's namespace {cluster.namespace!r} (a RayJob runs "
                      "beside the cluster it builds)")
    check_int("RayJob ttl_seconds_after_finished", ttl_seconds_after_finished, minimum=0)
    check_int("RayJob backoff_limit", backoff_limit, minimum=0)
    spec: dict = {"entrypoint": entrypoint, "backoffLimit": backoff_limit, "submissionMode": "K8sJobMode"}
    if cluster is not None:
        spec["rayClusterSpec"] = ray_cluster_spec(cluster)
        spec["shutdownAfterJobFinishes"] = shutdown_after_job_finishes
        spec["ttlSecondsAfterFinished"] = ttl_seconds_after_finished
    else:
        spec["clusterSelector"] = check_labels("RayJob cluster_selector", cluster_selector or {})
        if not spec["clusterSelector"]:
            raise invalid("RayJob cluster_selector", {}, "give labels that select a cluster, e.g. "
                          "{'ray.io/cluster': 'my-cluster'} (an empty selector selects nothing)")
    if runtime_env_yaml is not None:
        spec["runtimeEnvYAML"] = runtime_env_yaml
    if active_deadline_seconds is not None:
        spec["activeDeadlineSeconds"] = check_int("RayJob active_deadline_seconds", active_deadline_seconds, minimum=1)
    return {
        "apiVersion": RAY_API,
        "kind": "RayJob",
        "metadata": {"name": name, "namespace": namespace, "labels": common_labels(COMPONENT)},
        "spec": spec,
    }
