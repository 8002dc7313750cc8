"""Ray Train jobs on KubeRay (`ray.io/v1`), built with the platform's RayCluster builders from a TrainingJob."""

from __future__ import annotations

import shlex

from eks_training.core.names import RAY_RESULTS_PATH, RAY_SERVICE_ACCOUNT
from eks_training.core.validation import invalid
from eks_training.workloads.job_pods import TrainingJob, disruption_budget, node_resources, train_args
from eks_training.workloads.kuberay import (
    COMPONENT,
    RayClusterConfig,
    RayGpuWorkers,
    RayStopProtection,
    ray_cluster,
    ray_job,
)
from eks_training.workloads.labels import JOB_LABEL

RAY_TRAIN_MODULE = "eks_training.training.ray_train"
RAY_STORAGE_PATH = RAY_RESULTS_PATH  # in the namespace's workspace, exported to the checkpoint bucket


def stop_folder(job_name: str) -> str:
    """Where the job's pods ask its trainers to save (training/ray_stop.py): inside its run's folder on FSx."""
    return f"{RAY_STORAGE_PATH}/{job_name}/stop"


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
        stop=RayStopProtection(grace_period_s=job.grace_period_s, stop_dir=stop_folder(job.name),
                               pod_labels={JOB_LABEL: job.name}),
    )


def ray_cluster_for(job: TrainingJob) -> dict:
    """A long-lived autoscaling RayCluster with up to `job.nodes` GPU workers (none while idle)."""
    return ray_cluster(_cluster_config(job, min_workers=0))


def ray_disruption_budget(job: TrainingJob) -> dict:
    """The PodDisruptionBudget of the job's head and workers (see :func:`disruption_budget`)."""
    return disruption_budget(job, {JOB_LABEL: job.name}, COMPONENT)


def ray_job_for(job: TrainingJob, *, max_restarts: int = 3) -> dict:
    """A RayJob that starts `job.nodes` GPU workers and runs Ray Train with one worker per GPU.

    A stopped worker pod costs nothing: its trainers save, the driver fits again from that checkpoint once KubeRay
    has replaced the pod. A lost head takes the cluster and the driver with it; ``max_restarts`` (the RayJob's
    backoffLimit) lets KubeRay submit the job again on a new cluster, whose driver resumes from the run's newest
    checkpoint on FSx (the same --run-name).
    """
    config = _cluster_config(job, min_workers=job.nodes)
    entrypoint = shlex.join([
        "python", "-m", RAY_TRAIN_MODULE, f"--num-workers={job.nodes * job.facts.accelerators}", "--use-gpu",
        f"--storage-path={RAY_STORAGE_PATH}", f"--run-name={job.name}", *train_args(job),
    ])
    return ray_job(name=job.name, namespace=job.namespace, entrypoint=entrypoint, cluster=config,
                   backoff_limit=max_restarts)
