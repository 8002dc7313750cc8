"""cert-manager: the Slinky operator's webhook certificates (pin: core.versions.CERT_MANAGER)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from constructs import Construct, IConstruct

from eks_training.constructs.cluster import TrainingCluster
from eks_training.core.names import SYSTEM_NODE_SELECTOR
from eks_training.core.versions import CERT_MANAGER, HelmPin
from eks_training.infra.addons import AddonEntry, ClusterAddon


class CertManager(ClusterAddon):
    """cert-manager with its CRDs, every component on the system nodes.

    * ``node_selector``: where its controller, webhook, cainjector and startup check run. Default: the system nodes.
    * ``version``: the chart pin. Default: :data:`CERT_MANAGER`.

    Attributes: ``release`` (the Helm release).
    """

    def __init__(self, scope: Construct, id: str, *, cluster: TrainingCluster,
                 node_selector: Mapping[str, str] = SYSTEM_NODE_SELECTOR, version: HelmPin = CERT_MANAGER,
                 after: Sequence[IConstruct] = ()) -> None:
        super().__init__(scope, id, cluster=cluster, after=after)
        selector = dict(node_selector)
        # Each component has its own selector; the top-level one places only the controller.
        self.release = self.add_release(version, {"crds": {"enabled": True}, "nodeSelector": selector,
                                                  **{part: {"nodeSelector": selector}
                                                     for part in ("webhook", "cainjector", "startupapicheck")}})


ADDON = AddonEntry(
    "cert-manager",
    # Only Slinky needs it here.
    enabled=lambda config: config.services.slinky and bool(config.services.slurm_partitions),
    build=lambda scope, parts, after: CertManager(scope, "CertManager", cluster=parts.cluster, after=after))
