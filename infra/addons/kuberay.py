"""KubeRay operator and, optionally, a shared autoscaling RayCluster (pin: core.versions.KUBERAY)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from constructs import Construct, IConstruct

from eks_training.constructs.cluster import TrainingCluster
from eks_training.core.catalog import INSTANCE_TYPES, whole_node_requests
from eks_training.core.names import RAY_SERVICE_ACCOUNT, SYSTEM_NODE_SELECTOR, system_placement
from eks_training.core.versions import KUBERAY, HelmPin
from eks_training.core.validation import check_dns_label, invalid
from eks_training.infra.addons import AddonEntry, ClusterAddon
from eks_training.workloads.network_policies import (KUBERAY_OPERATOR_POD_LABELS, RAY_DASHBOARD_PORT, NamespaceEgress,
                                                     OperatorNamespacePolicy, Port)
from eks_training.workloads.job_charts import RayClusterChart
from eks_training.workloads.kuberay import RayGpuWorkers


@dataclass(frozen=True)
class SharedRayCluster:
    """A long-lived RayCluster of whole GPU nodes that KubeRay scales from zero.

    ``namespace`` must hold the ``ray`` ServiceAccount and the FSx claims (our training namespaces do);
    ``max_workers``: the autoscaler's limit.
    """

    namespace: str
    instance_type: str
    image: str
    max_workers: int
    name: str = "shared-ray"


class KubeRay(ClusterAddon):
    """The KubeRay operator (RayCluster, RayJob, RayService) and, optionally, one shared RayCluster.

    * ``shared_cluster``: a RayCluster to keep running (:class:`SharedRayCluster`). Default: none.
    * ``watch_namespaces``: the namespaces whose Ray objects the operator serves. Given, the chart's
      single-namespace install is used: the operator's rights (pods, services, Secrets, Roles, RoleBindings and
      ServiceAccounts for the autoscaler) are Roles in those namespaces only, not a ClusterRole, and its namespace's
      NetworkPolicies let it reach the Ray dashboard (8265) there and nothing else. Default: none, which keeps the
      chart's cluster-wide install (and its rights in every namespace).
    * ``node_selector``: where the operator runs. Default: the system nodes.
    * ``version``: the chart pin. Default: :data:`KUBERAY`.

    Its namespace is made by the add-on (Pod Security baseline, default deny, DNS and the API out).

    Attributes: ``release`` (the Helm release), ``ray_cluster_manifest`` (or None).
    """

    def __init__(self, scope: Construct, id: str, *, cluster: TrainingCluster,
                 shared_cluster: SharedRayCluster | None = None, watch_namespaces: Sequence[str] = (),
                 node_selector: Mapping[str, str] = SYSTEM_NODE_SELECTOR, version: HelmPin = KUBERAY,
                 after: Sequence[IConstruct] = ()) -> None:
        super().__init__(scope, id, cluster=cluster, after=after)
        watched = [check_dns_label("watch_namespaces", n) for n in watch_namespaces]
        if shared_cluster is not None and watched and shared_cluster.namespace not in watched:
            raise invalid("shared_cluster namespace", shared_cluster.namespace, f"one of watch_namespaces {watched}")
        values: dict = system_placement(node_selector)
        if watched:
            # Roles and RoleBindings in each watched namespace (crNamespacedRbacEnable, the chart's default) instead
            # of ClusterRoles; the operator lists and watches only those namespaces.
            values.update({"singleNamespaceInstall": True, "watchNamespace": watched, "crNamespacedRbacEnable": True})
        egress = tuple(NamespaceEgress(f"ray-dashboard-{n}", to_namespace=n, ports=(Port(RAY_DASHBOARD_PORT),),
                                       from_labels=KUBERAY_OPERATOR_POD_LABELS) for n in watched)
        self.release = self.add_release(version, values,
                                        namespace=OperatorNamespacePolicy(version.namespace, egress=egress))
        self.ray_cluster_manifest = None
        if shared_cluster is not None:
            facts = INSTANCE_TYPES[shared_cluster.instance_type]
            cpu, memory = whole_node_requests(facts.instance_type)
            chart = RayClusterChart(
                self.k8s, "ray-cluster", namespace=shared_cluster.namespace, name=shared_cluster.name,
                service_account_name=RAY_SERVICE_ACCOUNT,
                workers=RayGpuWorkers(instance_type=facts.instance_type, gpus_per_worker=facts.accelerators, cpu=cpu,
                                      memory=memory, efa_devices=facts.efa_interfaces,
                                      max_replicas=shared_cluster.max_workers),
                image=shared_cluster.image)
            self.ray_cluster_manifest = self.add_chart("ray-cluster", chart, after=[self.release])


def _build(scope, parts, after) -> KubeRay:
    services = parts.config.services
    shared = None
    if services.ray_worker_instance_type:
        shared = SharedRayCluster(namespace=parts.config.training_namespaces[0].name,
                                  instance_type=services.ray_worker_instance_type, image=parts.image("ray"),
                                  max_workers=services.ray_max_workers)
    # The shared RayCluster's workers are Karpenter nodes: after its NodePools, and gone before them on destroy.
    return KubeRay(scope, "KubeRay", cluster=parts.cluster, shared_cluster=shared,
                   watch_namespaces=[n.name for n in parts.config.training_namespaces],
                   after=[*after, *(m for m in (parts.namespaces_manifest, parts.storage_manifest, parts.node_pools)
                                    if m)])


# Kueue's webhooks admit the RayClusters of the namespaces it manages: with Kueue on, they exist first.
ADDON = AddonEntry("kuberay", enabled=lambda config: config.services.kuberay, build=_build, after_enabled=("kueue", "network-policies"))
