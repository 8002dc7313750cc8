"""cert-manager: the Slinky operator's webhook certificates (pin: core.versions.CERT_MANAGER)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from constructs import Construct, IConstruct

from eks_training.constructs.cluster import TrainingCluster
from eks_training.core.names import SYSTEM_NODE_SELECTOR, system_placement
from eks_training.core.versions import CERT_MANAGER, HelmPin
from eks_training.infra.addons import AddonEntry, ClusterAddon
from eks_training.workloads.namespaces import PodSecurity
from eks_training.workloads.network_policies import OperatorNamespacePolicy, Port

#: The webhook's container port (the chart's webhook.securePort).
CERT_MANAGER_WEBHOOK_PORT = 10250


class CertManager(ClusterAddon):
    """cert-manager with its CRDs, every component on the system nodes.

    * ``node_selector``: where its controller, webhook, cainjector and startup check run. Default: the system nodes.
    * ``version``: the chart pin. Default: :data:`CERT_MANAGER`.

    Its namespace is made by the add-on: Pod Security restricted (the chart's pods run as non-root with RuntimeDefault
    seccomp and no capabilities), default-deny NetworkPolicies that admit the API server's calls to the webhook and
    let cert-manager reach the API only. Its controller keeps cluster-wide rights (it issues Certificates in any
    namespace and reads their Secrets: that is the service); only the Slinky webhook's certificate uses it here.

    Attributes: ``release`` (the Helm release).
    """

    def __init__(self, scope: Construct, id: str, *, cluster: TrainingCluster,
                 node_selector: Mapping[str, str] = SYSTEM_NODE_SELECTOR, version: HelmPin = CERT_MANAGER,
                 after: Sequence[IConstruct] = ()) -> None:
        super().__init__(scope, id, cluster=cluster, after=after)
        placement = system_placement(node_selector)
        # Each component has its own selector and tolerations; the top-level ones place only the controller.
        self.release = self.add_release(version, {"crds": {"enabled": True}, **placement,
                                                  **{part: dict(placement)
                                                     for part in ("webhook", "cainjector", "startupapicheck")}},
                                        namespace=OperatorNamespacePolicy(
                                            version.namespace, webhook_ports=(Port(CERT_MANAGER_WEBHOOK_PORT),)),
                                        pod_security=PodSecurity(enforce="restricted"))


ADDON = AddonEntry(
    "cert-manager",
    # Only Slinky needs it here.
    enabled=lambda config: config.services.slinky and bool(config.services.slurm_partitions),
    build=lambda scope, parts, after: CertManager(scope, "CertManager", cluster=parts.cluster, after=after))
