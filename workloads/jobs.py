"""The job kinds the `eks-training render` command knows, and how each renders a TrainingJob.

A kind renders to a list of Kubernetes objects, except `slurm-batch`, which renders to an sbatch script.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from eks_training.core.validation import invalid
from eks_training.workloads.job_bionemo import bionemo_job
from eks_training.workloads.job_data_prep import data_prep_job
from eks_training.workloads.job_healthcheck import health_check
from eks_training.workloads.job_indexed import neuron_job, pytorch_job
from eks_training.workloads.job_mpi import mpi_disruption_budget, mpi_job
from eks_training.workloads.job_pods import TrainingJob
from eks_training.workloads.job_queueing import (
    BATCH_JOB,
    MPIJOB,
    RAYCLUSTER,
    RAYJOB,
    TRAINJOB,
    KueueIntegration,
    KueueSubmission,
    submit,
)
from eks_training.workloads.job_ray import ray_cluster_for, ray_disruption_budget, ray_job_for
from eks_training.workloads.job_trainjob import train_job, trainjob_disruption_budget
from eks_training.workloads.job_volcano import volcano_disruption_budget, volcano_job
from eks_training.workloads.sbatch import sbatch_script


@dataclass(frozen=True)
class PlacementNames:
    """Where the platform schedules a job beyond its namespace: the Volcano queue, the Slurm partition, the Kueue
    LocalQueue (None: not queued by Kueue), and how often a lost pod or node restarts the whole job."""

    queue: str | None = None
    partition: str | None = None
    kueue: KueueSubmission | None = None
    max_restarts: int = 3


@dataclass(frozen=True)
class JobKind:
    """One renderable kind: which accelerator it needs, whether it is multi-node, and its builder."""

    name: str
    accelerator: str
    description: str
    build: Callable[[TrainingJob, PlacementNames], "list[dict] | str"]
    multi_node: bool = True
    #: The environment image variant it runs ("gpu" means the neuron image on Trainium); None: the user's own.
    image: str | None = "gpu"
    #: The Kueue integration that admits it; None: it queues elsewhere (a Volcano queue, a Slurm partition).
    kueue: KueueIntegration | None = None
    #: The `services` switch of the environment the kind needs on (its operator); None: the platform's defaults.
    service: str | None = None
    #: (API group, resource) of every object it renders: what a team member's role lets them create and delete.
    creates: tuple[tuple[str, str], ...] = ()
    #: Its trainers save on SIGTERM and it restarts them without counting that stop: grace period, launcher,
    #: restart rule, do-not-disrupt and disruption budget (the deploy check verifies them, check/stopping.py).
    saves_on_stop: bool = False

    @property
    def is_script(self) -> bool:
        return self.name == "slurm-batch"

    def render(self, job, names: PlacementNames) -> "list[dict] | str":
        """What the kind renders for ``job``, submitted through ``names.kueue`` when the kind has a Kueue
        integration and the environment queues with Kueue."""
        rendered = self.build(job, names)
        if names.kueue is None or self.kueue is None:
            return rendered
        return submit(rendered, self.kueue, names.kueue, multi_node=self.multi_node)


def _needs(value: str | None, field: str, kind: str) -> str:
    if value is None:
        raise invalid(field, None, f"give one: {kind} needs a {field} (none is configured for this environment)")
    return value


_MPIJOBS, _BATCH_JOBS = ("kubeflow.org", "mpijobs"), ("batch", "jobs")
_PDBS = ("policy", "poddisruptionbudgets")
#: An indexed Job, the headless Service its pods find each other through, and the budget that protects its pods.
_INDEXED_JOB = (("", "services"), _BATCH_JOBS, _PDBS)

JOB_KINDS: dict[str, JobKind] = {kind.name: kind for kind in (
    JobKind("mpijob", "nvidia", "MPIJob kubeflow.org/v2beta1: mpirun launcher + GPU workers over EFA",
            lambda job, names: [mpi_job(job), mpi_disruption_budget(job)], kueue=MPIJOB,
            creates=(_MPIJOBS, _PDBS), saves_on_stop=True),
    JobKind("volcano-job", "nvidia", "Volcano Job: gang-scheduled torchrun in a queue",
            lambda job, names: [volcano_job(job, queue=_needs(names.queue, "queue", "volcano-job"),
                                            max_retry=names.max_restarts),
                                volcano_disruption_budget(job)],
            creates=(("batch.volcano.sh", "jobs"), _PDBS), saves_on_stop=True),
    JobKind("neuron-job", "neuron", "indexed batch Job on Trainium with a headless Service and compile cache",
            lambda job, names: neuron_job(job, precompile_steps=10, max_restarts=names.max_restarts), kueue=BATCH_JOB,
            creates=_INDEXED_JOB, saves_on_stop=True),
    JobKind("pytorch-job", "nvidia", "indexed batch Job running torchrun on GPUs (no operator needed)",
            lambda job, names: pytorch_job(job, max_restarts=names.max_restarts), kueue=BATCH_JOB,
            creates=_INDEXED_JOB, saves_on_stop=True),
    JobKind("trainjob", "nvidia", "Kubeflow Trainer TrainJob: torchrun on the platform's runtime, restarted whole",
            lambda job, names: [train_job(job), trainjob_disruption_budget(job)], kueue=TRAINJOB,
            service="kubeflow_trainer", creates=(("trainer.kubeflow.org", "trainjobs"), _PDBS), saves_on_stop=True),
    # Under Kueue the cluster runs at its full size: Kueue reserves quota for all of it and refuses autoscaling.
    JobKind("raycluster", "nvidia", "KubeRay RayCluster ray.io/v1 with autoscaling GPU workers",
            lambda job, names: [ray_cluster_for(job), ray_disruption_budget(job)], image="ray", kueue=RAYCLUSTER,
            creates=(("ray.io", "rayclusters"), _PDBS), saves_on_stop=True),
    JobKind("rayjob", "nvidia", "KubeRay RayJob ray.io/v1 running Ray Train",
            lambda job, names: [ray_job_for(job, max_restarts=names.max_restarts), ray_disruption_budget(job)],
            image="ray", kueue=RAYJOB, creates=(("ray.io", "rayjobs"), _PDBS), saves_on_stop=True),
    JobKind("slurm-batch", "any", "sbatch script for the Slinky login pods (one torchrun per node)",
            lambda job, names: sbatch_script(job, partition=_needs(names.partition, "partition", "slurm-batch"))),
    JobKind("bionemo", "nvidia", "BioNeMo batch Job on one 8-GPU node, config from a ConfigMap",
            lambda job, names: [bionemo_job(job)], multi_node=False, image=None, kueue=BATCH_JOB,
            creates=(_BATCH_JOBS,)),
    # "none": CPU only; built from a DataPrepJob (input, tokenizer, dataset) instead of a TrainingJob.
    JobKind("data-prep", "none", "batch Job on CPU: tokenize a corpus (s3:// or FSx) into a dataset on FSx",
            lambda job, names: [data_prep_job(job)], multi_node=False, kueue=BATCH_JOB, creates=(_BATCH_JOBS,)),
    # "any": the check runs on whichever accelerated type the training will use; the builder picks nccl-tests or
    # nccom-test from the type, and render_job checks the type against the environment's capacity as usual.
    JobKind("health-check", "any", "MPIJob: all-reduce bus bandwidth across the nodes (nccl-tests / nccom-test), names a slow node",
            lambda job, names: health_check(job), kueue=MPIJOB, creates=(_MPIJOBS,)),
)}


def job_kind(name: str) -> JobKind:
    """The kind called `name`, or a one-line error listing the kinds."""
    if name not in JOB_KINDS:
        raise invalid("kind", name, f"use a job kind: one of {', '.join(JOB_KINDS)}")
    return JOB_KINDS[name]
