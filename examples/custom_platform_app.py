#!/usr/bin/env python3
"""A small training platform built from the eks-training constructs alone, without the project's config files.

One VPC over two zones, an EKS cluster with two system nodes, one p5.48xlarge node group with EFA (one node standing,
up to two), the NVIDIA and EFA device plugins that advertise its GPUs and EFA interfaces, Volcano with one queue for
gang-scheduled jobs, encrypted S3 buckets for data and checkpoints, a PERSISTENT_2 FSx for Lustre file system linked
to both, Kueue with flavors derived from the node group, and one team, ``research``: its namespace, identity,
volumes, policies, quota, LocalQueue and its members' access, so that `eks-training render --app` writes jobs that
run here. Synthesize it, render a job for the team, then check that its pods would land:

    npx cdk synth --app ".venv/bin/python examples/custom_platform_app.py" --output cdk.out/example
    .venv/bin/eks-training render data-prep --app cdk.out/example --namespace research --image REGISTRY/IMAGE:TAG \\
        --dataset wiki --data-input s3://BUCKET/corpus --tokenizer s3://BUCKET/tokenizer.json > job.yaml
    .venv/bin/eks-training check --app cdk.out/example --job job.yaml

or run it directly (``CDK_OUTDIR`` chooses the output folder, as with any CDK app).
"""

from __future__ import annotations

import aws_cdk as cdk

from eks_training.addons import (EfaDevicePlugin, Kueue, NamespaceQuota, NvidiaDevicePlugin, Quota, QueueResources,
                                 TeamQueue, TrainingTeam, Volcano, VolcanoQueue, node_group_flavor, cpu_flavor)
from eks_training.constructs.buckets import TrainingBuckets
from eks_training.constructs.cluster import TrainingCluster
from eks_training.constructs.network import TrainingNetwork
from eks_training.constructs.storage import LustreStorage, lustre_nid_range
from eks_training.core.catalog import node_capacity

REGION = "us-west-2"
ZONES = ["us-west-2a", "us-west-2b"]
TRAINING_ZONE = "us-west-2a"
CIDR = "10.20.0.0/16"
ACCOUNT_ROLE = "arn:aws:iam::${AWS::AccountId}:role/"
#: The FSx CSI driver's controller account (the EKS add-on's).
FSX_CSI_ACCOUNT = "fsx-csi-controller-sa"


class SmallTrainingPlatform(cdk.Stack):
    """Network, cluster, one H100 node group, buckets, FSx for Lustre, Kueue and one team in one stack."""

    def __init__(self, scope: cdk.App, id: str, **kwargs) -> None:
        super().__init__(scope, id, **kwargs)
        cdk.Validations.of(self).acknowledge(cdk.Acknowledgment(
            id="CloudFormation-Validate::W3010",
            reason="zones are fixed on purpose: EFA needs one known training zone and synth runs offline"))
        network = TrainingNetwork(self, "Network", availability_zones=ZONES, training_az=TRAINING_ZONE,
                                  cidr=CIDR, training_ips=500, nat_gateways=1)
        # Admins get in through the access entry of a role of the deploy account (it must exist before the deploy).
        # The Kubernetes version is always named: it changes only when this line does (one minor version a deploy).
        cluster = TrainingCluster(self, "Cluster", vpc=network.vpc, version="1.36", cluster_name="small-training",
                                  system_min_size=2, system_desired_size=2, system_max_size=3,
                                  training_subnet=network.training_subnet, efa_security_group=network.efa_security_group,
                                  vpc_cidr=CIDR, admin_role_arns=[ACCOUNT_ROLE + "small-training-admin"])
        # The accelerator, node role, subnet and EFA group come from the cluster and the instance type. One node
        # stands (Kueue admits jobs to nodes that exist; nothing here scales a node group from zero).
        h100 = cluster.add_accelerated_node_group("H100", instance_type="p5.48xlarge", min_size=1, desired_size=1,
                                                  max_size=2, nodegroup_name="h100")
        # The team's CPU pods (data preparation, MPI launchers) run here, in the training subnet: the system nodes
        # are tainted for the platform's own pods.
        cluster.add_team_node_group(instance_type="m6i.xlarge", max_size=2)
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
                            # Root stays root only on the system nodes, where the team's workspace Job makes its folders.
                            no_squash_nids=[lustre_nid_range(s.ipv4_cidr_block) for s in network.private_subnets],
                            removal_policy=cdk.RemovalPolicy.DESTROY)
        # The FSx CSI driver mounts the team's volumes; its role may touch this file system only.
        csi_role = cluster.pod_identity_role("FsxCsi", namespace="kube-system", service_accounts=[FSX_CSI_ACCOUNT])
        fsx.grant_csi_driver(csi_role, owner_tag=("eks-training/scratch-of", "small-training"))
        csi_driver = cluster.add_addon("aws-fsx-csi-driver", pod_identity_associations=[
            {"roleArn": csi_role.role_arn, "serviceAccount": FSX_CSI_ACCOUNT}])
        # Kueue admits the team's jobs by quota: on the H100 group (topology-aware: its nodes carry EC2's network
        # labels) and, for CPU work such as data preparation, on the team CPU nodes.
        node = node_capacity("p5.48xlarge")  # what a job of one whole node requests
        kueue = Kueue(self, "Kueue", cluster=cluster, flavors=[node_group_flavor(h100), cpu_flavor()], queues=[
            TeamQueue("research", ("research",), (
                Quota("h100", {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 32, "cpu": int(node.allocatable_cpu),
                               "memory": f"{int(node.allocatable_memory / 2**30)}Gi"}),
                Quota("cpu", {"cpu": 4, "memory": "16Gi"})))])
        TrainingTeam(self, "Research", cluster=cluster, namespace="research", operators=("volcano",),
                     members=[ACCOUNT_ROLE + "small-training-research"], quota=NamespaceQuota(nvidia_gpus=8),
                     buckets=buckets, fsx=fsx, kueue=kueue, after=[csi_driver])
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
