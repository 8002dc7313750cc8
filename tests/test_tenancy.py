"""People and tenants (issue 29): data tied to the VPC, egress through the VPC's endpoints, a way into a private
cluster, notebooks and Slurm without Kubernetes access. Read from the synthesized environments."""

from __future__ import annotations

import fnmatch
import json

import pytest

from support.synth import render_tokens


def _condition_holds(operator: str, key: str, expected, request: dict) -> bool:
    """IAM's semantics for the operators these policies use: a negated operator holds when the key is absent."""
    values = expected if isinstance(expected, list) else [expected]
    present = key in request
    if operator == "StringEquals":
        return present and request[key] in values
    if operator == "StringNotEquals":
        return not present or request[key] not in values
    if operator == "ArnNotLike":
        return not present or not any(fnmatch.fnmatchcase(request[key], v) for v in values)
    if operator == "ArnLike":
        return present and any(fnmatch.fnmatchcase(request[key], v) for v in values)
    raise AssertionError(f"operator {operator} is not modelled")


def _denied(statement: dict, request: dict) -> bool:
    return all(_condition_holds(op, key, value, request)
               for op, keys in statement["Condition"].items() for key, value in keys.items())


_PSEUDO = {"AWS::AccountId": "111122223333", "AWS::Partition": "aws", "AWS::Region": "us-west-2"}


def _resolved(value):
    """A policy with CloudFormation's intrinsics as the text a request carries: the account 111122223333, a Ref as
    the resource's logical id, a role's Arn as a role named after its logical id."""
    if isinstance(value, list):
        return [_resolved(v) for v in value]
    if not isinstance(value, dict):
        return value
    if set(value) == {"Ref"}:
        return _PSEUDO.get(value["Ref"], value["Ref"])
    if set(value) == {"Fn::Join"}:
        separator, parts = value["Fn::Join"]
        return separator.join(str(_resolved(p)) for p in parts)
    if set(value) == {"Fn::Sub"}:
        text = value["Fn::Sub"]
        for name, resolved in _PSEUDO.items():
            text = text.replace("${" + name + "}", resolved)
        return text
    if set(value) == {"Fn::GetAtt"}:
        return f"arn:aws:iam::111122223333:role/{value['Fn::GetAtt'][0]}"
    return {k: _resolved(v) for k, v in value.items()}


@pytest.fixture(scope="module")
def vpc_rule(prod):
    policies = [p for lid, p in prod.resources("AWS::S3::BucketPolicy").items()
                if lid.startswith(("BucketsDataBucket", "BucketsCheckpointBucket"))]
    assert len(policies) == 2
    rules = [s for p in policies for s in p["Properties"]["PolicyDocument"]["Statement"] if s.get("Sid") == "OnlyThroughThisVpc"]
    assert len(rules) == 2 and rules[0]["Condition"] == rules[1]["Condition"]
    return rules[0]


def test_bucket_data_is_refused_outside_the_vpc_but_to_the_admins_and_the_file_system(prod, vpc_rule) -> None:
    assert vpc_rule["Effect"] == "Deny" and vpc_rule["Principal"] == {"AWS": "*"}
    assert {"s3:GetObject*", "s3:PutObject*", "s3:DeleteObject*", "s3:ListBucket*"} <= set(vpc_rule["Action"])
    rule = _resolved(vpc_rule)
    vpc = rule["Condition"]["StringNotEquals"]["aws:SourceVpc"]
    assert "NetworkVpc" in vpc
    training = "arn:aws:iam::111122223333:role/EksTraining-prod-ClusterTrainingtrainingRole-XYZ"
    cases = {
        "a job's key used from anywhere": ({"aws:PrincipalArn": training}, True),
        "a job inside the VPC": ({"aws:PrincipalArn": training, "aws:SourceVpc": vpc}, False),
        "a job through another VPC's endpoint": ({"aws:PrincipalArn": training, "aws:SourceVpc": "vpc-0other"}, True),
        "an admin from a laptop": ({"aws:PrincipalArn": "arn:aws:iam::111122223333:role/eks-training-admin"}, False),
        "FSx's data repository role": ({"aws:PrincipalArn": "arn:aws:iam::111122223333:role/aws-service-role/"
                                        "s3.data-source.lustre.fsx.amazonaws.com/AWSServiceRoleForFSxS3Access_fs-0123"}, False),
    }
    for name, (request, denied) in cases.items():
        assert _denied(rule, request) is denied, name
    # Management (the bucket policy itself, encryption, lifecycle) stays with CloudFormation.
    assert not any(a.startswith(("s3:PutBucket", "s3:*")) for a in vpc_rule["Action"])


def test_dev_without_endpoints_has_no_vpc_rule(dev) -> None:
    statements = [s for p in dev.resources("AWS::S3::BucketPolicy").values() for s in p["Properties"]["PolicyDocument"]["Statement"]]
    # dev has no S3 endpoints: a VPC rule would refuse every pod (no aws:SourceVpc through NAT).
    assert not [s for s in statements if s.get("Sid") == "OnlyThroughThisVpc"]


def test_endpoint_policies_let_no_data_out_to_another_accounts_bucket(prod) -> None:
    endpoints = {lid: r["Properties"] for lid, r in prod.resources("AWS::EC2::VPCEndpoint").items()}
    s3 = {lid: p for lid, p in endpoints.items() if "s3" in render_tokens(p["ServiceName"])}
    assert len(s3) == 2 and {p.get("VpcEndpointType", "Gateway") for p in s3.values()} == {"Gateway", "Interface"}
    (interface,) = [p for p in s3.values() if p.get("VpcEndpointType") == "Interface"]
    # Private DNS for every resolver of the VPC: pods reach S3 at addresses in the VPC, which NetworkPolicy names.
    assert interface["PrivateDnsEnabled"] is True
    assert interface["DnsOptions"] == {"PrivateDnsOnlyForInboundResolverEndpoint": "AllResolvers"}
    for lid, props in s3.items():
        statements = props["PolicyDocument"]["Statement"]
        writes = [s for s in statements if s["Action"] == "s3:*"]
        (own,) = writes
        assert set(own["Condition"]["StringEquals"]) == {"aws:ResourceAccount", "aws:PrincipalAccount"}, lid
        others = [s for s in statements if s is not own]
        assert all(not any(a.startswith(("s3:Put", "s3:Delete")) for a in
                           ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])) for s in others), lid
    for lid, props in endpoints.items():
        if lid in s3:
            continue
        (statement,) = props["PolicyDocument"]["Statement"]
        assert statement["Condition"] == {"StringEquals": {"aws:PrincipalAccount": {"Ref": "AWS::AccountId"}}}, lid


# --- a way into a private cluster -----------------------------------------------------------------------------------


def test_the_api_tunnel_reaches_the_private_endpoint_through_an_identity_that_holds_nothing(prod) -> None:
    import copy

    from eks_training.infra.tools.check.reachability import groups_reach, tunnel_findings
    from eks_training.infra.tools.check.snapshot import load_snapshot

    assert prod.config.cluster.endpoint_access == "private"
    template = prod.template
    snap = load_snapshot(template)
    assert tunnel_findings(snap) == []
    (endpoint_lid,) = snap.of_type("AWS::EC2::InstanceConnectEndpoint")
    (instance_lid, instance), = snap.of_type("AWS::EC2::Instance").items()
    props = instance["Properties"]
    # No identity on the instance, IMDSv2 with one hop, an encrypted disk, in a private subnet.
    assert "IamInstanceProfile" not in props and "NetworkInterfaces" not in props
    launch = template["Resources"][props["LaunchTemplate"]["LaunchTemplateId"]["Ref"]]["Properties"]["LaunchTemplateData"]
    assert "IamInstanceProfile" not in launch
    assert launch["MetadataOptions"] == {"HttpEndpoint": "enabled", "HttpPutResponseHopLimit": 1, "HttpTokens": "required"}
    assert launch["BlockDeviceMappings"][0]["Ebs"]["Encrypted"] is True
    assert "NetworkVpcprivateSubnet" in json.dumps(props["SubnetId"])
    # Its group: SSH in from the endpoint only, HTTPS out to the control plane only; nothing else either way.
    host = props["SecurityGroupIds"][0]["Fn::GetAtt"][0]
    rules = [r for r in snap.rules if r.group == host]
    assert {(r.direction, r.protocol, r.from_port, r.to_port, r.peer_group, r.cidr) for r in rules if r.cidr is None} == {
        ("ingress", "tcp", 22, 22, template["Resources"][endpoint_lid]["Properties"]["SecurityGroupIds"][0]["Fn::GetAtt"][0], None),
        ("egress", "tcp", 443, 443, next(g for g in snap.api_security_groups if g.startswith("ClusterControlPlane")), None)}
    assert all(r.cidr == "255.255.255.255/32" for r in rules if r.cidr is not None)  # CDK's match-nothing placeholder
    assert not groups_reach(snap, [host], ["cluster security group"], 10250)  # no kubelet, no node
    # Without the control plane's rule admitting it, the check says the tunnel ends at the instance.
    broken = copy.deepcopy(template)
    for lid in [lid for lid, r in broken["Resources"].items() if lid.startswith("ApiTunnelApiFromInstance")]:
        del broken["Resources"][lid]
    assert [f[1] for f in tunnel_findings(load_snapshot(broken))] == ["HTTPS (443)"]
    # Who may open it: the operator policy holds the two actions on exactly these two resources.
    (policy,) = [r for lid, r in prod.resources("AWS::IAM::ManagedPolicy").items() if lid.startswith("ApiTunnelOperatorPolicy")]
    statements = {s["Sid"]: s for s in policy["Properties"]["PolicyDocument"]["Statement"]}
    assert statements["OpenTunnelToTheInstance"]["Action"] == "ec2-instance-connect:OpenTunnel"
    assert statements["OpenTunnelToTheInstance"]["Condition"]["NumericEquals"] == {"ec2-instance-connect:remotePort": 22}
    assert endpoint_lid in json.dumps(statements["OpenTunnelToTheInstance"]["Resource"])
    assert statements["PushAKeyForTheTunnelUser"]["Action"] == "ec2-instance-connect:SendSSHPublicKey"
    assert instance_lid in json.dumps(statements["PushAKeyForTheTunnelUser"]["Resource"])
    assert {o for o in template["Outputs"] if o.startswith("ApiTunnel")} == {
        "ApiTunnelInstanceId", "ApiTunnelEndpointId", "ApiTunnelOperatorPolicyArn"}


def test_a_public_endpoint_gets_no_tunnel_unless_asked(dev) -> None:
    assert dev.config.cluster.endpoint_access == "public_and_private" and not dev.config.cluster.has_api_tunnel
    assert not dev.resources("AWS::EC2::InstanceConnectEndpoint")


# --- the VPC CNI's and the CloudWatch agent's identities -------------------------------------------------------------


def test_the_cni_role_holds_this_vpcs_interfaces_and_this_clusters_instances_only(prod) -> None:
    (role_lid, role), = [(lid, r) for lid, r in prod.resources("AWS::IAM::Role").items() if lid.startswith("ClusterVpcCniRole")]
    assert "ManagedPolicyArns" not in role["Properties"]  # no AmazonEKS_CNI_Policy on *
    condition = role["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]["Condition"]["StringEquals"]
    assert condition["aws:RequestTag/kubernetes-service-account"] == ["aws-node"]
    statements = {s["Sid"]: s for p in prod.resources("AWS::IAM::Policy").values()
                  if {"Ref": role_lid} in p["Properties"]["Roles"] for s in p["Properties"]["PolicyDocument"]["Statement"]}
    writes = {a for s in statements.values() for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])
              if not a.startswith("ec2:Describe")}
    # Every write is held to this VPC or this cluster's instances, but creating an interface's own record (its
    # subnet and group are held to the VPC in the same call).
    for sid, statement in statements.items():
        if sid in ("Describe", "NewInterfaces"):
            continue
        condition = json.dumps(statement["Condition"])
        assert "NetworkVpc" in condition or "kubernetes.io/cluster/eks-training-prod" in condition, sid
    assert writes == {"ec2:CreateNetworkInterface", "ec2:AssignPrivateIpAddresses", "ec2:UnassignPrivateIpAddresses",
                      "ec2:AttachNetworkInterface", "ec2:DetachNetworkInterface", "ec2:DeleteNetworkInterface",
                      "ec2:ModifyNetworkInterfaceAttribute", "ec2:CreateTags"}
    assert statements["NewInterfaces"]["Action"] == "ec2:CreateNetworkInterface"
    assert statements["CreateInterfacesInThisVpc"]["Action"] == "ec2:CreateNetworkInterface"


def test_the_cloudwatch_agents_role_trusts_its_own_service_account_only(env) -> None:
    (role,) = [r for lid, r in env.resources("AWS::IAM::Role").items() if "ObservabilityAgentRole" in lid]
    condition = role["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]["Condition"]["StringEquals"]
    assert condition["aws:RequestTag/kubernetes-namespace"] == "amazon-cloudwatch"
    assert condition["aws:RequestTag/kubernetes-service-account"] == ["cloudwatch-agent"]


# --- notebooks and Slurm without Kubernetes access ----------------------------------------------------------------

def _k8s_objects(synth, kind: str) -> list[dict]:
    return [obj for _, obj in synth.kubernetes_objects() if obj.get("kind") == kind]


def _admitted(synth, namespace: str, service: dict) -> bool:
    """The synthesized Service admission policy's rule, run by a CEL interpreter, on a Service in ``namespace``."""
    import celpy

    (policy,) = _k8s_objects(synth, "ValidatingAdmissionPolicy")
    (binding,) = _k8s_objects(synth, "ValidatingAdmissionPolicyBinding")
    (selector,) = binding["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"]
    assert namespace in selector["values"]  # the policy applies there
    environment = celpy.Environment()
    activation = {"object": celpy.json_to_cel(service), "request": celpy.json_to_cel({"namespace": namespace})}
    # Admitted when every rule holds (load balancers; externalIPs; ExternalName).
    return all(bool(environment.program(environment.compile(rule["expression"])).evaluate(activation))
               for rule in policy["spec"]["validations"])


@pytest.fixture(scope="module")
def hub_service(prod) -> dict:
    """The proxy-public Service as the real helm renders the hub's release from prod's values."""
    from eks_training.core.versions import JUPYTERHUB
    from eks_training.infra.tools.check import helm
    from support import upstream_data

    release = prod.helm_releases[JUPYTERHUB.release]
    objects = helm.render_chart(upstream_data.chart_dir(JUPYTERHUB.chart, JUPYTERHUB.version),
                                release=release["Release"], namespace=release["Namespace"], values=release["Values"],
                                kube_version="1.35")
    (service,) = [o for o in objects if o["kind"] == "Service" and o["metadata"]["name"] == "proxy-public"]
    return {**service, "metadata": {**service["metadata"], "namespace": release["Namespace"]}}


@pytest.fixture(scope="module")
def login_service(prod) -> dict:
    """The login Service as Slinky 1.2.1 builds it from the LoginSet: the LoginSet's name, its spec.service."""
    (login,) = _k8s_objects(prod, "LoginSet")
    service = login["spec"]["service"]
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": login["metadata"]["name"], "namespace": login["metadata"]["namespace"],
                         "annotations": service["metadata"]["annotations"]},
            "spec": {**service["spec"], "ports": [{"name": "login", "port": 22, "targetPort": "login"}]}}


def test_a_notebook_user_reaches_the_hub_over_tls_from_their_network_with_no_kubernetes_identity(prod, hub_service):
    annotations, spec = hub_service["metadata"]["annotations"], hub_service["spec"]
    balancer = prod.config.services.jupyterhub_load_balancer
    assert spec["type"] == "LoadBalancer" and spec["loadBalancerSourceRanges"] == list(balancer.source_ranges)
    assert annotations["service.beta.kubernetes.io/aws-load-balancer-internal"] == "true"
    assert annotations["service.beta.kubernetes.io/aws-load-balancer-ssl-cert"] == balancer.certificate_arn
    assert [(p["port"], p["targetPort"]) for p in spec["ports"]] == [(443, "http")]
    # They sign in with the OIDC provider, coming back to the certificate's host over that listener.
    hub = prod.helm_releases["jupyterhub"]["Values"]["hub"]["config"]
    assert hub["JupyterHub"]["authenticator_class"] == "generic-oauth"
    assert hub["GenericOAuthenticator"]["oauth_callback_url"].startswith("https://")
    # The cluster's admission policy admits this Service as rendered, and nothing like it that opens more.
    assert _admitted(prod, "jupyterhub", hub_service)
    internet = {**annotations, "service.beta.kubernetes.io/aws-load-balancer-internal": "false"}
    for namespace, changed in (
            ("jupyterhub", {**hub_service, "metadata": {**hub_service["metadata"], "annotations": internet}}),
            ("jupyterhub", {**hub_service, "spec": {**spec, "loadBalancerSourceRanges": ["0.0.0.0/0"]}}),
            ("training", hub_service)):
        assert not _admitted(prod, namespace, changed)


def test_a_slurm_user_logs_in_over_ssh_from_their_network_as_themselves_never_root(prod, login_service):
    (login,) = _k8s_objects(prod, "LoginSet")
    annotations, spec = login_service["metadata"]["annotations"], login_service["spec"]
    assert spec["type"] == "LoadBalancer"
    assert spec["loadBalancerSourceRanges"] == list(prod.config.services.slurm_login_load_balancer.source_ranges)
    assert annotations["service.beta.kubernetes.io/aws-load-balancer-internal"] == "true"
    # Only the nodes the login pods run on are targets.
    assert annotations["service.beta.kubernetes.io/aws-load-balancer-target-node-labels"] == ",".join(
        f"{k}={v}" for k, v in login["spec"]["template"]["spec"]["nodeSelector"].items())
    assert _admitted(prod, "slurm", login_service)
    assert not _admitted(prod, "slurm", {**login_service, "spec": {**spec, "loadBalancerSourceRanges": ["0.0.0.0/0"]}})
    # As themselves: the directory's users (SSSD), no system account, no root, no password, no way up to root.
    assert "Match all" in login["spec"]["extraSshdConfig"] and "PermitRootLogin no" in login["spec"]["extraSshdConfig"]
    assert login["spec"]["login"]["securityContext"]["allowPrivilegeEscalation"] is False
    (sssd,) = [s for s in _k8s_objects(prod, "Secret") if s["metadata"]["name"] == login["spec"]["sssdConfRef"]["name"]]
    import configparser

    conf = configparser.ConfigParser()
    conf.read_string(sssd["stringData"]["sssd.conf"])
    assert int(conf["domain/DEFAULT"]["min_id"]) >= 1000
    assert {"root", "slurm"} <= {u.strip() for u in conf["nss"]["filter_users"].split(",")}


def test_the_slurm_key_reaches_no_pod_people_use(prod):
    """slurm.key is named only by the Controller and Accounting (slurmctld, slurmdbd). In the login pods the
    operator (1.2.1) copies it for sackd as slurm's (uid 401), mode 0600: nobody who logs in reads it (no root
    login, no system uid, no privilege escalation: the test above)."""
    (controller,) = _k8s_objects(prod, "Controller")
    key = controller["spec"]["slurmKeyRef"]["name"]
    naming = sorted({obj["kind"] for _, obj in prod.kubernetes_objects()
                     if key in json.dumps(obj) and obj["kind"] not in ("Job", "ConfigMap")})
    assert naming == ["Accounting", "Controller"]
    # The Job that makes it can create Secrets, not read them; its script (ConfigMap) names it to create it.
    (role,) = [o for o in _k8s_objects(prod, "Role") if o["metadata"]["name"].endswith("-secret-generator")]
    assert [rule["verbs"] for rule in role["rules"]] == [["create"]]


def test_the_deploy_check_sees_both_load_balancers_served_and_their_clients_reach_only_their_port(prod):
    from eks_training.infra.addons.network_policies import namespaces_of
    from eks_training.infra.tools.check.network_policy import check_flows, required_flows

    namespaces = namespaces_of(prod.config)
    vpc = prod.config.network.cidr
    assert namespaces.hub_clients == ("10.8.0.0/16", vpc) and namespaces.login_clients == ("10.8.0.0/16", vpc)
    flows = [f for f in required_flows(namespaces, vpc_cidr=vpc) if "load balancer" in f.name]
    assert len(flows) == 9 and sum(f.expected for f in flows) == 2
    policies = _k8s_objects(prod, "NetworkPolicy")
    assert check_flows(policies, flows) == []


def test_slurm_nodes_share_no_efa_group_and_no_role_with_team_nodes(prod):
    """EFA traffic bypasses NetworkPolicies: the Slurm partitions' nodes (where a job is node root) carry an EFA
    group of their own, and no team node source carries it; their node role is theirs too."""
    from eks_training.infra.tools.check.snapshot import load_snapshot
    from eks_training.infra.tools.check.reachability import efa_self_referencing

    snap = load_snapshot(prod.template)
    slurm_pools = {f"slurm-{p.name}" for p in prod.config.services.slurm_partitions}
    slurm, team = [], []
    for source in snap.node_sources:
        pool = source.labels.get("karpenter.sh/nodepool")
        (slurm if pool in slurm_pools else team).append(source)
    assert len(slurm) == len(slurm_pools) and team
    slurm_efa = {g for s in slurm for g in s.security_groups if efa_self_referencing(snap, g)}
    team_efa = {g for s in team for g in s.security_groups if efa_self_referencing(snap, g)}
    assert len(slurm_efa) == 1 and team_efa and not slurm_efa & team_efa
    (group,) = slurm_efa
    assert group.startswith("NetworkSlurmEfaSecurityGroup")
    # Every Slurm source that has EFA can still reach its peers over EFA (NCCL across Slurm nodes).
    assert all(slurm_efa & set(s.security_groups) for s in slurm if s.efa)
    # The node role: the Slurm pools' EC2NodeClasses name theirs, no team pool does.
    classes = {o["metadata"]["name"]: o["spec"] for _, o in prod.kubernetes_objects() if o.get("kind") == "EC2NodeClass"}
    slurm_roles = {classes[p]["role"] for p in slurm_pools}
    assert len(slurm_roles) == 1 and slurm_roles.isdisjoint(c["role"] for n, c in classes.items() if n not in slurm_pools)
