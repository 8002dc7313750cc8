"""TrainingPlatformStack: one environment of the platform, built in order from a validated config.

network -> cluster -> node capacity -> storage -> cluster services. Each step is a construct from
``eks_training.constructs`` or a chart from ``eks_training.workloads``, given plain values from the config.
"""

from __future__ import annotations

from aws_cdk import Acknowledgment, Environment, RemovalPolicy, Stack, Tags, Validations
from constructs import Construct

from eks_training.constructs.cluster import TrainingCluster
from eks_training.constructs.network import TrainingNetwork
from eks_training.infra.config import PlatformConfig


class TrainingPlatformStack(Stack):
    """The whole platform of one environment. Attributes: ``config``, ``network``, ``cluster``."""

    def __init__(self, scope: Construct, id: str, *, config: PlatformConfig) -> None:
        super().__init__(scope, id, env=Environment(account=config.account, region=config.region),
                         description=f"eks-training platform, environment {config.name}")
        self.config = config
        for key, value in {"eks-training/environment": config.name, **config.tags}.items():
            Tags.of(self).add(key, value)
        Validations.of(self).acknowledge(Acknowledgment(
            id="CloudFormation-Validate::W3010",
            reason="Availability zones are explicit config: synth makes no lookups (runs offline) and EFA needs one fixed training AZ"))
        removal = RemovalPolicy.RETAIN if config.storage.buckets.retain else RemovalPolicy.DESTROY
        cluster_name = f"eks-training-{config.name}"

        self.network = TrainingNetwork(
            self, "Network", availability_zones=config.availability_zones, training_az=config.training_az,
            cidr=config.network.cidr, nat_gateways=config.network.nat_gateways,
            vpc_endpoints=config.network.vpc_endpoints, training_prefix=config.network.training_subnet_prefix,
            cluster_name=cluster_name)
        self.cluster = TrainingCluster(
            self, "Cluster", vpc=self.network.vpc, version=config.kubernetes_version, cluster_name=cluster_name,
            endpoint_access=config.cluster.endpoint_access, public_access_cidrs=config.cluster.public_access_cidrs,
            admin_role_arns=config.cluster.admin_role_arns, addon_versions=config.cluster.addon_versions,
            system_instance_type=config.system_nodes.instance_type, system_min_size=config.system_nodes.min_size,
            system_desired_size=config.system_nodes.desired_size, system_max_size=config.system_nodes.max_size,
            system_disk_gib=config.system_nodes.disk_gib, removal_policy=RemovalPolicy.DESTROY)

    @property
    def availability_zones(self) -> list[str]:
        # Explicit zones from config: synth never looks them up, so it runs offline with no credentials.
        return list(self.config.availability_zones)
