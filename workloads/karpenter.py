"""Karpenter v1 capacity for accelerated training: one EC2NodeClass + NodePool per pool.

Training runs for days and cannot be moved, so the pools never replace a busy node: no expiry, consolidation
only of empty nodes, and a disruption budget of zero for drift and under-utilization. Empty nodes still go
after `consolidate_after`, so idle accelerators cost nothing. AMIs come from the AL2023 alias, which picks the
NVIDIA or Neuron variant by instance type; drivers come with the AMI, never from userData.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import cdk8s
import constructs

from eks_training.workloads.k8s_objects import (
    check_choice,
    check_dns_label,
    check_int,
    check_label_key,
    check_label_value,
    check_labels,
    check_unique,
)
from eks_training.core.catalog import ACCELERATOR_RESOURCE, accelerator_taint, instance_facts
from eks_training.core.validation import KARPENTER_CAPACITY_TYPES, check_karpenter_capacity, invalid
from eks_training.workloads.labels import common_labels
from eks_training.workloads.typed_objects import emit_typed
from eks_training.core.names import (
    EFA_SUBNET_TAG,
    LABEL_ACCELERATOR,
    LABEL_EFA,
    LABEL_FAMILY,
    LABEL_POOL,
)

COMPONENT = "karpenter"
NODE_POOL_API = "karpenter.sh/v1"
NODE_CLASS_GROUP = "karpenter.k8s.aws"
NODE_CLASS_API = f"{NODE_CLASS_GROUP}/v1"
DISCOVERY_TAG = "karpenter.sh/discovery"
#: The tag EKS puts on the cluster security group it creates.
EKS_CLUSTER_NAME_TAG = "aws:eks:cluster-name"
CAPACITY_TYPES = KARPENTER_CAPACITY_TYPES
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
IMDS_HOP_LIMITS = (1, 2)

_INSTANCE_TYPE = re.compile(r"^([a-z][a-z0-9-]*)\.([a-z0-9]+)$")
_ZONE = re.compile(r"^[a-z]{2}(-[a-z]+)+-\d+[a-z]$")
_AMI_VERSION = re.compile(r"^(latest|v\d{8})$")
_CLUSTER_NAME = re.compile(r"^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$")
_IAM_ROLE_NAME = re.compile(r"^[\w+=,.@-]{1,64}$")
_PLACEMENT_GROUP = re.compile(r"^[\w+=,.@ -]{1,255}$")
# Label domains Karpenter's webhook/CEL rules reserve for itself (checked here because the harness cannot run CEL).
_RESERVED_LABEL_DOMAINS = ("karpenter.sh", "karpenter.k8s.aws", "kubernetes.io/hostname")

# gp3 limits (EBS docs): 3,000-80,000 IOPS, 125-2,000 MiB/s, at most 500 IOPS per GiB and 0.25 MiB/s per IOPS.
# The size cap is the EC2NodeClass CRD's volumeSize pattern (59000Gi).
GP3_IOPS = (3000, 80000)
GP3_THROUGHPUT = (125, 2000)
ROOT_VOLUME_GIB = (20, 59000)


@dataclass(frozen=True)
class NodeTaint:
    """An extra taint on a pool's nodes."""

    key: str
    effect: str = "NoSchedule"
    value: str = ""

    def __post_init__(self) -> None:
        check_label_key("taint", self.key)
        check_choice(f"taint {self.key!r} effect", self.effect, TAINT_EFFECTS)
        check_label_value(f"taint {self.key!r} value", self.value)

    def to_k8s(self) -> dict[str, str]:
        """The taint as Kubernetes writes it."""
        return {"key": self.key, "effect": self.effect, **({"value": self.value} if self.value else {})}


@dataclass(frozen=True)
class KarpenterPool:
    """One homogeneous pool of accelerated nodes (one instance family) in the training availability zone.

    `accelerator_limit` caps the pool's GPUs (nvidia) or Neuron devices (neuron). `local_nvme` turns the
    instances' NVMe disks into one RAID0 array for kubelet and containers. `capacity_reservation_ids` are the
    ODCR/Capacity Block ids used when `capacity_types` includes "reserved". `placement_group_name` is an existing
    cluster placement group (recommended for EFA pools).
    """

    name: str
    accelerator: str
    instance_types: tuple[str, ...]
    zone: str
    accelerator_limit: int
    capacity_types: tuple[str, ...] = ("on-demand",)
    efa: bool = False
    local_nvme: bool = False
    root_volume_gib: int = 200
    iops: int = 6000
    throughput: int = 500
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[NodeTaint, ...] = ()
    capacity_reservation_ids: tuple[str, ...] = ()
    placement_group_name: str | None = None
    consolidate_after: str = "10m"
    #: The IAM role its nodes get (EC2NodeClass ``spec.role``); None: the chart's ``node_role_name``.
    node_role_name: str | None = None
    #: The tag (key, value) of the pool's own security groups, selected beside the cluster security group instead
    #: of the groups tagged for discovery (the shared EFA group); None: those.
    security_group_tag: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        where = f"pool {self.name!r}"
        check_dns_label("pool name", self.name)
        check_choice(f"{where} accelerator", self.accelerator, tuple(ACCELERATOR_RESOURCE))
        self._check_instance_types(where)
        if not isinstance(self.zone, str) or not _ZONE.match(self.zone):
            raise invalid(f"{where} zone", self.zone, "use an availability zone name, e.g. 'us-east-1a'")
        check_int(f"{where} accelerator_limit", self.accelerator_limit, minimum=1)
        self._check_capacity(where)
        check_int(f"{where} root_volume_gib", self.root_volume_gib, minimum=ROOT_VOLUME_GIB[0], maximum=ROOT_VOLUME_GIB[1])
        check_int(f"{where} iops", self.iops, minimum=GP3_IOPS[0], maximum=min(GP3_IOPS[1], 500 * self.root_volume_gib))
        check_int(f"{where} throughput", self.throughput, minimum=GP3_THROUGHPUT[0], maximum=min(GP3_THROUGHPUT[1], self.iops // 4))
        for key in check_labels(f"{where} labels", self.labels):
            if any(key == d or key.split("/")[0].endswith(d) for d in _RESERVED_LABEL_DOMAINS):
                raise invalid(f"{where} labels key", key, "use a key of your own prefix, e.g. 'team/...' (the "
                              f"{', '.join(_RESERVED_LABEL_DOMAINS)} domains are reserved by Karpenter)")
        if not all(isinstance(t, NodeTaint) for t in self.taints):
            raise invalid(f"{where} taints", self.taints, "use NodeTaint values")
        if self.placement_group_name is not None and not _PLACEMENT_GROUP.match(str(self.placement_group_name)):
            raise invalid(f"{where} placement_group_name", self.placement_group_name,
                          "use a placement group name: 1-255 letters, digits, spaces or '+=,.@_-'")
        if self.node_role_name is not None and (not isinstance(self.node_role_name, str)
                                                or not _IAM_ROLE_NAME.match(self.node_role_name)):
            raise invalid(f"{where} node_role_name", self.node_role_name,
                          "use an IAM role name (not an ARN): 1-64 of [A-Za-z0-9+=,.@_-]")
        if self.security_group_tag is not None:
            tag = tuple(self.security_group_tag) if isinstance(self.security_group_tag, (tuple, list)) else ()
            if len(tag) != 2 or not all(isinstance(t, str) and t for t in tag) or tag[0] == DISCOVERY_TAG:
                raise invalid(f"{where} security_group_tag", self.security_group_tag,
                              f"a (key, value) pair of non-empty strings, the key not {DISCOVERY_TAG}")
            object.__setattr__(self, "security_group_tag", tag)
        if not isinstance(self.consolidate_after, str) or not re.match(r"^([0-9]+(s|m|h))+$", self.consolidate_after):
            raise invalid(f"{where} consolidate_after", self.consolidate_after,
                          "use a duration of s, m or h, e.g. '10m' or '1h30m'")

    def _check_instance_types(self, where: str) -> None:
        if isinstance(self.instance_types, str) or not self.instance_types:
            raise invalid(f"{where} instance_types", self.instance_types, "use a non-empty list of EC2 types")
        families = set()
        for instance_type in self.instance_types:
            match = _INSTANCE_TYPE.match(instance_type) if isinstance(instance_type, str) else None
            if match is None:
                raise invalid(f"{where} instance type", instance_type, "use an EC2 type, e.g. 'p5.48xlarge'")
            families.add(match.group(1))
        check_unique(f"{where} instance_types", list(self.instance_types))
        if len(families) != 1:
            raise invalid(f"{where} instance_types", list(self.instance_types),
                          f"use types of one family (a training pool holds one; these mix {', '.join(sorted(families))})")
        family = families.pop()
        facts = instance_facts(self.instance_types[0], field=f"{where} instance_types")
        if facts.accelerator != self.accelerator:
            raise invalid(f"{where} instance family", family, f"use a family with a {self.accelerator} accelerator "
                          f"(its {facts.accelerator_name} is {facts.accelerator})")

    def _check_capacity(self, where: str) -> None:
        # One rule for capacity types and reservation ids, in core: a pool's and a config file's alike.
        check_karpenter_capacity(self.capacity_types, self.capacity_reservation_ids, prefix=f"{where} ")

    @property
    def instance_family(self) -> str:
        """The pool's one EC2 instance family, e.g. "p5"."""
        return self.instance_types[0].split(".")[0]

    @property
    def device_resource(self) -> str:
        """The extended resource the pool's accelerators are scheduled as."""
        return ACCELERATOR_RESOURCE[self.accelerator]


def ec2_node_class(
    pool: KarpenterPool,
    *,
    cluster_name: str,
    node_role_name: str,
    ami_version: str = "latest",
    imds_hop_limit: int = 1,
) -> dict:
    """The `karpenter.k8s.aws/v1` EC2NodeClass for `pool`.

    `ami_version` pins the AL2023 EKS AMI release (e.g. "v20260801"); "latest" follows new releases, which only
    reach nodes as they are replaced, since the pool's budgets block drift. Either way the alias names no Kubernetes
    version: Karpenter reads the cluster's and resolves the SSM parameter of that version's AMI
    (``/aws/service/eks/optimized-ami/<version>/amazon-linux-2023/<arch>/<variant>/...``), so after a control plane
    upgrade new nodes come up on the new version, and busy ones keep theirs until they are empty (the drift budget
    is zero); the kubelet may be three minor versions behind the API server. A pinned release must exist for every
    version the cluster is upgraded to. `imds_hop_limit` 1 keeps pods away from the node's IMDS credentials
    (Karpenter's default); 2 is for pods that must reach IMDS themselves.
    """
    _check_cluster_inputs(cluster_name, node_role_name, ami_version, imds_hop_limit)
    subnet_tags = {DISCOVERY_TAG: cluster_name, **(dict([EFA_SUBNET_TAG]) if pool.efa else {})}
    spec: dict = {
        "amiSelectorTerms": [{"alias": f"al2023@{ami_version}"}],
        "role": node_role_name,
        "subnetSelectorTerms": [{"tags": subnet_tags}],
        # Terms are ORed: the cluster security group EKS creates (tagged by EKS with the cluster name; nodes reach the
        # API endpoint and FSx through it) and our groups tagged for discovery (the EFA group), or the pool's own.
        "securityGroupSelectorTerms": [{"tags": {EKS_CLUSTER_NAME_TAG: cluster_name}}, {"tags": dict(
            [pool.security_group_tag] if pool.security_group_tag else [(DISCOVERY_TAG, cluster_name)])}],
        "blockDeviceMappings": [
            {
                "deviceName": "/dev/xvda",  # the AL2023 root device
                "rootVolume": True,
                "ebs": {
                    "volumeSize": f"{pool.root_volume_gib}Gi",
                    "volumeType": "gp3",
                    "iops": pool.iops,
                    "throughput": pool.throughput,
                    "encrypted": True,
                    "deleteOnTermination": True,
                },
            }
        ],
        "metadataOptions": {
            "httpEndpoint": "enabled",
            "httpProtocolIPv6": "disabled",
            "httpPutResponseHopLimit": imds_hop_limit,
            "httpTokens": "required",
        },
        "tags": {"eks-training/pool": pool.name, "eks-training/accelerator": pool.accelerator},
    }
    if pool.local_nvme:
        spec["instanceStorePolicy"] = "RAID0"
    if pool.placement_group_name:
        spec["placementGroupSelector"] = {"name": pool.placement_group_name}
    if pool.capacity_reservation_ids:
        spec["capacityReservationSelectorTerms"] = [{"id": rid} for rid in pool.capacity_reservation_ids]
    return {
        "apiVersion": NODE_CLASS_API,
        "kind": "EC2NodeClass",
        "metadata": {"name": pool.name, "labels": common_labels(COMPONENT)},
        "spec": spec,
    }


def node_pool(pool: KarpenterPool) -> dict:
    """The `karpenter.sh/v1` NodePool for `pool`, referring to the EC2NodeClass of the same name."""
    node_labels = {
        LABEL_ACCELERATOR: pool.accelerator,
        LABEL_FAMILY: pool.instance_family,
        LABEL_EFA: str(pool.efa).lower(),
        LABEL_POOL: pool.name,
        **pool.labels,
    }
    return {
        "apiVersion": NODE_POOL_API,
        "kind": "NodePool",
        "metadata": {"name": pool.name, "labels": common_labels(COMPONENT)},
        "spec": {
            "template": {
                "metadata": {"labels": node_labels},
                "spec": {
                    "nodeClassRef": {"group": NODE_CLASS_GROUP, "kind": "EC2NodeClass", "name": pool.name},
                    "requirements": [
                        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": list(pool.instance_types)},
                        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": list(pool.capacity_types)},
                        {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [pool.zone]},
                    ],
                    "taints": [
                        accelerator_taint(pool.accelerator),
                        *(taint.to_k8s() for taint in pool.taints),
                    ],
                    # Karpenter v1 expires nodes forcibly (budgets do not apply): never, for multi-day runs.
                    "expireAfter": "Never",
                },
            },
            "limits": {pool.device_resource: str(pool.accelerator_limit)},
            "disruption": {
                "consolidationPolicy": "WhenEmpty",
                "consolidateAfter": pool.consolidate_after,
                "budgets": [
                    # Budgets with reasons apply per reason: a busy node is never drifted or consolidated away ...
                    {"nodes": "0", "reasons": ["Drifted", "Underutilized"]},
                    # ... while empty ones all go, so idle accelerators cost nothing.
                    {"nodes": "100%", "reasons": ["Empty"]},
                ],
            },
        },
    }


def _check_cluster_inputs(cluster_name: str, node_role_name: str, ami_version: str, imds_hop_limit: int) -> None:
    if not isinstance(cluster_name, str) or not _CLUSTER_NAME.match(cluster_name):
        raise invalid("cluster_name", cluster_name, "use an EKS cluster name: 1-100 letters, digits, '-' or '_'")
    if not isinstance(node_role_name, str) or not _IAM_ROLE_NAME.match(node_role_name):
        raise invalid("node_role_name", node_role_name, "use an IAM role name (not an ARN): 1-64 of [A-Za-z0-9+=,.@_-]")
    if not isinstance(ami_version, str) or not _AMI_VERSION.match(ami_version):
        raise invalid("ami_version", ami_version, "use 'latest' or an AL2023 release like 'v20260801'")
    if imds_hop_limit not in IMDS_HOP_LIMITS:
        raise invalid("imds_hop_limit", imds_hop_limit, "use 1 (pods cannot reach IMDS) or 2")


class KarpenterPoolsChart(cdk8s.Chart):
    """An EC2NodeClass and a NodePool for each accelerated training pool."""

    def __init__(
        self,
        scope: constructs.Construct,
        id: str,
        *,
        cluster_name: str,
        node_role_name: str,
        pools: Sequence[KarpenterPool],
        ami_version: str = "latest",
        imds_hop_limit: int = 1,
    ) -> None:
        super().__init__(scope, id)
        if isinstance(pools, (str, bytes)) or not pools or not all(isinstance(p, KarpenterPool) for p in pools):
            raise invalid("pools", pools, "use a non-empty list of KarpenterPool")
        check_unique("pool names", [pool.name for pool in pools])
        # Generated by `make imports` from the upstream CRDs.
        from eks_training.workloads.imports.aws.k8s.karpenter import Ec2NodeClass
        from eks_training.workloads.imports.sh.karpenter import NodePool

        for pool in pools:
            emit_typed(
                self,
                Ec2NodeClass,
                ec2_node_class(
                    pool,
                    cluster_name=cluster_name,
                    node_role_name=pool.node_role_name or node_role_name,
                    ami_version=ami_version,
                    imds_hop_limit=imds_hop_limit,
                ),
            )
            emit_typed(self, NodePool, node_pool(pool))
