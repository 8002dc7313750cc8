"""TrainingNetwork: the VPC that an EKS training cluster and its EFA nodes live in."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Sequence

from aws_cdk import Aws, RemovalPolicy, Stack, Tags
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from constructs import Construct

from eks_training.constructs.acknowledgements import acknowledge
from eks_training.core.names import EFA_SUBNET_TAG
# The subnet arithmetic lives in core (the config layer checks the same sums); these names stay importable here.
from eks_training.core.subnets import (  # noqa: F401
    AWS_RESERVED_IPS, DEFAULT_POD_IPS_PER_NODE, PRIVATE_MASK, PUBLIC_MASK, default_training_prefix, shared_addresses,
    training_ips_needed, training_subnet_prefix)
from eks_training.core.validation import check_vpc_cidr, check_zones, invalid

_AWS_RESERVED_IPS = AWS_RESERVED_IPS
#: The egress rule CDK writes into a group that allows no outbound traffic (ICMP type 252 code 86 matches nothing):
#: EC2 adds its allow-all default to a group created without any inline egress rule.
NO_TRAFFIC_EGRESS = {"CidrIp": "255.255.255.255/32", "Description": "Disallow all traffic", "IpProtocol": "icmp",
                     "FromPort": 252, "ToPort": 86}


#: S3 reads a node makes of buckets of other accounts: image layers (ECR keeps them in its own buckets; public
#: registries redirect to theirs).
S3_READ_ACTIONS = ("s3:GetObject", "s3:GetObjectVersion", "s3:ListBucket", "s3:GetBucketLocation")


def s3_endpoint_statements() -> list[iam.PolicyStatement]:
    """The S3 endpoints' policy: anything this account's principals do to this account's buckets, and reads of any
    bucket by anyone (AWS PrivateLink guide, "Control access to VPC endpoints using endpoint policies";
    ``aws:ResourceAccount`` and ``aws:PrincipalAccount`` are global condition keys). A job's role, or a key stolen
    elsewhere, cannot copy the data out into a bucket of another account through the VPC."""
    return [
        iam.PolicyStatement(sid="ThisAccountsBuckets", principals=[iam.AnyPrincipal()], actions=["s3:*"],
                            resources=["*"], conditions={"StringEquals": {
                                "aws:ResourceAccount": Aws.ACCOUNT_ID, "aws:PrincipalAccount": Aws.ACCOUNT_ID}}),
        # No principal condition: an image layer is fetched through a URL the registry signed (ECR's own
        # service account) or anonymously (a public registry's bucket).
        iam.PolicyStatement(sid="ReadAnyBucket", principals=[iam.AnyPrincipal()], actions=list(S3_READ_ACTIONS),
                            resources=["*"]),
    ]


def service_endpoint_statements() -> list[iam.PolicyStatement]:
    """An interface endpoint's policy (ECR, STS, EC2, CloudWatch Logs): requests of this account's principals only,
    whatever account owns the resource (EKS's add-on images live in an AWS account's registry)."""
    return [iam.PolicyStatement(sid="ThisAccountsPrincipals", principals=[iam.AnyPrincipal()], actions=["*"],
                                resources=["*"], conditions={"StringEquals": {"aws:PrincipalAccount": Aws.ACCOUNT_ID}})]


@dataclass(frozen=True)
class ExistingNetwork:
    """Ids of a VPC built elsewhere, used as is (no lookups at synth)."""

    vpc_id: str
    vpc_cidr: str
    availability_zones: Sequence[str]
    private_subnet_ids: Sequence[str]
    private_route_table_ids: Sequence[str]
    training_subnet_id: str
    training_route_table_id: str


class TrainingNetwork(Construct):
    """A VPC for EKS training across at least two AZs, with one large EFA-ready subnet in the training AZ.

    Creates public subnets (/24, for NAT and load balancers) and private subnets (/20, system nodes and
    pods) in every AZ, plus a private training subnet in ``training_az`` only, of ``training_prefix`` (default: the
    upper half of ``cidr``), carved from the top of ``cidr``. Its size never follows the capacity: a subnet's CIDR
    cannot change in place, and everything in it (file systems, node groups) would be replaced with it. Give
    ``training_ips`` (the addresses the capacity needs; @default none, not checked) to refuse a subnet too small. Also creates the EFA
    security group (all traffic to and from itself, as EFA's OS-bypass traffic needs) and VPC endpoints
    (S3 gateway; ECR api/dkr, STS, EC2 and CloudWatch Logs interfaces) when ``vpc_endpoints`` (default on).

    Pass ``existing`` to use a VPC made elsewhere, by ids: nothing is created but the EFA security group.

    The VPC's flow logs (all traffic) go to a log group of its own KMS key, kept ``flow_log_retention`` (default one
    year); ``flow_log_removal_policy`` says what ``cdk destroy`` does to both (default RETAIN: the record of what
    left the VPC outlives it).

    Attributes: ``vpc``, ``training_subnet``, ``private_subnets``, ``efa_security_group``,
    ``training_az``, ``availability_zones``.
    """

    def __init__(self, scope: Construct, id: str, *, availability_zones: Sequence[str], training_az: str,
                 cidr: str = "10.0.0.0/16", training_ips: int | None = None, training_prefix: int | None = None,
                 nat_gateways: int = 1, vpc_endpoints: bool = True, cluster_name: str | None = None,
                 existing: ExistingNetwork | None = None,
                 flow_log_removal_policy: RemovalPolicy = RemovalPolicy.RETAIN,
                 flow_log_retention: logs.RetentionDays = logs.RetentionDays.ONE_YEAR) -> None:
        super().__init__(scope, id)
        # The checks the config layer runs on an environment file's zones and CIDR.
        azs = check_zones(existing.availability_zones if existing else availability_zones, training_az)
        self.availability_zones = azs
        self.training_az = training_az

        if existing:
            self.vpc = ec2.Vpc.from_vpc_attributes(
                self, "Vpc", vpc_id=existing.vpc_id, vpc_cidr_block=existing.vpc_cidr, availability_zones=azs,
                private_subnet_ids=list(existing.private_subnet_ids),
                private_subnet_route_table_ids=list(existing.private_route_table_ids))
            self.training_subnet = ec2.Subnet.from_subnet_attributes(
                self, "TrainingSubnet", subnet_id=existing.training_subnet_id, availability_zone=training_az,
                route_table_id=existing.training_route_table_id)
        else:
            self._create_vpc(azs, training_az, cidr, training_ips, training_prefix, nat_gateways,
                             flow_log_removal_policy, flow_log_retention)
            if vpc_endpoints:
                self._add_endpoints()
        self.private_subnets = list(self.vpc.private_subnets)

        # EFA's SRD traffic is not IP: a 0.0.0.0/0 egress rule does not carry it, the group must name itself as the
        # destination too (EFA user guide: inbound and outbound rules that reference the group itself). Nothing else
        # leaves through it: every node that carries it also carries the cluster security group, whose egress EKS
        # manages. (Written directly: the logical id stays that of the rule the group had before.)
        self.efa_security_group = self._efa_group("Efa", "EFA: all traffic to and from members of this group "
                                                         "(OS-bypass needs it)")
        if cluster_name:
            Tags.of(self.efa_security_group).add("karpenter.sh/discovery", cluster_name)

    def _efa_group(self, prefix: str, description: str) -> ec2.SecurityGroup:
        group = ec2.SecurityGroup(self, f"{prefix}SecurityGroup", vpc=self.vpc, allow_all_outbound=False,
                                  description=description)
        # Its egress rules are all separate resources (they name groups): without an inline rule EC2 would keep its
        # default allow-all egress, so the group holds CDK's match-nothing placeholder inline.
        group.node.default_child.add_property_override("SecurityGroupEgress", [NO_TRAFFIC_EGRESS])
        group.add_ingress_rule(group, ec2.Port.all_traffic(), "EFA within the group")
        ec2.CfnSecurityGroupEgress(self, f"{prefix}SelfEgress", group_id=group.security_group_id, ip_protocol="-1",
                                   destination_security_group_id=group.security_group_id,
                                   description="EFA within the group")
        return group

    def add_efa_group(self, prefix: str, *, tag: tuple[str, str], description: str) -> ec2.SecurityGroup:
        """Another self-referencing EFA group (``<prefix>SecurityGroup``), tagged ``tag`` for the nodes that select
        it: EFA traffic bypasses NetworkPolicies, so nodes of another trust domain (Slurm's, whose jobs are node
        roots) get a group of their own and reach no other node's EFA interfaces."""
        group = self._efa_group(prefix, description)
        Tags.of(group).add(*tag)
        return group

    def _create_vpc(self, azs: list[str], training_az: str, cidr: str, training_ips: int | None,
                    training_prefix: int | None, nat_gateways: int, flow_log_removal_policy: RemovalPolicy,
                    flow_log_retention: logs.RetentionDays) -> None:
        network = ipaddress.ip_network(check_vpc_cidr("cidr", cidr))
        prefix = training_prefix if training_prefix is not None else default_training_prefix(cidr)
        usable = 2 ** (32 - prefix) - _AWS_RESERVED_IPS
        if training_ips is not None and usable < training_ips:
            raise invalid("training_prefix", prefix, f"use /{training_subnet_prefix(training_ips)} or lower, or fewer "
                          f"nodes: /{prefix} holds {usable} addresses but the accelerated capacity needs {training_ips}")
        if prefix < network.prefixlen + 1:
            raise invalid("training_prefix", prefix, f"use a prefix longer than the network {cidr}'s, a larger VPC "
                                                     "CIDR or fewer nodes")
        # CDK allocates the public and private groups from the bottom of the range; the training subnet
        # takes the top block, and the two must not meet.
        shared = shared_addresses(len(azs))
        training_block = list(network.subnets(new_prefix=prefix))[-1]
        if int(network.network_address) + shared > int(training_block.network_address):
            raise invalid("cidr", cidr, f"use a larger CIDR (e.g. /16) or fewer AZs: it must hold {len(azs)} public "
                                        f"/{PUBLIC_MASK}, {len(azs)} private /{PRIVATE_MASK} and a /{prefix} training subnet")

        nat_provider = ec2.NatProvider.gateway()
        # Flow logs of all traffic (accepted too: what left the VPC is what an investigation asks first), encrypted
        # with our own key (a key policy lets CloudWatch Logs use it for this account's log groups only), kept
        # ``flow_log_retention`` (a year by default) and, by default, past `cdk destroy` with their key.
        stack = Stack.of(self)
        self.flow_log_key = kms.Key(self, "FlowLogKey", enable_key_rotation=True, removal_policy=flow_log_removal_policy,
                                    description="VPC flow logs")
        self.flow_log_key.add_to_resource_policy(iam.PolicyStatement(
            actions=["kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*"],
            principals=[iam.ServicePrincipal(f"logs.{stack.region}.amazonaws.com")], resources=["*"],
            conditions={"ArnLike": {"kms:EncryptionContext:aws:logs:arn":
                                    f"arn:{stack.partition}:logs:{stack.region}:{stack.account}:log-group:*"}}))
        self.flow_log_group = logs.LogGroup(self, "FlowLogs", encryption_key=self.flow_log_key,
                                            retention=flow_log_retention, removal_policy=flow_log_removal_policy)
        self.vpc = ec2.Vpc(
            self, "Vpc", ip_addresses=ec2.IpAddresses.cidr(cidr), availability_zones=azs,
            nat_gateways=nat_gateways, nat_gateway_provider=nat_provider, restrict_default_security_group=False,
            subnet_configuration=[
                # No public address for anything launched there: NAT gateways bring their Elastic IPs, and
                # internet-facing load balancers get theirs from ELB.
                ec2.SubnetConfiguration(name="public", subnet_type=ec2.SubnetType.PUBLIC, cidr_mask=PUBLIC_MASK,
                                        map_public_ip_on_launch=False),
                ec2.SubnetConfiguration(name="private", subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS,
                                        cidr_mask=PRIVATE_MASK),
            ],
            flow_logs={"all": ec2.FlowLogOptions(
                traffic_type=ec2.FlowLogTrafficType.ALL,
                destination=ec2.FlowLogDestination.to_cloud_watch_logs(self.flow_log_group))},
        )
        for subnet in self.vpc.public_subnets:
            Tags.of(subnet).add("kubernetes.io/role/elb", "1")
        for subnet in self.vpc.private_subnets:
            Tags.of(subnet).add("kubernetes.io/role/internal-elb", "1")

        self.training_subnet = ec2.PrivateSubnet(
            self, "TrainingSubnet", availability_zone=training_az, vpc_id=self.vpc.vpc_id,
            cidr_block=str(training_block), map_public_ip_on_launch=False)
        # Egress through the NAT gateway in the training AZ when there is one, else the first.
        gateways = {g.az: g.gateway_id for g in nat_provider.configured_gateways}
        self.training_subnet.add_default_nat_route(gateways.get(training_az, next(iter(gateways.values()))))
        Tags.of(self.training_subnet).add(*EFA_SUBNET_TAG)
        Tags.of(self.training_subnet).add("eks-training/subnet", "training")
        self.training_prefix = prefix

    def _add_endpoints(self) -> None:
        """The VPC's endpoints and their policies (attribute ``endpoints``: name -> endpoint).

        S3 has both kinds: the gateway carries what DNS does not send to the interface (nodes' dual-stack names), the
        interface answers for ``s3.<region>.amazonaws.com`` and its buckets to every resolver of the VPC
        (``PrivateDnsOnlyForInboundResolverEndpoint: AllResolvers``), so a pod reaches S3 at addresses inside the
        VPC, which its NetworkPolicies can name (a gateway's traffic goes to S3's public ranges). Each endpoint's
        policy (:func:`s3_endpoint_statements`, :func:`service_endpoint_statements`) lets through only this
        account's principals, and into S3 only this account's buckets (reads of any bucket: image layers).
        """
        self.endpoints: dict[str, ec2.IVpcEndpoint] = {}
        gateway = self.vpc.add_gateway_endpoint(
            "S3", service=ec2.GatewayVpcEndpointAwsService.S3,
            subnets=[ec2.SubnetSelection(subnets=[*self.vpc.private_subnets, self.training_subnet])])
        self.endpoints["S3"] = gateway
        for statement in s3_endpoint_statements():
            gateway.add_to_policy(statement)
        services = (("S3Interface", ec2.InterfaceVpcEndpointAwsService.S3),
                    ("EcrApi", ec2.InterfaceVpcEndpointAwsService.ECR),
                    ("EcrDocker", ec2.InterfaceVpcEndpointAwsService.ECR_DOCKER),
                    ("Sts", ec2.InterfaceVpcEndpointAwsService.STS),
                    ("Ec2", ec2.InterfaceVpcEndpointAwsService.EC2),
                    ("Logs", ec2.InterfaceVpcEndpointAwsService.CLOUDWATCH_LOGS))
        for name, service in services:
            # An endpoint only answers: its group admits HTTPS from the VPC and sends nothing.
            group = ec2.SecurityGroup(self, f"{name}EndpointSecurityGroup", vpc=self.vpc, allow_all_outbound=False,
                                      description=f"{name} interface endpoint: HTTPS from the VPC")
            group.add_ingress_rule(ec2.Peer.ipv4(self.vpc.vpc_cidr_block), ec2.Port.tcp(443), "HTTPS from the VPC")
            s3 = name == "S3Interface"
            endpoint = self.vpc.add_interface_endpoint(
                name, service=service, private_dns_enabled=True, security_groups=[group], open=False,
                subnets=ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS),
                private_dns_only_for_inbound_resolver_endpoint=(
                    ec2.VpcEndpointPrivateDnsOnlyForInboundResolverEndpoint.ALL_RESOLVERS if s3 else None))
            if s3:
                # The gateway's routes exist first: S3 interface endpoints take private DNS beside a gateway only.
                endpoint.node.add_dependency(gateway)
            for statement in (s3_endpoint_statements() if s3 else service_endpoint_statements()):
                endpoint.add_to_policy(statement)
            self.endpoints[name] = endpoint
            acknowledge(group, "the endpoint's security group admits HTTPS from the VPC's own CIDR, a token the "
                        "rule cannot read", "AwsSolutions-EC23")

    def tag_for_karpenter(self, cluster_name: str) -> None:
        """Tag the training subnet so Karpenter's subnet selector finds it."""
        Tags.of(self.training_subnet).add("karpenter.sh/discovery", cluster_name)
