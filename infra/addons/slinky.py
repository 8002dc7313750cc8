"""Slinky: the Slurm operator (CRDs, operator) and the environment's Slurm cluster (pins: SLURM_OPERATOR*)."""

from __future__ import annotations

from dataclasses import dataclass

from eks_training.core.catalog import INSTANCE_TYPES, whole_node_requests
from eks_training.core.names import SLURM_NAMESPACE, SYSTEM_NODE_SELECTOR
from eks_training.core.versions import SLURM_OPERATOR, SLURM_OPERATOR_CRDS
from eks_training.workloads.slinky import SlurmClusterChart, SlurmPartition


@dataclass(frozen=True)
class Slinky:
    name: str = "slinky"
    depends_on: tuple[str, ...] = ("cert-manager",)

    def enabled(self, config) -> bool:
        return config.services.slinky and bool(config.services.slurm_partitions)

    def install(self, ctx):
        crds = ctx.release(SLURM_OPERATOR_CRDS, {})
        operator = ctx.release(SLURM_OPERATOR, {part: {"nodeSelector": dict(SYSTEM_NODE_SELECTOR)}
                                                for part in ("operator", "webhook")}, crds)
        partitions = []
        for p in ctx.config.services.slurm_partitions:
            cpu, memory = whole_node_requests(p.instance_type)
            partitions.append(SlurmPartition(name=p.name, instance_type=p.instance_type,
                                             accelerator=INSTANCE_TYPES[p.instance_type].accelerator,
                                             replicas=p.replicas, cpu=cpu, memory=memory, max_nodes=p.max_nodes))
        chart = SlurmClusterChart(ctx.k8s, "slurm-cluster", cluster_name=f"{ctx.config.name}-slurm", partitions=partitions,
                                  namespace=SLURM_NAMESPACE, create_namespace=False,
                                  slurmd_image=ctx.image("slurmd"))
        ctx.chart("slurm-cluster", chart, operator, ctx.namespaces_manifest, ctx.storage_manifest)
        return operator


ADDON = Slinky()
