"""NetworkPolicies: default deny in every workload namespace, then what the workloads need (workloads.network_policies).

Enforced by the VPC CNI's network policy agent, which the cluster turns on when this add-on is on
(`TrainingCluster(network_policy=True)`); `eks-training check` evaluates the policies against the flows jobs need.
"""

from __future__ import annotations

from dataclasses import dataclass

from eks_training.infra.check.network_policy import namespaces_of
from eks_training.workloads.network_policies import NetworkPoliciesChart


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
