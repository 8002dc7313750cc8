"""Ray Train jobs on KubeRay (`ray.io/v1`), built with the platform's RayCluster builders from a TrainingJob."""

from __future__ import annotations

import shlex

from eks_training.core.names import RAY_RESULTS_PATH, RAY_SERVICE_ACCOUNT
from eks_training.core.validation import invalid
from eks_training.workloads.job_pods import TrainingJob, node_resources, train_args
from eks_training.workloads.kuberay import RayClusterConfig, RayGpuWorkers, ray_cluster, ray_job

RAY_TRAIN_MODULE = "eks_training.training.ray_train"
RAY_STORAGE_PATH = RAY_RESULTS_PATH  # in the namespace's workspace, exported to the checkpoint bucket


def _cluster_config(job: TrainingJob, *, min_workers: int) -> RayClusterConfig:
    facts = job.require_accelerator("raycluster/rayjob", "nvidia")
    if job.checkpoint_s3_uri is not None:
        raise invalid("checkpoint_s3_uri", job.checkpoint_s3_uri, "None for Ray kinds: Ray Train persists checkpoints "
                      f"to its storage path ({RAY_STORAGE_PATH} on FSx, exported to the checkpoint bucket)")
    resources = node_resources(facts)
    workers = RayGpuWorkers(
        instance_type=job.instance_type, gpus_per_worker=facts.accelerators, cpu=resources["cpu"],
        memory=resources["memory"], efa_devices=facts.efa_interfaces, min_replicas=min_workers, max_replicas=job.nodes,
    )
    return RayClusterConfig(
        namespace=job.namespace, name=job.name, workers=workers,
        # Ray's own account: KubeRay binds its autoscaler's rights to it (workloads.training_identity).
        service_account_name=RAY_SERVICE_ACCOUNT, image=job.image,
    )


def ray_cluster_for(job: TrainingJob) -> dict:
    """A long-lived autoscaling RayCluster with up to `job.nodes` GPU workers (none while idle)."""
    return ray_cluster(_cluster_config(job, min_workers=0))


def ray_job_for(job: TrainingJob) -> dict:
    """A RayJob that starts `job.nodes` GPU workers and runs Ray Train with one worker per GPU."""
    config = _cluster_config(job, min_workers=job.nodes)
    entrypoint = shlex.join([
        "python", "-m", RAY_TRAIN_MODULE, f"--num-workers={job.nodes * job.facts.accelerators}", "--use-gpu",
        f"--storage-path={RAY_STORAGE_PATH}", *train_args(job),
    ])
    return ray_job(name=job.name, namespace=job.namespace, entrypoint=entrypoint, cluster=config)
