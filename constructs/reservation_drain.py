"""ReservationDrain: the nodes of a Capacity Block (or interruptible capacity reservation) that is about to end are
cordoned and drained, so their jobs checkpoint on SIGTERM and come back on other capacity.

EC2 announces a Capacity Block's end 40 minutes ahead (``Capacity Block Expiration Warning``; its instances start
terminating 10 minutes later) and an interruptible reservation's reclaim 2 minutes ahead (``EC2 Capacity
Reservation Instance Interruption Warning``); see "Monitor Capacity Blocks using EventBridge" and "Monitor
interruptible Capacity Reservations" in the EC2 User Guide. An EventBridge rule sends those events to a Lambda
function (``handlers/reservation_drain.py``) that evicts the pods with their own grace periods.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks as eks_l1
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from eks_training.constructs.cluster import TrainingCluster
from eks_training.constructs.observability import allow_cloudwatch_logs
from eks_training.constructs.acknowledgements import acknowledge, managed_policy_finding, wildcard_resource_finding
from eks_training.core.validation import check_capacity_reservation_id, invalid

HANDLER_DIR = Path(__file__).parent / "handlers"
#: The Kubernetes group the function's access entry puts it in; the ClusterRole below is bound to it alone.
DRAIN_GROUP = "eks-training:reservation-drain"
#: What a drain does in Kubernetes, and nothing more.
DRAIN_RULES = (
    {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "patch"]},
    {"apiGroups": [""], "resources": ["pods"], "verbs": ["list", "delete"]},
    {"apiGroups": [""], "resources": ["pods/eviction"], "verbs": ["create"]},
)
#: EventBridge detail-types: a Capacity Block's end (both names the EC2 guide gives it) and an interruptible
#: reservation's reclaim.
CAPACITY_BLOCK_WARNINGS = ("Capacity Block Expiration Warning", "Capacity Block Reservation Expiration Warning")
INTERRUPTION_WARNING = "EC2 Capacity Reservation Instance Interruption Warning"


class ReservationDrain(Construct):
    """Drains the nodes of ending capacity reservations before EC2 takes them back.

    * ``cluster``: the :class:`~eks_training.constructs.cluster.TrainingCluster`; the function runs in its VPC's
      private subnets and reaches its API endpoint, which it may call on 443.
    * ``reservation_ids``: the Capacity Block and capacity reservation ids the cluster's node sources launch into
      (node groups tag their instances with it; Karpenter labels its nodes with it).
    * ``interruptible``: also drain on interruptible reservations' reclaim warnings. Default: True.

    Attributes: ``function`` (the Lambda function), ``dead_letter_queue`` (events whose drain failed), ``key``
    (encrypts its logs, environment and dead letters), ``role`` (its role: ec2:DescribeInstances, its VPC network
    interfaces and its logs), ``rules`` (the EventBridge rules), ``access_entry`` (its EKS access entry),
    ``rbac_manifest`` (its ClusterRole and binding).
    """

    def __init__(self, scope: Construct, id: str, *, cluster: TrainingCluster, reservation_ids: Sequence[str],
                 interruptible: bool = True) -> None:
        super().__init__(scope, id)
        if isinstance(reservation_ids, (str, bytes)) or not reservation_ids:
            raise invalid(f"{self.node.path}: reservation_ids", reservation_ids,
                          "at least one capacity reservation or Capacity Block id (cr-...)")
        for i, reservation in enumerate(reservation_ids):
            check_capacity_reservation_id(f"{self.node.path}: reservation_ids[{i}]", reservation)
        self.reservation_ids = tuple(dict.fromkeys(reservation_ids))
        eks_cluster = cluster.cluster

        # One key of its own for its logs, its environment and its dead letters; CloudWatch Logs may use it for this
        # account's log groups only.
        self.key = kms.Key(self, "Key", enable_key_rotation=True, removal_policy=RemovalPolicy.DESTROY,
                           description="Reservation-end drain: logs, environment, dead letters")
        allow_cloudwatch_logs(self.key, ["*"], sid="AllowCloudWatchLogs")
        log_group = logs.LogGroup(self, "Logs", retention=logs.RetentionDays.ONE_YEAR, encryption_key=self.key)
        self.role = iam.Role(
            self, "Role", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description="Reservation-end drain: finds the reservation's instances; Kubernetes rights come from RBAC",
            managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name(
                "service-role/AWSLambdaVPCAccessExecutionRole")])
        # DescribeInstances has no resource-level permissions: "*" is the only resource it takes.
        self.role.add_to_policy(iam.PolicyStatement(actions=["ec2:DescribeInstances"], resources=["*"]))
        log_group.grant_write(self.role)
        acknowledge(self.role, "AWSLambdaVPCAccessExecutionRole is what Lambda documents for a function in a VPC (its "
                    "network interfaces); ec2:DescribeInstances takes no resource ARN, only '*'",
                    managed_policy_finding("service-role/AWSLambdaVPCAccessExecutionRole"),
                    wildcard_resource_finding(self.role, "*"))

        security_group = ec2.SecurityGroup(self, "SecurityGroup", vpc=cluster.vpc, allow_all_outbound=False,
                                           description="Reservation-end drain: the cluster API and AWS APIs on 443")
        security_group.add_egress_rule(ec2.Peer.any_ipv4(), ec2.Port.tcp(443), "EKS API endpoint and EC2/STS APIs")
        eks_cluster.cluster_security_group.add_ingress_rule(security_group, ec2.Port.tcp(443),
                                                            "Reservation-end drain to the Kubernetes API")
        # A drain that still fails after EventBridge's and Lambda's retries leaves its event here, for a person.
        self.dead_letter_queue = sqs.Queue(self, "DeadLetters", enforce_ssl=True, encryption=sqs.QueueEncryption.KMS,
                                           encryption_master_key=self.key, retention_period=Duration.days(14))
        self.function = lambda_.Function(
            self, "Function", runtime=lambda_.Runtime.PYTHON_3_14, handler="reservation_drain.main",
            code=lambda_.Code.from_asset(str(HANDLER_DIR), exclude=["__pycache__", "*.pyc"]),
            role=self.role, timeout=Duration.minutes(5), memory_size=256, log_group=log_group,
            vpc=cluster.vpc, vpc_subnets=ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS),
            security_groups=[security_group], retry_attempts=2, max_event_age=Duration.minutes(10),
            dead_letter_queue=self.dead_letter_queue, environment_encryption=self.key,
            # Reservations end one event at a time; two at once is plenty, and the account's pool keeps the rest.
            reserved_concurrent_executions=2,
            description="Cordons and drains the nodes of a capacity reservation that is about to end",
            environment={
                "CLUSTER_NAME": eks_cluster.cluster_name, "CLUSTER_ENDPOINT": eks_cluster.cluster_endpoint,
                "CLUSTER_CA": eks_cluster.cluster_certificate_authority_data,
                "RESERVATION_IDS": json.dumps(list(self.reservation_ids))})

        detail_types = [*CAPACITY_BLOCK_WARNINGS]
        self.rules = [events.Rule(
            self, "CapacityBlockEnding", description="A Capacity Block of the cluster ends in 40 minutes",
            event_pattern=events.EventPattern(source=["aws.ec2"], detail_type=detail_types, detail={
                "capacity-reservation-id": list(self.reservation_ids)}),
            targets=[targets.LambdaFunction(self.function)])]
        if interruptible:
            self.rules.append(events.Rule(
                self, "InstanceInterruption", description="An interruptible reservation reclaims an instance",
                event_pattern=events.EventPattern(source=["aws.ec2"], detail_type=[INTERRUPTION_WARNING]),
                targets=[targets.LambdaFunction(self.function)]))

        # Its own access entry: the group the ClusterRole below is bound to, and no EKS access policy.
        self.access_entry = eks_l1.CfnAccessEntry(
            self, "AccessEntry", cluster_name=eks_cluster.cluster_name, principal_arn=self.role.role_arn,
            kubernetes_groups=[DRAIN_GROUP], type="STANDARD")
        name = "eks-training-reservation-drain"
        self.rbac_manifest = eks_cluster.add_manifest(f"{id}Rbac", {
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": name},
            "rules": [dict(rule) for rule in DRAIN_RULES]}, {
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": DRAIN_GROUP}]})
        self.function.node.add_dependency(self.access_entry)
