"""TrainingCluster: an EKS control plane (aws_eks_v2) with explicit system capacity for training platforms."""

from __future__ import annotations

import importlib
import json
from datetime import date
from typing import Mapping, Sequence

import cdk8s
from aws_cdk import Annotations, RemovalPolicy, Stack
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from eks_training.core.catalog import instance_facts
from eks_training.core.names import SYSTEM_NODE_SELECTOR
from eks_training.constructs.acknowledgements import acknowledge, managed_policy_finding
from eks_training.constructs.node_groups import AcceleratedNodeGroup
from eks_training.core.validation import (ENDPOINT_ACCESS, InvalidValue, check_addon_versions, check_node_group_sizes,
                                          check_one_of, check_role_arn, invalid)
from eks_training.core.versions import (DEFAULT_ADDONS, KUBERNETES_RELEASES, default_kubernetes_version,
                                                    support_warning)

_ENDPOINTS = {
    "public": eks.EndpointAccess.PUBLIC,
    "private": eks.EndpointAccess.PRIVATE,
    "public_and_private": eks.EndpointAccess.PUBLIC_AND_PRIVATE,
}
_ALL_LOG_TYPES = [eks.ClusterLoggingTypes.API, eks.ClusterLoggingTypes.AUDIT, eks.ClusterLoggingTypes.AUTHENTICATOR,
                  eks.ClusterLoggingTypes.CONTROLLER_MANAGER, eks.ClusterLoggingTypes.SCHEDULER]


def kubectl_layer(scope: Construct, id: str, version: str) -> lambda_.ILayerVersion:
    """The kubectl Lambda layer that matches the cluster's Kubernetes ``version`` (its own PyPI package)."""
    suffix = version.split(".")[1]
    module = importlib.import_module(f"aws_cdk.lambda_layer_kubectl_v{suffix}")
    return getattr(module, f"KubectlV{suffix}Layer")(scope, id)


class TrainingCluster(Construct):
    """An EKS cluster for training: versions 1.31-1.36, access entries, logging, KMS secrets, pinned add-ons.

    * ``version``: Kubernetes minor version ("1.31" .. "1.36"; default: the newest in EKS standard support on the
      day of synth, :func:`default_kubernetes_version`); a version past EKS standard support adds a
      synth warning naming the date it left and the date extended support ends.
    * ``endpoint_access``: "public", "private" or "public_and_private" (default); ``public_access_cidrs``
      narrows the public endpoint.
    * ``admin_role_arns``: IAM roles given cluster-admin through EKS access entries (no aws-auth ConfigMap).
    * ``addon_versions``: overrides of :data:`DEFAULT_ADDONS` ("latest" or "vX.Y.Z-eksbuild.N").
    * System capacity: a managed AL2023 on-demand node group ``system_instance_type`` x ``system_min_size``..
      ``system_max_size`` in the private subnets, labelled ``eks-training/role=system``. Auto Mode is off.

    Attributes: ``cluster`` (the aws_eks_v2 Cluster), ``secrets_key``, ``system_nodegroup``, ``addons``
    (name -> CfnAddon), ``node_role`` (for accelerated node groups and Karpenter nodes).
    """

    def __init__(self, scope: Construct, id: str, *, vpc: ec2.IVpc, version: str | None = None,
                 cluster_name: str | None = None, endpoint_access: str = "public_and_private",
                 public_access_cidrs: Sequence[str] = (), admin_role_arns: Sequence[str] = (),
                 addon_versions: Mapping[str, str] | None = None, system_instance_type: str = "m6i.2xlarge",
                 system_min_size: int = 2, system_desired_size: int = 2, system_max_size: int = 4,
                 system_disk_gib: int = 100, removal_policy: RemovalPolicy = RemovalPolicy.DESTROY,
                 today: date | None = None, network_policy: bool = True,
                 training_subnet: ec2.ISubnet | None = None, efa_security_group: ec2.ISecurityGroup | None = None) -> None:
        super().__init__(scope, id)
        self._k8s_app: cdk8s.App | None = None
        self.network_policy = network_policy
        # Where add_accelerated_node_group puts nodes unless told otherwise (TrainingNetwork makes both).
        self.training_subnet, self.efa_security_group = training_subnet, efa_security_group
        version = version or default_kubernetes_version(today or date.today())
        #: The Kubernetes minor version the control plane runs ("1.36").
        self.kubernetes_version = version
        # The checks the config layer runs on an environment file, so props are held to the same rules.
        check_one_of("version", version, KUBERNETES_RELEASES)
        check_one_of("endpoint_access", endpoint_access, ENDPOINT_ACCESS)
        check_addon_versions("addon_versions", dict(addon_versions or {}))
        addons = {**DEFAULT_ADDONS, **(addon_versions or {})}
        for i, arn in enumerate(admin_role_arns):
            check_role_arn(f"admin_role_arns[{i}]", arn)
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
        if endpoint_access != "private" and (not public_access_cidrs or "0.0.0.0/0" in public_access_cidrs):
            Annotations.of(self).add_warning_v2(
                "eks-training:public-endpoint",
                f"endpoint_access={endpoint_access!r} with public_access_cidrs={list(public_access_cidrs) or 'unset'}: the "
                "Kubernetes API endpoint is open to the whole internet (authentication still applies); name your networks")

        self.secrets_key = kms.Key(self, "SecretsKey", enable_key_rotation=True, removal_policy=removal_policy,
                                   description="EKS secrets envelope encryption")
        self.cluster = eks.Cluster(
            self, "Cluster", version=getattr(eks.KubernetesVersion, f"V{version.replace('.', '_')}"),
            cluster_name=cluster_name, vpc=vpc,
            vpc_subnets=[ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS)],
            # Auto Mode is aws_eks_v2's default; training needs explicit, typed capacity.
            default_capacity_type=eks.DefaultCapacityType.NODEGROUP, default_capacity=0,
            endpoint_access=endpoint, cluster_logging=_ALL_LOG_TYPES, secrets_encryption_key=self.secrets_key,
            kubectl_provider_options=eks.KubectlProviderOptions(kubectl_layer=kubectl_layer(self, "KubectlLayer", version)),
            removal_policy=removal_policy,
        )
        self._acknowledge_cdk_internals()
        for i, arn in enumerate(admin_role_arns):
            self.cluster.grant_access(f"Admin{i}", arn, [eks.AccessPolicy.from_access_policy_name(
                "AmazonEKSClusterAdminPolicy", access_scope_type=eks.AccessScopeType.CLUSTER)])

        self.node_role = iam.Role(
            self, "NodeRole", assumed_by=iam.ServicePrincipal("ec2.amazonaws.com"),
            description="EKS worker nodes (system, accelerated node groups and Karpenter nodes)",
            managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name(n) for n in (
                "AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryPullOnly", "AmazonSSMManagedInstanceCore")])

        acknowledge(self.node_role, "the AWS managed node policies are what EKS documents for worker nodes; AWS keeps "
                    "them scoped to EKS, ECR pulls and SSM", *(managed_policy_finding(p) for p in (
                        "AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryPullOnly", "AmazonSSMManagedInstanceCore")))

        self.system_nodegroup = self.cluster.add_nodegroup_capacity(
            "SystemNodes", instance_types=[ec2.InstanceType(system_instance_type)],
            ami_type=eks.NodegroupAmiType.AL2023_X86_64_STANDARD, capacity_type=eks.CapacityType.ON_DEMAND,
            min_size=system_min_size, desired_size=system_desired_size, max_size=system_max_size,
            disk_size=system_disk_gib, labels=dict(SYSTEM_NODE_SELECTOR), node_role=self.node_role,
            subnets=ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS),
            # EKS replaces a node the node monitoring agent reports unhealthy (NodeRepairConfig).
            enable_node_auto_repair=True)

        self.addons: dict[str, eks.CfnAddon] = {}
        for name, addon_version in addons.items():
            self.addons[name] = self._addon(name, addon_version)

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

    def _addon(self, name: str, version: str) -> eks.CfnAddon:
        props: dict = {}
        if name == "vpc-cni":
            props["pod_identity_associations"] = [self._addon_role("VpcCni", "aws-node", ["AmazonEKS_CNI_Policy"])]
            if self.network_policy:
                # The VPC CNI enforces NetworkPolicies only with its network policy agent turned on.
                props["configuration_values"] = json.dumps({"enableNetworkPolicy": "true"})
        if name == "aws-ebs-csi-driver":
            props["pod_identity_associations"] = [self._addon_role(
                "EbsCsi", "ebs-csi-controller-sa", ["service-role/AmazonEBSCSIDriverPolicy"])]
        return self.add_addon(name, version, **props)

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
        return AcceleratedNodeGroup(self, id, cluster=self.cluster, instance_type=instance_type,
                                    accelerator=facts.accelerator, subnet=subnet, node_role=self.node_role,
                                    efa_security_group=self.efa_security_group if efa else None, efa=efa, **props)

    def add_addon(self, name: str, version: str = "latest", **props) -> eks.CfnAddon:
        """Install an EKS managed add-on; ``version`` "latest" lets EKS pick its default for this cluster."""
        addon = eks.CfnAddon(
            self, f"Addon-{name}", addon_name=name, cluster_name=self.cluster.cluster_name,
            addon_version=None if version == "latest" else version, resolve_conflicts="OVERWRITE", **props)
        # Add-ons like CoreDNS need nodes to become healthy.
        addon.node.add_dependency(self.system_nodegroup)
        return addon

    def _addon_role(self, id: str, service_account: str, policies: Sequence[str]):
        role = self.pod_identity_role(id, policies)
        return eks.CfnAddon.PodIdentityAssociationProperty(role_arn=role.role_arn, service_account=service_account)

    def pod_identity_role(self, id: str, managed_policies: Sequence[str] = ()) -> iam.Role:
        """An IAM role that EKS Pod Identity can hand to a service account.

        ``managed_policies`` are AWS managed policies that the add-on's own documentation prescribes.
        """
        role = iam.Role(
            self, f"{id}Role",
            assumed_by=iam.ServicePrincipal("pods.eks.amazonaws.com").with_session_tags(),
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
