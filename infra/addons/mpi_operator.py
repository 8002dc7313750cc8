"""MPI Operator: its pinned release manifest applied by an in-cluster Job, then launcher RBAC per namespace."""

from __future__ import annotations

from dataclasses import dataclass

from eks_training.workloads.mpi_operator import MpiOperatorSupportChart
from eks_training.workloads.mpi_operator_install import MpiOperatorInstallChart


@dataclass(frozen=True)
class MpiOperator:
    name: str = "mpi-operator"
    depends_on: tuple[str, ...] = ()

    def enabled(self, config) -> bool:
        return config.services.mpi_operator

    def install(self, ctx):
        install = ctx.chart("mpi-operator-install", MpiOperatorInstallChart(
            ctx.k8s, "mpi-operator-install", kubernetes_version=ctx.config.kubernetes_version), ctx.system_nodes)
        support = MpiOperatorSupportChart(ctx.k8s, "mpi-operator-support",
                                          namespaces=[n.name for n in ctx.config.training_namespaces])
        ctx.chart("mpi-operator-support", support, install, ctx.namespaces_manifest)
        return install


ADDON = MpiOperator()
