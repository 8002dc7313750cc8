"""Volcano (gang scheduling) and its queues (pin: core.versions.VOLCANO)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from constructs import Construct, IConstruct

from eks_training.constructs.cluster import TrainingCluster
from eks_training.core.names import SYSTEM_NODE_SELECTOR
from eks_training.core.versions import VOLCANO, HelmPin
from eks_training.infra.addons import AddonEntry, ClusterAddon
from eks_training.workloads.volcano import QueueResources, VolcanoQueue, VolcanoQueuesChart


class Volcano(ClusterAddon):
    """Volcano's scheduler, controllers and admission webhook, and the queues jobs are submitted to.

    * ``queues``: Volcano queues (weight, whether reclaimable, capability). Default: none (Volcano's own ``default``
      queue only).
    * ``node_selector``: where Volcano's own pods run. Default: the system nodes.
    * ``version``: the chart pin. Default: :data:`VOLCANO`.

    Attributes: ``release`` (the Helm release), ``queues_manifest`` (the queues, or None without queues).
    """

    def __init__(self, scope: Construct, id: str, *, cluster: TrainingCluster, queues: Sequence[VolcanoQueue] = (),
                 node_selector: Mapping[str, str] = SYSTEM_NODE_SELECTOR, version: HelmPin = VOLCANO,
                 after: Sequence[IConstruct] = ()) -> None:
        super().__init__(scope, id, cluster=cluster, after=after)
        # custom.default_ns places the scheduler, controllers and admission webhook (and its init Job); the chart's
        # images are tagged by release, so a node pulls each once (the chart's default is Always).
        self.release = self.add_release(version, {"custom": {"default_ns": dict(node_selector)},
                                                  "basic": {"image_pull_policy": "IfNotPresent"}})
        self.queues_manifest = None
        if queues:
            chart = VolcanoQueuesChart(self.k8s, "volcano-queues", queues=list(queues))
            self.queues_manifest = self.add_chart("volcano-queues", chart, after=[self.release])


def _queues(config) -> list[VolcanoQueue]:
    return [VolcanoQueue(name=q.name, weight=q.weight, reclaimable=q.reclaimable, capability=QueueResources(
        cpu=q.cpu, memory=f"{q.memory_gib}Gi", nvidia_gpus=q.gpus or None, neuron_devices=q.neuron_devices or None))
        for q in config.services.volcano_queues]


ADDON = AddonEntry(
    "volcano", enabled=lambda config: config.services.volcano,
    build=lambda scope, parts, after: Volcano(scope, "Volcano", cluster=parts.cluster, queues=_queues(parts.config),
                                              after=after))
