"""Kubeflow Trainer v2: TrainJobs on JobSet, and the platform's ClusterTrainingRuntimes (pin:
core.versions.KUBEFLOW_TRAINER)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import cdk8s
import constructs
from constructs import Construct, IConstruct

from eks_training.constructs.cluster import TrainingCluster
from eks_training.core.catalog import INSTANCE_TYPES
from eks_training.core.names import SYSTEM_NODE_SELECTOR, system_placement
from eks_training.core.validation import invalid
from eks_training.core.versions import KUBEFLOW_TRAINER, HelmPin
from eks_training.infra.addons import AddonEntry, ClusterAddon
from eks_training.workloads.network_policies import OperatorNamespacePolicy, Port
from eks_training.workloads.job_trainjob import cluster_training_runtime
from eks_training.workloads.typed_objects import emit_object


#: The manager's webhook server port (the chart's container port "webhook").
TRAINER_WEBHOOK_PORT = 9443
#: The chart's validating webhook configuration (failurePolicy Fail), whose CA bundle the manager sets as it starts.
TRAINER_WEBHOOK = "validator.trainer.kubeflow.org"


class TrainingRuntimesChart(cdk8s.Chart):
    """A ClusterTrainingRuntime per GPU instance type (see
    :func:`eks_training.workloads.job_trainjob.cluster_training_runtime`)."""

    def __init__(self, scope: constructs.Construct, id: str, *, instance_types: Sequence[str], image: str,
                 max_restarts: int) -> None:
        super().__init__(scope, id)
        if isinstance(instance_types, (str, bytes)) or not instance_types:
            raise invalid("instance_types", instance_types, "at least one GPU instance type")
        for instance_type in dict.fromkeys(instance_types):
            emit_object(self, cluster_training_runtime(instance_type=instance_type, image=image,
                                                       max_restarts=max_restarts))


class KubeflowTrainer(ClusterAddon):
    """The Trainer controller and webhooks (TrainJob, TrainingRuntime, ClusterTrainingRuntime), on a JobSet installed
    apart (give the JobSet add-on in ``after``), and a runtime per GPU instance type running our trainer.

    * ``instance_types``: the GPU types that get a runtime. Default: none (no runtime).
    * ``image``: the training image the runtimes run (required with ``instance_types``).
    * ``max_restarts``: how often a TrainJob restarts as a whole after losing a pod or a node. Default: 3.
    * ``node_selector``: where the controller runs. Default: the system nodes.
    * ``version``: the chart pin. Default: :data:`KUBEFLOW_TRAINER`.

    Its namespace is made by the add-on (baseline Pod Security, default deny, DNS and the API out, the webhook port
    in from the VPC).

    Attributes: ``release`` (the Helm release), ``runtimes_manifest`` (or None without instance types).
    """

    def __init__(self, scope: Construct, id: str, *, cluster: TrainingCluster, instance_types: Sequence[str] = (),
                 image: str | None = None, max_restarts: int = 3,
                 node_selector: Mapping[str, str] = SYSTEM_NODE_SELECTOR, version: HelmPin = KUBEFLOW_TRAINER,
                 after: Sequence[IConstruct] = ()) -> None:
        super().__init__(scope, id, cluster=cluster, after=after)
        # JobSet is its own release (the JobSet add-on): the chart's bundled copy would install it twice.
        self.release = self.add_release(version, {"jobset": {"install": False},
                                                  "manager": system_placement(node_selector)},
                                        namespace=OperatorNamespacePolicy(
                                            version.namespace, webhook_ports=(Port(TRAINER_WEBHOOK_PORT),)))
        self.runtimes_manifest = None
        if instance_types:
            if image is None:
                raise invalid(f"{self.node.path}: image", None, "the training image the runtimes run")
            chart = TrainingRuntimesChart(self.k8s, "training-runtimes", instance_types=list(instance_types),
                                          image=image, max_restarts=max_restarts)
            # The runtimes wait until the webhook that validates them has its CA bundle (Helm's wait does not).
            ready = self.wait_for_webhook(TRAINER_WEBHOOK, after=self.release)
            self.runtimes_manifest = self.add_chart("training-runtimes", chart, after=[self.release, ready])


def _gpu_types(config) -> list[str]:
    sources = [*(g.instance_type for g in config.accelerated_node_groups),
               *(t for p in config.capacity.karpenter_pools for t in p.instance_types)]
    return [t for t in dict.fromkeys(sources) if INSTANCE_TYPES[t].accelerator == "nvidia"]


ADDON = AddonEntry(
    "kubeflow-trainer", enabled=lambda config: config.services.kubeflow_trainer, depends_on=("jobset",),
    build=lambda scope, parts, after: KubeflowTrainer(
        scope, "KubeflowTrainer", cluster=parts.cluster, instance_types=_gpu_types(parts.config),
        image=parts.image("gpu") if _gpu_types(parts.config) else None,
        max_restarts=parts.config.services.job_max_restarts, after=after))
