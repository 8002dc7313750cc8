"""Issue 23, least privilege below the pod: each finding of the review, held on the synthesized environments.

The scanners' share (Guard, cloudsplaining, checkov) is in their own modules; these tests read the templates and
the Kubernetes objects they apply, render the upstream charts with our values where the rights are the chart's,
and run the admission policy's CEL rule with a CEL interpreter.
"""

from __future__ import annotations

import json

import pytest

from eks_training.core.names import PLATFORM_NAMESPACES, SLURM_PARTITION_TAINT, slurm_pool_name
from eks_training.core.versions import CERT_MANAGER, JUPYTERHUB, KUBERAY, SLURM_OPERATOR, VOLCANO
from support import upstream_data
from support.synth import render_tokens


def _objects(synth, kind: str) -> list[dict]:
    return [obj for _, obj in synth.kubernetes_objects() if obj.get("kind") == kind]


def _statements(synth, role_prefix: str) -> list[dict]:
    roles = [lid for lid in synth.resources("AWS::IAM::Role") if lid.startswith(role_prefix)]
    assert roles, role_prefix
    return [s for p in synth.resources("AWS::IAM::Policy").values()
            if any(r in p["Properties"]["Roles"] for r in ({"Ref": lid} for lid in roles))
            for s in p["Properties"]["PolicyDocument"]["Statement"]]


def _actions(statement: dict) -> list[str]:
    return [statement["Action"]] if isinstance(statement["Action"], str) else list(statement["Action"])


# --- 1. a Slurm job's root reaches no other workload's node, no SSM, and no root on the file system ----------------

def test_slurm_partitions_run_on_nodes_of_their_own(prod) -> None:
    partitions = [p.name for p in prod.config.services.slurm_partitions]
    pools = {o["metadata"]["name"]: o for o in _objects(prod, "NodePool")}
    node_sets = {o["spec"]["partition"]["config"]: o for o in _objects(prod, "NodeSet")}
    assert len(node_sets) == len(partitions)
    for partition in partitions:
        pool = pools[slurm_pool_name(partition)]
        taints = pool["spec"]["template"]["spec"]["taints"]
        assert {"key": SLURM_PARTITION_TAINT, "value": partition, "effect": "NoSchedule"} in taints
        node_set = next(o for o in node_sets.values() if o["metadata"]["name"].endswith(f"-worker-{partition}"))
        assert node_set["spec"]["template"]["spec"]["nodeSelector"]["eks-training/pool"] == slurm_pool_name(partition)
    # No other pod template of the stack (jobs, notebooks, Ray, operators) tolerates the partitions' taint, but the
    # node agents a Slurm node needs (device plugins).
    tolerating = [lid for lid, obj in prod.kubernetes_objects() if SLURM_PARTITION_TAINT in json.dumps(obj)
                  and obj.get("kind") not in ("NodePool", "NodeSet")]
    assert not tolerating, tolerating
    releases = [name for name, r in prod.helm_releases.items() if SLURM_PARTITION_TAINT in json.dumps(r.get("Values"))]
    assert set(releases) == {"nvidia-device-plugin", "neuron-helm-chart"}, releases


def test_slurm_nodes_have_a_node_role_of_their_own_without_ssm(prod) -> None:
    classes = {o["metadata"]["name"]: o["spec"]["role"] for o in _objects(prod, "EC2NodeClass")}
    slurm = {name: role for name, role in classes.items() if name.startswith("slurm-")}
    assert slurm and set(slurm.values()) == {"eks-training-prod-slurm-node"}
    assert all(role == "eks-training-prod-karpenter-node" for name, role in classes.items() if name not in slurm)
    (role,) = [r for r in prod.resources("AWS::IAM::Role").values()
               if r["Properties"].get("RoleName") == "eks-training-prod-slurm-node"]
    policies = json.dumps(role["Properties"]["ManagedPolicyArns"])
    assert "AmazonEKSWorkerNodePolicy" in policies and "AmazonEC2ContainerRegistryPullOnly" in policies
    assert "SSM" not in policies and "Policies" not in role["Properties"]
    # Karpenter may pass it to EC2, and EKS admits its nodes.
    passed = [s for s in _statements(prod, "KarpenterControllerControllerRole") if "iam:PassRole" in _actions(s)]
    assert "SlurmNodeRole" in json.dumps(passed)
    assert any("SlurmNodeRole" in json.dumps(e["Properties"]["PrincipalArn"]) and e["Properties"]["Type"] == "EC2_LINUX"
               for e in prod.resources("AWS::EKS::AccessEntry").values())


def test_the_file_system_squashes_root_but_on_the_system_nodes(prod) -> None:
    (squash,) = [r for lid, r in prod.resources("Custom::AWS").items() if lid.startswith("LustreRootSquash")]
    call = json.loads(render_tokens(squash["Properties"]["Create"]))
    assert (call["service"], call["action"]) == ("FSx", "UpdateFileSystem")
    configuration = call["parameters"]["LustreConfiguration"]["RootSquashConfiguration"]
    assert configuration["RootSquash"] == "65534:65534"
    # NoSquashNids: the private subnets' ranges, where only the system nodes run (and the workspace Job).
    private = sorted(r["Properties"]["CidrBlock"] for lid, r in prod.resources("AWS::EC2::Subnet").items()
                     if "private" in lid)
    assert len(private) == 3
    expected = []
    for cidr in private:
        first, second, third, _ = cidr.split("/")[0].split(".")
        expected.append(f"{first}.{second}.[{third}-{int(third) + 15}].[0-255]@tcp")  # the /20s
    assert sorted(configuration["NoSquashNids"]) == sorted(expected)
    statements = [s for p in prod.resources("AWS::IAM::Policy").values() if "LustreRootSquash" in json.dumps(p)
                  for s in p["Properties"]["PolicyDocument"]["Statement"]]
    assert [(_actions(s), "LustreFileSystem" in json.dumps(s["Resource"])) for s in statements] == [
        (["fsx:UpdateFileSystem"], True)]


def test_workspaces_are_sticky_not_plain_world_writable(prod) -> None:
    (job,) = [o for o in _objects(prod, "Job") if o["metadata"]["name"].startswith("fsx-workspaces-")]
    script = job["spec"]["template"]["spec"]["containers"][0]["command"][-1]
    assert "chmod 1777 " in script and "0777" not in script


# --- 2. operators scoped to the namespaces they serve, every namespace isolated and labelled ---------------------

def _render(release: dict, pin) -> list[dict]:
    from eks_training.infra.tools.check import helm

    chart = upstream_data.chart_dir(pin.chart, pin.version)
    return helm.render_chart(chart, release=release["Release"], namespace=release["Namespace"],
                             values=release.get("Values", {}), kube_version="1.35")


def _rules_granting(objects: list[dict], resource: str, verbs: set[str], kind: str) -> list[str]:
    return [o["metadata"]["name"] for o in objects if o.get("kind") == kind
            for rule in o.get("rules") or [] if resource in (rule.get("resources") or []) and
            (verbs & set(rule.get("verbs") or []) or "*" in (rule.get("verbs") or []))]


def test_kuberay_holds_rights_only_in_the_training_namespaces(prod) -> None:
    release = prod.helm_releases[KUBERAY.release]
    training = [n.name for n in prod.config.training_namespaces]
    assert release["Values"]["singleNamespaceInstall"] is True and release["Values"]["watchNamespace"] == training
    objects = _render(release, KUBERAY)
    for resource in ("pods", "secrets", "roles", "rolebindings", "serviceaccounts"):
        assert not _rules_granting(objects, resource, {"create", "get", "list"}, "ClusterRole"), resource
    namespaced = {o["metadata"]["namespace"] for o in objects if o["kind"] == "Role"
                  and _rules_granting([o], "pods", {"create"}, "Role")}
    assert namespaced == set(training)
    (deployment,) = [o for o in objects if o["kind"] == "Deployment"]
    args = " ".join(deployment["spec"]["template"]["spec"]["containers"][0].get("args") or [])
    assert f"--watch-namespace {','.join(training)}" in args or f"--watch-namespace={','.join(training)}" in args, args


def test_slinky_watches_only_the_slurm_namespace(prod) -> None:
    objects = _render(prod.helm_releases[SLURM_OPERATOR.release], SLURM_OPERATOR)
    deployments = {o["metadata"]["name"]: o for o in objects if o["kind"] == "Deployment"}
    assert len(deployments) == 2
    for deployment in deployments.values():
        args = deployment["spec"]["template"]["spec"]["containers"][0]["args"]
        assert args[args.index("--namespaces") + 1] == "slurm", args
    webhooks = [w for o in objects if o["kind"].endswith("WebhookConfiguration") for w in o["webhooks"]]
    assert webhooks and all(w["namespaceSelector"]["matchExpressions"][0]["values"] == ["slurm"] for w in webhooks)


def test_volcano_webhooks_only_see_the_namespaces_that_run_volcano_jobs(prod) -> None:
    objects = _render(prod.helm_releases[VOLCANO.release], VOLCANO)
    webhooks = [w for o in objects if o["kind"].endswith("WebhookConfiguration") for w in o["webhooks"]]
    # HyperNodes are cluster-scoped: their webhook has no namespace to select (Kubernetes ignores it there).
    namespaced = [w for w in webhooks if "hypernodes" not in w["name"]]
    assert {w["name"].split(".")[0] for w in namespaced} >= {"mutatejob", "validatejob"} or len(namespaced) >= 5
    for webhook in namespaced:
        expressions = webhook["namespaceSelector"]["matchExpressions"]
        assert {"key": "eks-training/uses-volcano", "operator": "In", "values": ["true"]} in expressions, webhook["name"]
    training = {o["metadata"]["name"]: o["metadata"]["labels"] for o in _objects(prod, "Namespace")}
    assert all(training[n.name]["eks-training/uses-volcano"] == "true" for n in prod.config.training_namespaces)


OPERATOR_NAMESPACES = {VOLCANO.namespace: "baseline", KUBERAY.namespace: "baseline", "mpi-operator": "baseline",
                       SLURM_OPERATOR.namespace: "baseline", CERT_MANAGER.namespace: "restricted",
                       "nvidia-device-plugin": "privileged"}


@pytest.mark.parametrize("namespace", sorted(OPERATOR_NAMESPACES))
def test_operator_namespaces_are_made_isolated_and_labelled(prod, namespace: str) -> None:
    (made,) = [o for o in _objects(prod, "Namespace") if o["metadata"]["name"] == namespace]
    assert made["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == OPERATOR_NAMESPACES[namespace]
    policies = [o for o in _objects(prod, "NetworkPolicy") if o["metadata"]["namespace"] == namespace]
    deny = next(p for p in policies if p["metadata"]["name"] == "default-deny")
    assert deny["spec"]["podSelector"] == {} and set(deny["spec"]["policyTypes"]) == {"Ingress", "Egress"}
    assert not deny["spec"].get("ingress") and not deny["spec"].get("egress")
    # No release creates a bare namespace of its own any more.
    assert not any(r.get("CreateNamespace") for r in prod.helm_releases.values())


def test_kube_system_carries_pod_security_labels(prod) -> None:
    (patch,) = [p for p in prod.resources("Custom::AWSCDK-EKS-KubernetesPatch").values()
                if p["Properties"]["ResourceName"] == "namespace/kube-system"]
    labels = json.loads(patch["Properties"]["ApplyPatchJson"])["metadata"]["labels"]
    assert labels == {"pod-security.kubernetes.io/enforce": "privileged", "pod-security.kubernetes.io/warn": "baseline",
                      "pod-security.kubernetes.io/audit": "baseline"}


def test_every_platform_namespace_is_reserved() -> None:
    from eks_training.core import versions

    pinned = {pin.namespace for pin in vars(versions).values() if isinstance(pin, versions.HelmPin)}
    from eks_training.constructs.observability import CLOUDWATCH_AGENT_NAMESPACE
    from eks_training.workloads.gitops import ARGOCD_NAMESPACE
    from eks_training.workloads.mpi_operator_install import NAMESPACE, OPERATOR_NAMESPACE

    named = pinned | {CLOUDWATCH_AGENT_NAMESPACE, ARGOCD_NAMESPACE, NAMESPACE, OPERATOR_NAMESPACE, "slurm",
                      JUPYTERHUB.namespace, "default", "kube-public", "kube-node-lease"}
    assert named <= set(PLATFORM_NAMESPACES), named - set(PLATFORM_NAMESPACES)


# --- 5/7. node roles and the FSx CSI driver -----------------------------------------------------------------------

def test_node_roles_hold_no_ssm(env) -> None:
    nodes = [r for r in env.resources("AWS::IAM::Role").values()
             if "ec2.amazonaws.com" in json.dumps(r["Properties"]["AssumeRolePolicyDocument"])]
    assert len(nodes) >= 2
    for role in nodes:
        assert "SSM" not in json.dumps(role["Properties"].get("ManagedPolicyArns", []))


# --- 6. notebooks: stable identities, per-user folders and prefixes, no chart policies -----------------------------

def test_notebooks_are_separated_per_user(prod) -> None:
    values = prod.helm_releases[JUPYTERHUB.release]["Values"]
    oauth = values["hub"]["config"]["GenericOAuthenticator"]
    assert oauth["username_claim"] == "sub"
    assert values["hub"]["networkPolicy"] == {"enabled": False}
    assert values["proxy"]["chp"]["networkPolicy"] == {"enabled": False}
    assert values["singleuser"]["networkPolicy"] == {"enabled": False}
    for profile in values["singleuser"]["profileList"]:
        mounts = profile["kubespawner_override"]["volume_mounts"]
        assert mounts["fsx-workspace"]["subPath"] == "{pod_name}"
    statements = _statements(prod, "ClusterTrainingjupyterhubRole")
    objects = [json.dumps(s["Resource"]) for s in statements if "s3:PutObject" in _actions(s)]
    assert objects and all("/jupyterhub/${aws:PrincipalTag/kubernetes-pod-name}/*" in r for r in objects)
    listing = [s for s in statements if "s3:ListBucket" in _actions(s) and "Checkpoint" in json.dumps(s["Resource"])]
    assert listing[0]["Condition"]["StringLike"]["s3:prefix"] == [
        "jupyterhub/${aws:PrincipalTag/kubernetes-pod-name}/*", "jupyterhub/${aws:PrincipalTag/kubernetes-pod-name}/"]


def test_a_changeable_username_claim_is_refused() -> None:
    from eks_training.workloads.jupyterhub import OidcSignIn

    with pytest.raises(ValueError, match=r"^sign-in username_claim='email' is not allowed: one of sub, cognito:username"):
        OidcSignIn(authorize_url="https://id.example.com/a", token_url="https://id.example.com/t",
                   userdata_url="https://id.example.com/u", client_id="c", client_secret_name="s",
                   allowed_users=("alice",), username_claim="email")


# --- 8. the low findings ------------------------------------------------------------------------------------------

def test_pod_identity_roles_trust_this_cluster_only(env) -> None:
    roles = {lid: r for lid, r in env.resources("AWS::IAM::Role").items()
             if "pods.eks.amazonaws.com" in json.dumps(r["Properties"]["AssumeRolePolicyDocument"])}
    assert len(roles) >= 5
    for lid, role in roles.items():
        (statement,) = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
        condition = statement["Condition"]["StringEquals"]
        assert "Cluster" in json.dumps(condition["aws:RequestTag/eks-cluster-arn"]), lid
        if lid.startswith(("ClusterTraining", "ClusterVpcCni", "ClusterEbsCsi", "ClusterFsxCsi", "KarpenterController")):
            assert "aws:RequestTag/kubernetes-namespace" in condition and \
                "aws:RequestTag/kubernetes-service-account" in condition, lid


def test_training_roles_use_the_key_through_s3_only_and_list_no_uploads(prod) -> None:
    for lid in [lid for lid in prod.resources("AWS::IAM::Role") if lid.startswith("ClusterTraining")]:
        statements = _statements(prod, lid)
        kms = [s for s in statements if any(a.startswith("kms:") for a in _actions(s))]
        assert kms and all(s["Condition"] == {"StringEquals": {"kms:ViaService": "s3.us-west-2.amazonaws.com"}}
                           for s in kms), lid
        assert not any("s3:ListBucketMultipartUploads" in _actions(s) for s in statements), lid


def _cel(expression: str, service: dict, namespace: str = "training") -> bool:
    import celpy

    environment = celpy.Environment()
    program = environment.program(environment.compile(expression))
    return bool(program.evaluate({"object": celpy.json_to_cel(service),
                                  "request": celpy.json_to_cel({"namespace": namespace})}))


def test_workload_namespaces_refuse_load_balancers_and_node_ports(prod) -> None:
    from support.k8s_schemas import validate_k8s_objects
    from eks_training.workloads.service_exposure import VALIDATIONS, ExposedService, exposure_expression

    (policy,) = _objects(prod, "ValidatingAdmissionPolicy")
    (binding,) = _objects(prod, "ValidatingAdmissionPolicyBinding")
    validate_k8s_objects([policy, binding])
    rules = policy["spec"]["validations"]
    # prod's two internal load balancers are the only exceptions (tests/test_tenancy.py runs them).
    exposed = [ExposedService("jupyterhub", "proxy-public", ("10.8.0.0/16",)),
               ExposedService("slurm", "prod-slurm-login", ("10.8.0.0/16",))]
    assert [r["expression"] for r in rules] == [exposure_expression(exposed), *(e for e, _ in VALIDATIONS[1:])]
    assert policy["spec"]["failurePolicy"] == "Fail"
    assert binding["spec"]["validationActions"] == ["Deny"] and binding["spec"]["policyName"] == policy["metadata"]["name"]
    (selector,) = binding["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"]
    workload = [n.name for n in prod.config.training_namespaces] + ["slurm", "jupyterhub"]
    assert selector == {"key": "kubernetes.io/metadata.name", "operator": "In", "values": workload}
    # The CEL rules themselves, run by a CEL interpreter on the Services they must refuse and let through.
    def admitted(service):
        return all(_cel(r["expression"], service) for r in rules)

    for kind, allowed in (("LoadBalancer", False), ("NodePort", False), ("ClusterIP", True), ("ExternalName", False)):
        assert admitted({"spec": {"type": kind, "ports": [{"port": 8265}]}}) is allowed, kind
    assert admitted({"spec": {"ports": [{"port": 80}]}}) is True
    assert admitted({"spec": {"type": "ClusterIP", "externalIPs": ["198.51.100.7"], "ports": [{"port": 80}]}}) is False


def test_system_nodes_pin_imdsv2_with_hop_limit_one(env) -> None:
    (group,) = [g for g in env.resources("AWS::EKS::Nodegroup").values() if g["Properties"]["Labels"].get(
        "eks-training/role") == "system"]
    template_id = group["Properties"]["LaunchTemplate"]["Id"]["Ref"]
    data = env.template["Resources"][template_id]["Properties"]["LaunchTemplateData"]
    assert data["MetadataOptions"] == {"HttpEndpoint": "enabled", "HttpPutResponseHopLimit": 1, "HttpTokens": "required"}
    assert data["BlockDeviceMappings"][0]["Ebs"]["Encrypted"] is True and "DiskSize" not in group["Properties"]


def test_storage_and_endpoint_groups_send_nothing_but_what_they_serve(env) -> None:
    groups = env.resources("AWS::EC2::SecurityGroup")
    for lid, group in groups.items():
        for rule in group["Properties"].get("SecurityGroupEgress") or []:
            everything = rule.get("CidrIp") == "0.0.0.0/0" and str(rule.get("IpProtocol")) == "-1"
            assert not everything, f"{lid} allows all egress"
        if lid.startswith(("Models", "Network")) and "Endpoint" in lid or lid.startswith("ModelsSecurityGroup"):
            assert group["Properties"]["SecurityGroupEgress"][0]["Description"] == "Disallow all traffic", lid


def test_public_subnets_map_no_public_ips_and_flow_logs_record_everything(env) -> None:
    public = [s for lid, s in env.resources("AWS::EC2::Subnet").items() if "public" in lid]
    assert public and all(s["Properties"]["MapPublicIpOnLaunch"] is False for s in public)
    (flow_log,) = env.resources("AWS::EC2::FlowLog").values()
    assert flow_log["Properties"]["TrafficType"] == "ALL"


def test_the_control_plane_log_group_has_a_retention_and_a_key(env) -> None:
    (group,) = [g for g in env.resources("AWS::Logs::LogGroup").values()
                if g["Properties"].get("LogGroupName") == f"/aws/eks/eks-training-{env.config.name}/cluster"]
    # The audit trail's own setting (a year by default), not the observability logs'.
    assert group["Properties"]["RetentionInDays"] == env.config.cluster.audit_log_retention_days == 365
    assert "ControlPlaneLogKey" in json.dumps(group["Properties"]["KmsKeyId"])


def test_every_alarm_notifies_someone(env) -> None:
    alarms = env.resources("AWS::CloudWatch::Alarm")
    assert alarms and all(a["Properties"].get("AlarmActions") for a in alarms.values())
    (topic,) = env.resources("AWS::SNS::Topic").values()
    assert "KmsMasterKeyId" in topic["Properties"]


def test_prod_file_systems_are_backed_up_and_efs_requires_tls(prod) -> None:
    (lustre,) = prod.resources("AWS::FSx::FileSystem").values()
    assert lustre["Properties"]["LustreConfiguration"]["AutomaticBackupRetentionDays"] >= 1
    (efs,) = prod.resources("AWS::EFS::FileSystem").values()
    assert efs["Properties"]["BackupPolicy"] == {"Status": "ENABLED"}
    statements = efs["Properties"]["FileSystemPolicy"]["Statement"]
    assert {"Effect": "Deny", "Principal": {"AWS": "*"}, "Action": "*",
            "Condition": {"Bool": {"aws:SecureTransport": "false"}}, "Sid": "DenyUnencryptedTransport"} in statements


def test_the_deploying_identity_is_no_cluster_admin(env) -> None:
    (cluster,) = env.resources("AWS::EKS::Cluster").values()
    assert cluster["Properties"]["AccessConfig"]["BootstrapClusterCreatorAdminPermissions"] is False
