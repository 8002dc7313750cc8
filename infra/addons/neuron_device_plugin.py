"""Neuron device plugin (and optionally its scheduler extension) on Trainium/Inferentia nodes (pin: core.versions.NEURON)."""

from __future__ import annotations

from collections.abc import Sequence

from constructs import Construct, IConstruct

from eks_training.constructs.cluster import TrainingCluster
from eks_training.core.versions import NEURON, HelmPin
from eks_training.infra.addons import AddonEntry, ClusterAddon
from eks_training.infra.addons.device_plugins import on_accelerator
from eks_training.workloads.namespaces import PodSecurity
from eks_training.workloads.network_policies import OperatorNamespaceChart, OperatorNamespacePolicy

#: Where the chart's node problem detector runs (the chart's default npd.namespaceOverride, given explicitly).
NPD_NAMESPACE = "neuron-healthcheck-system"


class NeuronDevicePlugin(ClusterAddon):
    """AWS Neuron's chart: the device plugin on Neuron nodes (``aws.amazon.com/neuron``, ``neurondevice``,
    ``neuroncore``), on the nodes our Trainium groups and pools label ``eks-training/accelerator=neuron``.

    * ``node_problem_detector``: Neuron's node problem detector, which marks a node with a failing Neuron device
      (for node repair), in namespace :data:`NPD_NAMESPACE` (made here, before the release). Default: False.
    * ``scheduler_extension``: Neuron's scheduler extension (contiguous device allocation). Default: False.
    * ``version``: the chart pin. Default: :data:`NEURON`.

    Attributes: ``release`` (the Helm release), ``npd_namespace`` (the manifest of the detector's namespace, or
    None without it).
    """

    def __init__(self, scope: Construct, id: str, *, cluster: TrainingCluster, node_problem_detector: bool = False,
                 scheduler_extension: bool = False, version: HelmPin = NEURON, after: Sequence[IConstruct] = ()) -> None:
        super().__init__(scope, id, cluster=cluster, after=after)
        npd: dict = {"enabled": node_problem_detector}
        self.npd_namespace = None
        if node_problem_detector:
            # The chart puts its node problem detector into a namespace of its own and creates none (Neuron's docs
            # create it by hand first): ours exists before the release. It runs privileged, reading /dev/kmsg.
            npd["namespaceOverride"] = NPD_NAMESPACE
            # Isolated like an operator's: default deny, DNS and the API (where it reports node conditions) only.
            self.npd_namespace = self.add_chart("neuron-healthcheck-namespace", OperatorNamespaceChart(
                self.k8s, f"{self.node.path}/neuron-healthcheck-namespace",
                policy=OperatorNamespacePolicy(NPD_NAMESPACE),
                pod_security=PodSecurity(enforce="privileged", warn="baseline", audit="baseline"),
                vpc_cidr=self.cluster.vpc_cidr))
        self.release = self.add_release(version, {"devicePlugin": on_accelerator("neuron"), "npd": npd,
                                                  "scheduler": {"enabled": scheduler_extension}},
                                        after=[self.npd_namespace],
                                        create_namespace=False)  # kube-system exists (labelled by the cluster)


ADDON = AddonEntry(
    "neuron-device-plugin",
    enabled=lambda config: config.services.neuron_device_plugin and "neuron" in config.accelerators(),
    build=lambda scope, parts, after: NeuronDevicePlugin(
        scope, "NeuronDevicePlugin", cluster=parts.cluster, after=after,
        node_problem_detector=parts.config.observability.enabled,
        scheduler_extension=parts.config.services.neuron_scheduler_extension))
