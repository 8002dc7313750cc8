"""JobSet: groups of Jobs run and restarted as one; Kubeflow Trainer runs every TrainJob as a JobSet (pin:
core.versions.JOBSET)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from constructs import Construct, IConstruct

from eks_training.constructs.cluster import TrainingCluster
from eks_training.core.names import SYSTEM_NODE_SELECTOR, system_placement
from eks_training.core.versions import JOBSET, HelmPin
from eks_training.infra.addons import AddonEntry, ClusterAddon
from eks_training.workloads.network_policies import OperatorNamespacePolicy, Port

#: The in-repo chart names the staging registry's `main` image (the release tooling rewrites it in the published
#: package): name the promoted one, so the release and the chart the check renders agree.
JOBSET_IMAGE = "registry.k8s.io/jobset/jobset"
#: The controller's webhook server port (the chart's container port "webhook-server").
JOBSET_WEBHOOK_PORT = 9443


class JobSet(ClusterAddon):
    """The JobSet controller and webhooks (``jobset.x-k8s.io/v1alpha2``).

    * ``node_selector``: where the controller runs. Default: the system nodes.
    * ``version``: the chart pin. Default: :data:`JOBSET`.

    Its namespace is made by the add-on (baseline Pod Security, default deny, DNS and the API out, the webhook port
    in from the VPC).

    Attributes: ``release`` (the Helm release).
    """

    def __init__(self, scope: Construct, id: str, *, cluster: TrainingCluster,
                 node_selector: Mapping[str, str] = SYSTEM_NODE_SELECTOR, version: HelmPin = JOBSET,
                 after: Sequence[IConstruct] = ()) -> None:
        super().__init__(scope, id, cluster=cluster, after=after)
        self.release = self.add_release(version, {
            "image": {"repository": JOBSET_IMAGE, "tag": f"v{version.version}", "pullPolicy": "IfNotPresent"},
            "controller": system_placement(node_selector),
        }, namespace=OperatorNamespacePolicy(version.namespace, webhook_ports=(Port(JOBSET_WEBHOOK_PORT),)))


ADDON = AddonEntry("jobset", enabled=lambda config: config.services.kubeflow_trainer,
                   build=lambda scope, parts, after: JobSet(scope, "JobSet", cluster=parts.cluster, after=after))
