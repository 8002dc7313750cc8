"""EFA device plugin: advertises vpc.amazonaws.com/efa on EFA nodes (pin: core.versions.EFA_DEVICE_PLUGIN)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from constructs import Construct, IConstruct

from eks_training.constructs.cluster import TrainingCluster
from eks_training.core.names import LABEL_EFA
from eks_training.core.versions import EFA_DEVICE_PLUGIN, HelmPin
from eks_training.infra.addons import AddonEntry, ClusterAddon
from eks_training.infra.addons.device_plugins import placement_values

#: EFA nodes carry their accelerator's taint, whichever it is: the plugin tolerates every taint.
TOLERATE_ALL = ({"operator": "Exists"},)


class EfaDevicePlugin(ClusterAddon):
    """The EFA device plugin DaemonSet on EFA nodes: pods get EFA interfaces only by requesting
    ``vpc.amazonaws.com/efa``, which it advertises (without it NCCL silently falls back to TCP).

    * ``node_selector``: the nodes it runs on. Default: ``eks-training/efa=true``, the label our EFA node groups and
      Karpenter pools carry.
    * ``tolerations``: the taints it tolerates. Default: every taint (EFA nodes carry their accelerator's).
    * ``version``: the chart pin. Default: :data:`EFA_DEVICE_PLUGIN`.

    Attributes: ``release`` (the Helm release).
    """

    def __init__(self, scope: Construct, id: str, *, cluster: TrainingCluster,
                 node_selector: Mapping[str, str] | None = None, tolerations: Sequence[Mapping[str, Any]] = TOLERATE_ALL,
                 version: HelmPin = EFA_DEVICE_PLUGIN, after: Sequence[IConstruct] = ()) -> None:
        super().__init__(scope, id, cluster=cluster, after=after)
        selector = node_selector if node_selector is not None else {LABEL_EFA: "true"}
        # kube-system exists (and is labelled by the cluster): the release creates no namespace.
        self.release = self.add_release(version, placement_values(selector, tolerations), create_namespace=False)


ADDON = AddonEntry(
    "efa-device-plugin",
    enabled=lambda config: config.services.efa_device_plugin and config.efa,
    build=lambda scope, parts, after: EfaDevicePlugin(scope, "EfaDevicePlugin", cluster=parts.cluster, after=after))
