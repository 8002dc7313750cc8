"""One construct API: TrainingCluster.add_accelerated_node_group derives what the node group needs from the cluster."""

from __future__ import annotations

import aws_cdk as cdk
import pytest
from aws_cdk import assertions

from eks_training.constructs.cluster import TrainingCluster
from eks_training.constructs.network import TrainingNetwork
from eks_training.constructs.node_groups import AcceleratedNodeGroup


@pytest.fixture(scope="module")
def platform():
    app = cdk.App(context={"@aws-cdk/aws-eks:defaultToAL2023": True})
    stack = cdk.Stack(app, "Api", env=cdk.Environment(region="us-west-2"))
    network = TrainingNetwork(stack, "Network", availability_zones=["us-west-2a", "us-west-2b"], training_az="us-west-2a",
                              cidr="10.30.0.0/16", training_ips=100, nat_gateways=1)
    cluster = TrainingCluster(stack, "Cluster", vpc=network.vpc, version="1.35", cluster_name="api",
                              training_subnet=network.training_subnet, efa_security_group=network.efa_security_group)
    trn = cluster.add_accelerated_node_group("Trn", instance_type="trn1.32xlarge", max_size=2)
    g5 = cluster.add_accelerated_node_group("G5", instance_type="g5.xlarge", max_size=1)
    # The wrapper itself is accepted where the aws-eks-v2 cluster is expected.
    AcceleratedNodeGroup(stack, "Direct", cluster=cluster, instance_type="g5.xlarge", accelerator="nvidia",
                         subnet=network.training_subnet, node_role=cluster.node_role, efa=False, max_size=1)
    return stack, network, cluster, trn, g5


def test_accelerator_efa_and_role_come_from_the_instance_type_and_cluster(platform):
    stack, network, cluster, trn, g5 = platform
    assert trn.facts.accelerator == "neuron" and g5.facts.accelerator == "nvidia"
    template = assertions.Template.from_stack(stack)
    groups = template.find_resources("AWS::EKS::Nodegroup")
    by_type = {g["Properties"]["InstanceTypes"][0]: g["Properties"] for g in groups.values()
               if g["Properties"]["InstanceTypes"][0] != "m6i.2xlarge"}
    assert by_type["trn1.32xlarge"]["AmiType"] == "AL2023_x86_64_NEURON"
    assert by_type["trn1.32xlarge"]["Labels"]["eks-training/efa"] == "true"  # trn1 has EFA: on by default
    assert by_type["g5.xlarge"]["Labels"]["eks-training/efa"] == "false"  # g5.xlarge has none: off by default
    role = stack.resolve(cluster.node_role.role_arn)
    assert all(g["NodeRole"] == role for g in by_type.values())
    templates = template.find_resources("AWS::EC2::LaunchTemplate")
    efa_groups = [nic["Groups"] for t in templates.values()
                  for nic in t["Properties"]["LaunchTemplateData"].get("NetworkInterfaces") or []]
    assert len(efa_groups) == 8  # trn1.32xlarge: 8 EFA interfaces, each in the cluster and EFA groups
    assert all(stack.resolve(network.efa_security_group.security_group_id) in groups for groups in efa_groups)


def test_a_cluster_without_a_training_subnet_says_so():
    app = cdk.App(context={"@aws-cdk/aws-eks:defaultToAL2023": True})
    stack = cdk.Stack(app, "NoSubnet", env=cdk.Environment(region="us-west-2"))
    network = TrainingNetwork(stack, "Network", availability_zones=["us-west-2a", "us-west-2b"], training_az="us-west-2a",
                              cidr="10.31.0.0/16", training_ips=100, nat_gateways=1)
    cluster = TrainingCluster(stack, "Cluster", vpc=network.vpc, version="1.35")
    with pytest.raises(ValueError, match=r"^subnet=None is not allowed: give the training subnet"):
        cluster.add_accelerated_node_group("X", instance_type="p5.48xlarge")
    with pytest.raises(ValueError, match=r"^instance_type='p9.huge' is not allowed: use a supported accelerated instance "
                                         r"type: p4d\.24xlarge"):
        cluster.add_accelerated_node_group("Y", instance_type="p9.huge", subnet=network.training_subnet)
