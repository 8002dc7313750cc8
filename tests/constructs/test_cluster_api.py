"""One construct API: TrainingCluster.add_accelerated_node_group derives what the node group needs from the cluster."""

from __future__ import annotations

import aws_cdk as cdk
import pytest
from aws_cdk import assertions

from eks_training.constructs.cluster import TrainingCluster
from eks_training.constructs.network import TrainingNetwork
from eks_training.constructs.node_groups import AcceleratedNodeGroup
from eks_training.core.versions import DEFAULT_ADDONS, addon_version


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
    # A Capacity Block holds its instances and no more: its updates cannot launch a replacement first.
    cluster.add_accelerated_node_group("Block", instance_type="p5.48xlarge", efa=False, max_size=2,
                                       capacity_type="capacity-block", capacity_reservation_id="cr-0123456789abcdef0")
    return stack, network, cluster, trn, g5


def test_accelerator_efa_and_role_come_from_the_instance_type_and_cluster(platform):
    stack, network, cluster, trn, g5 = platform
    assert trn.facts.accelerator == "neuron" and g5.facts.accelerator == "nvidia"
    template = assertions.Template.from_stack(stack)
    groups = template.find_resources("AWS::EKS::Nodegroup")
    by_type = {g["Properties"]["InstanceTypes"][0]: g["Properties"] for g in groups.values()
               if g["Properties"]["InstanceTypes"][0] not in ("m6i.2xlarge", "p5.48xlarge")}
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


def test_every_node_group_and_addon_follows_the_clusters_version_and_no_roll_is_forced(platform):
    stack = platform[0]
    template = assertions.Template.from_stack(stack)
    groups = {g["Properties"]["InstanceTypes"][0] + ("/" + g["Properties"].get("CapacityType", "")): g["Properties"]
              for g in template.find_resources("AWS::EKS::Nodegroup").values()}
    assert len(groups) == 4  # system, trn1, g5 (twice: one key), the Capacity Block
    for name, props in groups.items():
        # The version moves the group in the deploy that moves the control plane; a roll drains one node at a time
        # and stops at a PodDisruptionBudget (aws-eks-v2 forces the system group through them by default).
        assert props["Version"] == "1.35", name
        assert props["ForceUpdateEnabled"] is False, name
        assert props["UpdateConfig"]["MaxUnavailable"] == 1, name
    assert groups["p5.48xlarge/CAPACITY_BLOCK"]["UpdateConfig"]["UpdateStrategy"] == "MINIMAL"
    assert "UpdateStrategy" not in groups["trn1.32xlarge/ON_DEMAND"]["UpdateConfig"]  # EKS's DEFAULT: surge first
    addons = {a["Properties"]["AddonName"]: a["Properties"].get("AddonVersion")
              for a in template.find_resources("AWS::EKS::Addon").values()}
    assert addons == {name: addon_version(name, "1.35") for name in DEFAULT_ADDONS}
    assert addons["kube-proxy"].startswith("v1.35.")


def test_a_node_group_on_a_cluster_that_does_not_say_its_version_asks_for_it(platform):
    stack, network, cluster = platform[:3]
    with pytest.raises(ValueError, match=r"^kubernetes_version=None is not allowed: the cluster's Kubernetes version"):
        AcceleratedNodeGroup(stack, "Bare", cluster=cluster.cluster, instance_type="g5.xlarge", accelerator="nvidia",
                             subnet=network.training_subnet, node_role=cluster.node_role, efa=False)


def test_node_group_names_change_only_with_what_eks_cannot_change_in_place():
    from eks_training.core.names import node_group_name
    from eks_training.infra.config import load_environment

    name = node_group_name("p5-nodes", "p5.48xlarge", "on-demand")
    assert name.startswith("p5-nodes-") and name == node_group_name("p5-nodes", "p5.48xlarge", "on-demand")
    # A new instance or capacity type: a replacement of another name, created before the old group goes.
    assert len({name, node_group_name("p5-nodes", "p5e.48xlarge", "on-demand"),
                node_group_name("p5-nodes", "p5.48xlarge", "spot")}) == 3
    prod = load_environment("prod")
    p5 = prod.capacity.gpu_node_groups[0]
    assert p5.eks_name == name  # sizes, volumes and labels are no part of it
    assert p5.model_copy(update={"nodegroup_name": "p5-nodes"}).eks_name == "p5-nodes"  # a group deployed before


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


@pytest.mark.parametrize(("network", "node_group", "setting", "value"), [
    ({"cidr": "8.8.0.0/16"}, {}, "network.cidr", "8.8.0.0/16"),
    ({"cidr": "10.0.0.0/8"}, {}, "network.cidr", "10.0.0.0/8"),
    ({"availability_zones": ["us-west-2a"]}, {}, "availability_zones", ["us-west-2a"]),
    ({"training_az": "us-west-2d"}, {}, "training_az", "us-west-2d"),
    ({}, {"min_size": 3, "max_size": 2}, "capacity.gpu_node_groups[0].min_size", 3),
    ({}, {"capacity_type": "spot", "capacity_reservation_id": "cr-0123456789abcdef0"},
     "capacity.gpu_node_groups[0].capacity_reservation_id", "cr-0123456789abcdef0"),
])
def test_constructs_and_the_config_refuse_the_same_settings_with_the_same_words(network, node_group, setting, value):
    """The config layer runs the constructs' own checks: one rule, one message, whichever door a value comes in by."""
    from eks_training.infra.config import ConfigError, load_environment, parse_config

    zones = {"availability_zones": ["us-west-2a", "us-west-2b", "us-west-2c"], "training_az": "us-west-2a"}  # staging's
    stack = cdk.Stack(cdk.App(), "Same", env=cdk.Environment(region="us-west-2"))
    with pytest.raises(ValueError) as from_props:
        built = TrainingNetwork(stack, "Network", **{**zones, "training_ips": 100, **network})
        TrainingCluster(stack, "Cluster", vpc=built.vpc, version="1.35", training_subnet=built.training_subnet,
                        efa_security_group=built.efa_security_group).add_accelerated_node_group(
            "Gpu", instance_type="p5.48xlarge", **node_group)

    data = load_environment("staging").model_dump(mode="json")
    data.update({key: value for key, value in network.items() if key != "cidr"})
    data["network"]["cidr"] = network.get("cidr", data["network"]["cidr"])
    if node_group:
        data["capacity"]["gpu_node_groups"] = [{"name": "gpu", "instance_type": "p5.48xlarge", **node_group}]
    with pytest.raises(ConfigError) as from_file:
        parse_config(data, source="env.yaml")

    allowed = from_props.value.allowed
    assert str(from_file.value) == f"env.yaml: {setting}={value!r} is not allowed: {allowed}"


def test_cidrs_that_together_admit_the_whole_internet_warn_like_0_0_0_0_slash_0():
    from aws_cdk.assertions import Annotations

    from eks_training.core.validation import covers_every_address

    assert covers_every_address(["0.0.0.0/1", "128.0.0.0/1"]) and covers_every_address(["0.0.0.0/0"])
    assert not covers_every_address(["0.0.0.0/1", "128.0.0.0/2"]) and not covers_every_address(["203.0.113.0/24"])
    app = cdk.App(context={"@aws-cdk/aws-eks:defaultToAL2023": True})
    stack = cdk.Stack(app, "Open", env=cdk.Environment(region="us-west-2"))
    network = TrainingNetwork(stack, "Network", availability_zones=["us-west-2a", "us-west-2b"], training_az="us-west-2a",
                              cidr="10.32.0.0/16", training_ips=100, nat_gateways=1)
    TrainingCluster(stack, "Cluster", vpc=network.vpc, version="1.35", endpoint_access="public_and_private",
                    public_access_cidrs=["0.0.0.0/1", "128.0.0.0/1"])
    warnings = Annotations.from_stack(stack).find_warning("*", assertions.Match.string_like_regexp("open to the whole internet"))
    assert warnings


def test_a_public_only_endpoint_cannot_take_networks():
    app = cdk.App(context={"@aws-cdk/aws-eks:defaultToAL2023": True})
    stack = cdk.Stack(app, "PublicOnly", env=cdk.Environment(region="us-west-2"))
    network = TrainingNetwork(stack, "Network", availability_zones=["us-west-2a", "us-west-2b"], training_az="us-west-2a",
                              cidr="10.33.0.0/16", training_ips=100, nat_gateways=1)
    # aws-eks-v2 refused it with a raw jsii error (CannotRestricPublicAccessEndpoint); now one line.
    with pytest.raises(ValueError, match=r"^endpoint_access='public' is not allowed: public_and_private to admit only "
                                         r"public_access_cidrs"):
        TrainingCluster(stack, "Cluster", vpc=network.vpc, version="1.35", endpoint_access="public",
                        public_access_cidrs=["203.0.113.0/24"])
