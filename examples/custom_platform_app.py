#!/usr/bin/env python3
"""A small training platform built from the eks-training constructs alone, without the project's config files.

One VPC over two zones, an EKS cluster with two system nodes, one p5.48xlarge node group with EFA that scales from
zero to two nodes, the NVIDIA and EFA device plugins that advertise its GPUs and EFA interfaces, Volcano with one
queue for gang-scheduled jobs, encrypted S3 buckets for data and checkpoints, and a PERSISTENT_2 FSx for Lustre file
system linked to both buckets. Synthesize it, then check that its pods would land:

    npx cdk synth --app ".venv/bin/python examples/custom_platform_app.py" --output cdk.out/example
    .venv/bin/eks-training check --app cdk.out/example

or run it directly (``CDK_OUTDIR`` chooses the output folder, as with any CDK app).
"""

from __future__ import annotations

import aws_cdk as cdk

from eks_training.constructs.buckets import TrainingBuckets
from eks_training.constructs.cluster import TrainingCluster
from eks_training.constructs.network import TrainingNetwork
from eks_training.constructs.storage import LustreStorage
from eks_training.infra.addons.efa_device_plugin import EfaDevicePlugin
from eks_training.infra.addons.nvidia_device_plugin import NvidiaDevicePlugin
from eks_training.infra.addons.volcano import Volcano
from eks_training.workloads.volcano import QueueResources, VolcanoQueue

REGION = "us-west-2"
ZONES = ["us-west-2a", "us-west-2b"]
TRAINING_ZONE = "us-west-2a"


class SmallTrainingPlatform(cdk.Stack):
    """Network, cluster, one H100 node group, buckets and FSx for Lustre in one stack."""

    def __init__(self, scope: cdk.App, id: str, **kwargs) -> None:
        super().__init__(scope, id, **kwargs)
        cdk.Validations.of(self).acknowledge(cdk.Acknowledgment(
            id="CloudFormation-Validate::W3010",
            reason="zones are fixed on purpose: EFA needs one known training zone and synth runs offline"))
        network = TrainingNetwork(self, "Network", availability_zones=ZONES, training_az=TRAINING_ZONE,
                                  cidr="10.20.0.0/16", training_ips=500, nat_gateways=1)
        # People get in through the access entry of a role of the deploy account (it must exist before the deploy).
        # The Kubernetes version is always named: it changes only when this line does (one minor version a deploy).
        cluster = TrainingCluster(self, "Cluster", vpc=network.vpc, version="1.36", cluster_name="small-training",
                                  system_min_size=2, system_desired_size=2,
                                  system_max_size=3, training_subnet=network.training_subnet,
                                  efa_security_group=network.efa_security_group,
                                  admin_role_arns=["arn:aws:iam::${AWS::AccountId}:role/small-training-admin"])
        # The accelerator, node role, subnet and EFA group come from the cluster and the instance type.
        cluster.add_accelerated_node_group("H100", instance_type="p5.48xlarge", min_size=0, desired_size=0,
                                           max_size=2, nodegroup_name="h100")
        # Without the device plugins no pod could request nvidia.com/gpu or vpc.amazonaws.com/efa on those nodes.
        NvidiaDevicePlugin(self, "NvidiaDevicePlugin", cluster=cluster)
        EfaDevicePlugin(self, "EfaDevicePlugin", cluster=cluster)
        Volcano(self, "Volcano", cluster=cluster, queues=[
            VolcanoQueue(name="research", weight=1, capability=QueueResources(cpu=192, memory="2048Gi", nvidia_gpus=16))])
        buckets = TrainingBuckets(self, "Buckets", retain=False)
        fsx = LustreStorage(self, "Lustre", vpc=network.vpc, subnet=network.training_subnet,
                            peer_security_groups=[cluster.cluster.cluster_security_group, network.efa_security_group],
                            capacity_gib=1200,
                            data_bucket=buckets.data_bucket, checkpoint_bucket=buckets.checkpoint_bucket,
                            removal_policy=cdk.RemovalPolicy.DESTROY)
        cdk.CfnOutput(self, "FileSystemId", value=fsx.file_system_id)

    @property
    def availability_zones(self) -> list[str]:
        # Fixed zones: synth makes no lookups, so it runs offline without AWS credentials.
        return ZONES


def main() -> None:
    # Flags that `cdk init` writes into a new app's cdk.json; set here so the example runs on its own.
    app = cdk.App(context={"@aws-cdk/aws-eks:defaultToAL2023": True,
                           "@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy": True})
    SmallTrainingPlatform(app, "SmallTrainingPlatform", env=cdk.Environment(region=REGION))
    app.synth()


if __name__ == "__main__":
    main()
