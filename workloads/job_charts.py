"""The job builders as cdk8s charts, for a CDK app that deploys a job (or a RayCluster) with the platform.

The builders (jobs.py, job_*.py, kuberay.py) return plain dicts and import no cdk8s, so `eks-training render`
never starts jsii's Node runtime; only this module, which a CDK app imports, does.
"""

from __future__ import annotations

from collections.abc import Iterable

import cdk8s
import constructs

from eks_training.core.validation import invalid
from eks_training.core.names import MODELS_CLAIM_NAME
from eks_training.workloads.job_bionemo import DEFAULT_CONFIG_NAME, DEFAULT_MODULE, bionemo_job
from eks_training.workloads.job_healthcheck import health_check
from eks_training.workloads.job_indexed import neuron_job, pytorch_job
from eks_training.workloads.job_mpi import mpi_disruption_budget, mpi_job
from eks_training.workloads.job_pods import TrainingJob
from eks_training.workloads.job_volcano import volcano_disruption_budget, volcano_job
from eks_training.workloads.jobs import PlacementNames, job_kind
from eks_training.workloads.kuberay import RayClusterConfig, RayGpuWorkers, RayHead, ray_cluster
from eks_training.workloads.typed_objects import emit_object


class _ObjectsChart(cdk8s.Chart):
    """A chart holding the given objects, in order: MPIJobs, Volcano Jobs, RayClusters and RayJobs as the classes
    `make imports` generated from their CRDs (loaded on first use), core objects as they are."""

    def __init__(self, scope: constructs.Construct, id: str, objects: Iterable[dict]) -> None:
        super().__init__(scope, id)
        for obj in objects:
            emit_object(self, obj)


class JobChart(_ObjectsChart):
    """Any Kubernetes job kind of :data:`eks_training.workloads.jobs.JOB_KINDS` as a chart (slurm-batch is a script)."""

    def __init__(self, scope: constructs.Construct, id: str, *, kind: str, job: TrainingJob,
                 names: PlacementNames = PlacementNames()) -> None:
        selected = job_kind(kind)
        if selected.is_script:
            raise invalid("kind", kind, "a kind that renders Kubernetes objects (this one renders an sbatch script: use "
                          "sbatch_script())")
        super().__init__(scope, id, selected.render(job, names))


class PyTorchJobChart(_ObjectsChart):
    """GPU training on a plain indexed Job (see :func:`eks_training.workloads.job_indexed.pytorch_job`)."""

    def __init__(self, scope: constructs.Construct, id: str, *, job: TrainingJob) -> None:
        super().__init__(scope, id, pytorch_job(job))


class NeuronJobChart(_ObjectsChart):
    """Trainium training on an indexed Job (see :func:`eks_training.workloads.job_indexed.neuron_job`)."""

    def __init__(self, scope: constructs.Construct, id: str, *, job: TrainingJob, precompile_steps: int | None = None) -> None:
        super().__init__(scope, id, neuron_job(job, precompile_steps=precompile_steps))


class MpiJobChart(_ObjectsChart):
    """One MPIJob and the budget of its pods (see :func:`eks_training.workloads.job_mpi.mpi_job`)."""

    def __init__(self, scope: constructs.Construct, id: str, *, job: TrainingJob, slots_per_worker: int | None = None) -> None:
        super().__init__(scope, id, [mpi_job(job, slots_per_worker=slots_per_worker), mpi_disruption_budget(job)])


class VolcanoJobChart(_ObjectsChart):
    """One gang-scheduled Volcano Job (see :func:`eks_training.workloads.job_volcano.volcano_job`)."""

    def __init__(self, scope: constructs.Construct, id: str, *, job: TrainingJob, queue: str, max_retry: int = 3) -> None:
        super().__init__(scope, id, [volcano_job(job, queue=queue, max_retry=max_retry), volcano_disruption_budget(job)])


class BioNemoJobChart(_ObjectsChart):
    """One BioNeMo Job (see :func:`eks_training.workloads.job_bionemo.bionemo_job`)."""

    def __init__(self, scope: constructs.Construct, id: str, *, job: TrainingJob, config_map_name: str | None = None,
                 config_name: str = DEFAULT_CONFIG_NAME, module: str = DEFAULT_MODULE,
                 models_claim_name: str = MODELS_CLAIM_NAME) -> None:
        super().__init__(scope, id, [bionemo_job(job, config_map_name=config_map_name, config_name=config_name,
                                                 module=module, models_claim_name=models_claim_name)])


class HealthCheckChart(_ObjectsChart):
    """The health-check MPIJob (see :func:`eks_training.workloads.job_healthcheck.health_check`)."""

    def __init__(self, scope: constructs.Construct, id: str, *, job: TrainingJob) -> None:
        super().__init__(scope, id, health_check(job))


class RayClusterChart(_ObjectsChart):
    """A long-lived GPU RayCluster for interactive and Ray Train work (see :func:`eks_training.workloads.kuberay.ray_cluster`)."""

    def __init__(
        self,
        scope: constructs.Construct,
        id: str,
        *,
        namespace: str,
        name: str,
        workers: RayGpuWorkers,
        service_account_name: str,
        ray_version: str = "2.49.1",
        image: str | None = None,
        head: RayHead | None = None,
        enable_in_tree_autoscaling: bool = True,
    ) -> None:
        config = RayClusterConfig(
            namespace=namespace,
            name=name,
            workers=workers,
            service_account_name=service_account_name,
            ray_version=ray_version,
            image=image,
            head=head or RayHead(),
            enable_in_tree_autoscaling=enable_in_tree_autoscaling,
        )
        super().__init__(scope, id, [ray_cluster(config)])
