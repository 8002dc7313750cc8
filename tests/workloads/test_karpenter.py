"""Karpenter pools: valid against the upstream v1 CRDs, safe for long training runs, strict about inputs."""

from __future__ import annotations

import cdk8s
import pytest

from eks_training.core.validation import InvalidValue
from eks_training.workloads.karpenter import KarpenterPool, KarpenterPoolsChart, NodeTaint, ec2_node_class, node_pool
from support.errors import assert_refused
from support.k8s_schemas import chart_objects, validate_k8s_objects

H100_POOL = KarpenterPool(
    name="gpu-p5",
    accelerator="nvidia",
    instance_types=("p5.48xlarge",),
    zone="us-east-1a",
    accelerator_limit=64,
    capacity_types=("reserved", "on-demand"),
    efa=True,
    local_nvme=True,
    capacity_reservation_ids=("cr-0123456789abcdef0",),
    placement_group_name="training-cluster-pg",
    labels={"team": "llm"},
    taints=(NodeTaint(key="eks-training/dedicated", value="llm"),),
)
TRAINIUM_POOL = KarpenterPool(
    name="neuron-trn1",
    accelerator="neuron",
    instance_types=("trn1.32xlarge", "trn1.2xlarge"),
    zone="us-east-1a",
    accelerator_limit=32,
    capacity_types=("spot", "on-demand"),
)


def _render(**overrides) -> list[dict]:
    app = cdk8s.App()
    options = {"cluster_name": "training", "node_role_name": "KarpenterNodeRole-training", "pools": [H100_POOL, TRAINIUM_POOL]}
    chart = KarpenterPoolsChart(app, "karpenter", **{**options, **overrides})
    return chart_objects(chart)


@pytest.fixture(scope="module")
def objects() -> list[dict]:
    return validate_k8s_objects(_render())


def _find(objects: list[dict], kind: str, name: str) -> dict:
    return next(o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name)


def test_every_object_is_valid_and_labelled(objects) -> None:
    assert sorted((o["kind"], o["metadata"]["name"]) for o in objects) == [
        ("EC2NodeClass", "gpu-p5"),
        ("EC2NodeClass", "neuron-trn1"),
        ("NodePool", "gpu-p5"),
        ("NodePool", "neuron-trn1"),
    ]
    for obj in objects:
        assert obj["metadata"]["labels"]["app.kubernetes.io/part-of"] == "eks-training"
        assert obj["metadata"]["labels"]["app.kubernetes.io/component"] == "karpenter"


def test_node_class_uses_al2023_alias_imdsv2_and_no_user_data(objects) -> None:
    for name in ("gpu-p5", "neuron-trn1"):
        spec = _find(objects, "EC2NodeClass", name)["spec"]
        assert spec["amiSelectorTerms"] == [{"alias": "al2023@latest"}]
        assert "amiFamily" not in spec and "userData" not in spec
        assert spec["role"] == "KarpenterNodeRole-training"
        assert spec["metadataOptions"]["httpTokens"] == "required"
        assert spec["metadataOptions"]["httpPutResponseHopLimit"] == 1
        # The cluster security group (EKS tags it with the cluster name: API endpoint, FSx) or our tagged groups (EFA).
        assert spec["securityGroupSelectorTerms"] == [{"tags": {"aws:eks:cluster-name": "training"}},
                                                      {"tags": {"karpenter.sh/discovery": "training"}}]
        (root,) = spec["blockDeviceMappings"]
        assert root["rootVolume"] is True
        assert root["ebs"]["volumeType"] == "gp3" and root["ebs"]["encrypted"] is True


def test_efa_pool_selects_efa_subnets_raid0_reservations_and_placement_group(objects) -> None:
    gpu = _find(objects, "EC2NodeClass", "gpu-p5")["spec"]
    assert gpu["subnetSelectorTerms"] == [{"tags": {"karpenter.sh/discovery": "training", "eks-training/efa": "true"}}]
    assert gpu["instanceStorePolicy"] == "RAID0"
    assert gpu["placementGroupSelector"] == {"name": "training-cluster-pg"}
    assert gpu["capacityReservationSelectorTerms"] == [{"id": "cr-0123456789abcdef0"}]
    trainium = _find(objects, "EC2NodeClass", "neuron-trn1")["spec"]
    assert trainium["subnetSelectorTerms"] == [{"tags": {"karpenter.sh/discovery": "training"}}]
    assert not {"instanceStorePolicy", "placementGroupSelector", "capacityReservationSelectorTerms"} & set(trainium)


def test_node_pool_requirements_taints_labels_and_limits(objects) -> None:
    gpu = _find(objects, "NodePool", "gpu-p5")["spec"]
    template = gpu["template"]["spec"]
    assert template["nodeClassRef"] == {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu-p5"}
    requirements = {r["key"]: (r["operator"], r["values"]) for r in template["requirements"]}
    assert requirements == {
        "node.kubernetes.io/instance-type": ("In", ["p5.48xlarge"]),
        "karpenter.sh/capacity-type": ("In", ["reserved", "on-demand"]),
        "topology.kubernetes.io/zone": ("In", ["us-east-1a"]),
    }
    # The same taint, value "true" included, as the managed node groups carry.
    assert {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"} in template["taints"]
    assert {"key": "eks-training/dedicated", "value": "llm", "effect": "NoSchedule"} in template["taints"]
    assert gpu["template"]["metadata"]["labels"] == {
        "eks-training/accelerator": "nvidia",
        "eks-training/instance-family": "p5",
        "eks-training/efa": "true",
        "eks-training/pool": "gpu-p5",
        "team": "llm",
    }
    assert gpu["limits"] == {"nvidia.com/gpu": "64"}
    trainium = _find(objects, "NodePool", "neuron-trn1")["spec"]
    assert trainium["template"]["spec"]["taints"] == [{"key": "aws.amazon.com/neuron", "value": "true", "effect": "NoSchedule"}]
    assert trainium["limits"] == {"aws.amazon.com/neuron": "32"}


def _budgets_for(reason: str, budgets: list[dict]) -> list[str]:
    """The node budgets that apply to a disruption reason (Karpenter enforces the most restrictive one)."""
    applying = [b["nodes"] for b in budgets if "reasons" not in b or reason in b["reasons"]]
    assert applying, f"no budget applies to {reason}; Karpenter would default to 10%"
    return applying


def test_disruption_never_touches_busy_nodes_but_frees_empty_ones(objects) -> None:
    for name in ("gpu-p5", "neuron-trn1"):
        spec = _find(objects, "NodePool", name)["spec"]
        assert spec["template"]["spec"]["expireAfter"] == "Never"
        disruption = spec["disruption"]
        assert disruption["consolidationPolicy"] == "WhenEmpty"
        assert disruption["consolidateAfter"] == "10m"
        assert "0" in _budgets_for("Drifted", disruption["budgets"])
        assert "0" in _budgets_for("Underutilized", disruption["budgets"])
        assert "0" not in _budgets_for("Empty", disruption["budgets"])


def test_builders_take_a_pinned_ami_and_hop_limit_two() -> None:
    spec = ec2_node_class(
        TRAINIUM_POOL, cluster_name="c", node_role_name="r", ami_version="v20260801", imds_hop_limit=2
    )["spec"]
    assert spec["amiSelectorTerms"] == [{"alias": "al2023@v20260801"}]
    assert spec["metadataOptions"]["httpPutResponseHopLimit"] == 2
    validate_k8s_objects([node_pool(TRAINIUM_POOL)])


def _pool(**changes) -> KarpenterPool:
    base = dict(name="p", accelerator="nvidia", instance_types=("p5.48xlarge",), zone="us-west-2b", accelerator_limit=8)
    return KarpenterPool(**{**base, **changes})


P = "pool 'p' "


@pytest.mark.parametrize(
    ("changes", "field", "value", "allowed"),
    [
        ({"name": "GPU_pool"}, "pool name", "GPU_pool", "use 1-63 lowercase letters, digits or '-'"),
        ({"accelerator": "amd"}, P + "accelerator", "amd", "use one of nvidia, neuron"),
        ({"instance_types": ()}, P + "instance_types", (), "use a non-empty list of EC2 types"),
        ({"instance_types": "p5.48xlarge"}, P + "instance_types", "p5.48xlarge", "use a non-empty list of EC2 types"),
        ({"instance_types": ("p5-48xlarge",)}, P + "instance type", "p5-48xlarge", "use an EC2 type, e.g. 'p5.48xlarge'"),
        ({"instance_types": ("p5.48xlarge", "p4d.24xlarge")}, P + "instance_types", ["p5.48xlarge", "p4d.24xlarge"],
         "use types of one family (a training pool holds one; these mix p4d, p5)"),
        ({"instance_types": ("trn1.32xlarge",)}, P + "instance family", "trn1",
         "use a family with a nvidia accelerator (its Trainium is neuron)"),
        ({"accelerator": "neuron"}, P + "instance family", "p5", "use a family with a neuron accelerator"),
        ({"zone": "use1-az1"}, P + "zone", "use1-az1", "use an availability zone name, e.g. 'us-east-1a'"),
        ({"accelerator_limit": 0}, P + "accelerator_limit", 0, "use an integer >= 1"),
        ({"capacity_types": ("ondemand",)}, P + "capacity_types[0]", "ondemand", "use one of on-demand, spot, reserved"),
        ({"capacity_types": "spot"}, P + "capacity_types", "spot", "use a non-empty list of on-demand, spot, reserved"),
        ({"capacity_types": ("spot", "spot")}, P + "capacity_types", ["spot", "spot"], "'spot' is given twice"),
        ({"capacity_types": ("reserved",)}, P + "capacity_reservation_ids", [], "'reserved' needs the reservations' cr- ids"),
        ({"capacity_reservation_ids": ("cr-0123456789abcdef0",)}, P + "capacity_reservation_ids",
         ["cr-0123456789abcdef0"], "only with 'reserved' in capacity_types (not ['on-demand'])"),
        # The id rule is core's, the one the managed node groups and the config file use: cr- and 17 hex digits.
        ({"capacity_types": ("reserved",), "capacity_reservation_ids": ("odcr-1",)}, P + "capacity_reservation_ids[0]",
         "odcr-1", "use an ODCR or Capacity Block id such as cr-0123456789abcdef0"),
        ({"capacity_types": ("reserved",), "capacity_reservation_ids": ("cr-1",)}, P + "capacity_reservation_ids[0]",
         "cr-1", "such as cr-0123456789abcdef0"),
        ({"root_volume_gib": 10}, P + "root_volume_gib", 10, "use an integer from 20 to 59000"),
        ({"root_volume_gib": 20, "iops": 12000}, P + "iops", 12000, "use an integer from 3000 to 10000"),
        ({"iops": 3000, "throughput": 1000}, P + "throughput", 1000, "use an integer from 125 to 750"),
        ({"labels": {"karpenter.sh/nodepool": "x"}}, P + "labels key", "karpenter.sh/nodepool",
         "use a key of your own prefix, e.g. 'team/...' (the karpenter.sh, karpenter.k8s.aws, kubernetes.io/hostname"),
        ({"labels": {"team": "a b"}}, P + "labels['team']", "a b", "use a label value: at most 63 letters"),
        ({"taints": ("gpu",)}, P + "taints", ("gpu",), "use NodeTaint values"),
        ({"placement_group_name": "pg/1"}, P + "placement_group_name", "pg/1", "use a placement group name"),
        ({"consolidate_after": "10 minutes"}, P + "consolidate_after", "10 minutes", "use a duration of s, m or h"),
        ({"node_role_name": "arn:aws:iam::1:role/x"}, P + "node_role_name", "arn:aws:iam::1:role/x",
         "use an IAM role name (not an ARN)"),
    ],
)
def test_bad_pool_inputs_raise_one_line_errors(changes, field, value, allowed) -> None:
    assert_refused(lambda: _pool(**changes), field, value, allowed)


@pytest.mark.parametrize(
    ("make", "field", "value", "allowed"),
    [
        (lambda: NodeTaint(key="nvidia.com/gpu", effect="NoRun"), "taint 'nvidia.com/gpu' effect", "NoRun",
         "use one of NoSchedule, PreferNoSchedule, NoExecute"),
        (lambda: _render(node_role_name="arn:aws:iam::1:role/x"), "node_role_name", "arn:aws:iam::1:role/x",
         "use an IAM role name (not an ARN)"),
        (lambda: _render(cluster_name="my cluster"), "cluster_name", "my cluster",
         "use an EKS cluster name: 1-100 letters, digits, '-' or '_'"),
        (lambda: _render(ami_version="2024"), "ami_version", "2024", "use 'latest' or an AL2023 release"),
        (lambda: _render(imds_hop_limit=3), "imds_hop_limit", 3, "use 1 (pods cannot reach IMDS) or 2"),
        (lambda: _render(pools=[H100_POOL, H100_POOL]), "pool names", "gpu-p5", "each must be unique"),
        (lambda: _render(pools=[]), "pools", [], "use a non-empty list of KarpenterPool"),
    ],
)
def test_bad_taint_and_chart_inputs_raise_one_line_errors(make, field, value, allowed) -> None:
    assert_refused(make, field, value, allowed)


def test_karpenter_pools_hold_capacity_to_the_core_rule() -> None:
    """The pool's capacity check is core's: the same inputs give the same error from both."""
    from eks_training.core.validation import check_karpenter_capacity

    for types, ids in ((("reserved",), ()), (("spot",), ("cr-0123456789abcdef0",)), (("reserved",), ("cr-1",)),
                       (("on-demand", "on-demand"), ()), (("capacity-block",), ())):
        with pytest.raises(InvalidValue) as from_core:
            check_karpenter_capacity(types, ids, prefix=P)
        with pytest.raises(InvalidValue) as from_pool:
            _pool(capacity_types=types, capacity_reservation_ids=ids)
        assert str(from_pool.value) == str(from_core.value)
    _pool(capacity_types=("reserved", "spot"), capacity_reservation_ids=("cr-0123456789abcdef0",))
