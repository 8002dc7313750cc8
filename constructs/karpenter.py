"""KarpenterController: Karpenter v1 on an EKS cluster, with Pod Identity, an interruption queue and a node role."""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import Duration, Stack
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_sqs as sqs
from constructs import Construct, IConstruct

from eks_training.constructs.chart_source import helm_chart
from eks_training.core.names import KARPENTER_SERVICE_ACCOUNT, system_placement
from eks_training.core.versions import KARPENTER, KARPENTER_CRD
from eks_training.constructs.acknowledgements import acknowledge, wildcard_resource_finding
from eks_training.constructs.cluster import node_role, pod_identity_principal

KARPENTER_NAMESPACE = KARPENTER.namespace

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
    rebalance, state change, AWS Health), and two Helm releases: the CRDs (chart ``karpenter-crd`` at ``version``)
    first, then the controller, which skips its own ``crds/`` folder. Charts of NodePools should depend on
    ``chart`` so that ``cdk destroy`` removes NodePools (and their nodes) before the controller.

    The controller's release depends on its role and policy, its Pod Identity, the nodes' access entry and the CRDs,
    and on ``after`` (default: none): what else it needs running until its last node is gone, such as the cluster's
    DNS (coredns) and pod networking (vpc-cni) add-ons. All of it outlives the NodePools on ``cdk destroy``.

    The node role holds AmazonEKSWorkerNodePolicy and ECR pulls only (no SSM: see ``constructs.cluster.node_role``);
    :meth:`add_node_role` makes more, for pools whose nodes must not share one. The controller's trust policy admits
    Pod Identity for ``kube-system/karpenter`` of this cluster only.

    Attributes: ``chart`` (the controller's HelmChart), ``crd_chart`` (the CRDs' HelmChart), ``node_role``,
    ``node_role_name`` (a plain string for manifests), ``node_access`` (the nodes' access entry), ``node_roles``
    (name -> role, every node role Karpenter may pass), ``node_accesses`` (name -> access entry, one per node role),
    ``controller_role``, ``queue``.
    """

    def __init__(self, scope: Construct, id: str, *, cluster: eks.Cluster, cluster_name: str,
                 version: str = KARPENTER.version, pod_identity_dependency: Construct | None = None,
                 node_repair: bool = False, after: Sequence[IConstruct] = ()) -> None:
        super().__init__(scope, id)
        stack = Stack.of(self)
        self._cluster, self._cluster_name = cluster, cluster_name
        self.node_role_name = f"{cluster_name}-karpenter-node"
        self.node_role = node_role(self, "NodeRole", role_name=self.node_role_name,
                                   description="Karpenter's nodes (EKS worker and ECR pulls, no SSM)")
        self.node_access = eks.AccessEntry(self, "NodeAccess", cluster=cluster, principal=self.node_role.role_arn,
                                           access_entry_type=eks.AccessEntryType.EC2_LINUX, access_policies=[])
        self.node_roles: dict[str, iam.Role] = {self.node_role_name: self.node_role}
        self.node_accesses: dict[str, eks.AccessEntry] = {self.node_role_name: self.node_access}

        self.queue = sqs.Queue(self, "InterruptionQueue", retention_period=Duration.minutes(5),
                               encryption=sqs.QueueEncryption.SQS_MANAGED, enforce_ssl=True)
        acknowledge(self.queue, "interruption events are only useful for minutes; a dead-letter queue would keep "
                    "stale events Karpenter must not act on", "AwsSolutions-SQS3")
        for name, (source, detail_type) in _INTERRUPTION_EVENTS.items():
            events.Rule(self, f"{name}Rule", event_pattern=events.EventPattern(source=[source], detail_type=[detail_type]),
                        targets=[targets.SqsQueue(self.queue)])

        self.controller_role = iam.Role(
            self, "ControllerRole",
            assumed_by=pod_identity_principal(cluster, KARPENTER_NAMESPACE, [KARPENTER_SERVICE_ACCOUNT]),
            description="Karpenter controller (EKS Pod Identity)")
        self._grant_controller(self.controller_role, stack, cluster, cluster_name)
        association = eks.CfnPodIdentityAssociation(
            self, "PodIdentity", cluster_name=cluster.cluster_name, namespace=KARPENTER_NAMESPACE,
            service_account=KARPENTER_SERVICE_ACCOUNT, role_arn=self.controller_role.role_arn)
        if pod_identity_dependency is not None:
            association.node.add_dependency(pod_identity_dependency)

        # Helm installs a chart's crds/ folder on first install only and never upgrades it, so a version bump would
        # leave the old CRDs (1.14 added capacitybuffers): upstream's karpenter-crd chart renders them as templates,
        # which every upgrade applies. Same version as the controller; the controller's release skips them.
        # The ids `cluster.add_helm_chart` gave them ("chart-<id>"): a new logical ID would make CloudFormation's
        # cleanup `helm uninstall` the deployed releases, Karpenter's CRDs and every NodePool with them.
        self.crd_chart = helm_chart(
            cluster, "chart-KarpenterCrd", cluster=cluster, chart=KARPENTER_CRD.chart, version=version,
            namespace=KARPENTER_CRD.namespace,
            release=KARPENTER_CRD.release, create_namespace=False)  # kube-system exists
        self.chart = helm_chart(
            cluster, "chart-Karpenter", cluster=cluster, chart=KARPENTER.chart, version=version,
            namespace=KARPENTER_NAMESPACE,
            release=KARPENTER.release, wait=True, skip_crds=True, create_namespace=False, values={  # kube-system exists
                # nodeRepair (alpha in 1.14): replace nodes whose conditions (set by the EKS node monitoring agent,
                # e.g. AcceleratedHardwareReady) stay unhealthy.
                "settings": {"clusterName": cluster_name, "interruptionQueue": self.queue.queue_name,
                             "featureGates": {"nodeRepair": node_repair}},
                # The system nodes' hop limit of 1 keeps pods off instance metadata, where Karpenter would read it.
                "controller": {"env": [{"name": "AWS_REGION", "value": stack.region}],
                               "resources": {"requests": {"cpu": "500m", "memory": "1Gi"},
                                             "limits": {"memory": "1Gi"}}},
                "serviceAccount": {"name": KARPENTER_SERVICE_ACCOUNT},
                "replicas": 2,
                # The controller never runs on the nodes it manages.
                **system_placement(),
            })
        # What the controller needs until its last NodeClaim is gone: created before the release and, on delete,
        # outliving it and the NodePools that depend on it (their finalizers need Karpenter running with its rights).
        self.chart.node.add_dependency(association, self.controller_role, self.node_access, self.crd_chart, *after)

    def add_node_role(self, id: str, role_name: str, *, description: str) -> iam.Role:
        """Another node role for EC2NodeClasses to name (``spec.role``): EKS worker and ECR pulls only, with its
        EC2_LINUX access entry, and Karpenter allowed to pass it to EC2. Pools whose nodes must not share a role
        with the others (Slurm's, whose pods are privileged) use one of these."""
        role = node_role(self, id, role_name=role_name, description=description)
        self.node_accesses[role_name] = eks.AccessEntry(
            self, f"{id}Access", cluster=self._cluster, principal=role.role_arn,
            access_entry_type=eks.AccessEntryType.EC2_LINUX, access_policies=[])
        self._pass_role.add_resources(role.role_arn)
        self.node_roles[role_name] = role
        return role

    def _grant_controller(self, role: iam.Role, stack: Stack, cluster: eks.Cluster, cluster_name: str) -> None:
        # Action for action and condition for condition the policies of Karpenter 1.14's reference CloudFormation
        # (getting-started guide); `eks-training check` compares them with that file and fails on any difference.
        region, account, partition = stack.region, stack.account, stack.partition
        cluster_tag = f"kubernetes.io/cluster/{cluster_name}"
        request_owned = {f"aws:RequestTag/{cluster_tag}": "owned", "aws:RequestTag/eks:eks-cluster-name": cluster_name}
        resource_owned = {f"aws:ResourceTag/{cluster_tag}": "owned"}
        any_pool = {"StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"}}
        ec2_arn = f"arn:{partition}:ec2:{region}"
        launched = [f"{ec2_arn}:*:{kind}/*" for kind in ("fleet", "instance", "volume", "network-interface",
                                                          "launch-template", "spot-instances-request")]
        profiles = f"arn:{partition}:iam::{account}:instance-profile/*"
        profile_owned = {**resource_owned, "aws:ResourceTag/topology.kubernetes.io/region": region}
        profile_request = {**request_owned, "aws:RequestTag/topology.kubernetes.io/region": region}
        any_node_class = "karpenter.k8s.aws/ec2nodeclass"
        self._pass_role = iam.PolicyStatement(
            sid="AllowPassingInstanceRole", actions=["iam:PassRole"], resources=[self.node_role.role_arn],
            conditions={"StringEquals": {"iam:PassedToService": ["ec2.amazonaws.com", "ec2.amazonaws.com.cn"]}})
        statements = [
            iam.PolicyStatement(sid="AllowScopedEC2InstanceAccessActions", actions=["ec2:RunInstances", "ec2:CreateFleet"],
                                resources=[f"{ec2_arn}::image/*", f"{ec2_arn}::snapshot/*", f"{ec2_arn}:*:security-group/*",
                                           f"{ec2_arn}:*:subnet/*", f"{ec2_arn}:*:capacity-reservation/*",
                                           f"{ec2_arn}:*:placement-group/*"]),
            iam.PolicyStatement(sid="AllowScopedEC2LaunchTemplateAccessActions", actions=["ec2:RunInstances", "ec2:CreateFleet"],
                                resources=[f"{ec2_arn}:*:launch-template/*"],
                                conditions={"StringEquals": resource_owned, **any_pool}),
            iam.PolicyStatement(sid="AllowScopedEC2InstanceActionsWithTags",
                                actions=["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"], resources=launched,
                                conditions={"StringEquals": request_owned,
                                            "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"}}),
            iam.PolicyStatement(sid="AllowScopedResourceCreationTagging", actions=["ec2:CreateTags"], resources=launched,
                                conditions={"StringEquals": {**request_owned, "ec2:CreateAction": [
                                    "RunInstances", "CreateFleet", "CreateLaunchTemplate"]},
                                    "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"}}),
            iam.PolicyStatement(sid="AllowScopedResourceTagging", actions=["ec2:CreateTags"],
                                resources=[f"{ec2_arn}:*:instance/*"],
                                conditions={"StringEquals": resource_owned, **any_pool,
                                            "StringEqualsIfExists": {"aws:RequestTag/eks:eks-cluster-name": cluster_name},
                                            "ForAllValues:StringEquals": {"aws:TagKeys": [
                                                "eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name"]}}),
            iam.PolicyStatement(sid="AllowScopedDeletion", actions=["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"],
                                resources=[f"{ec2_arn}:*:instance/*", f"{ec2_arn}:*:launch-template/*"],
                                conditions={"StringEquals": resource_owned, **any_pool}),
            self._pass_role,
            iam.PolicyStatement(sid="AllowScopedInstanceProfileCreationActions", actions=["iam:CreateInstanceProfile"],
                                resources=[profiles], conditions={"StringEquals": profile_request,
                                                                  "StringLike": {f"aws:RequestTag/{any_node_class}": "*"}}),
            iam.PolicyStatement(sid="AllowScopedInstanceProfileTagActions", actions=["iam:TagInstanceProfile"],
                                resources=[profiles], conditions={
                                    "StringEquals": {**profile_owned, **profile_request},
                                    "StringLike": {f"aws:ResourceTag/{any_node_class}": "*",
                                                   f"aws:RequestTag/{any_node_class}": "*"}}),
            iam.PolicyStatement(sid="AllowScopedInstanceProfileActions", actions=[
                "iam:AddRoleToInstanceProfile", "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile"],
                resources=[profiles], conditions={"StringEquals": profile_owned,
                                                  "StringLike": {f"aws:ResourceTag/{any_node_class}": "*"}}),
            iam.PolicyStatement(sid="AllowAPIServerEndpointDiscovery", actions=["eks:DescribeCluster"],
                                resources=[cluster.cluster_arn]),
            iam.PolicyStatement(sid="AllowInterruptionQueueActions",
                                actions=["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"],
                                resources=[self.queue.queue_arn]),
            iam.PolicyStatement(sid="AllowZonalShiftStatusReadOnly", actions=["arc-zonal-shift:GetManagedResource"],
                                resources=["*"], conditions={"StringEquals": {
                                    "arc-zonal-shift:ResourceIdentifier":
                                        f"arn:{partition}:eks:{region}:{account}:cluster/{cluster_name}"}}),
            iam.PolicyStatement(sid="AllowRegionalReadActions", actions=[
                "ec2:DescribeCapacityReservations", "ec2:DescribeImages", "ec2:DescribeInstances",
                "ec2:DescribeInstanceStatus", "ec2:DescribeInstanceTypeOfferings", "ec2:DescribeInstanceTypes",
                "ec2:DescribeLaunchTemplates", "ec2:DescribePlacementGroups", "ec2:DescribeSecurityGroups",
                "ec2:DescribeSpotPriceHistory", "ec2:DescribeSubnets"],
                resources=["*"], conditions={"StringEquals": {"aws:RequestedRegion": region}}),
            iam.PolicyStatement(sid="AllowSSMReadActions", actions=["ssm:GetParameter"],
                                resources=[f"arn:{partition}:ssm:{region}::parameter/aws/service/*"]),
            # The Price List API answers only in us-east-1 (and two others): no region condition here.
            iam.PolicyStatement(sid="AllowPricingReadActions", actions=["pricing:GetProducts"], resources=["*"]),
            iam.PolicyStatement(sid="AllowUnscopedInstanceProfileListAction", actions=["iam:ListInstanceProfiles"],
                                resources=["*"]),
            iam.PolicyStatement(sid="AllowInstanceProfileReadActions", actions=["iam:GetInstanceProfile"],
                                resources=[profiles]),
        ]
        for statement in statements:
            role.add_to_policy(statement)
        wildcards = sorted({r for st in statements for r in st.resources if "*" in r})
        acknowledge(role, "Karpenter launches and terminates instances it tags itself: EC2 ARNs carry wildcards for "
                    "ids unknown until launch, bounded by the cluster ownership tag; Describe and pricing calls take "
                    "no resource ARNs; AMI parameters and instance profiles are named by Karpenter at run time",
                    *(wildcard_resource_finding(self, r) for r in wildcards))
