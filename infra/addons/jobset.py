"""JobSet: groups of Jobs run and restarted as one; Kubeflow Trainer runs every TrainJob as a JobSet (pin:
core.versions.JOBSET)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from constructs import Construct, IConstruct

from eks_training.constructs.cluster import TrainingCluster
from eks_training.core.names import SYSTEM_NODE_SELECTOR
from eks_training.core.versions import JOBSET, HelmPin
from eks_training.infra.addons import AddonEntry, ClusterAddon

#: The in-repo chart names the staging registry's `main` image (the release tooling rewrites it in the published
#: package): name the promoted one, so the release and the chart the check renders agree.
JOBSET_IMAGE = "registry.k8s.io/jobset/jobset"


class JobSet(ClusterAddon):
    """The JobSet controller and webhooks (``jobset.x-k8s.io/v1alpha2``).

    * ``node_selector``: where the controller runs. Default: the system nodes.
    * ``version``: the chart pin. Default: :data:`JOBSET`.

    Attributes: ``release`` (the Helm release).
    """

    def __init__(self, scope: Construct, id: str, *, cluster: TrainingCluster,
                 node_selector: Mapping[str, str] = SYSTEM_NODE_SELECTOR, version: HelmPin = JOBSET,
                 after: Sequence[IConstruct] = ()) -> None:
        super().__init__(scope, id, cluster=cluster, after=after)
        self.release = self.add_release(version, {
            "image": {"repository": JOBSET_IMAGE, "tag": f"v{version.version}", "pullPolicy": "IfNotPresent"},
            "controller": {"nodeSelector": dict(node_selector)},
        })


ADDON = AddonEntry("jobset", enabled=lambda config: config.services.kubeflow_trainer,
                   build=lambda scope, parts, after: JobSet(scope, "JobSet", cluster=parts.cluster, after=after))
