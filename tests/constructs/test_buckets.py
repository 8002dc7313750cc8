"""TrainingBuckets: encryption, versioning, TLS-only, lifecycle, retention, names and the training grant."""

from __future__ import annotations

import json

import aws_cdk as cdk
import pytest
from aws_cdk import assertions
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from cfnlint.api import ManualArgs, lint

from eks_training.constructs.buckets import TrainingBuckets

ENV = cdk.Environment(account="111111111111", region="us-west-2")


def cfn_lint_errors(template: dict) -> list[str]:
    """cfn-lint errors (rule ids starting with E) for a synthesized template."""
    matches = lint(json.dumps(template), config=ManualArgs(regions=[ENV.region]))
    return [f"{m.rule.id} {m.message}" for m in matches if m.rule.id.startswith("E")]


@pytest.fixture(scope="module")
def synthesized() -> dict:
    """One synth for the module: a retained pair with explicit names, a destroyable pair, and a granted role."""
    app = cdk.App()
    stack = cdk.Stack(app, "Buckets", env=ENV)
    retained = TrainingBuckets(
        stack,
        "Prod",
        data_bucket_name="acme-training-data",
        checkpoint_bucket_name="acme-training-checkpoints",
        noncurrent_checkpoint_expiry_days=14,
    )
    TrainingBuckets(stack, "Dev", retain=False, allow_fsx_data_repositories=False)
    role = iam.Role(stack, "TrainerRole", assumed_by=iam.ServicePrincipal("pods.eks.amazonaws.com"))
    retained.grant_training_access(role)
    template = assertions.Template.from_stack(stack)
    return {"template": template, "json": template.to_json(), "stack": stack, "retained": retained}


def _resources(template_json: dict, type_name: str) -> dict[str, dict]:
    return {k: v for k, v in template_json["Resources"].items() if v["Type"] == type_name}


def _bucket_named(template_json: dict, name: str) -> dict:
    (bucket,) = [b for b in _resources(template_json, "AWS::S3::Bucket").values() if b["Properties"].get("BucketName") == name]
    return bucket


def test_template_has_no_cfn_lint_errors(synthesized) -> None:
    assert cfn_lint_errors(synthesized["json"]) == []


def test_both_buckets_use_one_rotating_kms_key(synthesized) -> None:
    template = synthesized["json"]
    keys = _resources(template, "AWS::KMS::Key")
    assert len(keys) == 2  # one per TrainingBuckets instance
    assert all(k["Properties"]["EnableKeyRotation"] is True for k in keys.values())
    prod_key = next(k for k in keys if k.startswith("ProdKey"))
    for name in ("acme-training-data", "acme-training-checkpoints"):
        (rule,) = _bucket_named(template, name)["Properties"]["BucketEncryption"]["ServerSideEncryptionConfiguration"]
        assert rule["ServerSideEncryptionByDefault"]["SSEAlgorithm"] == "aws:kms"
        assert rule["ServerSideEncryptionByDefault"]["KMSMasterKeyID"] == {"Fn::GetAtt": [prod_key, "Arn"]}
        assert rule["BucketKeyEnabled"] is True


def test_buckets_are_versioned_and_block_all_public_access(synthesized) -> None:
    buckets = _resources(synthesized["json"], "AWS::S3::Bucket")
    assert len(buckets) == 6  # two TrainingBuckets: data, checkpoints and access logs each
    for bucket in buckets.values():
        props = bucket["Properties"]
        assert props["VersioningConfiguration"] == {"Status": "Enabled"}
        assert props["PublicAccessBlockConfiguration"] == {
            "BlockPublicAcls": True,
            "BlockPublicPolicy": True,
            "IgnorePublicAcls": True,
            "RestrictPublicBuckets": True,
        }


def test_every_bucket_policy_denies_requests_without_tls(synthesized) -> None:
    policies = _resources(synthesized["json"], "AWS::S3::BucketPolicy")
    assert len(policies) == 6
    for policy in policies.values():
        denies = [s for s in policy["Properties"]["PolicyDocument"]["Statement"] if s["Effect"] == "Deny"]
        conditions = [s["Condition"] for s in denies]
        assert {"Bool": {"aws:SecureTransport": "false"}} in conditions
        assert {"NumericLessThan": {"s3:TlsVersion": 1.2}} in conditions


def test_checkpoint_lifecycle_expires_noncurrent_versions_and_aborts_uploads(synthesized) -> None:
    template = synthesized["json"]
    checkpoint_rules = _bucket_named(template, "acme-training-checkpoints")["Properties"]["LifecycleConfiguration"]["Rules"]
    assert {"Id": "expire-noncurrent-checkpoints", "NoncurrentVersionExpiration": {"NoncurrentDays": 14},
            "ExpiredObjectDeleteMarker": True, "Status": "Enabled"} in checkpoint_rules
    data_rules = _bucket_named(template, "acme-training-data")["Properties"]["LifecycleConfiguration"]["Rules"]
    for rules in (checkpoint_rules, data_rules):
        assert {"Id": "abort-incomplete-multipart-uploads", "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 7},
                "Status": "Enabled"} in rules
    assert not any("NoncurrentVersionExpiration" in rule for rule in data_rules)


def test_retention_follows_retain_flag_and_deleted_buckets_are_emptied_first(synthesized) -> None:
    template = synthesized["json"]
    for logical_id, resource in template["Resources"].items():
        if resource["Type"] in ("AWS::S3::Bucket", "AWS::KMS::Key"):
            expected = "Retain" if logical_id.startswith("Prod") else "Delete"
            assert resource["DeletionPolicy"] == expected, logical_id
    # CloudFormation deletes only empty buckets: each bucket the stack deletes (and only those) is emptied first.
    emptied = {r["Properties"]["BucketName"]["Ref"] for r in _resources(template, "Custom::S3AutoDeleteObjects").values()}
    deleted = {lid for lid, r in _resources(template, "AWS::S3::Bucket").items() if r["DeletionPolicy"] == "Delete"}
    assert emptied == deleted and len(deleted) == 3


def test_training_grant_names_only_the_two_buckets_and_the_key(synthesized) -> None:
    template, retained = synthesized["json"], synthesized["retained"]
    stack = synthesized["stack"]
    resolve = stack.resolve
    allowed = {
        json.dumps(resolve(arn), sort_keys=True)
        for arn in (
            retained.data_bucket.bucket_arn,
            retained.data_bucket.arn_for_objects("*"),
            retained.checkpoint_bucket.bucket_arn,
            retained.checkpoint_bucket.arn_for_objects("*"),
            retained.key.key_arn,
        )
    }
    (policy,) = _resources(template, "AWS::IAM::Policy").values()
    statements = policy["Properties"]["PolicyDocument"]["Statement"]
    seen_resources = set()
    for statement in statements:
        assert statement["Effect"] == "Allow"
        actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
        assert all("*" not in action for action in actions), actions
        resources = statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
        for resource in resources:
            assert resource != "*"
            seen_resources.add(json.dumps(resource, sort_keys=True))
    assert seen_resources == allowed


def test_training_grant_reads_data_and_writes_only_checkpoints(synthesized) -> None:
    template, stack, retained = synthesized["json"], synthesized["stack"], synthesized["retained"]
    (policy,) = _resources(template, "AWS::IAM::Policy").values()
    actions_by_resource: dict[str, set[str]] = {}
    for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
        actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
        resources = statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
        for resource in resources:
            actions_by_resource.setdefault(json.dumps(resource, sort_keys=True), set()).update(actions)

    def actions_on(token: str) -> set[str]:
        return actions_by_resource[json.dumps(stack.resolve(token), sort_keys=True)]

    data_objects = actions_on(retained.data_bucket.arn_for_objects("*"))
    checkpoint_objects = actions_on(retained.checkpoint_bucket.arn_for_objects("*"))
    assert "s3:GetObject" in data_objects and not any(a.startswith(("s3:Put", "s3:Delete")) for a in data_objects)
    assert {"s3:GetObject", "s3:PutObject", "s3:DeleteObject"} <= checkpoint_objects
    assert actions_on(retained.key.key_arn) == {"kms:Decrypt", "kms:GenerateDataKey"}


BUCKET_RULE = "use an S3 bucket name: 3-63 characters of lowercase letters, digits, '.' and '-'"


@pytest.mark.parametrize(
    ("props", "field", "value", "allowed"),
    [
        ({"data_bucket_name": "Training_Data"}, "data_bucket_name", "Training_Data", BUCKET_RULE),
        ({"checkpoint_bucket_name": "ab"}, "checkpoint_bucket_name", "ab", BUCKET_RULE),
        ({"data_bucket_name": "192.168.5.4"}, "data_bucket_name", "192.168.5.4", "not an IP address"),
        ({"data_bucket_name": "my..bucket"}, "data_bucket_name", "my..bucket", "no '..'"),
        ({"data_bucket_name": "xn--bucket"}, "data_bucket_name", "xn--bucket", "no reserved prefix (xn--"),
        ({"checkpoint_bucket_name": "data-s3alias"}, "checkpoint_bucket_name", "data-s3alias", "suffix (-s3alias"),
        ({"data_bucket_name": "same-name", "checkpoint_bucket_name": "same-name"}, "checkpoint_bucket_name", "same-name",
         "a name other than data_bucket_name"),
        ({"noncurrent_checkpoint_expiry_days": 0}, "noncurrent_checkpoint_expiry_days", 0, "use a whole number of days >= 1"),
        ({"abort_incomplete_upload_days": 2.5}, "abort_incomplete_upload_days", 2.5, "use a whole number of days >= 1"),
        ({"retain": "yes"}, "retain", "yes", "use True (keep on stack deletion) or False"),
    ],
)
def test_bad_props_raise_one_line_errors(props: dict, field: str, value: object, allowed: str) -> None:
    stack = cdk.Stack(cdk.App(), "Bad", env=ENV)
    with pytest.raises(ValueError) as caught:
        TrainingBuckets(stack, "Buckets", **props)
    head = f"{field}={value!r} is not allowed: "
    assert str(caught.value).startswith(head) and allowed in str(caught.value)[len(head):]
    assert "\n" not in str(caught.value)


def test_valid_names_with_dots_and_tokens_are_accepted() -> None:
    stack = cdk.Stack(cdk.App(), "Names", env=ENV)
    TrainingBuckets(stack, "Dotted", data_bucket_name="acme.training.data", checkpoint_bucket_name="a1b")
    token_name = cdk.Fn.join("-", ["acme", cdk.Aws.ACCOUNT_ID, "data"])
    TrainingBuckets(stack, "Token", data_bucket_name=token_name)


def _key_statements(template_json: dict, prefix: str) -> list[dict]:
    (key,) = [v for k, v in _resources(template_json, "AWS::KMS::Key").items() if k.startswith(prefix)]
    return key["Properties"]["KeyPolicy"]["Statement"]


def test_key_lets_only_fsx_service_linked_roles_of_the_account_in_through_s3(synthesized) -> None:
    (statement,) = [s for s in _key_statements(synthesized["json"], "Prod") if s.get("Sid", "").startswith("AllowFsx")]
    assert statement["Principal"] == {"AWS": "*"}
    assert statement["Condition"]["StringEquals"] == {
        "aws:PrincipalAccount": "111111111111",
        "kms:ViaService": "s3.us-west-2.amazonaws.com",
    }
    principal_arn = synthesized["stack"].resolve(statement["Condition"]["ArnLike"]["aws:PrincipalArn"])
    rendered = json.dumps(principal_arn)
    assert ":iam::111111111111:role/aws-service-role/s3.data-source.lustre.fsx.amazonaws.com/" in rendered
    assert rendered.endswith('AWSServiceRoleForFSxS3Access_*"]]}')
    assert not any(s.get("Sid", "").startswith("AllowFsx") for s in _key_statements(synthesized["json"], "Dev"))


def test_fsx_access_with_an_imported_key_is_refused() -> None:
    stack = cdk.Stack(cdk.App(), "Imported", env=ENV)
    imported = kms.Key.from_key_arn(stack, "Key", "arn:aws:kms:us-west-2:111111111111:key/1234abcd-12ab-34cd-56ef-1234567890ab")
    with pytest.raises(ValueError, match=r"^allow_fsx_data_repositories=True is not allowed: False with the imported key "
                                         r"'Imported/Key' \(its policy cannot be changed here\)"):
        TrainingBuckets(stack, "Buckets", key=imported)
    TrainingBuckets(stack, "Allowed", key=imported, allow_fsx_data_repositories=False)


def test_a_vpc_only_pair_lets_through_its_emptying_handler_and_refuses_admins_without_a_vpc() -> None:
    from aws_cdk import aws_ec2 as ec2

    app = cdk.App()
    stack = cdk.Stack(app, "VpcOnly", env=ENV)
    vpc = ec2.Vpc(stack, "Vpc", max_azs=2, nat_gateways=0, subnet_configuration=[
        ec2.SubnetConfiguration(name="private", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)])
    TrainingBuckets(stack, "Buckets", retain=False, vpc_only=vpc,
                    unrestricted_principal_arns=["arn:aws:iam::111111111111:role/data-team"])
    template = app.synth().get_stack_by_name("VpcOnly").template
    rules = [s for r in template["Resources"].values() if r["Type"] == "AWS::S3::BucketPolicy"
             for s in r["Properties"]["PolicyDocument"]["Statement"] if s.get("Sid") == "OnlyThroughThisVpc"]
    assert len(rules) == 2
    exempt = json.dumps(rules[0]["Condition"]["ArnNotLike"]["aws:PrincipalArn"])
    # The stack's bucket-emptying Lambda runs outside the VPC when the stack is deleted: it must still empty them.
    assert "CustomS3AutoDeleteObjectsCustomResourceProviderRole" in exempt and "role/data-team" in exempt
    assert rules[0]["Condition"]["StringNotEquals"]["aws:SourceVpc"] == {"Ref": stack.get_logical_id(vpc.node.default_child)}
    with pytest.raises(ValueError, match=r"unrestricted_principal_arns=\['arn:aws:iam::111111111111:role/x'\] is not "
                                         r"allowed: none without vpc_only"):
        TrainingBuckets(cdk.Stack(cdk.App(), "NoVpc"), "B", unrestricted_principal_arns=["arn:aws:iam::111111111111:role/x"])
    with pytest.raises(ValueError, match=r"unrestricted_principal_arns\[0\]='me' is not allowed: an IAM role ARN"):
        TrainingBuckets(cdk.Stack(cdk.App(), "Bad"), "B", vpc_only=ec2.Vpc(cdk.Stack(cdk.App(), "V"), "V"),
                        unrestricted_principal_arns=["me"])
