"""NetworkPolicies: default deny in every workload namespace, then what the workloads need (workloads.network_policies).

Enforced by the VPC CNI's network policy agent, which the cluster turns on when this add-on is on
(`TrainingCluster(network_policy=True)`); `eks-training check` evaluates the policies against the flows jobs need.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eks_training.core.names import SLURM_NAMESPACE
from eks_training.core.versions import JUPYTERHUB, KUBERAY, SLURM_OPERATOR
from eks_training.workloads.network_policies import NetworkPoliciesChart, WorkloadNamespaces


def namespaces_of(config: Any) -> WorkloadNamespaces:
    """Which namespace runs what in a ``PlatformConfig`` (the stack's and the deploy check's common view)."""
    services = config.services
    slurm = bool(services.slinky and services.slurm_partitions)
    return WorkloadNamespaces(
        training=tuple(n.name for n in config.training_namespaces),
        slurm=SLURM_NAMESPACE if slurm else None,
        jupyterhub=JUPYTERHUB.namespace if services.jupyterhub else None,
        kuberay_operator=KUBERAY.namespace if services.kuberay else None,
        slinky_operator=SLURM_OPERATOR.namespace if slurm else None)


@dataclass(frozen=True)
class NetworkPolicies:
    name: str = "network-policies"
    depends_on: tuple[str, ...] = ()

    def enabled(self, config) -> bool:
        return config.services.network_policies

    def install(self, ctx):
        chart = NetworkPoliciesChart(ctx.k8s, "network-policies", namespaces=namespaces_of(ctx.config),
                                     vpc_cidr=ctx.config.network.cidr)
        return ctx.chart("network-policies", chart, ctx.namespaces_manifest)


ADDON = NetworkPolicies()
