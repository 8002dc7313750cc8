"""LustreStorage and ModelStore: synthesized properties, security group rules, cfn-lint, and bad props."""

from __future__ import annotations

import json

import aws_cdk as cdk
import pytest
from aws_cdk import assertions
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from cfnlint.api import ManualArgs, lint

from eks_training.constructs.buckets import TrainingBuckets
from eks_training.constructs.storage import (
    DataRepositoryAssociation,
    LustreStorage,
    ModelAccessPoint,
    ModelStore,
)

ENV = cdk.Environment(account="111111111111", region="us-west-2")
Match = assertions.Match


def cfn_lint_errors(template: dict) -> list[str]:
    """cfn-lint errors (rule ids starting with E) for a synthesized template."""
    matches = lint(json.dumps(template), config=ManualArgs(regions=[ENV.region]))
    return [f"{m.rule.id} {m.message}" for m in matches if m.rule.id.startswith("E")]


def _network(stack: cdk.Stack) -> ec2.Vpc:
    return ec2.Vpc(
        stack,
        "Vpc",
        max_azs=2,
        nat_gateways=0,
        subnet_configuration=[ec2.SubnetConfiguration(name="private", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)],
    )


@pytest.fixture(scope="module")
def synthesized() -> dict:
    """One synth: default PERSISTENT_2 with buckets and peers, a user-provisioned one, a scratch one, a model store."""
    app = cdk.App()
    stack = cdk.Stack(app, "Storage", env=ENV)
    vpc = _network(stack)
    cluster_sg = ec2.SecurityGroup(stack, "ClusterSg", vpc=vpc)
    efa_sg = ec2.SecurityGroup(stack, "EfaSg", vpc=vpc, allow_all_outbound=False)
    buckets = TrainingBuckets(stack, "Buckets", retain=False)
    subnet = vpc.isolated_subnets[0]
    lustre = LustreStorage(
        stack,
        "Lustre",
        vpc=vpc,
        subnet=subnet,
        peer_security_groups=[cluster_sg, efa_sg],
        capacity_gib=4800,
        data_bucket=buckets.data_bucket,
        checkpoint_bucket=buckets.checkpoint_bucket,
    )
    shared_key = kms.Key(stack, "SharedKey", enable_key_rotation=True)
    provisioned = LustreStorage(
        stack,
        "Provisioned",
        vpc=vpc,
        subnet=subnet,
        per_unit_throughput=1000,
        metadata_iops=24000,
        kms_key=shared_key,
        data_repository_associations=[],
        removal_policy=cdk.RemovalPolicy.DESTROY,
    )
    scratch = LustreStorage(
        stack,
        "Scratch",
        vpc=vpc,
        subnet=subnet,
        deployment_type="SCRATCH_2",
        capacity_gib=2400,
        data_repository_associations=[
            DataRepositoryAssociation(
                "/datasets/imagenet/",
                "public-datasets-example",
                prefix="imagenet",
                auto_import_events=("NEW",),
                auto_export_events=("NEW", "CHANGED", "DELETED"),
            )
        ],
    )
    models = ModelStore(
        stack,
        "Models",
        vpc=vpc,
        subnets=vpc.isolated_subnets,
        peer_security_groups=[cluster_sg],
        access_points=[ModelAccessPoint("llama", "/models/llama", uid=1001, gid=1002, permissions="0750")],
    )
    reader = iam.Role(stack, "Reader", assumed_by=iam.ServicePrincipal("pods.eks.amazonaws.com"))
    models.grant_read(reader)
    template = assertions.Template.from_stack(stack)
    return {
        "template": template,
        "json": template.to_json(),
        "stack": stack,
        "lustre": lustre,
        "provisioned": provisioned,
        "scratch": scratch,
        "models": models,
        "buckets": buckets,
        "cluster_sg": cluster_sg,
        "efa_sg": efa_sg,
        "shared_key": shared_key,
    }


def _resource(synthesized: dict, cfn_resource) -> dict:
    return synthesized["json"]["Resources"][synthesized["stack"].get_logical_id(cfn_resource)]


def _group_id(synthesized: dict, security_group) -> dict:
    return synthesized["stack"].resolve(security_group.security_group_id)


def _ingress_rules(synthesized: dict, security_group) -> set[tuple]:
    """(from port, to port, source group) of every ingress rule on the group, inline or separate resources."""
    target = _group_id(synthesized, security_group)
    rules = set()
    for resource in synthesized["json"]["Resources"].values():
        props = resource.get("Properties", {})
        if resource["Type"] == "AWS::EC2::SecurityGroupIngress" and props["GroupId"] == target:
            rules.add((props["FromPort"], props["ToPort"], json.dumps(props.get("SourceSecurityGroupId"))))
    own = _resource(synthesized, security_group.node.default_child)
    for rule in own["Properties"].get("SecurityGroupIngress", []):
        rules.add((rule["FromPort"], rule["ToPort"], json.dumps(rule.get("SourceSecurityGroupId"))))
    return rules


def test_template_has_no_cfn_lint_errors(synthesized) -> None:
    assert cfn_lint_errors(synthesized["json"]) == []


def test_default_file_system_is_persistent_2_lz4_kms_in_one_subnet(synthesized) -> None:
    lustre, stack = synthesized["lustre"], synthesized["stack"]
    props = _resource(synthesized, lustre.file_system)["Properties"]
    assert props["FileSystemType"] == "LUSTRE"
    assert props["FileSystemTypeVersion"] == "2.15"
    assert props["StorageType"] == "SSD"
    assert props["StorageCapacity"] == 4800
    assert props["SubnetIds"] == [stack.resolve(stack.node.find_child("Vpc").isolated_subnets[0].subnet_id)]
    assert props["KmsKeyId"] == stack.resolve(lustre.key.key_id)
    assert props["LustreConfiguration"] == {
        "DeploymentType": "PERSISTENT_2",
        "PerUnitStorageThroughput": 250,
        "DataCompressionType": "LZ4",
        "MetadataConfiguration": {"Mode": "AUTOMATIC"},
        # Persistent file systems are backed up daily by default (a week kept).
        "AutomaticBackupRetentionDays": 7,
        "CopyTagsToBackups": True,
    }
    key = _resource(synthesized, lustre.key.node.default_child)
    assert key["Properties"]["EnableKeyRotation"] is True
    assert key["DeletionPolicy"] == "Retain"
    assert _resource(synthesized, lustre.file_system)["DeletionPolicy"] == "Retain"


def test_user_provisioned_metadata_and_passed_key(synthesized) -> None:
    provisioned, stack = synthesized["provisioned"], synthesized["stack"]
    resource = _resource(synthesized, provisioned.file_system)
    config = resource["Properties"]["LustreConfiguration"]
    assert config["MetadataConfiguration"] == {"Mode": "USER_PROVISIONED", "Iops": 24000}
    assert config["PerUnitStorageThroughput"] == 1000
    assert resource["Properties"]["KmsKeyId"] == stack.resolve(synthesized["shared_key"].key_id)
    assert provisioned.key is synthesized["shared_key"]
    assert provisioned.associations == []
    assert resource["DeletionPolicy"] == "Delete"


def test_scratch_has_no_key_throughput_or_metadata(synthesized) -> None:
    scratch = synthesized["scratch"]
    props = _resource(synthesized, scratch.file_system)["Properties"]
    assert "KmsKeyId" not in props
    assert props["LustreConfiguration"] == {"DeploymentType": "SCRATCH_2", "DataCompressionType": "LZ4"}
    assert scratch.key is None


def test_default_associations_are_the_platforms_layout(synthesized) -> None:
    lustre, buckets, stack = synthesized["lustre"], synthesized["buckets"], synthesized["stack"]
    by_path = {
        _resource(synthesized, a)["Properties"]["FileSystemPath"]: _resource(synthesized, a)["Properties"]
        for a in lustre.associations
    }
    # Pods mount /data read-only and /workspaces/<namespace> read-write (workloads.fsx_volumes).
    assert set(by_path) == {"/data", "/workspaces"}
    data, checkpoints = by_path["/data"], by_path["/workspaces"]
    file_system_ref = stack.resolve(lustre.file_system_id)
    assert data["FileSystemId"] == checkpoints["FileSystemId"] == file_system_ref
    assert data["DataRepositoryPath"] == {
        "Fn::Join": ["", ["s3://", stack.resolve(buckets.data_bucket.bucket_name), "/"]]
    }
    assert checkpoints["DataRepositoryPath"] == {
        "Fn::Join": ["", ["s3://", stack.resolve(buckets.checkpoint_bucket.bucket_name), "/"]]
    }
    assert data["S3"] == {"AutoImportPolicy": {"Events": ["NEW", "CHANGED", "DELETED"]}}
    assert data["BatchImportMetaDataOnCreate"] is True
    assert checkpoints["S3"]["AutoExportPolicy"] == {"Events": ["NEW", "CHANGED"]}


def test_explicit_association_normalizes_paths_and_carries_events(synthesized) -> None:
    (association,) = synthesized["scratch"].associations
    props = _resource(synthesized, association)["Properties"]
    assert props["FileSystemPath"] == "/datasets/imagenet"
    assert props["DataRepositoryPath"] == "s3://public-datasets-example/imagenet/"
    assert props["S3"] == {
        "AutoImportPolicy": {"Events": ["NEW"]},
        "AutoExportPolicy": {"Events": ["NEW", "CHANGED", "DELETED"]},
    }
    assert props["BatchImportMetaDataOnCreate"] is False


def test_lustre_ports_open_to_peers_and_to_itself(synthesized) -> None:
    lustre = synthesized["lustre"]
    rules = _ingress_rules(synthesized, lustre.security_group)
    sources = {
        json.dumps(_group_id(synthesized, group))
        for group in (lustre.security_group, synthesized["cluster_sg"], synthesized["efa_sg"])
    }
    assert rules == {(988, 988, s) for s in sources} | {(1018, 1023, s) for s in sources}


def test_peer_with_restricted_egress_gets_egress_to_lustre(synthesized) -> None:
    efa_id, lustre_id = (
        _group_id(synthesized, g) for g in (synthesized["efa_sg"], synthesized["lustre"].security_group)
    )
    egress = {
        (r["Properties"]["FromPort"], r["Properties"]["ToPort"])
        for r in synthesized["json"]["Resources"].values()
        if r["Type"] == "AWS::EC2::SecurityGroupEgress"
        and r["Properties"]["GroupId"] == efa_id
        and r["Properties"]["DestinationSecurityGroupId"] == lustre_id
    }
    assert egress == {(988, 988), (1018, 1023)}


def test_exposed_attributes_are_the_file_system_attributes(synthesized) -> None:
    lustre, stack = synthesized["lustre"], synthesized["stack"]
    logical_id = stack.get_logical_id(lustre.file_system)
    assert stack.resolve(lustre.file_system_id) == {"Ref": logical_id}
    assert stack.resolve(lustre.dns_name) == {"Fn::GetAtt": [logical_id, "DNSName"]}
    assert stack.resolve(lustre.mount_name) == {"Fn::GetAtt": [logical_id, "LustreMountName"]}


def test_model_store_is_encrypted_elastic_with_mount_targets_per_subnet(synthesized) -> None:
    models, stack, template = synthesized["models"], synthesized["stack"], synthesized["template"]
    template.has_resource_properties(
        "AWS::EFS::FileSystem",
        {
            "Encrypted": True,
            "KmsKeyId": stack.resolve(models.key.key_arn),
            "ThroughputMode": "elastic",
            "PerformanceMode": "generalPurpose",
        },
    )
    targets = template.find_resources("AWS::EFS::MountTarget")
    subnets = {json.dumps(t["Properties"]["SubnetId"]) for t in targets.values()}
    expected = {json.dumps(stack.resolve(s.subnet_id)) for s in stack.node.find_child("Vpc").isolated_subnets}
    assert subnets == expected
    assert _ingress_rules(synthesized, models.security_group) == {
        (2049, 2049, json.dumps(_group_id(synthesized, synthesized["cluster_sg"])))
    }


def test_model_access_point_has_posix_user_and_creation_info(synthesized) -> None:
    models, stack = synthesized["models"], synthesized["stack"]
    props = _resource(synthesized, models.access_points["llama"].node.default_child)["Properties"]
    assert props["FileSystemId"] == stack.resolve(models.file_system_id)
    assert props["PosixUser"] == {"Uid": "1001", "Gid": "1002"}
    assert props["RootDirectory"] == {
        "Path": "/models/llama",
        "CreationInfo": {"OwnerUid": "1001", "OwnerGid": "1002", "Permissions": "0750"},
    }


def test_model_store_read_grant_allows_mount_only(synthesized) -> None:
    policies = synthesized["template"].find_resources("AWS::IAM::Policy")
    (policy,) = [p for p in policies.values() if "Reader" in json.dumps(p["Properties"]["Roles"])]
    actions = [s["Action"] for s in policy["Properties"]["PolicyDocument"]["Statement"]]
    assert actions == ["elasticfilesystem:ClientMount"]


# --- bad props ------------------------------------------------------------------------------------------------


@pytest.fixture
def fresh() -> tuple[cdk.Stack, ec2.Vpc]:
    stack = cdk.Stack(cdk.App(), "Bad", env=ENV)
    return stack, _network(stack)


def _lustre(fresh, **props) -> LustreStorage:
    stack, vpc = fresh
    return LustreStorage(stack, "Lustre", vpc=vpc, subnet=vpc.isolated_subnets[0], **props)


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"capacity_gib": 1000}, "capacity_gib=1000 is not allowed: use 1200, 2400 or a multiple of 2400"),
        ({"capacity_gib": 3600}, "capacity_gib=3600 is not allowed"),
        ({"capacity_gib": "4800"}, "capacity_gib='4800' is not allowed"),
        ({"per_unit_throughput": 200}, "per_unit_throughput=200 is not allowed: PERSISTENT_2 takes one of [125, 250, 500, 1000]"),
        ({"deployment_type": "PERSISTENT_1", "per_unit_throughput": 250}, "PERSISTENT_1 takes one of [50, 100, 200]"),
        ({"deployment_type": "SCRATCH_2", "per_unit_throughput": 125}, "per_unit_throughput=125 is not allowed: SCRATCH_2 takes none"),
        ({"deployment_type": "SCRATCH_1"}, "deployment_type='SCRATCH_1' is not allowed: use one of"),
        ({"deployment_type": "PERSISTENT_1", "metadata_iops": 3000}, "metadata_iops=3000 is not allowed: only PERSISTENT_2"),
        ({"metadata_iops": 18000}, "metadata_iops=18000 is not allowed: use 1500, 3000, 6000, 12000 or a multiple"),
        ({"metadata_iops": 204000}, "metadata_iops=204000 is not allowed"),
    ],
)
def test_bad_sizes_throughputs_and_types_raise_one_line_errors(fresh, props: dict, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        _lustre(fresh, **props)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_scratch_refuses_a_kms_key(fresh) -> None:
    key = kms.Key(fresh[0], "Key")
    with pytest.raises(ValueError, match=r"^kms_key='Bad/Key' is not allowed: SCRATCH_2 is always encrypted"):
        _lustre(fresh, deployment_type="SCRATCH_2", kms_key=key)


def test_valid_persistent_1_and_enum_deployment_type_are_accepted(fresh) -> None:
    from aws_cdk import aws_fsx as fsx

    lustre = _lustre(fresh, deployment_type=fsx.LustreDeploymentType.PERSISTENT_1, capacity_gib=2400)
    config = fresh[0].resolve(lustre.file_system.lustre_configuration)
    assert config["deploymentType"] == "PERSISTENT_1"
    assert config["perUnitStorageThroughput"] == 200
    assert "metadataConfiguration" not in config


def _association(**overrides) -> DataRepositoryAssociation:
    values = {"file_system_path": "/data", "bucket_name": "training-data"} | overrides
    return DataRepositoryAssociation(**values)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"file_system_path": "data"}, "file_system_path='data' is not allowed: use an absolute path"),
        ({"bucket_name": "Not_A_Bucket"}, "bucket_name='Not_A_Bucket' is not allowed: use an S3 bucket name: 3-63"),
        ({"prefix": "/training"}, "prefix='/training' is not allowed"),
        ({"auto_import_events": ("NEW", "MODIFIED")}, "auto_import_events=['NEW', 'MODIFIED'] is not allowed"),
        ({"auto_export_events": ("NEW", "NEW")}, "auto_export_events=['NEW', 'NEW'] is not allowed: use distinct"),
    ],
)
def test_bad_association_fields_raise_one_line_errors(overrides: dict, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        _association(**overrides)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("associations", "message"),
    [
        (
            [_association(), _association(file_system_path="/data/raw", bucket_name="other-bucket")],
            "data_repository_associations[1] file_system_path='/data/raw' is not allowed: it overlaps '/data'",
        ),
        (
            [_association(prefix="a/"), _association(file_system_path="/more", prefix="a/b/")],
            "data_repository_associations[1] data repository path='s3://training-data/a/b/' is not allowed: it overlaps",
        ),
        (
            [_association(file_system_path="/"), _association(file_system_path="/x", bucket_name="other-bucket")],
            "file_system_path='/x' is not allowed: it overlaps '/'",
        ),
        (
            [_association(file_system_path=f"/d{i}", bucket_name=f"bucket-{i}") for i in range(9)],
            "data_repository_associations='9 items' is not allowed: use at most 8",
        ),
    ],
)
def test_conflicting_associations_are_refused(fresh, associations, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        _lustre(fresh, data_repository_associations=associations)
    assert message in str(caught.value)


def test_sibling_paths_do_not_count_as_overlap(fresh) -> None:
    lustre = _lustre(
        fresh,
        data_repository_associations=[
            _association(prefix="data/"),
            _association(file_system_path="/data2", prefix="data2/"),
        ],
    )
    assert len(lustre.associations) == 2


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": "Llama_3"}, "name='Llama_3' is not allowed: use a DNS label"),
        ({"path": "/"}, "path='/' is not allowed"),
        ({"uid": -1}, "uid=-1 is not allowed: use a whole number from 0 to 4294967295"),
        ({"gid": 2**32}, "gid=4294967296 is not allowed"),
        ({"permissions": "rwx"}, "permissions='rwx' is not allowed: use octal POSIX permissions"),
    ],
)
def test_bad_access_points_raise_one_line_errors(fields: dict, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        ModelAccessPoint(**({"name": "llama", "path": "/models/llama"} | fields))
    assert message in str(caught.value)


def test_model_store_refuses_two_subnets_in_one_zone_and_duplicate_access_points(fresh) -> None:
    stack, vpc = fresh
    first = vpc.isolated_subnets[0]
    with pytest.raises(ValueError, match=r"^subnets=\['dummy1a', 'dummy1a'\] is not allowed: EFS takes one mount"):
        ModelStore(stack, "TwoInOneZone", vpc=vpc, subnets=[first, first])
    with pytest.raises(ValueError, match=r"^subnets=\[\] is not allowed"):
        ModelStore(stack, "NoSubnets", vpc=vpc, subnets=[])
    duplicate = [ModelAccessPoint("llama", "/a"), ModelAccessPoint("llama", "/b")]
    with pytest.raises(ValueError, match=r"^access_points name=\['llama'\] is not allowed: each access point needs"):
        ModelStore(stack, "Duplicate", vpc=vpc, subnets=[first], access_points=duplicate)


def test_buckets_and_explicit_associations_together_are_refused(fresh) -> None:
    buckets = TrainingBuckets(fresh[0], "Buckets")
    with pytest.raises(ValueError, match=r"^data_bucket/checkpoint_bucket=\['Bad/Buckets/DataBucket'\] is not allowed"):
        _lustre(fresh, data_bucket=buckets.data_bucket, data_repository_associations=[])


def test_the_fsx_csi_driver_gets_a_scoped_policy_that_cannot_touch_the_platform_file_system(prod):
    # Not AmazonFSxFullAccess (any file system in the account): what the driver's docs list, scoped, plus a deny.
    roles = prod.resources("AWS::IAM::Role")
    fsx_role = next(lid for lid in roles if lid.startswith("ClusterFsxCsiRole"))
    assert "ManagedPolicyArns" not in roles[fsx_role]["Properties"]
    statements = [s for p in prod.resources("AWS::IAM::Policy").values() if {"Ref": fsx_role} in p["Properties"]["Roles"]
                  for s in p["Properties"]["PolicyDocument"]["Statement"]]
    by_sid = {s["Sid"]: s for s in statements}
    assert set(by_sid) == {"CreateTaggedScratchFileSystems", "ManageOwnScratchFileSystems", "DescribeFileSystems",
                           "FsxServiceLinkedRole", "NeverThePlatformFileSystem"}
    # Issue 23: only file systems with the stack's owner tag (which the scratch StorageClass sets), never any other
    # file system of the account.
    owner = {"aws:RequestTag/eks-training/scratch-of": "eks-training-prod"}
    assert by_sid["CreateTaggedScratchFileSystems"]["Condition"] == {"StringEquals": owner}
    assert by_sid["ManageOwnScratchFileSystems"]["Condition"] == {
        "StringEquals": {"aws:ResourceTag/eks-training/scratch-of": "eks-training-prod"}}
    assert all("Condition" in s for s in statements if s["Effect"] == "Allow"
               and any(a in ("fsx:CreateFileSystem", "fsx:UpdateFileSystem", "fsx:DeleteFileSystem", "fsx:TagResource")
                       for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])))
    (scratch_class,) = [o for _, o in prod.kubernetes_objects() if o.get("kind") == "StorageClass"
                        and o.get("provisioner") == "fsx.csi.aws.com"]
    assert scratch_class["parameters"]["extraTags"] == "eks-training/scratch-of=eks-training-prod"
    deny = by_sid["NeverThePlatformFileSystem"]
    assert deny["Effect"] == "Deny" and set(deny["Action"]) == {"fsx:UpdateFileSystem", "fsx:DeleteFileSystem",
                                                                 "fsx:TagResource", "fsx:UntagResource"}
    assert "Lustre" in json.dumps(deny["Resource"])  # this stack's file system, by reference
    assert by_sid["FsxServiceLinkedRole"]["Condition"] == {"StringLike": {"iam:AWSServiceName": ["fsx.amazonaws.com"]}}
    assert not any(a.startswith(("s3:", "ec2:")) for s in statements for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"]))


@pytest.mark.parametrize(("cidr", "nid"), [
    ("10.0.16.0/20", "10.0.[16-31].[0-255]@tcp"),
    ("10.10.0.0/24", "10.10.0.[0-255]@tcp"),
    ("10.10.1.64/26", "10.10.1.[64-127]@tcp"),
    ("10.10.1.6/32", "10.10.1.6@tcp"),
])
def test_lustre_nid_ranges_of_subnets(cidr, nid) -> None:
    from eks_training.constructs.storage import lustre_nid_range

    assert lustre_nid_range(cidr) == nid


@pytest.mark.parametrize(("props", "message"), [
    ({"root_squash": "0:0"}, r"^root_squash='0:0' is not allowed: 'UID:GID' with both from 1 to 4294967294"),
    ({"root_squash": None, "no_squash_nids": ["10.0.1.6@tcp"]},
     r"^no_squash_nids=\['10.0.1.6@tcp'\] is not allowed: none without root_squash"),
    ({"no_squash_nids": ["10.0.1.0/24"]}, r"^no_squash_nids entry='10.0.1.0/24' is not allowed: a Lustre NID"),
    ({"deployment_type": "SCRATCH_2", "per_unit_throughput": None, "backup_retention_days": 3},
     r"^backup_retention_days=3 is not allowed: 0 or None: FSx cannot back up SCRATCH_2 file systems"),
])
def test_root_squash_and_backup_props_are_checked(props, message) -> None:
    from eks_training.constructs.storage import LustreStorage

    app = cdk.App()
    stack = cdk.Stack(app, "Squash", env=cdk.Environment(region="us-west-2", account="111122223333"))
    vpc = ec2.Vpc(stack, "Vpc", max_azs=1, nat_gateways=0,
                  subnet_configuration=[ec2.SubnetConfiguration(name="i", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)])
    with pytest.raises(ValueError, match=message):
        LustreStorage(stack, "Lustre", vpc=vpc, subnet=vpc.isolated_subnets[0], data_repository_associations=[],
                      **props)
