"""NVIDIA device plugin: advertises nvidia.com/gpu on GPU nodes (pin: core.versions.NVIDIA_DEVICE_PLUGIN)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from constructs import Construct, IConstruct

from eks_training.constructs.cluster import TrainingCluster
from eks_training.core.names import LABEL_ACCELERATOR
from eks_training.core.versions import NVIDIA_DEVICE_PLUGIN, HelmPin
from eks_training.infra.addons import AddonEntry, ClusterAddon
from eks_training.infra.addons.device_plugins import placement_values, plugin_tolerations, require_labels
from eks_training.workloads.namespaces import PodSecurity
from eks_training.workloads.network_policies import OperatorNamespacePolicy


class NvidiaDevicePlugin(ClusterAddon):
    """NVIDIA's device plugin DaemonSet on every GPU node: without it no pod can request ``nvidia.com/gpu``.

    * ``node_selector``: the nodes it runs on. Default: ``eks-training/accelerator=nvidia``, the label our GPU node
      groups and Karpenter pools carry (it also becomes a required node affinity, replacing the chart's default,
      which asks for NFD/GFD labels that nothing sets here).
    * ``tolerations``: the taints it tolerates. Default: our GPU nodes' taint and the Slurm partitions' taint
      (:func:`plugin_tolerations`).
    * ``version``: the chart pin. Default: :data:`NVIDIA_DEVICE_PLUGIN`.

    Attributes: ``release`` (the Helm release).
    """

    def __init__(self, scope: Construct, id: str, *, cluster: TrainingCluster,
                 node_selector: Mapping[str, str] | None = None,
                 tolerations: Sequence[Mapping[str, Any]] | None = None, version: HelmPin = NVIDIA_DEVICE_PLUGIN,
                 after: Sequence[IConstruct] = ()) -> None:
        super().__init__(scope, id, cluster=cluster, after=after)
        selector = dict(node_selector if node_selector is not None else {LABEL_ACCELERATOR: "nvidia"})
        values = placement_values(selector, plugin_tolerations("nvidia") if tolerations is None else tolerations)
        affinity = {"affinity": require_labels(selector)} if selector else {}
        # Its namespace: privileged Pod Security (the plugin's DaemonSet mounts the kubelet's device-plugin socket
        # directory from the host, which baseline refuses; baseline is still reported), default deny both ways.
        self.release = self.add_release(version, {**values, **affinity, "priorityClassName": "system-node-critical"},
                                        namespace=OperatorNamespacePolicy(version.namespace),
                                        pod_security=PodSecurity(enforce="privileged", warn="baseline", audit="baseline"))


ADDON = AddonEntry(
    "nvidia-device-plugin",
    enabled=lambda config: config.services.nvidia_device_plugin and "nvidia" in config.accelerators(),
    build=lambda scope, parts, after: NvidiaDevicePlugin(scope, "NvidiaDevicePlugin", cluster=parts.cluster, after=after))
