"""Multi-node torchrun on a plain indexed batch Job: for clusters without operators (GPU) and for Trainium.

`completionMode: Indexed` with completions = parallelism = nodes gives each pod a stable index and a stable
host name `<job>-<index>` under a headless Service (the pod's `subdomain`). Rank 0's DNS name is the master
address; `status.podIP` would point every pod at itself. The node rank is the completion index.

On Trainium the optional `neuron_parallel_compile` pass runs as an init container (the same torchrun, cut
to a few steps) that fills the shared Neuron compile cache on FSx; the real run then finds its graphs compiled.
"""

from __future__ import annotations

from eks_training.workloads.fsx_volumes import WORKSPACE_VOLUME
from eks_training.workloads.job_pods import (
    RENDEZVOUS_PORT,
    TrainingJob,
    disruption_budget,
    resumable,
    resume_failure_policy,
    torchrun_command,
    training_container,
    training_pod_metadata,
    training_pod_spec,
)
from eks_training.workloads.k8s_objects import check_int
from eks_training.workloads.labels import common_labels

COMPONENT = "training-job"
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
COMPLETION_INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"
NEURON_CACHE_PATH = "/var/tmp/neuron-compile-cache"
_NEURON_CACHE_SUBPATH = "neuron-compile-cache"
_NODE_RANK_ENV = {
    "name": "NODE_RANK",
    "valueFrom": {"fieldRef": {"fieldPath": f"metadata.annotations['{COMPLETION_INDEX_ANNOTATION}']"}},
}


def master_host(job: TrainingJob) -> str:
    """Rank 0's stable DNS name: `<job>-0.<headless service>`."""
    return f"{job.name}-0.{job.name}"


def _static_rendezvous(job: TrainingJob) -> tuple[str, ...]:
    return ("--node_rank=$(NODE_RANK)", f"--master_addr={master_host(job)}", f"--master_port={RENDEZVOUS_PORT}")


def headless_service(job: TrainingJob, component: str) -> dict:
    """The Service that gives each indexed pod its DNS name (published before readiness, at start-up)."""
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": job.name, "namespace": job.namespace, "labels": common_labels(component)},
        "spec": {
            "clusterIP": "None",
            "publishNotReadyAddresses": True,
            "selector": {JOB_NAME_LABEL: job.name},
            "ports": [{"name": "rendezvous", "port": RENDEZVOUS_PORT, "targetPort": RENDEZVOUS_PORT}],
        },
    }


def restart_limits(max_restarts: int) -> dict:
    """How the indexed Job survives a lost pod or node: each rank's pod is created again up to ``max_restarts``
    times (`backoffLimitPerIndex`), and one rank past that fails the Job (`maxFailedIndexes: 0`).

    A lost rank breaks every collective, so the others fail too and come back with it: all ranks meet again at
    rank 0's stable host name and resume from the newest complete checkpoint. 0: no restart (`backoffLimit: 0`).
    """
    check_int("max_restarts", max_restarts, minimum=0, maximum=100)
    if max_restarts == 0:
        return {"backoffLimit": 0}
    return {"backoffLimitPerIndex": max_restarts, "maxFailedIndexes": 0}


def indexed_job(job: TrainingJob, *, component: str, init_containers: list[dict] = (), extra_env: list[dict] = (),
                extra_mounts: list[dict] = (), extra_volumes: list[dict] = (), max_restarts: int = 3) -> dict:
    """The indexed batch Job: one pod per node, each running torchrun with its completion index as node rank."""
    env = [_NODE_RANK_ENV, *extra_env]
    trainer = training_container(job, resumable(torchrun_command(job, *_static_rendezvous(job))), extra_env=env,
                                 extra_mounts=extra_mounts)
    pod_spec = training_pod_spec(
        job, [trainer], restart_policy="Never", init_containers=list(init_containers), extra_volumes=list(extra_volumes),
        subdomain=job.name,
    )
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": job.name, "namespace": job.namespace, "labels": common_labels(component)},
        "spec": {
            "completionMode": "Indexed",
            "completions": job.nodes,
            "parallelism": job.nodes,
            **restart_limits(max_restarts),
            # A stop that saved (exit 75) or a preemption/drain is started again without using up the budget.
            "podFailurePolicy": resume_failure_policy(trainer["name"]),
            "template": {"metadata": training_pod_metadata(common_labels(component)), "spec": pod_spec},
        },
    }


def pytorch_job(job: TrainingJob, *, max_restarts: int = 3) -> list[dict]:
    """GPU torchrun on an indexed Job plus its headless Service (no operator needed)."""
    job.require_accelerator("pytorch-job", "nvidia")
    return [headless_service(job, COMPONENT), indexed_job(job, component=COMPONENT, max_restarts=max_restarts),
            disruption_budget(job, {JOB_NAME_LABEL: job.name}, COMPONENT)]


def neuron_job(job: TrainingJob, *, precompile_steps: int | None = None, max_restarts: int = 3) -> list[dict]:
    """Trainium torchrun on an indexed Job plus its headless Service, with the shared Neuron compile cache.

    `precompile_steps` adds a `neuron_parallel_compile` init container that runs that many steps to compile
    the graphs ahead of the real run.
    """
    job.require_accelerator("neuron-job", "neuron")
    # Compiled graphs are shared by the namespace's jobs through its workspace (kubelet creates the sub-path).
    cache_mount = {"name": WORKSPACE_VOLUME, "mountPath": NEURON_CACHE_PATH, "subPath": _NEURON_CACHE_SUBPATH}
    cache_env = [{"name": "NEURON_COMPILE_CACHE_URL", "value": NEURON_CACHE_PATH}]
    inits = []
    if precompile_steps is not None:
        check_int("precompile_steps", precompile_steps, minimum=1, maximum=1000)
        command = ["neuron_parallel_compile", *torchrun_command(job, *_static_rendezvous(job)), "--max-steps", str(precompile_steps)]
        inits.append(training_container(
            job, command, name="neuron-precompile", extra_env=[_NODE_RANK_ENV, *cache_env], extra_mounts=[cache_mount]
        ))
    return [
        headless_service(job, "neuron"),
        indexed_job(job, component="neuron", init_containers=inits, extra_env=cache_env, extra_mounts=[cache_mount],
                    max_restarts=max_restarts),
        disruption_budget(job, {JOB_NAME_LABEL: job.name}, "neuron"),
    ]
