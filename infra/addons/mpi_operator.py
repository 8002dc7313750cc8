"""MPI Operator: its pinned release manifest applied by an in-cluster Job, then launcher RBAC per namespace."""

from __future__ import annotations

from collections.abc import Sequence

from constructs import Construct, IConstruct

from eks_training.constructs.cluster import TrainingCluster
from eks_training.infra.addons import AddonEntry, ClusterAddon
from eks_training.workloads.mpi_operator import MpiOperatorSupportChart
from eks_training.workloads.mpi_operator_install import MpiOperatorInstallChart


class MpiOperator(ClusterAddon):
    """The MPI Operator (``kubeflow.org/v2beta1`` MPIJob), which has no Helm chart upstream: a one-shot Job applies
    its pinned release manifest after checking its SHA-256; then the launcher's ServiceAccount and RBAC in each
    namespace that runs MPIJobs.

    * ``namespaces``: where MPIJobs run (each gets the ``mpi-launcher`` account). Default: none.

    Attributes: ``install_manifest``, ``support_manifest`` (or None without namespaces).
    """

    def __init__(self, scope: Construct, id: str, *, cluster: TrainingCluster, namespaces: Sequence[str] = (),
                 after: Sequence[IConstruct] = ()) -> None:
        super().__init__(scope, id, cluster=cluster, after=after)
        self.install_manifest = self.add_chart("mpi-operator-install",
                                               MpiOperatorInstallChart(
                                                   self.k8s, "mpi-operator-install",
                                                   kubernetes_version=cluster.kubernetes_version),
                                               after=[cluster.system_nodegroup])
        self.support_manifest = None
        if namespaces:
            support = MpiOperatorSupportChart(self.k8s, "mpi-operator-support", namespaces=list(namespaces))
            self.support_manifest = self.add_chart("mpi-operator-support", support, after=[self.install_manifest])


ADDON = AddonEntry(
    "mpi-operator", enabled=lambda config: config.services.mpi_operator,
    build=lambda scope, parts, after: MpiOperator(
        scope, "MpiOperator", cluster=parts.cluster, namespaces=[n.name for n in parts.config.training_namespaces],
        after=[*after, *(m for m in (parts.namespaces_manifest,) if m)]))
