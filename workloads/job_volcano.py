"""Volcano Job (`batch.volcano.sh/v1alpha1`): gang-scheduled torchrun on GPU nodes.

`minAvailable` equals the replica count, so Volcano binds all pods or none (no half-started job holding GPUs).
The `svc` plugin gives the pods a headless Service named after the job and host names `<job>-worker-<i>`;
torchrun meets on worker 0 by c10d rendezvous. An evicted or failed pod restarts the whole job: a
collective cannot continue with a member missing. A queue's reclaim evicts the pods: each gets SIGTERM and the
grace period, the trainers save, and the whole job restarts and resumes once the queue has room again.
"""

from __future__ import annotations

from eks_training.core.preemption import EXIT_RESUME
from eks_training.workloads.job_pods import (
    TrainingJob,
    c10d_rendezvous,
    disruption_budget,
    resumable,
    torchrun_command,
    training_container,
    training_pod_metadata,
    training_pod_spec,
)
from eks_training.workloads.k8s_objects import check_dns_label, check_int
from eks_training.workloads.labels import common_labels

COMPONENT = "volcano"
VOLCANO_JOB_API = "batch.volcano.sh/v1alpha1"
TASK_NAME = "worker"
#: The label Volcano's controller puts on every pod of a Job (its name): the disruption budget's selector.
JOB_NAME_LABEL = "volcano.sh/job-name"


def volcano_job(job: TrainingJob, *, queue: str, max_retry: int = 3) -> dict:
    """The Volcano Job for `job` in `queue`."""
    job.require_accelerator("volcano-job", "nvidia")
    check_dns_label("queue", queue)
    check_int("max_retry", max_retry, minimum=0)
    first_host = f"{job.name}-{TASK_NAME}-0.{job.name}"
    trainer = training_container(job, resumable(torchrun_command(job, *c10d_rendezvous(job, first_host))))
    return {
        "apiVersion": VOLCANO_JOB_API,
        "kind": "Job",
        "metadata": {"name": job.name, "namespace": job.namespace, "labels": common_labels(COMPONENT)},
        "spec": {
            "schedulerName": "volcano",
            "queue": queue,
            "minAvailable": job.nodes,
            "maxRetry": max_retry,
            "policies": [
                # Saved and stopped (exit 75): the whole job starts again and resumes from that checkpoint.
                {"exitCode": EXIT_RESUME, "action": "RestartJob"},
                {"event": "PodEvicted", "action": "RestartJob"},
                {"event": "PodFailed", "action": "RestartJob"},
            ],
            "plugins": {"svc": [], "env": []},
            "tasks": [
                {
                    "name": TASK_NAME,
                    "replicas": job.nodes,
                    "template": {
                        "metadata": training_pod_metadata(common_labels(COMPONENT)),
                        "spec": training_pod_spec(job, [trainer], restart_policy="Never"),
                    },
                }
            ],
        },
    }


def volcano_disruption_budget(job: TrainingJob) -> dict:
    """The PodDisruptionBudget of the Volcano Job's pods (see :func:`disruption_budget`)."""
    return disruption_budget(job, {JOB_NAME_LABEL: job.name}, COMPONENT)
