"""TrainingCluster: an EKS control plane (aws_eks_v2) with explicit system capacity for training platforms."""

from __future__ import annotations

import importlib
import json
import re
from datetime import date
from typing import Mapping, Sequence

import cdk8s
from aws_cdk import Annotations, CfnJson, Duration, Fn, RemovalPolicy, Stack, Token
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from eks_training.core.catalog import instance_facts
from eks_training.core.names import (POD_SECURITY_LABEL, SYSTEM_NODE_SELECTOR, SYSTEM_NODE_TAINT, TEAM_NODE_SELECTOR,
                                     system_placement)
from eks_training.constructs.acknowledgements import acknowledge, managed_policy_finding
from eks_training.constructs.node_groups import AcceleratedNodeGroup, follow_cluster_version, leave_size_to_operators
from eks_training.core.validation import (DEPLOY_ACCOUNT, InvalidValue, check_addon_version, check_addon_versions,
                                          check_endpoint_access, check_kubernetes_version, check_node_group_sizes,
                                          check_one_of, check_role_arn, check_vpc_cidr, covers_every_address,
                                          invalid)
from eks_training.core.versions import DEFAULT_ADDONS, addon_version, support_warning

_ADMIN_ROLE = re.compile(r"::(\d{12}|\$\{AWS::AccountId\}):role/(.+)$")


def admin_entry_id(arn: str, position: int) -> str:
    """The construct id of an admin's access entry, from the role (its name and, beyond the deploy account, its
    account), never its place in the list: an access entry's principal is create-only, so an id that followed the
    position would replace every entry after a removed one (and fail, the new entry colliding with the old). A
    token, unknown at synth, keeps its position."""
    match = None if Token.is_unresolved(arn) else _ADMIN_ROLE.search(arn)
    if match is None:
        return f"Admin{position}"
    account, role = match.groups()
    return "Admin-" + role.replace("/", "-") + ("" if account == DEPLOY_ACCOUNT else f"-{account}")


_ENDPOINTS = {
    "public": eks.EndpointAccess.PUBLIC,
    "private": eks.EndpointAccess.PRIVATE,
    "public_and_private": eks.EndpointAccess.PUBLIC_AND_PRIVATE,
}
#: Add-ons every node needs as it joins, created before any node group: the VPC CNI with its own Pod Identity (pods
#: get no IP without it), the agent that hands that identity over, and kube-proxy (aws-node reaches the API through
#: the kubernetes Service). All are DaemonSets, which EKS reports healthy while no node exists.
NODE_PREREQUISITE_ADDONS = ("vpc-cni", "eks-pod-identity-agent", "kube-proxy")
#: How long the deploy waits for a Job a manifest applies (below the kubectl handler's 15-minute Lambda limit).
JOB_WAIT = Duration.minutes(10)
#: What the VPC CNI reads (EC2's describe calls take no resource).
CNI_DESCRIBE_ACTIONS = ("ec2:DescribeInstances", "ec2:DescribeTags", "ec2:DescribeNetworkInterfaces",
                        "ec2:DescribeSubnets", "ec2:DescribeInstanceTypes", "ec2:DescribeSecurityGroups")
#: What the VPC CNI does to the network interfaces it manages (the primary one of each node too).
CNI_INTERFACE_ACTIONS = ("ec2:AssignPrivateIpAddresses", "ec2:UnassignPrivateIpAddresses", "ec2:AttachNetworkInterface",
                         "ec2:DetachNetworkInterface", "ec2:DeleteNetworkInterface", "ec2:ModifyNetworkInterfaceAttribute",
                         "ec2:CreateTags")
#: What it does to a node's instance: attach and detach its interfaces.
CNI_INSTANCE_ACTIONS = ("ec2:AttachNetworkInterface", "ec2:DetachNetworkInterface", "ec2:ModifyNetworkInterfaceAttribute")
#: The VPC CNI's network policy mode when NetworkPolicies are on: a new pod is denied everything until its policies
#: are programmed (standard mode lets it through until then). EKS user guide, "Restrict Pod network traffic with
#: Kubernetes network policies", step 1; the add-on takes it as ``env.NETWORK_POLICY_ENFORCING_MODE`` (the aws-vpc-cni
#: chart's ``env`` values, which the add-on's configuration schema mirrors).
NETWORK_POLICY_MODE = "strict"


#: The name of the one NetworkPolicy of a namespace the platform leaves open (TrainingCluster.open_namespace).
OPEN_POLICY_NAME = "allow-all-strict-mode"


def open_namespace_policy(namespace: str) -> dict:
    """A NetworkPolicy that selects every pod of ``namespace`` and allows every peer both ways. A plain object:
    cdk8s-plus writes no rule without peers ("every peer")."""
    return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
            "metadata": {"name": OPEN_POLICY_NAME, "namespace": namespace,
                         "labels": {"app.kubernetes.io/part-of": "eks-training"}},
            "spec": {"podSelector": {}, "policyTypes": ["Ingress", "Egress"], "ingress": [{}], "egress": [{}]}}


def vpc_cni_configuration(network_policy: bool) -> dict:
    """The vpc-cni add-on's configuration values: the network policy agent on, in strict mode (or neither)."""
    if not network_policy:
        return {}
    return {"enableNetworkPolicy": "true", "env": {"NETWORK_POLICY_ENFORCING_MODE": NETWORK_POLICY_MODE}}


#: Where an EKS add-on's configuration places the pods of its Deployment (its DaemonSets tolerate every taint): the
#: key path of ``nodeSelector`` and ``tolerations`` in its configuration values (EKS's add-on configuration schemas,
#: ``aws eks describe-addon-configuration``: CoreDNS at the top, the CSI drivers under ``controller``).
ADDON_PLACEMENT_PATHS: dict[str, tuple[str, ...]] = {
    "coredns": (), "aws-ebs-csi-driver": ("controller",), "aws-efs-csi-driver": ("controller",),
    "aws-fsx-csi-driver": ("controller",)}


def addon_configuration(name: str, configuration: Mapping | None = None) -> dict:
    """``configuration`` of add-on ``name`` with its Deployment placed on the system nodes (tolerating their taint)."""
    values = json.loads(json.dumps(configuration or {}))
    if name in ADDON_PLACEMENT_PATHS:
        where = values
        for key in ADDON_PLACEMENT_PATHS[name]:
            where = where.setdefault(key, {})
        where.update(system_placement())
    return values


#: What an EKS worker node's role holds: the AWS managed policies EKS documents, without SSM.
NODE_ROLE_POLICIES = ("AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryPullOnly")
_ALL_LOG_TYPES = [eks.ClusterLoggingTypes.API, eks.ClusterLoggingTypes.AUDIT, eks.ClusterLoggingTypes.AUTHENTICATOR,
                  eks.ClusterLoggingTypes.CONTROLLER_MANAGER, eks.ClusterLoggingTypes.SCHEDULER]


def node_role(scope: Construct, id: str, *, description: str, role_name: str | None = None) -> iam.Role:
    """An EKS worker node role: AmazonEKSWorkerNodePolicy and ECR pulls, nothing else.

    No AmazonSSMManagedInstanceCore: it reads every SSM parameter of the account (``ssm:GetParameter*`` on ``*``),
    and a node's root (a privileged pod, a Slurm job) holds whatever its node role holds. Node shells go through
    ``kubectl debug node/<name>``, which the API authorizes per person.
    """
    role = iam.Role(scope, id, assumed_by=iam.ServicePrincipal("ec2.amazonaws.com"), role_name=role_name,
                    description=description,
                    managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name(n) for n in NODE_ROLE_POLICIES])
    acknowledge(role, "the AWS managed node policies are what EKS documents for worker nodes (EKS and ECR pulls)",
                *map(managed_policy_finding, NODE_ROLE_POLICIES))
    return role


def pod_identity_principal(cluster: eks.ICluster, namespace: str | None = None,
                           service_accounts: Sequence[str] = ()) -> iam.IPrincipal:
    """EKS Pod Identity as a principal for ``cluster`` only (and, when given, pods of ``namespace`` running as one
    of ``service_accounts``).

    The conditions are on the session tags Pod Identity sets when it assumes a role (``eks-cluster-arn``,
    ``kubernetes-namespace``, ``kubernetes-service-account``; EKS user guide, "Create IAM role with trust policy
    required by EKS Pod Identity"): without them any Pod Identity association of any cluster in the account could
    be pointed at the role. They name the cluster, which ``aws:SourceArn`` would too, and also the pod's account.
    """
    tags: dict[str, object] = {"aws:RequestTag/eks-cluster-arn": cluster.cluster_arn}
    if namespace is not None:
        tags["aws:RequestTag/kubernetes-namespace"] = namespace
    if service_accounts:
        tags["aws:RequestTag/kubernetes-service-account"] = list(service_accounts)
    return iam.ServicePrincipal("pods.eks.amazonaws.com").with_session_tags().with_conditions({"StringEquals": tags})


def kubectl_layer(scope: Construct, id: str, version: str) -> lambda_.ILayerVersion:
    """The kubectl Lambda layer that matches the cluster's Kubernetes ``version`` (its own PyPI package)."""
    suffix = version.split(".")[1]
    module = importlib.import_module(f"aws_cdk.lambda_layer_kubectl_v{suffix}")
    return getattr(module, f"KubectlV{suffix}Layer")(scope, id)


class TrainingCluster(Construct):
    """An EKS cluster for training: versions 1.32-1.36, access entries, logging, KMS secrets, pinned add-ons.

    * ``version`` (required): Kubernetes minor version ("1.32" .. "1.36"). It changes only when the caller changes
      it: no default follows the calendar. A version past EKS standard support adds a synth warning with the date it
      left and the price of extended support; one whose extended support is over (1.31 since 2026-11-26: EKS creates
      no such cluster) is refused. Upgrade one minor version at a time: CloudFormation then updates the control
      plane, the add-ons that nodes need (VPC CNI, Pod Identity agent, kube-proxy), the node groups (each carries
      this version) and then CoreDNS and the CSI drivers, in that order.
    * ``endpoint_access``: "public", "private" or "public_and_private" (default); ``public_access_cidrs``
      narrows the public endpoint.
    * ``admin_role_arns``: IAM roles given cluster-admin through EKS access entries (no aws-auth ConfigMap); an ARN
      may name the deploy account as ``${AWS::AccountId}``. Without one, no person can use the cluster (the only
      entries are the deploy's kubectl handler and the nodes): `eks-training check` fails it. Default: none.
    * ``addon_versions``: builds ("vX.Y.Z-eksbuild.N") that replace :data:`EKS_ADDON_VERSIONS`' pin for ``version``.
      An override is a pin of its own: it stays when ``version`` changes. Default: the recorded pins, so every add-on
      moves with the control plane.
    * System capacity: a managed AL2023 on-demand node group ``system_instance_type`` x ``system_min_size``..
      ``system_max_size`` in the private subnets, labelled ``eks-training/role=system``, from a launch template
      that pins IMDSv2 with a hop limit of 1 and an encrypted gp3 root volume of ``system_disk_gib``. Auto Mode is
      off. An update (version, AMI, launch template) replaces one node at a time and drains it within the
      controllers' PodDisruptionBudgets: it fails rather than force a node out (aws-eks-v2 forces it by default).
      Tainted ``CriticalAddonsOnly=true:NoSchedule``: the platform's pods tolerate it, no team pod does (they go to
      :meth:`add_team_node_group`'s nodes).
    * ``control_plane_log_retention``: how long the control plane's log group (``/aws/eks/<name>/cluster``, made
      here with its own KMS key before EKS would make one without either) keeps logs. Default: one year.
    * ``log_removal_policy``: what ``cdk destroy`` does to that log group and its key. Default RETAIN: the audit
      log is evidence that outlives the cluster (a retained group keeps its name: delete it, or import it, before
      a cluster of the same name is created again).
    * ``vpc_cidr``: the VPC's range as text, where add-ons' NetworkPolicies admit the API server's webhook calls
      from. Default: the VPC's own when it is known at synth, else None (webhook ports open to any address).
    * ``bootstrap_creator_admin``: whether the identity that deploys the stack stays a cluster admin (EKS's default).
      Default False: admins are ``admin_role_arns`` only, and the kubectl provider has its own access entry. Changing
      it on a deployed cluster replaces the cluster.
    * Node role (``node_role``): AmazonEKSWorkerNodePolicy and ECR pulls only, no SSM (``kubectl debug node/...``
      reaches a node's shell through the API instead, with the caller's Kubernetes rights).

    Attributes: ``cluster`` (the aws_eks_v2 Cluster), ``secrets_key``, ``system_nodegroup``, ``team_nodegroup``, ``addons``
    (name -> CfnAddon), ``node_prerequisites`` (the add-ons every node group must wait for: pod networking),
    ``node_role`` (for accelerated node groups and Karpenter nodes).
    """

    def __init__(self, scope: Construct, id: str, *, vpc: ec2.IVpc, version: str,
                 cluster_name: str | None = None, endpoint_access: str = "public_and_private",
                 public_access_cidrs: Sequence[str] = (), admin_role_arns: Sequence[str] = (),
                 addon_versions: Mapping[str, str] | None = None, system_instance_type: str = "m6i.2xlarge",
                 system_min_size: int = 2, system_desired_size: int = 2, system_max_size: int = 4,
                 system_disk_gib: int = 100, removal_policy: RemovalPolicy = RemovalPolicy.DESTROY,
                 today: date | None = None, network_policy: bool = True,
                 training_subnet: ec2.ISubnet | None = None, efa_security_group: ec2.ISecurityGroup | None = None,
                 control_plane_log_retention: logs.RetentionDays = logs.RetentionDays.ONE_YEAR,
                 bootstrap_creator_admin: bool = False, vpc_cidr: str | None = None,
                 log_removal_policy: RemovalPolicy = RemovalPolicy.RETAIN) -> None:
        super().__init__(scope, id)
        # The VPC's range as text, for NetworkPolicies that admit the API server's webhook calls (a VPC made in the
        # same app knows it only as a token: give it here).
        self.vpc_cidr = vpc_cidr if vpc_cidr is not None else (
            None if Token.is_unresolved(vpc.vpc_cidr_block) else vpc.vpc_cidr_block)
        if self.vpc_cidr is not None:
            check_vpc_cidr("vpc_cidr", self.vpc_cidr)
        self._k8s_app: cdk8s.App | None = None
        self.network_policy = network_policy
        self.vpc = vpc
        #: The cluster's name as given (None: CloudFormation generates it, and conditions on it are resolved at deploy).
        self.given_name = cluster_name
        # Where add_accelerated_node_group puts nodes unless told otherwise (TrainingNetwork makes both).
        self.training_subnet, self.efa_security_group = training_subnet, efa_security_group
        # The checks the config layer runs on an environment file, so props are held to the same rules.
        check_kubernetes_version("version", version, today or date.today())
        #: The Kubernetes minor version the control plane runs ("1.36"); node groups and add-ons follow it.
        self.kubernetes_version = version
        check_endpoint_access(endpoint_access, public_access_cidrs)
        check_addon_versions("addon_versions", dict(addon_versions or {}))
        self._addon_overrides = dict(addon_versions or {})
        for i, arn in enumerate(admin_role_arns):
            check_role_arn(f"admin_role_arns[{i}]", arn)
        admin_ids = [admin_entry_id(arn, i) for i, arn in enumerate(admin_role_arns)]
        for i, entry_id in enumerate(admin_ids):
            if admin_ids.index(entry_id) != i:
                raise invalid(f"{self.node.path}: admin_role_arns[{i}]", admin_role_arns[i], "each role once")
        try:
            check_node_group_sizes(system_min_size, system_desired_size, system_max_size, smallest=1)
        except InvalidValue as err:  # the props are system_min_size etc.
            allowed = err.allowed.replace("min_size", "system_min_size").replace("max_size", "system_max_size")
            raise invalid(f"system_{err.field}", err.value, allowed) from None

        warning = support_warning(version, today or date.today())
        if warning:
            Annotations.of(self).add_warning_v2("eks-training:kubernetes-support", warning)

        endpoint = _ENDPOINTS[endpoint_access]
        if public_access_cidrs and endpoint_access != "private":
            endpoint = endpoint.only_from(*public_access_cidrs)
        if endpoint_access != "private" and (not public_access_cidrs or covers_every_address(public_access_cidrs)):
            Annotations.of(self).add_warning_v2(
                "eks-training:public-endpoint",
                f"endpoint_access={endpoint_access!r} with public_access_cidrs={list(public_access_cidrs) or 'unset'}: the "
                "Kubernetes API endpoint is open to the whole internet (authentication still applies); name your networks")

        self.secrets_key = kms.Key(self, "SecretsKey", enable_key_rotation=True, removal_policy=removal_policy,
                                   description="EKS secrets envelope encryption")
        self.control_plane_logs = self._control_plane_log_group(cluster_name, control_plane_log_retention,
                                                                log_removal_policy)
        # The control plane's network interfaces reach nodes and pods (kubelet, webhooks, port-forward) and DNS, all
        # inside the VPC: egress there only, not to the internet (aws-eks-v2's own group allows all outbound).
        self.control_plane_security_group = ec2.SecurityGroup(
            self, "ControlPlaneSecurityGroup", vpc=vpc, allow_all_outbound=False,
            description="EKS control plane: to nodes and pods in the VPC only")
        self.control_plane_security_group.add_egress_rule(ec2.Peer.ipv4(vpc.vpc_cidr_block), ec2.Port.all_tcp(),
                                                          "kubelet, webhooks and pods in the VPC")
        self.control_plane_security_group.add_egress_rule(ec2.Peer.ipv4(vpc.vpc_cidr_block), ec2.Port.udp(53),
                                                          "DNS in the VPC")
        self.cluster = eks.Cluster(
            self, "Cluster", version=getattr(eks.KubernetesVersion, f"V{version.replace('.', '_')}"),
            cluster_name=cluster_name, vpc=vpc,
            vpc_subnets=[ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS)],
            # Auto Mode is aws_eks_v2's default; training needs explicit, typed capacity.
            default_capacity_type=eks.DefaultCapacityType.NODEGROUP, default_capacity=0,
            endpoint_access=endpoint, cluster_logging=_ALL_LOG_TYPES, secrets_encryption_key=self.secrets_key,
            kubectl_provider_options=eks.KubectlProviderOptions(kubectl_layer=kubectl_layer(self, "KubectlLayer", version)),
            removal_policy=removal_policy, bootstrap_cluster_creator_admin_permissions=bootstrap_creator_admin,
            security_group=self.control_plane_security_group,
        )
        if self.control_plane_logs is not None:
            self.cluster.node.add_dependency(self.control_plane_logs)
        self._acknowledge_cdk_internals()
        for entry_id, arn in zip(admin_ids, admin_role_arns):
            principal = Fn.sub(arn) if DEPLOY_ACCOUNT in arn else arn  # the deploy account's id, at deploy time
            self.cluster.grant_access(entry_id, principal, [eks.AccessPolicy.from_access_policy_name(
                "AmazonEKSClusterAdminPolicy", access_scope_type=eks.AccessScopeType.CLUSTER)])

        self.node_role = node_role(self, "NodeRole", description="EKS worker nodes (system and accelerated node "
                                                                   "groups)")
        self.system_launch_template = self._cpu_launch_template("SystemNodesLaunchTemplate", system_disk_gib)

        self.addons: dict[str, eks.CfnAddon] = {}
        # Pod networking before any node joins: the node role has no AmazonEKS_CNI_Policy (the CNI gets its own role
        # through Pod Identity), so aws-node must come with that identity, and its agent, when the first node boots.
        for name in NODE_PREREQUISITE_ADDONS:
            self.addons[name] = self._addon(name)
        self.node_prerequisites: tuple[eks.CfnAddon, ...] = tuple(self.addons[n] for n in NODE_PREREQUISITE_ADDONS)
        #: The team CPU node group (add_team_node_group), None until made.
        self.team_nodegroup: eks.Nodegroup | None = None

        self.system_nodegroup = self.cluster.add_nodegroup_capacity(
            "SystemNodes", instance_types=[ec2.InstanceType(system_instance_type)],
            ami_type=eks.NodegroupAmiType.AL2023_X86_64_STANDARD, capacity_type=eks.CapacityType.ON_DEMAND,
            min_size=system_min_size, desired_size=system_desired_size, max_size=system_max_size,
            launch_template_spec=eks.LaunchTemplateSpec(id=self.system_launch_template.ref,
                                                        version=self.system_launch_template.attr_latest_version_number),
            labels=dict(SYSTEM_NODE_SELECTOR), node_role=self.node_role,
            # The platform's pods only: each tolerates it (SYSTEM_NODE_TOLERATIONS), team pods go to team nodes.
            taints=[eks.TaintSpec(effect=eks.TaintEffect.NO_SCHEDULE, key=SYSTEM_NODE_TAINT["key"],
                                  value=SYSTEM_NODE_TAINT["value"])],
            subnets=ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS),
            # EKS replaces a node the node monitoring agent reports unhealthy (NodeRepairConfig).
            enable_node_auto_repair=True,
            # The controllers' PodDisruptionBudgets (CoreDNS, Karpenter, the webhooks) hold during a roll: EKS drains
            # one node at a time and fails the update rather than force a node out through a budget.
            force_update=False, max_unavailable=1)
        self.system_nodegroup.node.add_dependency(*self.node_prerequisites)
        leave_size_to_operators(self.system_nodegroup, desired_size=system_desired_size, min_size=system_min_size)
        follow_cluster_version(self.system_nodegroup, version)

        # Under the CNI's strict mode a pod no NetworkPolicy selects has no network: EKS's add-ons (CoreDNS, the CSI
        # controllers) and kube-system's charts start after kube-system's open policy (see open_namespace).
        self.open_namespaces: dict[str, eks.KubernetesManifest] = {}
        if network_policy:
            self.open_namespace("kube-system")
        for name in DEFAULT_ADDONS:
            if name not in self.addons:
                self.addons[name] = self._addon(name)
        self.kube_system_labels = self._label_kube_system()

    def _cpu_launch_template(self, id: str, disk_gib: int) -> ec2.CfnLaunchTemplate:
        """A launch template for CPU nodes, pinned rather than EKS's defaults: IMDSv2 only, with a hop limit of 1 so
        that no pod (only host-network agents) reaches the node role through instance metadata, and an encrypted
        gp3 root volume of ``disk_gib``."""
        return ec2.CfnLaunchTemplate(
            self, id, launch_template_data=ec2.CfnLaunchTemplate.LaunchTemplateDataProperty(
                metadata_options=ec2.CfnLaunchTemplate.MetadataOptionsProperty(
                    http_tokens="required", http_put_response_hop_limit=1, http_endpoint="enabled"),
                block_device_mappings=[ec2.CfnLaunchTemplate.BlockDeviceMappingProperty(
                    device_name="/dev/xvda", ebs=ec2.CfnLaunchTemplate.EbsProperty(
                        volume_size=disk_gib, volume_type="gp3", encrypted=True, delete_on_termination=True))]))

    def add_team_node_group(self, id: str = "TeamNodes", *, subnets: Sequence[ec2.ISubnet] | None = None,
                            instance_type: str = "m6i.2xlarge", min_size: int = 1, desired_size: int = 1,
                            max_size: int = 4, disk_gib: int = 100) -> eks.Nodegroup:
        """The team CPU nodes: where the teams' pods that need no accelerator run (data preparation, MPI launchers,
        Ray heads, Slurm login pods), never on the system nodes, which only the platform's pods tolerate.

        A managed AL2023 on-demand group labelled ``eks-training/role=team`` (:data:`TEAM_NODE_SELECTOR`), untainted,
        with the system nodes' launch template settings (IMDSv2, hop limit 1, encrypted gp3 of ``disk_gib``) and node
        role. ``subnets``: where its nodes go. Default: the cluster's ``training_subnet``, which the platform keeps
        out of Lustre's NoSquashNids, so a root in a team pod is nobody on the file system. Rolls like the system
        group (one node at a time, within disruption budgets). Attribute of the cluster: ``team_nodegroup``.
        """
        if subnets is None:
            if self.training_subnet is None:
                raise invalid(f"{self.node.path}: subnets", None, "the team nodes' subnets, or a training_subnet given "
                                                                  "to the cluster (team nodes stay off the system subnets)")
            subnets = [self.training_subnet]
        check_node_group_sizes(min_size, desired_size, max_size, smallest=1)
        template = self._cpu_launch_template(f"{id}LaunchTemplate", disk_gib)
        group = self.cluster.add_nodegroup_capacity(
            id, instance_types=[ec2.InstanceType(instance_type)], ami_type=eks.NodegroupAmiType.AL2023_X86_64_STANDARD,
            capacity_type=eks.CapacityType.ON_DEMAND, min_size=min_size, desired_size=desired_size, max_size=max_size,
            launch_template_spec=eks.LaunchTemplateSpec(id=template.ref, version=template.attr_latest_version_number),
            labels=dict(TEAM_NODE_SELECTOR), node_role=self.node_role, subnets=ec2.SubnetSelection(subnets=list(subnets)),
            enable_node_auto_repair=True, force_update=False, max_unavailable=1)
        group.node.add_dependency(*self.node_prerequisites)
        leave_size_to_operators(group, desired_size=desired_size, min_size=min_size)
        follow_cluster_version(group, self.kubernetes_version)
        self.team_nodegroup = group
        return group

    def _control_plane_log_group(self, cluster_name: str | None, retention: logs.RetentionDays,
                                 removal_policy: RemovalPolicy) -> logs.LogGroup | None:
        """The log group EKS writes the control plane's logs to, made first so it has a retention and a key (EKS
        would make it without either). It needs the cluster's name; a generated name leaves it to EKS."""
        if cluster_name is None:
            return None
        stack = Stack.of(self)
        key = kms.Key(self, "ControlPlaneLogKey", enable_key_rotation=True, removal_policy=removal_policy,
                      description="EKS control plane logs")
        # CloudWatch Logs may use the key for this log group only (the encryption context names it).
        group_arn = f"arn:{stack.partition}:logs:{stack.region}:{stack.account}:log-group:/aws/eks/{cluster_name}/cluster"
        key.add_to_resource_policy(iam.PolicyStatement(
            actions=["kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*"],
            principals=[iam.ServicePrincipal(f"logs.{stack.region}.amazonaws.com")], resources=["*"],
            conditions={"ArnEquals": {"kms:EncryptionContext:aws:logs:arn": group_arn}}))
        return logs.LogGroup(self, "ControlPlaneLogs", log_group_name=f"/aws/eks/{cluster_name}/cluster",
                             retention=retention, encryption_key=key, removal_policy=removal_policy)

    def _label_kube_system(self) -> eks.KubernetesPatch:
        """kube-system's Pod Security labels, said rather than left unset: privileged enforced (EKS's add-ons, the
        VPC CNI and kube-proxy run privileged with host networking there, and the API server admits any pod into an
        unlabelled namespace anyway), baseline warned and audited so that anything beyond baseline is reported.
        A patch, not a Namespace object: kube-system belongs to Kubernetes. Removing the patch leaves the labels
        (the restore patch keeps them): they say what the namespace is anyway, and the JSON null that would delete a
        label does not survive jsii's serialization."""
        labels = {f"{POD_SECURITY_LABEL}/{mode}": level
                  for mode, level in (("enforce", "privileged"), ("warn", "baseline"), ("audit", "baseline"))}
        patch = {"metadata": {"labels": labels}}
        return eks.KubernetesPatch(self, "KubeSystemPodSecurity", cluster=self.cluster, resource_name="namespace/kube-system",
                                   apply_patch=patch, restore_patch=patch)

    def _acknowledge_cdk_internals(self) -> None:
        acknowledge(self.cluster.role, "AmazonEKSClusterPolicy is the policy EKS documents for the cluster role",
                    managed_policy_finding("AmazonEKSClusterPolicy"))
        provider = self.cluster.node.find_child("KubectlProvider")
        ecr_public = ('AwsSolutions-IAM4[Policy::{"Fn::If":["ClusterKubectlProviderHandlerHasEcrPublic6FE395CA",'
                      '{"Fn::Join":["",["arn:",{"Ref":"AWS::Partition"},":iam::aws:policy/'
                      'AmazonElasticContainerRegistryPublicReadOnly"]]},{"Ref":"AWS::NoValue"}]}]')
        handler_arn = self.stack.get_logical_id(provider.node.find_child("Handler").node.default_child)
        acknowledge(provider, "aws-cdk-lib's kubectl provider: its Lambda roles, runtime and self-invoke permission "
                    "are set by the library and reach only this cluster", "AwsSolutions-L1", ecr_public,
                    f"AwsSolutions-IAM5[Resource::<{handler_arn}.Arn>:*]",
                    *map(managed_policy_finding, ("service-role/AWSLambdaBasicExecutionRole",
                                                  "service-role/AWSLambdaVPCAccessExecutionRole",
                                                  "AmazonEC2ContainerRegistryReadOnly")))

    def _addon(self, name: str) -> eks.CfnAddon:
        props: dict = {}
        if name == "vpc-cni":
            role = self.pod_identity_role("VpcCni", namespace="kube-system", service_accounts=["aws-node"])
            self.grant_cni(role)
            props["pod_identity_associations"] = [eks.CfnAddon.PodIdentityAssociationProperty(
                role_arn=role.role_arn, service_account="aws-node")]
            props["configuration_values"] = json.dumps(vpc_cni_configuration(self.network_policy), sort_keys=True)
            addon = self.add_addon(name, **props)
            # The policy is a resource of its own: aws-node must hold it when the first node joins.
            addon.node.add_dependency(role)
            return addon
        if name == "aws-ebs-csi-driver":
            props["pod_identity_associations"] = [self._addon_role(
                "EbsCsi", "ebs-csi-controller-sa", ["service-role/AmazonEBSCSIDriverPolicy"])]
        return self.add_addon(name, **props)

    def grant_cni(self, grantee: iam.IGrantable) -> None:
        """The VPC CNI's rights, scoped to this cluster's VPC and instances (instead of AmazonEKS_CNI_Policy on ``*``).

        The amazon-vpc-cni-k8s project documents this scope-down (docs/iam-policy.md, "Scope-down IAM policy per EKS
        cluster"): network interfaces created only in the cluster's VPC, attached to and detached from the cluster's
        instances only (``kubernetes.io/cluster/<name>: owned``, which managed node groups and Karpenter put on
        theirs). Its interface statements key on the ``cluster.k8s.amazonaws.com/name`` tag, which the CNI sets only
        where ``CLUSTER_NAME`` is in aws-node's environment (a variable the add-on's configuration does not take);
        these key on ``ec2:Vpc`` instead, a condition EC2 evaluates on network interfaces and security groups
        (Service Authorization Reference, Amazon EC2) whatever the CNI's environment, and that holds the tagging and
        the security-group changes (unconditioned upstream) to this VPC too. A root on a node who reads aws-node's
        credentials can then move addresses and groups of this VPC's interfaces only, not of the whole account.
        """
        stack = Stack.of(self)
        vpc_arn = f"arn:{stack.partition}:ec2:{stack.region}:{stack.account}:vpc/{self.vpc.vpc_id}"
        interfaces = f"arn:{stack.partition}:ec2:{stack.region}:{stack.account}:network-interface/*"
        in_vpc = {"ArnEquals": {"ec2:Vpc": vpc_arn}}
        name = self.given_name if self.given_name is not None else self.cluster_name
        instance_tag = {f"aws:ResourceTag/kubernetes.io/cluster/{name}": "owned"}
        statements = [
            iam.PolicyStatement(sid="Describe", actions=list(CNI_DESCRIBE_ACTIONS), resources=["*"]),
            iam.PolicyStatement(sid="CreateInterfacesInThisVpc", actions=["ec2:CreateNetworkInterface"],
                                resources=[f"arn:{stack.partition}:ec2:{stack.region}:{stack.account}:{kind}/*"
                                           for kind in ("subnet", "security-group")], conditions=in_vpc),
            iam.PolicyStatement(sid="NewInterfaces", actions=["ec2:CreateNetworkInterface"], resources=[interfaces]),
            iam.PolicyStatement(sid="InterfacesOfThisVpc", actions=list(CNI_INTERFACE_ACTIONS), resources=[interfaces],
                                conditions=in_vpc),
            iam.PolicyStatement(sid="InstancesOfThisCluster", actions=list(CNI_INSTANCE_ACTIONS),
                                resources=[f"arn:{stack.partition}:ec2:{stack.region}:{stack.account}:instance/*"],
                                conditions={"StringEquals": instance_tag} if not Token.is_unresolved(name)
                                else {"StringEquals": CfnJson(self, "CniInstanceTag", value=instance_tag)}),
            iam.PolicyStatement(sid="SecurityGroupsOfThisVpc", actions=["ec2:ModifyNetworkInterfaceAttribute"],
                                resources=[f"arn:{stack.partition}:ec2:{stack.region}:{stack.account}:security-group/*"],
                                conditions=in_vpc),
        ]
        for statement in statements:
            grantee.grant_principal.add_to_principal_policy(statement)
        if isinstance(grantee, Construct):
            # cdk-nag names a stack's region and account as written: a literal where the stack has an environment.
            region = "<AWS::Region>" if Token.is_unresolved(stack.region) else stack.region
            account = "<AWS::AccountId>" if Token.is_unresolved(stack.account) else stack.account
            acknowledge(grantee, "the VPC CNI's documented scope-down: EC2 describes take no resource; interfaces, "
                        "instances and groups are held to this VPC and cluster by condition",
                        "AwsSolutions-IAM5[Resource::*]",
                        *(f"AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:{region}:{account}:{kind}/*]"
                          for kind in ("subnet", "security-group", "network-interface", "instance")))

    def add_accelerated_node_group(self, id: str, *, instance_type: str, subnet: ec2.ISubnet | None = None,
                                   efa: bool | None = None, **props) -> AcceleratedNodeGroup:
        """A managed GPU or Trainium node group of this cluster, like aws-eks-v2's ``add_nodegroup_capacity``.

        The accelerator kind, the node role, the subnet (``training_subnet`` given to the cluster) and the EFA
        security group come from the cluster; ``efa`` defaults to whether the instance type has EFA. Other props
        (sizes, capacity type, volumes, labels) are :class:`AcceleratedNodeGroup`'s, with its defaults.
        """
        facts = instance_facts(instance_type)
        subnet = subnet or self.training_subnet
        if subnet is None:
            raise invalid("subnet", None, "give the training subnet (one AZ, for EFA and the placement group) here "
                                          "or as TrainingCluster(training_subnet=...)")
        efa = facts.efa_supported if efa is None else efa
        return AcceleratedNodeGroup(self, id, cluster=self, instance_type=instance_type,
                                    accelerator=facts.accelerator, subnet=subnet, node_role=self.node_role,
                                    efa_security_group=self.efa_security_group if efa else None, efa=efa, **props)

    def add_addon(self, name: str, version: str | None = None, **props) -> eks.CfnAddon:
        """Install an EKS managed add-on at ``version`` ("vX.Y.Z-eksbuild.N").

        ``version`` default: the ``addon_versions`` override, else the build :data:`EKS_ADDON_VERSIONS` records for
        this cluster's Kubernetes version, so that an upgrade moves the add-on too; where none is recorded the
        template names no version and EKS picks its default at creation (`eks-training check` notes each such one).
        The add-ons of :data:`NODE_PREREQUISITE_ADDONS` come before the nodes (DaemonSets, which are healthy with no
        node yet); every other one after the system nodes (CoreDNS and the CSI controllers need nodes to be healthy).
        The Deployments of :data:`ADDON_PLACEMENT_PATHS` are placed on the system nodes through their configuration
        (:func:`addon_configuration`, merged into ``configuration_values`` when given).
        """
        version = version or self._addon_overrides.get(name) or addon_version(name, self.kubernetes_version)
        if version is not None:
            check_addon_version("version", version)
        if name in ADDON_PLACEMENT_PATHS:
            given = props.get("configuration_values")
            props["configuration_values"] = json.dumps(addon_configuration(
                name, json.loads(given) if isinstance(given, str) else given), sort_keys=True)
        addon = eks.CfnAddon(
            self, f"Addon-{name}", addon_name=name, cluster_name=self.cluster.cluster_name,
            addon_version=version, resolve_conflicts="OVERWRITE", **props)
        if name not in NODE_PREREQUISITE_ADDONS:
            addon.node.add_dependency(self.system_nodegroup, *self.open_namespaces.values())
        return addon

    def open_namespace(self, namespace: str, *, pod_security: str | None = None) -> eks.KubernetesManifest:
        """One NetworkPolicy that lets every pod of ``namespace`` send and accept everything, for a namespace whose
        pods the platform does not own (EKS's add-ons).

        With NetworkPolicies on, the VPC CNI runs in strict mode: a pod no policy selects is denied everything, where
        standard mode lets it through; this keeps such a namespace as open as it was. ``pod_security``: also create
        the namespace, with that Pod Security level enforced (baseline warned), for an add-on that would make it
        itself; its pods then start after the policy. Default None: the namespace exists (kube-system). Attributes
        of the cluster: ``open_namespaces`` (namespace -> the manifest); what starts pods there depends on it.
        """
        if namespace in self.open_namespaces:
            return self.open_namespaces[namespace]
        objects: list[dict] = []
        if pod_security is not None:
            check_one_of(f"open_namespace {namespace} pod_security", pod_security, ("privileged", "baseline", "restricted"))
            labels = {f"{POD_SECURITY_LABEL}/{mode}": level for mode, level in (
                ("enforce", pod_security), ("warn", "baseline"), ("audit", "baseline"))}
            objects.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace, "labels": labels}})
        objects.append(open_namespace_policy(namespace))
        manifest = self.cluster.add_manifest(f"OpenNamespace-{namespace}", *objects)
        # Any time after the control plane: applying a policy needs no node.
        self.open_namespaces[namespace] = manifest
        return manifest

    def _addon_role(self, id: str, service_account: str, policies: Sequence[str]):
        role = self.pod_identity_role(id, policies, namespace="kube-system", service_accounts=[service_account])
        return eks.CfnAddon.PodIdentityAssociationProperty(role_arn=role.role_arn, service_account=service_account)

    def pod_identity_role(self, id: str, managed_policies: Sequence[str] = (), *, namespace: str | None = None,
                          service_accounts: Sequence[str] = ()) -> iam.Role:
        """An IAM role that EKS Pod Identity can hand to a service account of this cluster, and no other.

        ``managed_policies`` are AWS managed policies that the add-on's own documentation prescribes. The trust
        policy admits Pod Identity for this cluster only, and for pods of ``namespace`` as ``service_accounts`` when
        given (default: any association of the cluster; :func:`pod_identity_principal`).
        """
        role = iam.Role(
            self, f"{id}Role", assumed_by=pod_identity_principal(self.cluster, namespace, service_accounts),
            managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name(p) for p in managed_policies])
        if managed_policies:
            acknowledge(role, "the EKS add-on's documentation prescribes this AWS managed policy, which AWS keeps "
                        "current with the add-on", *map(managed_policy_finding, managed_policies))
        return role

    def grant_pod_identity(self, id: str, *, namespace: str, service_account: str, role: iam.IRole) -> eks.CfnPodIdentityAssociation:
        """Let pods running as ``namespace/service_account`` assume ``role`` through EKS Pod Identity."""
        association = eks.CfnPodIdentityAssociation(
            self, f"{id}PodIdentity", cluster_name=self.cluster.cluster_name, namespace=namespace,
            service_account=service_account, role_arn=role.role_arn)
        association.node.add_dependency(self.addons["eks-pod-identity-agent"])
        return association

    def wait_for_jobs(self, manifest: eks.KubernetesManifest, objects: Sequence[Mapping],
                      timeout: Duration = JOB_WAIT) -> list[eks.KubernetesObjectValue]:
        """Make the deploy wait until every Job among ``objects`` (what ``manifest`` applies) has succeeded.

        A manifest is done once kubectl has applied it, so a Job it applies runs unobserved: a KubernetesObjectValue
        reads the Job's ``.status.succeeded`` until it is set, and a Job that fails (or never starts) fails the deploy
        after ``timeout`` (default: 10 minutes; the kubectl handler's Lambda stops at 15). The waiters are children of
        ``manifest``, so whatever depends on the manifest waits for its Jobs too.
        """
        waiters = []
        for obj in objects:
            if obj.get("kind") != "Job" or not str(obj.get("apiVersion", "")).startswith("batch/"):
                continue
            metadata = obj.get("metadata") or {}
            waiter = eks.KubernetesObjectValue(
                manifest, f"Wait-{metadata.get('namespace', 'default')}-{metadata['name']}", cluster=self.cluster,
                object_type="job", object_name=metadata["name"], object_namespace=metadata.get("namespace", "default"),
                json_path=".status.succeeded", timeout=timeout)
            waiter.node.add_dependency(manifest.node.find_child("Resource"))
            waiters.append(waiter)
        return waiters

    @property
    def k8s_app(self) -> cdk8s.App:
        """The cdk8s app of the charts applied to this cluster (one per cluster, made on first use): cdk8s charts of
        one app share one namespace of construct ids, and every add-on makes its charts here."""
        if self._k8s_app is None:
            self._k8s_app = cdk8s.App()
        return self._k8s_app

    @property
    def stack(self) -> Stack:
        return Stack.of(self)

    @property
    def cluster_name(self) -> str:
        return self.cluster.cluster_name
