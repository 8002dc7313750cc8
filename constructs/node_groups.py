"""AcceleratedNodeGroup: a managed node group of GPU or Trainium instances, EFA-ready, in one AZ."""

from __future__ import annotations

import textwrap
from datetime import date
from typing import Literal, Mapping

from aws_cdk import Fn
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from constructs import Construct

from eks_training.core.catalog import InstanceFacts, accelerator_taint, check_accelerator, check_efa
from eks_training.core.validation import (NODE_GROUP_CAPACITY_TYPES, RESERVED_CAPACITY_TYPES, check_capacity_reservation,
                                          check_kubernetes_version, check_node_group_sizes, check_whole_number,
                                          invalid)
from eks_training.core.names import LABEL_ACCELERATOR, LABEL_EFA, LABEL_FAMILY, LABEL_POOL, RESERVATION_TAG

CapacityType = Literal["on-demand", "spot", "capacity-reservation", "capacity-block"]
CAPACITY_TYPES: tuple[str, ...] = NODE_GROUP_CAPACITY_TYPES

#: AL2023 accelerated AMI per accelerator kind (the AMIs carry the drivers, EFA and Neuron runtime included).
AMI_TYPES = {"nvidia": "AL2023_x86_64_NVIDIA", "neuron": "AL2023_x86_64_NEURON"}


# nodeadm formats the instance-store NVMe disks as one RAID0 array for containerd and the kubelet.
_RAID0_NODECONFIG = textwrap.dedent("""\
    MIME-Version: 1.0
    Content-Type: multipart/mixed; boundary="BOUNDARY"

    --BOUNDARY
    Content-Type: application/node.eks.aws

    apiVersion: node.eks.aws/v1alpha1
    kind: NodeConfig
    spec:
      instance:
        localStorage:
          strategy: RAID0

    --BOUNDARY--
    """)


def leave_size_to_operators(nodegroup: eks.Nodegroup, *, desired_size: int, min_size: int) -> None:
    """Write no DesiredSize for a group that starts at its minimum size.

    EKS then starts it at ``min_size``, and CloudFormation leaves the size alone when a later deploy changes the
    group's scaling (a new ``max_size``): a size someone set by hand, or an autoscaler, is not reset. A desired size
    above the minimum is written, and owned by the deploy from then on.
    """
    if desired_size == min_size:
        nodegroup.node.default_child.add_property_deletion_override("ScalingConfig.DesiredSize")


def follow_cluster_version(nodegroup: eks.Nodegroup, kubernetes_version: str) -> None:
    """Write the cluster's Kubernetes version into the node group (aws-eks-v2's Nodegroup has no prop for it).

    Without it the group stays on the version it was created with: an upgrade moves the control plane only, and
    EKS refuses the next one while a node group lags. With it, a version change in the same deploy updates the
    group after the cluster (the group references it): EKS replaces its nodes with the new version's AMI,
    ``UpdateConfig`` at a time.
    """
    nodegroup.node.default_child.add_property_override("Version", kubernetes_version)


def accelerator_labels(facts: InstanceFacts, efa: bool, pool: str) -> dict[str, str]:
    """The labels that job builders select on: accelerator kind, instance family, EFA, pool name."""
    return {LABEL_ACCELERATOR: facts.accelerator, LABEL_FAMILY: facts.family,
            LABEL_EFA: str(efa).lower(), LABEL_POOL: pool}


class AcceleratedNodeGroup(Construct):
    """A managed node group of one accelerated instance type, in one subnet and a cluster placement group.

    * ``accelerator``: "nvidia" or "neuron": the group refuses an instance type of the other kind.
    * ``efa`` (default True): a launch template with one EFA interface per network card (count from the
      instance catalog): card 0 ``efa`` (it carries the node's IP), the others ``efa-only``; refused on
      a type without EFA. The interfaces join the cluster security group and ``efa_security_group``.
    * IMDSv2 required (hop limit 1: pods use Pod Identity, not the node's role), an encrypted gp3 root
      volume (``root_volume_gib``/``root_volume_iops``/``root_volume_throughput``), local NVMe as RAID0
      through nodeadm when the type has instance storage.
    * AL2023 NVIDIA or NEURON AMI, taint ``nvidia.com/gpu`` or ``aws.amazon.com/neuron`` (NoSchedule),
      labels from :func:`accelerator_labels`.
    * ``capacity_type``: "on-demand", "spot", "capacity-reservation" (an ODCR, ``capacity_reservation_id``)
      or "capacity-block" (``capacity_reservation_id`` of the block). ``min_size`` may be 0, the default; a group
      with ``desired_size == min_size`` (the default) writes no desired size (:func:`leave_size_to_operators`).
    * ``kubernetes_version``: the version its nodes run. Default: a TrainingCluster's; required with an aws-eks-v2
      cluster (which does not say its version). The group moves with the control plane when it changes.
    * Updates: a change of Kubernetes version, AMI release or launch template (a root volume size, say) replaces every
      node of the group, ``max_unavailable`` (default 1) at a time. EKS evicts the pods on a node first: pods no
      PodDisruptionBudget protects (running training pods included) are stopped; where a budget holds, the update
      fails after EKS's 15 minutes instead of forcing the node out (``ForceUpdateEnabled`` off). Reserved capacity
      (capacity-reservation, capacity-block) updates with EKS's ``MINIMAL`` strategy, terminating a node before
      launching its replacement, since the reservation has no spare instance; the others launch the replacement
      first (``DEFAULT``). `eks-training check --previous` names a change that rolls a group.
    * ``cluster``: a :class:`~eks_training.constructs.cluster.TrainingCluster` (the group then waits for its
      ``node_prerequisites``) or an aws-eks-v2 cluster.

    Attributes: ``nodegroup``, ``launch_template``, ``placement_group``, ``facts`` (the catalog row),
    ``nodegroup_name``, ``instance_type``, ``accelerator``, ``min_size``, ``desired_size``, ``max_size``.
    """

    def __init__(self, scope: Construct, id: str, *, cluster: eks.ICluster, instance_type: str,
                 accelerator: Literal["nvidia", "neuron"], subnet: ec2.ISubnet, node_role: iam.IRole,
                 efa_security_group: ec2.ISecurityGroup | None = None, efa: bool = True,
                 min_size: int = 0, desired_size: int = 0, max_size: int = 1,
                 capacity_type: CapacityType = "on-demand", capacity_reservation_id: str | None = None,
                 root_volume_gib: int = 500, root_volume_iops: int = 10000, root_volume_throughput: int = 500,
                 nodegroup_name: str | None = None, labels: Mapping[str, str] | None = None,
                 kubernetes_version: str | None = None, max_unavailable: int = 1) -> None:
        super().__init__(scope, id)
        # The TrainingCluster wrapper works too (then the group waits for its pod networking add-ons and takes its
        # version): the node group needs its aws-eks-v2 cluster.
        prerequisites = tuple(getattr(cluster, "node_prerequisites", ()))
        kubernetes_version = kubernetes_version or getattr(cluster, "kubernetes_version", None)
        if kubernetes_version is None:
            raise invalid("kubernetes_version", None, "the cluster's Kubernetes version, e.g. '1.36' (an aws-eks-v2 "
                                                      "cluster does not say it; a TrainingCluster does)")
        check_kubernetes_version("kubernetes_version", kubernetes_version, date.today())
        check_whole_number("max_unavailable", max_unavailable, minimum=1, maximum=100, unit="nodes")
        cluster = getattr(cluster, "cluster", cluster)
        # The same checks the config layer runs on an environment file's node groups.
        facts = check_accelerator("instance_type", instance_type, accelerator)
        self.facts = facts
        #: The EKS node group's name (None: CloudFormation generates one), what its nodes' nodegroup label says.
        self.nodegroup_name = nodegroup_name
        self.instance_type, self.accelerator = instance_type, accelerator
        self.min_size, self.desired_size, self.max_size = min_size, desired_size, max_size
        check_efa("efa", efa, [instance_type])
        if efa and efa_security_group is None:
            raise invalid("efa_security_group", None, "a self-referencing security group when efa=True (EFA traffic "
                                                      "needs one)")
        check_capacity_reservation(capacity_type, capacity_reservation_id)
        check_node_group_sizes(min_size, desired_size, max_size)
        reserved = capacity_type in RESERVED_CAPACITY_TYPES

        self.placement_group = ec2.CfnPlacementGroup(self, "PlacementGroup", strategy="cluster")
        template = ec2.CfnLaunchTemplate.LaunchTemplateDataProperty(
            metadata_options=ec2.CfnLaunchTemplate.MetadataOptionsProperty(
                http_tokens="required", http_put_response_hop_limit=1, http_endpoint="enabled"),
            block_device_mappings=[ec2.CfnLaunchTemplate.BlockDeviceMappingProperty(
                device_name="/dev/xvda", ebs=ec2.CfnLaunchTemplate.EbsProperty(
                    volume_type="gp3", volume_size=root_volume_gib, iops=root_volume_iops,
                    throughput=root_volume_throughput, encrypted=True, delete_on_termination=True))],
            placement=ec2.CfnLaunchTemplate.PlacementProperty(group_name=self.placement_group.ref),
            network_interfaces=self._efa_interfaces(cluster, efa_security_group, facts) if efa else None,
            user_data=Fn.base64(_RAID0_NODECONFIG) if facts.local_nvme_gb else None,
            capacity_reservation_specification=ec2.CfnLaunchTemplate.CapacityReservationSpecificationProperty(
                capacity_reservation_target=ec2.CfnLaunchTemplate.CapacityReservationTargetProperty(
                    capacity_reservation_id=capacity_reservation_id)) if reserved else None,
            instance_market_options=ec2.CfnLaunchTemplate.InstanceMarketOptionsProperty(
                market_type="capacity-block") if capacity_type == "capacity-block" else None,
            # The reservation's id finds its instances when it ends (ReservationDrain).
            tag_specifications=[ec2.CfnLaunchTemplate.TagSpecificationProperty(
                resource_type="instance", tags=[{"key": "eks-training/node-group", "value": id}, *(
                    [{"key": RESERVATION_TAG, "value": capacity_reservation_id}] if reserved else [])])],
        )
        self.launch_template = ec2.CfnLaunchTemplate(self, "LaunchTemplate", launch_template_data=template)

        self.nodegroup = eks.Nodegroup(
            self, "Nodegroup", cluster=cluster, nodegroup_name=nodegroup_name,
            instance_types=[ec2.InstanceType(instance_type)], node_role=node_role,
            # EKS replaces a node whose GPU/Neuron/EFA the node monitoring agent reports broken (NodeRepairConfig).
            enable_node_auto_repair=True,
            # A roll drains nodes within their pods' disruption budgets and fails rather than force a node out through
            # one (aws-eks-v2's default forces it). Pods without a budget are evicted all the same.
            force_update=False, max_unavailable=max_unavailable,
            subnets=ec2.SubnetSelection(subnets=[subnet]), min_size=min_size, desired_size=desired_size,
            max_size=max_size, capacity_type={"spot": eks.CapacityType.SPOT,
                                              "capacity-block": eks.CapacityType.CAPACITY_BLOCK}.get(
                                                  capacity_type, eks.CapacityType.ON_DEMAND),
            launch_template_spec=eks.LaunchTemplateSpec(id=self.launch_template.ref,
                                                        version=self.launch_template.attr_latest_version_number),
            labels={**accelerator_labels(facts, efa, id), **(labels or {})},
            taints=[eks.TaintSpec(effect=eks.TaintEffect.NO_SCHEDULE, key=accelerator_taint(accelerator)["key"],
                                  value=accelerator_taint(accelerator)["value"])],
        )
        for prerequisite in prerequisites:
            self.nodegroup.node.add_dependency(prerequisite)
        leave_size_to_operators(self.nodegroup, desired_size=desired_size, min_size=min_size)
        follow_cluster_version(self.nodegroup, kubernetes_version)
        if reserved:
            # A reservation holds exactly its instances: a replacement launched first would find no capacity.
            self.nodegroup.node.default_child.add_property_override("UpdateConfig.UpdateStrategy", "MINIMAL")
        # aws-cdk-lib 2.275 refuses AL2023 NVIDIA/NEURON AMI types for p5 and trn instance types
        # (AmiTypeDoesNotMatchInstanceArchitecture) although EKS supports them: set the type on the
        # CloudFormation resource directly.
        self.nodegroup.node.default_child.add_property_override("AmiType", AMI_TYPES[accelerator])

    @staticmethod
    def _efa_interfaces(cluster: eks.ICluster, efa_sg: ec2.ISecurityGroup, facts: InstanceFacts):
        groups = [cluster.cluster_security_group_id, efa_sg.security_group_id]
        return [ec2.CfnLaunchTemplate.NetworkInterfaceProperty(
            network_card_index=card, device_index=0 if card == 0 else 1,
            interface_type="efa" if card == 0 else "efa-only", groups=groups, delete_on_termination=True)
            for card in range(facts.efa_interfaces)]
