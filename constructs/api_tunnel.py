"""ApiTunnel: a way into a cluster whose API endpoint is private, through an identity that holds nothing else.

An EC2 Instance Connect Endpoint (EICE) carries an operator's SSH, authorized by IAM (``ec2-instance-connect:
OpenTunnel``), from anywhere to one small instance in the VPC; that instance forwards the operator's port to the API
endpoint (``ssh -L``). An EICE alone reaches only ports 22 and 3389 (EC2 user guide, "EC2 Instance Connect Endpoint
limitations"), not the endpoint's 443: hence the instance.

The instance has no IAM role (no instance profile): a root there holds no AWS credential at all. Its group admits
SSH from the EICE only and sends HTTPS to the control plane's group only: no internet, no node, no pod. The EICE's
group sends SSH to the instance only. Operators log in with a key they push for 60 seconds
(``ec2-instance-connect:SendSSHPublicKey``, the instance's agent reads it from instance metadata); the managed
policy :attr:`ApiTunnel.operator_policy` grants exactly those two actions on exactly these two resources, and the
API still authenticates the operator through their own access entry.
"""

from __future__ import annotations

from aws_cdk import Stack, Tags
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from constructs import Construct

from eks_training.constructs.acknowledgements import acknowledge
from eks_training.constructs.network import NO_TRAFFIC_EGRESS
from eks_training.core.validation import invalid

#: The login user of the Amazon Linux 2023 AMI (EC2 Instance Connect's agent serves it).
TUNNEL_USER = "ec2-user"
SSH_PORT, HTTPS_PORT = 22, 443


class ApiTunnel(Construct):
    """An EC2 Instance Connect Endpoint and a forwarding instance without IAM role, reaching the API endpoint on 443.

    * ``vpc``: the cluster's VPC; ``subnet``: a private subnet for both (default: the VPC's first private subnet).
    * ``api_security_group``: a group of the control plane's network interfaces (``TrainingCluster
      .control_plane_security_group``): it gets one rule admitting HTTPS from the instance.
    * ``instance_type``: the forwarding instance (Graviton, AL2023). Default ``t4g.nano``.

    Attributes: ``endpoint`` (the CfnInstanceConnectEndpoint), ``instance`` (CfnInstance), ``security_group`` (the
    instance's), ``endpoint_security_group``, ``operator_policy`` (iam.ManagedPolicy to attach to admin roles).
    """

    def __init__(self, scope: Construct, id: str, *, vpc: ec2.IVpc, api_security_group: ec2.ISecurityGroup,
                 subnet: ec2.ISubnet | None = None, instance_type: str = "t4g.nano") -> None:
        super().__init__(scope, id)
        if instance_type not in ("t4g.nano", "t4g.micro", "t4g.small"):
            raise invalid("instance_type", instance_type, "t4g.nano, t4g.micro or t4g.small (an arm64 instance only "
                                                          "forwards one TCP stream)")
        subnet = subnet or vpc.private_subnets[0]
        self.endpoint_security_group = ec2.SecurityGroup(
            self, "EndpointSecurityGroup", vpc=vpc, allow_all_outbound=False,
            description="EC2 Instance Connect Endpoint: SSH to the API tunnel instance only")
        self.security_group = ec2.SecurityGroup(
            self, "InstanceSecurityGroup", vpc=vpc, allow_all_outbound=False,
            description="API tunnel: SSH from the Instance Connect Endpoint, HTTPS to the control plane only")
        for group in (self.endpoint_security_group, self.security_group):
            # Every egress rule names a group (a separate resource): keep EC2 from adding its allow-all default.
            group.node.default_child.add_property_override("SecurityGroupEgress", [NO_TRAFFIC_EGRESS])
        ec2.CfnSecurityGroupEgress(self, "EndpointToInstance", group_id=self.endpoint_security_group.security_group_id,
                                   ip_protocol="tcp", from_port=SSH_PORT, to_port=SSH_PORT,
                                   destination_security_group_id=self.security_group.security_group_id,
                                   description="SSH to the API tunnel instance")
        self.security_group.add_ingress_rule(self.endpoint_security_group, ec2.Port.tcp(SSH_PORT),
                                             "SSH from the Instance Connect Endpoint")
        ec2.CfnSecurityGroupEgress(self, "InstanceToApi", group_id=self.security_group.security_group_id,
                                   ip_protocol="tcp", from_port=HTTPS_PORT, to_port=HTTPS_PORT,
                                   destination_security_group_id=api_security_group.security_group_id,
                                   description="HTTPS to the EKS API endpoint")
        ec2.CfnSecurityGroupIngress(self, "ApiFromInstance", group_id=api_security_group.security_group_id,
                                    ip_protocol="tcp", from_port=HTTPS_PORT, to_port=HTTPS_PORT,
                                    source_security_group_id=self.security_group.security_group_id,
                                    description="HTTPS from the API tunnel instance")

        # The client's address is not preserved: the instance sees the endpoint's, which its group admits.
        self.endpoint = ec2.CfnInstanceConnectEndpoint(
            self, "Endpoint", subnet_id=subnet.subnet_id, preserve_client_ip=False,
            security_group_ids=[self.endpoint_security_group.security_group_id])

        image = ec2.MachineImage.latest_amazon_linux2023(cpu_type=ec2.AmazonLinuxCpuType.ARM_64)
        template = ec2.CfnLaunchTemplate(self, "LaunchTemplate", launch_template_data=ec2.CfnLaunchTemplate.LaunchTemplateDataProperty(
            # IMDSv2 only, one hop: the instance has no role to reach anyway, and Instance Connect's keys come through it.
            metadata_options=ec2.CfnLaunchTemplate.MetadataOptionsProperty(
                http_tokens="required", http_put_response_hop_limit=1, http_endpoint="enabled"),
            block_device_mappings=[ec2.CfnLaunchTemplate.BlockDeviceMappingProperty(
                device_name="/dev/xvda", ebs=ec2.CfnLaunchTemplate.EbsProperty(
                    volume_size=8, volume_type="gp3", encrypted=True, delete_on_termination=True))]))
        # No IamInstanceProfile: the instance holds no AWS identity.
        self.instance = ec2.CfnInstance(
            self, "Instance", image_id=image.get_image(self).image_id, instance_type=instance_type,
            subnet_id=subnet.subnet_id, security_group_ids=[self.security_group.security_group_id],
            monitoring=True, ebs_optimized=True,
            launch_template=ec2.CfnInstance.LaunchTemplateSpecificationProperty(
                launch_template_id=template.ref, version=template.attr_latest_version_number))
        Tags.of(self.instance).add("Name", f"{Stack.of(self).stack_name}-api-tunnel")

        stack = Stack.of(self)
        instance_arn = f"arn:{stack.partition}:ec2:{stack.region}:{stack.account}:instance/{self.instance.ref}"
        endpoint_arn = (f"arn:{stack.partition}:ec2:{stack.region}:{stack.account}:instance-connect-endpoint/"
                        f"{self.endpoint.attr_id}")
        self.operator_policy = iam.ManagedPolicy(self, "OperatorPolicy", description=(
            "Open the API tunnel: SSH through the Instance Connect Endpoint to the tunnel instance, nothing else"),
            statements=[
                iam.PolicyStatement(sid="OpenTunnelToTheInstance", actions=["ec2-instance-connect:OpenTunnel"],
                                    resources=[endpoint_arn], conditions={
                                        "NumericEquals": {"ec2-instance-connect:remotePort": SSH_PORT},
                                        "IpAddress": {"ec2-instance-connect:privateIpAddress":
                                                      f"{self.instance.attr_private_ip}/32"}}),
                iam.PolicyStatement(sid="PushAKeyForTheTunnelUser", actions=["ec2-instance-connect:SendSSHPublicKey"],
                                    resources=[instance_arn], conditions={
                                        "StringEquals": {"ec2:osuser": TUNNEL_USER}}),
                iam.PolicyStatement(sid="FindThem", actions=["ec2:DescribeInstances",
                                                             "ec2:DescribeInstanceConnectEndpoints"], resources=["*"]),
            ])
        acknowledge(self.operator_policy, "EC2's describe calls take no resource (the CLI looks the instance and the "
                    "endpoint up); the two actions that open the tunnel name exactly this endpoint and instance",
                    "AwsSolutions-IAM5[Resource::*]")
        acknowledge(self.instance, "a forwarding host with no identity and no state: nothing to monitor beyond "
                    "EC2's basic metrics, and replacing it loses nothing", "AwsSolutions-EC29")
