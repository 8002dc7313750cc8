"""EksTrainingChecks: every rule fires on a resource that breaks it and stays quiet on the shipped environments."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import aws_cdk as cdk
import pytest
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_efs as efs
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_fsx as fsx
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3

from eks_training.infra.nag_pack import CONTROL_PLANE_LOG_TYPES, PACK_NAME, EksTrainingChecks

KEY = "arn:aws:kms:us-west-2:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"
ALL_LOGS = {"clusterLogging": {"enabledTypes": [{"type": t} for t in CONTROL_PLANE_LOG_TYPES]}}
PRIVATE_VPC = {"subnetIds": ["subnet-1", "subnet-2"], "endpointPublicAccess": False, "endpointPrivateAccess": True}
SECRETS = [{"provider": {"keyArn": KEY}, "resources": ["secrets"]}]


def _cluster(stack: cdk.Stack, id: str, *, logging=ALL_LOGS, encryption=SECRETS, vpc=PRIVATE_VPC, env="prod") -> None:
    eks.CfnCluster(stack, id, role_arn="arn:aws:iam::111122223333:role/eks", resources_vpc_config=vpc,
                   logging=logging, encryption_config=encryption, tags=[cdk.CfnTag(key="eks-training/environment", value=env)])


def _launch_template(stack: cdk.Stack, id: str, *, tokens="required", encrypted=True) -> None:
    ec2.CfnLaunchTemplate(stack, id, launch_template_data={
        "metadataOptions": {"httpTokens": tokens, "httpEndpoint": "enabled"},
        "blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {"volumeSize": 100, "encrypted": encrypted}}]})


def _lustre(stack: cdk.Stack, id: str, deployment: str, kms: str | None) -> None:
    fsx.CfnFileSystem(stack, id, file_system_type="LUSTRE", subnet_ids=["subnet-1"], storage_capacity=1200,
                      kms_key_id=kms, lustre_configuration={"deploymentType": deployment})


def _pod_role(stack: cdk.Stack, id: str, *actions: str, trust: str = "pods.eks.amazonaws.com") -> iam.Role:
    role = iam.Role(stack, id, assumed_by=iam.ServicePrincipal(trust))
    role.add_to_policy(iam.PolicyStatement(actions=list(actions), resources=["*"]))
    return role


def _bucket(stack: cdk.Stack, id: str, *, kms: bool, tls: bool) -> None:
    s3.Bucket(stack, id, encryption=s3.BucketEncryption.KMS if kms else s3.BucketEncryption.S3_MANAGED,
              enforce_ssl=tls, block_public_access=s3.BlockPublicAccess.BLOCK_ALL)


def build_fixture_stacks(app: cdk.App) -> None:
    """A stack of compliant resources and one with a resource that breaks each rule (logical ids say which)."""
    good = cdk.Stack(app, "Good")
    _cluster(good, "PrivateCluster")
    _cluster(good, "DevPublicCluster", vpc={"subnetIds": ["subnet-1"], "endpointPublicAccess": True}, env="dev")
    _cluster(good, "ProdPublicNarrow", vpc={"subnetIds": ["subnet-1"], "endpointPublicAccess": True,
                                            "publicAccessCidrs": ["203.0.113.0/24"]})
    _launch_template(good, "GoodTemplate")
    _lustre(good, "Persistent2WithKey", "PERSISTENT_2", KEY)
    _lustre(good, "ScratchNoKey", "SCRATCH_2", None)
    efs.CfnFileSystem(good, "EfsWithKey", encrypted=True, kms_key_id=KEY)
    _pod_role(good, "ScopedPodRole", "s3:GetObject", "s3:ListBucket")
    _pod_role(good, "LambdaRoleWithWildcard", "s3:*", trust="lambda.amazonaws.com")
    _bucket(good, "GoodBucket", kms=True, tls=True)
    access_logs = s3.Bucket(good, "AccessLogTarget", encryption=s3.BucketEncryption.S3_MANAGED, enforce_ssl=True)
    s3.Bucket(good, "LoggedBucket", encryption=s3.BucketEncryption.KMS, enforce_ssl=True,
              server_access_logs_bucket=access_logs)

    bad = cdk.Stack(app, "Bad")
    _cluster(bad, "NoAuditLogs", logging={"clusterLogging": {"enabledTypes": [{"type": "api"}]}})
    _cluster(bad, "NoLogging", logging=None)
    _cluster(bad, "NoSecretsEncryption", encryption=None)
    _cluster(bad, "ProdPublicDefaultCidrs", vpc={"subnetIds": ["subnet-1"]})
    _cluster(bad, "ProdPublicOpen", vpc={"subnetIds": ["subnet-1"], "endpointPublicAccess": True,
                                          "publicAccessCidrs": ["0.0.0.0/0"]})
    _launch_template(bad, "ImdsOptional", tokens="optional")
    _launch_template(bad, "UnencryptedRoot", encrypted=False)
    _lustre(bad, "Persistent2NoKey", "PERSISTENT_2", None)
    efs.CfnFileSystem(bad, "EfsUnencrypted", encrypted=False)
    efs.CfnFileSystem(bad, "EfsNoKey", encrypted=True)
    _pod_role(bad, "PodRoleS3Star", "s3:GetObject", "s3:*")
    _pod_role(bad, "PodRoleStar", "*")
    irsa = iam.Role(bad, "IrsaRoleInline", assumed_by=iam.WebIdentityPrincipal("arn:aws:iam::111122223333:oidc-provider/x"),
                    inline_policies={"p": iam.PolicyDocument(statements=[iam.PolicyStatement(actions=["ec2:*"], resources=["*"])])})
    _bucket(bad, "S3ManagedBucket", kms=False, tls=True)
    _bucket(bad, "NoTlsBucket", kms=True, tls=False)


#: Rule id -> the resources of the Bad stack that break it (nothing in the Good stack may).
EXPECTED = {
    "EksTraining-EKS1": {"NoAuditLogs", "NoLogging"},
    "EksTraining-EKS2": {"NoSecretsEncryption"},
    "EksTraining-EKS3": {"ProdPublicDefaultCidrs", "ProdPublicOpen"},
    "EksTraining-EC2IMDS": {"ImdsOptional"},
    "EksTraining-EC2EBS": {"UnencryptedRoot"},
    "EksTraining-FSX1": {"Persistent2NoKey"},
    "EksTraining-EFS1": {"EfsUnencrypted", "EfsNoKey"},
    "EksTraining-IAM1": {"PodRoleS3Star", "PodRoleStar", "IrsaRoleInline"},
    "EksTraining-S3KMS": {"S3ManagedBucket"},
    "EksTraining-S3TLS": {"NoTlsBucket"},
}


@pytest.fixture(scope="module")
def fixture_report(tmp_path_factory: pytest.TempPathFactory) -> dict:
    outdir = tmp_path_factory.mktemp("nag-fixtures")
    app = cdk.App(outdir=str(outdir))
    build_fixture_stacks(app)
    cdk.Validations.of(app).add_plugins(EksTrainingChecks(app))
    with pytest.raises(RuntimeError):  # CDK fails synthesis when a plugin reports violations
        app.synth()
    return json.loads((outdir / "validation-report.json").read_text())


def _violations_by_rule(report: dict) -> dict[str, dict[str, set[str]]]:
    """Rule id -> stack name -> ids of the offending constructs (the top-level construct in that stack)."""
    found: dict[str, dict[str, set[str]]] = {}
    for plugin in report["pluginReports"]:
        if plugin["pluginName"] != PACK_NAME:
            continue
        for violation in plugin["violations"]:
            for construct in violation["violatingConstructs"]:
                stack, name = construct["constructPath"].split("/")[:2]
                found.setdefault(violation["ruleName"], {}).setdefault(stack, set()).add(name)
    return found


@pytest.mark.parametrize("rule_id", sorted(EXPECTED))
def test_rule_fires_on_the_resources_that_break_it(fixture_report: dict, rule_id: str) -> None:
    found = _violations_by_rule(fixture_report).get(rule_id, {})
    assert "Good" not in found, f"{rule_id} fired on compliant resources: {found.get('Good')}"
    assert found.get("Bad") == EXPECTED[rule_id]


def test_pack_lists_every_rule_it_reports() -> None:
    assert sorted(EksTrainingChecks().rule_ids) == sorted(EXPECTED)


def test_report_names_property_location(fixture_report: dict) -> None:
    locations = {tuple(c["cloudFormationResource"]["propertyPaths"]) for p in fixture_report["pluginReports"]
                 if p["pluginName"] == PACK_NAME for v in p["violations"] if v["ruleName"] == "EksTraining-EC2IMDS"
                 for c in v["violatingConstructs"]}
    assert locations == {("Properties/LaunchTemplateData/MetadataOptions/HttpTokens",)}


def test_production_environments_are_configurable(tmp_path: Path) -> None:
    template = {"Resources": {"C": {"Type": "AWS::EKS::Cluster", "Properties": {
        **{"Logging": {"ClusterLogging": {"EnabledTypes": [{"Type": t} for t in CONTROL_PLANE_LOG_TYPES]}}},
        "EncryptionConfig": [{"Provider": {"KeyArn": KEY}, "Resources": ["secrets"]}],
        "ResourcesVpcConfig": {"SubnetIds": ["s"]}, "Tags": [{"Key": "eks-training/environment", "Value": "staging"}]}}}}
    path = tmp_path / "t.template.json"
    path.write_text(json.dumps(template))
    assert _validate(EksTrainingChecks(), [path]) == []
    assert _validate(EksTrainingChecks(production_environments=("staging",)), [path]) == [("EksTraining-EKS3", "C")]


@dataclass
class _Context:
    """What validate() reads of CDK's validation context."""

    template_paths: list[str]


def _validate(pack: EksTrainingChecks, paths: list[Path]) -> list[tuple[str, str]]:
    report = pack.validate(_Context([str(p) for p in paths]))
    return [(v.rule_name, r.resource_logical_id) for v in report.violations for r in v.violating_resources]


def test_shipped_environment_passes_the_pack(env) -> None:
    templates = sorted(env.outdir.glob("*.template.json"))
    assert templates, f"no templates synthesized for {env.config.name}: {env.error}"
    assert _validate(EksTrainingChecks(env.outdir), templates) == []
    # Once build_app registers the pack, the synthesized report must agree.
    assert env.violations(PACK_NAME) == []
