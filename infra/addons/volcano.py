"""Volcano (gang scheduling) and the environment's queues and priority classes (pin: core.versions.VOLCANO)."""

from __future__ import annotations

from dataclasses import dataclass

from eks_training.core.names import SYSTEM_NODE_SELECTOR
from eks_training.core.versions import VOLCANO
from eks_training.workloads.volcano import QueueResources, VolcanoQueue, VolcanoQueuesChart


@dataclass(frozen=True)
class Volcano:
    name: str = "volcano"
    depends_on: tuple[str, ...] = ()

    def enabled(self, config) -> bool:
        return config.services.volcano

    def install(self, ctx):
        # custom.default_ns places the scheduler, controllers and admission webhook (and its init Job).
        release = ctx.release(VOLCANO, {"custom": {"default_ns": dict(SYSTEM_NODE_SELECTOR)}})
        queues = [VolcanoQueue(name=q.name, weight=q.weight, reclaimable=q.reclaimable, capability=QueueResources(
            cpu=q.cpu, memory=f"{q.memory_gib}Gi", nvidia_gpus=q.gpus or None, neuron_devices=q.neuron_devices or None))
            for q in ctx.config.services.volcano_queues]
        ctx.chart("volcano-queues", VolcanoQueuesChart(ctx.k8s, "volcano-queues", queues=queues), release)
        return release


ADDON = Volcano()
