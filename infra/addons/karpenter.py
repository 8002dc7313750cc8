"""Karpenter and its node pools on a TrainingCluster (pins: core.versions.KARPENTER, KARPENTER_CRD).

The platform stack builds this itself (the pools come from the environment's capacity section, and the network is
tagged for Karpenter's discovery first), so the module defines no ``ADDON`` entry.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from constructs import Construct, IConstruct

from eks_training.constructs.cluster import TrainingCluster
from eks_training.constructs.karpenter import KarpenterController
from eks_training.core.validation import invalid
from eks_training.core.versions import KARPENTER, KARPENTER_AMI_RELEASE
from eks_training.infra.addons import ClusterAddon
from eks_training.infra.addons.kueue import pool_flavors
from eks_training.workloads.karpenter import KarpenterPool, KarpenterPoolsChart
from eks_training.workloads.kueue import Flavor


class Karpenter(ClusterAddon):
    """The Karpenter controller (CRDs, controller, node role, interruption queue, Pod Identity) and one NodePool with
    its EC2NodeClass per pool.

    * ``cluster_name``: the EKS cluster's name as a plain string (Karpenter finds subnets and security groups by the
      ``karpenter.sh/discovery`` tag with this value; tag them: ``TrainingNetwork.tag_for_karpenter``).
    * ``pools``: the node pools (:class:`KarpenterPool`: instance types, accelerator, limit, capacity types, EFA).
      A pool that names a ``node_role_name`` of its own gets that role made here (EKS worker and ECR pulls only, its
      access entry, Karpenter allowed to pass it): nodes that must not share a role with the others.
    * ``node_repair``: Karpenter's node repair, which reads the node monitoring agent's conditions. Default: False.
    * ``version``: the chart version. Default: :data:`KARPENTER`'s.
    * ``ami_version``: the AL2023 EKS AMI release its nodes boot (``vYYYYMMDD``, or "latest", which drifts every node
      whenever AWS publishes an AMI). Karpenter takes the cluster's Kubernetes version in that release, so a control
      plane upgrade moves new nodes with it; the release must hold that version. Default:
      :data:`KARPENTER_AMI_RELEASE`.

    Attributes: ``controller`` (the :class:`KarpenterController`), ``pools_manifest``, ``pools``; Kueue's flavors
    of its pools: :meth:`kueue_flavors`.
    """

    def __init__(self, scope: Construct, id: str, *, cluster: TrainingCluster, cluster_name: str,
                 pools: Sequence[KarpenterPool], node_repair: bool = False, version: str = KARPENTER.version,
                 ami_version: str = KARPENTER_AMI_RELEASE, after: Sequence[IConstruct] = ()) -> None:
        super().__init__(scope, id, cluster=cluster, after=after)
        if not pools:
            raise invalid(f"{self.node.path}: pools", list(pools), "at least one KarpenterPool")
        self.controller = KarpenterController(
            self, "Controller", cluster=cluster.cluster, cluster_name=cluster_name, version=version,
            pod_identity_dependency=cluster.addons["eks-pod-identity-agent"], node_repair=node_repair,
            # DNS and pod networking for the controller until its last node is drained on destroy.
            after=[cluster.addons["coredns"], cluster.addons["vpc-cni"]])
        # Installed with wait: its controller pods need the system nodes to exist first.
        for release in (self.controller.crd_chart, self.controller.chart):
            self._depend(release, [cluster.system_nodegroup])
        default_role = self.controller.node_role_name
        for role_name in dict.fromkeys(p.node_role_name for p in pools if p.node_role_name not in (None, default_role)):
            # "<cluster>-slurm-node" -> SlurmNodeRole: the construct id follows the role's name, not its position.
            id_words = re.split(r"[^A-Za-z0-9]+", role_name.removeprefix(f"{cluster_name}-"))
            self.controller.add_node_role("".join(w.capitalize() for w in id_words) + "Role", role_name,
                                          description=f"Karpenter's nodes of the pools that name {role_name}: EKS "
                                                      "worker and ECR pulls only")
        #: The pools, as given.
        self.pools: tuple[KarpenterPool, ...] = tuple(pools)
        chart = KarpenterPoolsChart(self.k8s, "karpenter-pools", cluster_name=cluster_name,
                                    node_role_name=self.controller.node_role_name, pools=list(pools),
                                    ami_version=ami_version)
        # NodePools need the CRDs, and on destroy must go before the controller so their nodes drain. Each pool (its
        # NodePool and EC2NodeClass, one name) in a manifest of its own: a pool removed from the config is deleted,
        # its nodes drained, where in a shared manifest it would stay, launching nodes outside the stack (kubectl
        # never prunes custom objects).
        self.pools_manifest = self.add_objects_apart("karpenter-pools", chart.to_json(),
                                                     key=lambda obj: obj["metadata"]["name"],
                                                     after=[self.controller.chart, *self.controller.node_roles.values(),
                                                            *self.controller.node_accesses.values()])

    def kueue_flavors(self, *pool_names: str) -> list[Flavor]:
        """The Kueue ResourceFlavors of the named pools (default: every pool), one per instance type
        (:func:`eks_training.infra.addons.kueue.pool_flavors`)."""
        known = {pool.name: pool for pool in self.pools}
        for name in pool_names:
            if name not in known:
                raise invalid(f"{self.node.path}: pool", name, f"a pool of this add-on: {', '.join(known)}")
        return [flavor for name in (pool_names or known) for flavor in pool_flavors(known[name])]
