"""Shared file systems for training: FSx for Lustre (datasets, checkpoints) and EFS (models).

Facts behind the checks (Amazon FSx API reference, CreateFileSystem / CreateFileSystemLustreConfiguration /
CreateFileSystemLustreMetadataConfiguration; FSx for Lustre user guide, "File system access control with
Amazon VPC"):
- SSD storage for SCRATCH_2, PERSISTENT_1 and PERSISTENT_2 is 1200 GiB, 2400 GiB, then steps of 2400 GiB.
- Per-unit throughput (MB/s/TiB): PERSISTENT_1 50/100/200, PERSISTENT_2 125/250/500/1000; SCRATCH takes none.
- A KMS key can be chosen only for persistent file systems; scratch ones always use an FSx-managed key.
- Metadata configuration exists only for PERSISTENT_2 (Lustre 2.15): AUTOMATIC, or USER_PROVISIONED with
  1500, 3000, 6000, 12000 or a multiple of 12000 up to 192000 IOPS.
- Lustre clients reach the servers on TCP 988 and 1018-1023, and the servers talk to each other on the same ports.
- At most 8 data repository associations per file system; their paths may not overlap.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass

import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_efs as efs
from aws_cdk import aws_fsx as fsx
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3
from aws_cdk import custom_resources as cr
from constructs import Construct

from eks_training.constructs.acknowledgements import acknowledge, managed_policy_finding, wildcard_resource_finding
from eks_training.core.fsx import (
    DATA_IMPORT_EVENTS,
    WORKSPACE_EXPORT_EVENTS,
    WORKSPACE_IMPORT_EVENTS,
    check_lustre_settings,
    check_metadata_iops,
    invalid,
    is_whole_number,
)
from eks_training.core.validation import check_bucket_name
from eks_training.core.names import FSX_DATA_DIR, FSX_WORKSPACES_DIR

LUSTRE_VERSION = "2.15"
LUSTRE_PORTS = (ec2.Port.tcp(988), ec2.Port.tcp_range(1018, 1023))
NFS_PORT = ec2.Port.tcp(2049)

_MAX_ASSOCIATIONS = 8
_REPOSITORY_EVENTS = ("NEW", "CHANGED", "DELETED")
_FILE_SYSTEM_PATH = re.compile(r"^/[^\x00-\x1f\x7f]{0,4095}$")
_ACCESS_POINT_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")
_POSIX_PERMISSIONS = re.compile(r"^[0-7]{3,4}$")
_MAX_POSIX_ID = 2**32 - 1








#: Lustre root squash to nobody: what uid 0 of a client becomes on the file system.
ROOT_SQUASH_NOBODY = "65534:65534"
_ROOT_SQUASH = re.compile(r"^(\d+):(\d+)$")
_NID = re.compile(r"^([0-9\[\]\-]*\.){3}([0-9\[\]\-]*)@tcp$")
_MAX_BACKUP_DAYS = 90


def lustre_nid_range(cidr: str) -> str:
    """The Lustre NID range of an IPv4 network, as FSx's NoSquashNids takes it: ``10.0.16.0/20`` ->
    ``10.0.[16-31].[0-255]@tcp`` (octets the prefix fixes, then a range of the partial one, then full ranges)."""
    network = ipaddress.ip_network(cidr, strict=True)
    if network.version != 4:
        raise invalid("cidr", cidr, "use an IPv4 network such as 10.0.16.0/20")
    first, last = network.network_address.packed, network.broadcast_address.packed
    octets = [str(a) if a == b else f"[{a}-{b}]" for a, b in zip(first, last)]
    return ".".join(octets) + "@tcp"


def _root_squash_configuration(root_squash: str | None, nids: Sequence[str]):
    if root_squash is None:
        if nids:
            raise invalid("no_squash_nids", list(nids), "none without root_squash (every client is root then)")
        return None
    match = _ROOT_SQUASH.match(root_squash) if isinstance(root_squash, str) else None
    if match is None or not all(0 < int(n) <= 4294967294 for n in match.groups()):
        raise invalid("root_squash", root_squash, "'UID:GID' with both from 1 to 4294967294, e.g. '65534:65534', or None")
    nids = list(nids)
    if len(nids) > 64:
        raise invalid("no_squash_nids", nids, "at most 64 NIDs (FSx's limit)")
    for nid in nids:
        if not cdk.Token.is_unresolved(nid) and (not isinstance(nid, str) or not _NID.match(nid) or not 11 <= len(nid) <= 43):
            raise invalid("no_squash_nids entry", nid, "a Lustre NID such as 10.0.1.6@tcp or 10.0.[16-31].[0-255]@tcp")
    return {"RootSquash": root_squash, **({"NoSquashNids": nids} if nids else {})}


def _backup_days(deployment_type: str, days: int | None) -> int | None:
    scratch = deployment_type.startswith("SCRATCH")
    if days is None:
        return None if scratch else 7
    if not is_whole_number(days) or not 0 <= days <= _MAX_BACKUP_DAYS:
        raise invalid("backup_retention_days", days, f"a whole number of days from 0 to {_MAX_BACKUP_DAYS}")
    if scratch and days:
        raise invalid("backup_retention_days", days, f"0 or None: FSx cannot back up {deployment_type} file systems")
    return days


def _check_events(field: str, events: Sequence[str]) -> tuple[str, ...]:
    events = tuple(events)
    if len(set(events)) != len(events) or not set(events) <= set(_REPOSITORY_EVENTS):
        raise invalid(field, list(events), f"use distinct events from {list(_REPOSITORY_EVENTS)}")
    return events


@dataclass(frozen=True)
class DataRepositoryAssociation:
    """Links a directory of the Lustre file system to an S3 bucket prefix.

    ``bucket_name`` may be a CDK token (e.g. ``bucket.bucket_name``). ``prefix`` is a key prefix without
    leading slash ("" for the whole bucket). Import events bring S3 changes into the file system; export
    events push file system changes to S3. ``batch_import_metadata_on_create`` lists existing objects
    when the association is created.
    """

    file_system_path: str
    bucket_name: str
    prefix: str = ""
    auto_import_events: tuple[str, ...] = ()
    auto_export_events: tuple[str, ...] = ()
    batch_import_metadata_on_create: bool = False

    def __post_init__(self) -> None:
        path = self.file_system_path
        if not isinstance(path, str) or not _FILE_SYSTEM_PATH.match(path) or "//" in path:
            raise invalid("file_system_path", path, "use an absolute path such as '/data' (at most 4096 characters)")
        check_bucket_name("bucket_name", self.bucket_name)  # core.validation's rule, the buckets' and config's too
        if not isinstance(self.prefix, str) or self.prefix.startswith("/") or "//" in self.prefix:
            raise invalid("prefix", self.prefix, "use an S3 key prefix without leading '/' such as 'training-data/'")
        object.__setattr__(self, "auto_import_events", _check_events("auto_import_events", self.auto_import_events))
        object.__setattr__(self, "auto_export_events", _check_events("auto_export_events", self.auto_export_events))

    @property
    def normalized_file_system_path(self) -> str:
        """The path without trailing slash ("/" stays "/")."""
        return self.file_system_path.rstrip("/") or "/"

    @property
    def data_repository_path(self) -> str:
        """``s3://bucket/prefix/`` as FSx expects it (a trailing slash marks the prefix as a folder)."""
        prefix = self.prefix.strip("/")
        return f"s3://{self.bucket_name}/{prefix}/" if prefix else f"s3://{self.bucket_name}/"


def training_associations(
    data_bucket_name: str | None, checkpoint_bucket_name: str | None
) -> list[DataRepositoryAssociation]:
    """The platform's layout (:mod:`eks_training.core.names`): ``/data`` fed from the data bucket (shared datasets),
    ``/workspaces`` linked both ways to the checkpoint bucket (``/workspaces/<namespace>`` is
    ``s3://<checkpoint bucket>/<namespace>/``, each namespace's own prefix).

    The events are core.fsx's (the config layer's defaults too): workspaces import and export new and changed files
    but not deletions, so pruning old checkpoints on the file system keeps their S3 copies.
    """
    associations = []
    if data_bucket_name is not None:
        associations.append(
            DataRepositoryAssociation(
                FSX_DATA_DIR,
                data_bucket_name,
                auto_import_events=DATA_IMPORT_EVENTS,
                batch_import_metadata_on_create=True,
            )
        )
    if checkpoint_bucket_name is not None:
        associations.append(
            DataRepositoryAssociation(
                FSX_WORKSPACES_DIR,
                checkpoint_bucket_name,
                auto_import_events=WORKSPACE_IMPORT_EVENTS,
                auto_export_events=WORKSPACE_EXPORT_EVENTS,
                batch_import_metadata_on_create=True,
            )
        )
    return associations


def _overlaps(first: str, second: str) -> bool:
    """Whether one path is the other or lies inside it ("/data" and "/data/raw" overlap, "/data2" does not)."""
    a, b = first.rstrip("/") + "/", second.rstrip("/") + "/"
    return a.startswith(b) or b.startswith(a)


def _check_associations(associations: Sequence[DataRepositoryAssociation]) -> None:
    if len(associations) > _MAX_ASSOCIATIONS:
        raise invalid("data_repository_associations", f"{len(associations)} items", f"use at most {_MAX_ASSOCIATIONS}")
    for index, association in enumerate(associations):
        if not isinstance(association, DataRepositoryAssociation):
            raise invalid("data_repository_associations", association, "use DataRepositoryAssociation items")
        for other in associations[:index]:
            # Paths of one bucket are the same token string, so overlap checks work for tokens too.
            for label, path, other_path in (
                ("file_system_path", association.normalized_file_system_path, other.normalized_file_system_path),
                ("data repository path", association.data_repository_path, other.data_repository_path),
            ):
                if _overlaps(path, other_path):
                    raise invalid(
                        f"data_repository_associations[{index}] {label}", path, f"it overlaps {other_path!r}"
                    )














def _subnet_ids(vpc: ec2.IVpc) -> set[str]:
    return {s.subnet_id for s in [*vpc.public_subnets, *vpc.private_subnets, *vpc.isolated_subnets]}


class LustreStorage(Construct):
    """An FSx for Lustre file system in one subnet (the training AZ), linked to S3 by data repository associations.

    Props (keyword-only):
        vpc: the VPC of the file system and its security group.
        subnet: the one subnet (in the training AZ) the file system lives in; must belong to ``vpc``.
        peer_security_groups: client security groups (cluster SG, EFA SG) allowed to mount. Default none.
        capacity_gib: SSD storage, 1200, 2400 or a multiple of 2400. Default 1200.
        deployment_type: "PERSISTENT_2" (default), "PERSISTENT_1" or "SCRATCH_2".
        per_unit_throughput: MB/s/TiB. Default 250 for PERSISTENT_2, 200 for PERSISTENT_1, none for SCRATCH_2.
        metadata_iops: PERSISTENT_2 only; None (default) uses the AUTOMATIC metadata mode.
        data_bucket / checkpoint_bucket: when given and ``data_repository_associations`` is None, the default
            associations ``/data`` <- data bucket and ``/workspaces`` <-> checkpoint bucket are made.
        data_repository_associations: explicit associations (replace the defaults; [] for none).
        kms_key: key for persistent types. Default: a new key with rotation on. Not allowed for SCRATCH_2.
        removal_policy: for the file system and a key made here. Default RETAIN.
        retain_on_replacement: keep the old file system, with its files, when an update replaces it
            (``UpdateReplacePolicy: Retain``; it keeps its network interfaces in its subnet until deleted by hand).
            Default False: ``removal_policy`` decides.
        root_squash: ``"UID:GID"`` that uid 0 of a client becomes (Lustre root squash). Default ``"65534:65534"``
            (nobody): a root on a node, or in a container, gets no root rights on the file system. None: off.
            Set through the FSx API by a custom resource (CloudFormation's file system has no such property).
        no_squash_nids: Lustre NIDs (``10.0.1.6@tcp``, ranges as ``10.0.[16-31].[0-255]@tcp``; see
            :func:`lustre_nid_range`) whose root stays root, e.g. the nodes that create the workspaces. Default none.
        backup_retention_days: days of daily automatic backups (persistent types only). Default: 7 for persistent
            types, none for scratch (which FSx cannot back up); 0 turns them off.

    Attributes: ``file_system``, ``security_group``, ``associations``, ``key`` (None for scratch),
    ``file_system_id``, ``dns_name``, ``mount_name``, ``capacity_gib``, ``root_squash`` (the custom resource, or
    None).
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        vpc: ec2.IVpc,
        subnet: ec2.ISubnet,
        peer_security_groups: Sequence[ec2.ISecurityGroup] = (),
        capacity_gib: int = 1200,
        deployment_type: str = "PERSISTENT_2",
        per_unit_throughput: int | None = None,
        metadata_iops: int | None = None,
        data_bucket: s3.IBucket | None = None,
        checkpoint_bucket: s3.IBucket | None = None,
        data_repository_associations: Sequence[DataRepositoryAssociation] | None = None,
        kms_key: kms.IKey | None = None,
        removal_policy: cdk.RemovalPolicy = cdk.RemovalPolicy.RETAIN,
        retain_on_replacement: bool = False,
        root_squash: str | None = ROOT_SQUASH_NOBODY,
        no_squash_nids: Sequence[str] = (),
        backup_retention_days: int | None = None,
    ) -> None:
        super().__init__(scope, id)
        deployment_type = getattr(deployment_type, "value", deployment_type)  # accept fsx.LustreDeploymentType too
        squash = _root_squash_configuration(root_squash, no_squash_nids)
        backups = _backup_days(deployment_type, backup_retention_days)
        throughput = check_lustre_settings(deployment_type, capacity_gib, per_unit_throughput)
        capacity = capacity_gib  # checked by check_lustre_settings
        check_metadata_iops(deployment_type, metadata_iops)
        is_scratch = deployment_type.startswith("SCRATCH")
        if is_scratch and kms_key is not None:
            raise invalid("kms_key", kms_key.node.path, f"{deployment_type} is always encrypted with an FSx-managed key")
        if data_repository_associations is not None and (data_bucket or checkpoint_bucket):
            raise invalid(
                "data_bucket/checkpoint_bucket",
                [b.node.path for b in (data_bucket, checkpoint_bucket) if b],
                "give the buckets for the default associations or data_repository_associations, not both",
            )
        if data_repository_associations is None:
            data_repository_associations = training_associations(
                data_bucket.bucket_name if data_bucket else None,
                checkpoint_bucket.bucket_name if checkpoint_bucket else None,
            )
        associations = list(data_repository_associations)
        _check_associations(associations)

        self.key: kms.IKey | None = None
        if not is_scratch:
            self.key = kms_key or kms.Key(
                self,
                "Key",
                description="Encrypts the FSx for Lustre training file system",
                enable_key_rotation=True,
                removal_policy=removal_policy,
            )

        # Egress only where Lustre goes: the other file servers, the clients (servers call clients back on the same
        # ports) and HTTPS for the S3 data repositories; not all traffic to anywhere.
        self.security_group = ec2.SecurityGroup(
            self, "SecurityGroup", vpc=vpc, allow_all_outbound=False,
            description="FSx for Lustre: Lustre traffic from clients and between servers"
        )
        for port in LUSTRE_PORTS:
            self.security_group.add_ingress_rule(self.security_group, port, "Lustre between file servers")
            self.security_group.add_egress_rule(self.security_group, port, "Lustre between file servers")
        if data_repository_associations:
            self.security_group.add_egress_rule(ec2.Peer.any_ipv4(), ec2.Port.tcp(443),
                                                "S3 data repositories (S3's addresses are public)")
        for peer in peer_security_groups:
            self.allow_clients(peer)

        metadata = None
        if deployment_type == "PERSISTENT_2":
            metadata = fsx.CfnFileSystem.MetadataConfigurationProperty(
                mode="USER_PROVISIONED" if metadata_iops else "AUTOMATIC", iops=metadata_iops
            )
        # CfnFileSystem rather than the L2: the L2's import/export policy rejects PERSISTENT_2, and
        # associations are separate resources here anyway.
        self.file_system = fsx.CfnFileSystem(
            self,
            "FileSystem",
            file_system_type="LUSTRE",
            file_system_type_version=LUSTRE_VERSION,
            storage_type="SSD",
            storage_capacity=capacity,
            subnet_ids=[subnet.subnet_id],
            security_group_ids=[self.security_group.security_group_id],
            kms_key_id=self.key.key_id if self.key else None,
            lustre_configuration=fsx.CfnFileSystem.LustreConfigurationProperty(
                deployment_type=deployment_type,
                per_unit_storage_throughput=throughput,
                data_compression_type="LZ4",
                metadata_configuration=metadata,
                automatic_backup_retention_days=backups,
                copy_tags_to_backups=True if backups else None,
            ),
        )
        self.file_system.apply_removal_policy(removal_policy)
        if retain_on_replacement:
            self.file_system.cfn_options.update_replace_policy = cdk.CfnDeletionPolicy.RETAIN

        self.capacity_gib: int = capacity
        self.file_system_id: str = self.file_system.ref
        self.dns_name: str = self.file_system.attr_dns_name
        self.mount_name: str = self.file_system.attr_lustre_mount_name
        self.associations: list[fsx.CfnDataRepositoryAssociation] = [
            self._association(index, association) for index, association in enumerate(associations)
        ]
        self.root_squash = self._set_root_squash(squash) if squash else None

    def _set_root_squash(self, squash: dict) -> cr.AwsCustomResource:
        """Root squash through the FSx API (UpdateFileSystem's LustreConfiguration.RootSquashConfiguration):
        AWS::FSx::FileSystem has no property for it. Applied after the data repository associations, since FSx
        runs one update of a file system at a time; the call may touch this file system only."""
        call = cr.AwsSdkCall(
            service="FSx", action="UpdateFileSystem",
            parameters={"FileSystemId": self.file_system_id, "LustreConfiguration": {"RootSquashConfiguration": squash}},
            physical_resource_id=cr.PhysicalResourceId.of(f"root-squash-{squash['RootSquash']}"))
        resource = cr.AwsCustomResource(
            self, "RootSquash", on_create=call, on_update=call, install_latest_aws_sdk=False,
            policy=cr.AwsCustomResourcePolicy.from_statements([iam.PolicyStatement(
                actions=["fsx:UpdateFileSystem"], resources=[self.file_system.attr_resource_arn])]))
        for association in self.associations:
            resource.node.add_dependency(association)
        # The handler is a singleton of the stack, named "AWS" + the provider's UUID without dashes.
        handler = cdk.Stack.of(self).node.try_find_child(
            "AWS" + cr.AwsCustomResource.PROVIDER_FUNCTION_UUID.replace("-", ""))
        if handler is not None:
            acknowledge(handler, "aws-cdk-lib's AwsCustomResource handler: it logs through AWSLambdaBasicExecutionRole "
                        "(CloudWatch Logs only); what it may call is this construct's own statement",
                        managed_policy_finding("service-role/AWSLambdaBasicExecutionRole"))
        return resource

    def _association(self, index: int, association: DataRepositoryAssociation) -> fsx.CfnDataRepositoryAssociation:
        return fsx.CfnDataRepositoryAssociation(
            self,
            f"Association{index}",
            file_system_id=self.file_system_id,
            file_system_path=association.normalized_file_system_path,
            data_repository_path=association.data_repository_path,
            batch_import_meta_data_on_create=association.batch_import_metadata_on_create,
            s3=fsx.CfnDataRepositoryAssociation.S3Property(
                auto_import_policy=(
                    fsx.CfnDataRepositoryAssociation.AutoImportPolicyProperty(events=list(association.auto_import_events))
                    if association.auto_import_events
                    else None
                ),
                auto_export_policy=(
                    fsx.CfnDataRepositoryAssociation.AutoExportPolicyProperty(events=list(association.auto_export_events))
                    if association.auto_export_events
                    else None
                ),
            ),
        )

    def grant_csi_driver(self, grantee: iam.IGrantable, *, owner_tag: tuple[str, str]) -> None:
        """What the FSx CSI driver's controller needs to provision scratch file systems, for this stack's only.

        The driver's documented minimal policy (aws-fsx-csi-driver docs/install.md) instead of AmazonFSxFullAccess,
        narrowed to the file systems that carry ``owner_tag`` (key, value): the driver may create one only with the
        tag (the StorageClass's ``extraTags`` sets it, see ``StorageChart(scratch_tags=...)``), and update or delete
        only those that have it, so no other file system of the account is in reach. Also: describe file systems
        (FSx takes no resource ARN for it) and create the FSx service-linked role. Not granted: the S3 data-source
        role and s3:ListBucket (our dynamic class imports from no bucket). Denied outright, whatever its tags say:
        updating or deleting this stack's own file system, which holds every team's data.
        """
        key, value = owner_tag
        if not isinstance(key, str) or not key or not isinstance(value, str) or not value or "," in key + value \
                or "=" in key + value:
            raise invalid("owner_tag", owner_tag, "(key, value), non-empty and without ',' or '=' (the driver's "
                                                  "extraTags format is key=value,...)")
        stack = cdk.Stack.of(self)
        file_systems = f"arn:{stack.partition}:fsx:{stack.region}:{stack.account}:file-system/*"
        grantee.grant_principal.add_to_principal_policy(iam.PolicyStatement(
            sid="CreateTaggedScratchFileSystems", actions=["fsx:CreateFileSystem", "fsx:TagResource"],
            resources=[file_systems], conditions={"StringEquals": {f"aws:RequestTag/{key}": value}}))
        grantee.grant_principal.add_to_principal_policy(iam.PolicyStatement(
            sid="ManageOwnScratchFileSystems", actions=["fsx:UpdateFileSystem", "fsx:DeleteFileSystem"],
            resources=[file_systems], conditions={"StringEquals": {f"aws:ResourceTag/{key}": value}}))
        grantee.grant_principal.add_to_principal_policy(iam.PolicyStatement(
            sid="DescribeFileSystems", actions=["fsx:DescribeFileSystems"], resources=["*"]))
        grantee.grant_principal.add_to_principal_policy(iam.PolicyStatement(
            sid="FsxServiceLinkedRole", actions=["iam:CreateServiceLinkedRole"], resources=["*"],
            conditions={"StringLike": {"iam:AWSServiceName": ["fsx.amazonaws.com"]}}))
        grantee.grant_principal.add_to_principal_policy(iam.PolicyStatement(
            sid="NeverThePlatformFileSystem", effect=iam.Effect.DENY,
            actions=["fsx:UpdateFileSystem", "fsx:DeleteFileSystem", "fsx:TagResource", "fsx:UntagResource"],
            resources=[f"arn:{stack.partition}:fsx:{stack.region}:{stack.account}:file-system/{self.file_system_id}"]))
        if isinstance(grantee, Construct):
            acknowledge(grantee, "the FSx CSI driver names the scratch file systems it creates at run time: the ARN "
                        "pattern is account and region scoped and every statement on it is conditioned on the "
                        "stack's owner tag; Describe and the service-linked role take no resource ARN",
                        wildcard_resource_finding(self, file_systems), "AwsSolutions-IAM5[Resource::*]")

    def allow_clients(self, peer: ec2.IConnectable) -> None:
        """Let ``peer`` (e.g. a node security group) mount the file system: Lustre ports 988 and 1018-1023, both ways
        (the servers call their clients back on them)."""
        for port in LUSTRE_PORTS:
            self.security_group.connections.allow_from(peer, port, "Lustre clients")
            self.security_group.connections.allow_to(peer, port, "Lustre clients (callbacks)")


@dataclass(frozen=True)
class ModelAccessPoint:
    """An EFS access point: a directory (``path``) entered as one POSIX user, created with ``permissions``."""

    name: str
    path: str
    uid: int = 1000
    gid: int = 1000
    permissions: str = "750"

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _ACCESS_POINT_NAME.match(self.name):
            raise invalid("name", self.name, "use a DNS label: lowercase letters, digits and '-', at most 63 characters")
        if not isinstance(self.path, str) or not _FILE_SYSTEM_PATH.match(self.path) or self.path.rstrip("/") == "":
            raise invalid("path", self.path, "use an absolute directory path other than '/', such as '/models'")
        for field in ("uid", "gid"):
            value = getattr(self, field)
            if not is_whole_number(value) or not 0 <= value <= _MAX_POSIX_ID:
                raise invalid(field, value, f"use a whole number from 0 to {_MAX_POSIX_ID}")
        if not isinstance(self.permissions, str) or not _POSIX_PERMISSIONS.match(self.permissions):
            raise invalid("permissions", self.permissions, "use octal POSIX permissions such as '750'")


class ModelStore(Construct):
    """An encrypted EFS file system with elastic throughput for model weights, shared by all training pods.

    Props (keyword-only):
        vpc: the VPC of the file system.
        subnets: subnets for mount targets, at most one per Availability Zone.
        peer_security_groups: client security groups allowed to mount over NFS (TCP 2049). Default none.
        access_points: ``ModelAccessPoint`` items with distinct names and paths. Default none.
        kms_key: key for encryption at rest. Default: a new key with rotation on.
        removal_policy: for the file system and a key made here. Default RETAIN.
        backups: EFS automatic backups (AWS Backup's daily plan). Default True.

    The file system policy refuses any request not made over TLS (``aws:SecureTransport``).

    Attributes: ``file_system``, ``security_group``, ``key``, ``access_points`` (name -> efs.AccessPoint),
    ``file_system_id``.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        vpc: ec2.IVpc,
        subnets: Sequence[ec2.ISubnet],
        peer_security_groups: Sequence[ec2.ISecurityGroup] = (),
        access_points: Sequence[ModelAccessPoint] = (),
        kms_key: kms.IKey | None = None,
        removal_policy: cdk.RemovalPolicy = cdk.RemovalPolicy.RETAIN,
        backups: bool = True,
    ) -> None:
        super().__init__(scope, id)
        subnets = list(subnets)
        if not subnets:
            raise invalid("subnets", subnets, "give at least one subnet for a mount target")
        known = _subnet_ids(vpc)
        for subnet in subnets:
            if subnet.subnet_id not in known:
                raise invalid("subnets", subnet.subnet_id, "use subnets of the given vpc")
        zones = [s.availability_zone for s in subnets]
        resolved_zones = [z for z in zones if not cdk.Token.is_unresolved(z)]
        if len(set(resolved_zones)) != len(resolved_zones):
            raise invalid("subnets", zones, "EFS takes one mount target per Availability Zone: one subnet per zone")
        access_points = list(access_points)
        for field in ("name", "path"):
            values = [getattr(point, field) for point in access_points]
            duplicates = sorted({v for v in values if values.count(v) > 1})
            if duplicates:
                raise invalid(f"access_points {field}", duplicates, f"each access point needs a distinct {field}")

        self.key: kms.IKey = kms_key or kms.Key(
            self,
            "Key",
            description="Encrypts the EFS model store",
            enable_key_rotation=True,
            removal_policy=removal_policy,
        )
        # Mount targets only answer: no egress at all.
        self.security_group = ec2.SecurityGroup(self, "SecurityGroup", vpc=vpc, allow_all_outbound=False,
                                                description="EFS model store: NFS from clients")
        self.file_system = efs.FileSystem(
            self,
            "FileSystem",
            vpc=vpc,
            vpc_subnets=ec2.SubnetSelection(subnets=subnets),
            security_group=self.security_group,
            encrypted=True,
            kms_key=self.key,
            throughput_mode=efs.ThroughputMode.ELASTIC,
            performance_mode=efs.PerformanceMode.GENERAL_PURPOSE,
            # Explicit so the result does not depend on the app's feature flags: a file system policy that
            # only admits clients coming through a mount target (which the security group guards).
            allow_anonymous_access=False,
            # AWS Backup's daily plan for the file system (EFS automatic backups, 35 days).
            enable_automatic_backups=backups,
            removal_policy=removal_policy,
        )
        # Clients must mount over TLS (the EFS CSI driver's default, encryptInTransit): plain NFS is refused.
        self.file_system.add_to_resource_policy(iam.PolicyStatement(
            sid="DenyUnencryptedTransport", effect=iam.Effect.DENY, principals=[iam.AnyPrincipal()], actions=["*"],
            conditions={"Bool": {"aws:SecureTransport": "false"}}))
        for peer in peer_security_groups:
            self.allow_clients(peer)
        self.file_system_id: str = self.file_system.file_system_id
        self.access_points: dict[str, efs.AccessPoint] = {
            point.name: self.file_system.add_access_point(
                f"AccessPoint-{point.name}",
                path=point.path,
                posix_user=efs.PosixUser(uid=str(point.uid), gid=str(point.gid)),
                create_acl=efs.Acl(owner_uid=str(point.uid), owner_gid=str(point.gid), permissions=point.permissions),
            )
            for point in access_points
        }

    def allow_clients(self, peer: ec2.IConnectable) -> None:
        """Let ``peer`` mount the file system over NFS (TCP 2049)."""
        self.file_system.connections.allow_from(peer, NFS_PORT, "NFS clients of the model store")

    def grant_read(self, grantee: iam.IGrantable) -> iam.Grant:
        """IAM-authorized read-only mounts (``elasticfilesystem:ClientMount``) for ``grantee``."""
        return self.file_system.grant_read(grantee)

    def grant_read_write(self, grantee: iam.IGrantable) -> iam.Grant:
        """IAM-authorized read-write mounts (``ClientMount`` and ``ClientWrite``) for ``grantee``."""
        return self.file_system.grant_read_write(grantee)
