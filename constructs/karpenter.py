"""KarpenterController: Karpenter v1 on an EKS cluster, with Pod Identity, an interruption queue and a node role."""

from __future__ import annotations

from aws_cdk import Duration, Stack
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from eks_training.constructs.acknowledgements import acknowledge, managed_policy_finding, wildcard_resource_finding

KARPENTER_CHART = "oci://public.ecr.aws/karpenter/karpenter"
KARPENTER_VERSION = "1.14.1"
KARPENTER_NAMESPACE = "kube-system"
KARPENTER_SERVICE_ACCOUNT = "karpenter"

# EC2 events that tell Karpenter to drain a node before AWS takes it away.
_INTERRUPTION_EVENTS = {
    "SpotInterruption": ("aws.ec2", "EC2 Spot Instance Interruption Warning"),
    "Rebalance": ("aws.ec2", "EC2 Instance Rebalance Recommendation"),
    "StateChange": ("aws.ec2", "EC2 Instance State-change Notification"),
    "ScheduledChange": ("aws.health", "AWS Health Event"),
}


class KarpenterController(Construct):
    """Karpenter (chart ``version``, default 1.14.1) in ``kube-system``, ready for NodePools.

    Creates the node role Karpenter's nodes use (with an EKS access entry of type EC2_LINUX, named
    ``<cluster>-karpenter-node`` so EC2NodeClasses can refer to it by name), the controller's IAM role handed
    over by EKS Pod Identity, an SQS interruption queue fed by EventBridge rules (Spot interruption,
    rebalance, state change, AWS Health), and the Helm release. Charts of NodePools should depend on
    ``chart`` so that ``cdk destroy`` removes NodePools (and their nodes) before the controller.

    Attributes: ``chart`` (the HelmChart), ``node_role``, ``node_role_name`` (a plain string for manifests),
    ``controller_role``, ``queue``.
    """

    def __init__(self, scope: Construct, id: str, *, cluster: eks.Cluster, cluster_name: str,
                 version: str = KARPENTER_VERSION, pod_identity_dependency: Construct | None = None) -> None:
        super().__init__(scope, id)
        stack = Stack.of(self)
        self.node_role_name = f"{cluster_name}-karpenter-node"
        self.node_role = iam.Role(
            self, "NodeRole", role_name=self.node_role_name,
            assumed_by=iam.ServicePrincipal("ec2.amazonaws.com"),
            managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name(p) for p in (
                "AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryPullOnly", "AmazonSSMManagedInstanceCore")])
        acknowledge(self.node_role, "the AWS managed node policies are what EKS documents for worker nodes",
                    *map(managed_policy_finding, ("AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryPullOnly",
                                                  "AmazonSSMManagedInstanceCore")))
        eks.AccessEntry(self, "NodeAccess", cluster=cluster, principal=self.node_role.role_arn,
                        access_entry_type=eks.AccessEntryType.EC2_LINUX, access_policies=[])

        self.queue = sqs.Queue(self, "InterruptionQueue", retention_period=Duration.minutes(5),
                               encryption=sqs.QueueEncryption.SQS_MANAGED, enforce_ssl=True)
        acknowledge(self.queue, "interruption events are only useful for minutes; a dead-letter queue would keep "
                    "stale events Karpenter must not act on", "AwsSolutions-SQS3")
        for name, (source, detail_type) in _INTERRUPTION_EVENTS.items():
            events.Rule(self, f"{name}Rule", event_pattern=events.EventPattern(source=[source], detail_type=[detail_type]),
                        targets=[targets.SqsQueue(self.queue)])

        self.controller_role = iam.Role(
            self, "ControllerRole", assumed_by=iam.ServicePrincipal("pods.eks.amazonaws.com").with_session_tags(),
            description="Karpenter controller (EKS Pod Identity)")
        self._grant_controller(self.controller_role, stack, cluster, cluster_name)
        association = eks.CfnPodIdentityAssociation(
            self, "PodIdentity", cluster_name=cluster.cluster_name, namespace=KARPENTER_NAMESPACE,
            service_account=KARPENTER_SERVICE_ACCOUNT, role_arn=self.controller_role.role_arn)
        if pod_identity_dependency is not None:
            association.node.add_dependency(pod_identity_dependency)

        self.chart = cluster.add_helm_chart(
            "Karpenter", chart=KARPENTER_CHART, version=version, namespace=KARPENTER_NAMESPACE,
            release="karpenter", wait=True, values={
                "settings": {"clusterName": cluster_name, "interruptionQueue": self.queue.queue_name},
                "serviceAccount": {"name": KARPENTER_SERVICE_ACCOUNT},
                "replicas": 2,
                # The controller never runs on the nodes it manages.
                "nodeSelector": {"eks-training/role": "system"},
                "controller": {"resources": {"requests": {"cpu": "500m", "memory": "1Gi"},
                                             "limits": {"memory": "1Gi"}}},
            })
        self.chart.node.add_dependency(association)

    def _grant_controller(self, role: iam.Role, stack: Stack, cluster: eks.Cluster, cluster_name: str) -> None:
        region, account, partition = stack.region, stack.account, stack.partition
        tag_scope = {f"aws:RequestTag/kubernetes.io/cluster/{cluster_name}": "owned"}
        owned = {f"aws:ResourceTag/kubernetes.io/cluster/{cluster_name}": "owned"}
        ec2_arn = f"arn:{partition}:ec2:{region}"
        statements = [
            iam.PolicyStatement(sid="LaunchFromAnyImageSubnetAndGroup", actions=["ec2:RunInstances", "ec2:CreateFleet"],
                                resources=[f"{ec2_arn}::image/*", f"{ec2_arn}::snapshot/*", f"{ec2_arn}:*:security-group/*",
                                           f"{ec2_arn}:*:subnet/*", f"{ec2_arn}:*:capacity-reservation/*",
                                           f"{ec2_arn}:*:placement-group/*"]),
            iam.PolicyStatement(sid="LaunchOwnedInstances", actions=["ec2:RunInstances", "ec2:CreateFleet",
                                                                      "ec2:CreateLaunchTemplate"],
                                resources=[f"{ec2_arn}:*:fleet/*", f"{ec2_arn}:*:instance/*", f"{ec2_arn}:*:volume/*",
                                           f"{ec2_arn}:*:network-interface/*", f"{ec2_arn}:*:launch-template/*",
                                           f"{ec2_arn}:*:spot-instances-request/*"],
                                conditions={"StringEquals": tag_scope}),
            iam.PolicyStatement(sid="UseOwnedLaunchTemplates", actions=["ec2:RunInstances", "ec2:CreateFleet"],
                                resources=[f"{ec2_arn}:*:launch-template/*"], conditions={"StringEquals": owned}),
            iam.PolicyStatement(sid="TagOnCreate", actions=["ec2:CreateTags"],
                                resources=[f"{ec2_arn}:*:fleet/*", f"{ec2_arn}:*:instance/*", f"{ec2_arn}:*:volume/*",
                                           f"{ec2_arn}:*:network-interface/*", f"{ec2_arn}:*:launch-template/*",
                                           f"{ec2_arn}:*:spot-instances-request/*"],
                                conditions={"StringEquals": {**tag_scope, "ec2:CreateAction": ["RunInstances", "CreateFleet",
                                                                                               "CreateLaunchTemplate"]}}),
            iam.PolicyStatement(sid="ManageOwned", actions=["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate",
                                                            "ec2:CreateTags"],
                                resources=[f"{ec2_arn}:*:instance/*", f"{ec2_arn}:*:launch-template/*"],
                                conditions={"StringEquals": owned}),
            iam.PolicyStatement(sid="DescribeOnlyAllowsAll", actions=[
                "ec2:DescribeAvailabilityZones", "ec2:DescribeImages", "ec2:DescribeInstances",
                "ec2:DescribeInstanceTypeOfferings", "ec2:DescribeInstanceTypes", "ec2:DescribeLaunchTemplates",
                "ec2:DescribeSecurityGroups", "ec2:DescribeSpotPriceHistory", "ec2:DescribeSubnets",
                "ec2:DescribeCapacityReservations", "ec2:DescribePlacementGroups", "pricing:GetProducts"],
                resources=["*"], conditions={"StringEquals": {"aws:RequestedRegion": region}}),
            iam.PolicyStatement(sid="ReadAmiParameters", actions=["ssm:GetParameter"],
                                resources=[f"arn:{partition}:ssm:{region}::parameter/aws/service/*"]),
            iam.PolicyStatement(sid="PassNodeRole", actions=["iam:PassRole"], resources=[self.node_role.role_arn],
                                conditions={"StringEquals": {"iam:PassedToService": ["ec2.amazonaws.com"]}}),
            iam.PolicyStatement(sid="ManageInstanceProfiles", actions=[
                "iam:CreateInstanceProfile", "iam:TagInstanceProfile", "iam:AddRoleToInstanceProfile",
                "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile", "iam:GetInstanceProfile",
                "iam:ListInstanceProfiles"],
                resources=[f"arn:{partition}:iam::{account}:instance-profile/*"]),
            iam.PolicyStatement(sid="DescribeCluster", actions=["eks:DescribeCluster"], resources=[cluster.cluster_arn]),
        ]
        for statement in statements:
            role.add_to_policy(statement)
        self.queue.grant_consume_messages(role)
        wildcards = sorted({r for st in statements for r in st.resources if "*" in r})
        acknowledge(role, "Karpenter launches and terminates instances it tags itself: EC2 ARNs carry wildcards for "
                    "ids unknown until launch, bounded by the cluster ownership tag; Describe and pricing calls take "
                    "no resource ARNs; AMI parameters and instance profiles are named by Karpenter at run time",
                    *(wildcard_resource_finding(self, r) for r in wildcards))
