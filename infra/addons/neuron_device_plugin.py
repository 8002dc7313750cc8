"""Neuron device plugin (and optionally its scheduler extension) on Trainium/Inferentia nodes (pin: core.versions.NEURON)."""

from __future__ import annotations

from collections.abc import Sequence

from constructs import Construct, IConstruct

from eks_training.constructs.cluster import TrainingCluster
from eks_training.core.versions import NEURON, HelmPin
from eks_training.infra.addons import AddonEntry, ClusterAddon
from eks_training.infra.addons.device_plugins import on_accelerator


class NeuronDevicePlugin(ClusterAddon):
    """AWS Neuron's chart: the device plugin on Neuron nodes (``aws.amazon.com/neuron``, ``neurondevice``,
    ``neuroncore``), on the nodes our Trainium groups and pools label ``eks-training/accelerator=neuron``.

    * ``node_problem_detector``: Neuron's node problem detector, which marks a node with a failing Neuron device
      (for node repair). Default: False.
    * ``scheduler_extension``: Neuron's scheduler extension (contiguous device allocation). Default: False.
    * ``version``: the chart pin. Default: :data:`NEURON`.

    Attributes: ``release`` (the Helm release).
    """

    def __init__(self, scope: Construct, id: str, *, cluster: TrainingCluster, node_problem_detector: bool = False,
                 scheduler_extension: bool = False, version: HelmPin = NEURON, after: Sequence[IConstruct] = ()) -> None:
        super().__init__(scope, id, cluster=cluster, after=after)
        self.release = self.add_release(version, {"devicePlugin": on_accelerator("neuron"),
                                                  "npd": {"enabled": node_problem_detector},
                                                  "scheduler": {"enabled": scheduler_extension}},
                                        create_namespace=False)  # kube-system exists (labelled by the cluster)


ADDON = AddonEntry(
    "neuron-device-plugin",
    enabled=lambda config: config.services.neuron_device_plugin and "neuron" in config.accelerators(),
    build=lambda scope, parts, after: NeuronDevicePlugin(
        scope, "NeuronDevicePlugin", cluster=parts.cluster, after=after,
        node_problem_detector=parts.config.observability.enabled,
        scheduler_extension=parts.config.services.neuron_scheduler_extension))
