"""NetworkPolicies: default deny in every workload namespace, then what the workloads need (workloads.network_policies).

Enforced by the VPC CNI's network policy agent, which the cluster turns on when this add-on is on
(`TrainingCluster(network_policy=True)`); `eks-training check` evaluates the policies against the flows jobs need.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from constructs import Construct, IConstruct

from eks_training.constructs.cluster import TrainingCluster
from eks_training.core.names import SLURM_NAMESPACE
from eks_training.core.validation import invalid
from eks_training.core.versions import JUPYTERHUB, KUBERAY, SLURM_OPERATOR
from eks_training.infra.addons import AddonEntry, ClusterAddon
from eks_training.workloads.network_policies import (EgressAllowance, NetworkPoliciesChart, Port, WorkloadEgress,
                                                     WorkloadNamespaces)




def load_balancer_clients(config: Any, service: str) -> tuple[str, ...]:
    """The client networks of a ``PlatformConfig`` service's internal load balancer ("jupyterhub" or "slurm_login"):
    its source ranges, by default the VPC's; empty when it has none."""
    settings = {"jupyterhub": config.services.jupyterhub_load_balancer,
                "slurm_login": config.services.slurm_login_load_balancer}[service]
    if settings is None:
        return ()
    return settings.source_ranges or (config.network.cidr,)


def namespaces_of(config: Any) -> WorkloadNamespaces:
    """Which namespace runs what in a ``PlatformConfig`` (the stack's and the deploy check's common view)."""
    services = config.services
    slurm = bool(services.slinky and services.slurm_partitions)
    return WorkloadNamespaces(
        training=tuple(n.name for n in config.training_namespaces),
        slurm=SLURM_NAMESPACE if slurm else None,
        jupyterhub=JUPYTERHUB.namespace if services.jupyterhub else None,
        kuberay_operator=KUBERAY.namespace if services.kuberay else None,
        slinky_operator=SLURM_OPERATOR.namespace if slurm else None,
        # The internal load balancers' clients, and the VPC they forward from (health checks, node-to-pod hops).
        hub_clients=_with_vpc(config, load_balancer_clients(config, "jupyterhub")) if services.jupyterhub else (),
        login_clients=_with_vpc(config, load_balancer_clients(config, "slurm_login")) if slurm else ())


def _with_vpc(config: Any, clients: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys((*clients, config.network.cidr))) if clients else ()


def egress_of(config: Any) -> WorkloadEgress:
    """Where a ``PlatformConfig``'s workload pods may send traffic beyond the cluster (the stack's and the check's
    common view)."""
    network = config.network
    return WorkloadEgress(restricted=network.restrict_egress, allowances=tuple(
        EgressAllowance(f"egress-{e.name}", e.cidr, tuple(Port(p) for p in e.ports)) for e in network.egress_allowed))



class NetworkPolicies(ClusterAddon):
    """Default deny in every workload namespace, then exactly the flows training needs (DNS, HTTPS, FSx, EFS, the Pod
    Identity agent, peers of the same namespace, the operators that manage them).

    * ``namespaces``: which namespace runs what (:class:`WorkloadNamespaces`); they must exist (pass what makes them
      in ``after``).
    * ``vpc_cidr``: the VPC's CIDR (FSx and EFS are reached inside it).
    * ``egress``: where workload pods may send traffic beyond the cluster (:class:`WorkloadEgress`). Default:
      HTTPS to the VPC's endpoints and the Kubernetes API only.

    The cluster must enforce them: ``TrainingCluster(network_policy=True)`` (its default) turns on the VPC CNI's
    network policy agent, in strict mode. Attributes: ``manifest``.
    """

    def __init__(self, scope: Construct, id: str, *, cluster: TrainingCluster, namespaces: WorkloadNamespaces,
                 vpc_cidr: str, egress: WorkloadEgress = WorkloadEgress(), after: Sequence[IConstruct] = ()) -> None:
        super().__init__(scope, id, cluster=cluster, after=after)
        if not cluster.network_policy:
            raise invalid(f"{self.node.path}: cluster.network_policy", False, "True: the VPC CNI enforces "
                          "NetworkPolicies only with its network policy agent on (TrainingCluster(network_policy=True))")
        chart = NetworkPoliciesChart(self.k8s, "network-policies", namespaces=namespaces, vpc_cidr=vpc_cidr,
                                     egress=egress)
        self.manifest = self.add_chart("network-policies", chart)


ADDON = AddonEntry(
    "network-policies", enabled=lambda config: config.services.network_policies,
    build=lambda scope, parts, after: NetworkPolicies(
        scope, "NetworkPolicies", cluster=parts.cluster, namespaces=namespaces_of(parts.config),
        vpc_cidr=parts.config.network.cidr, egress=egress_of(parts.config),
        after=[*after, *(m for m in (parts.namespaces_manifest,) if m)]))
