"""S3 buckets for training data and checkpoints, encrypted with one customer-managed KMS key."""

from __future__ import annotations

import re
from collections.abc import Sequence

import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3
from constructs import Construct

from eks_training.constructs.acknowledgements import acknowledge, wildcard_resource_finding
from eks_training.core.validation import check_bucket_name, check_whole_number, invalid

# Reading a dataset needs listing plus object reads; the checkpoint writer also puts, deletes old
# checkpoints and cleans up multipart uploads of large shards. Nothing else (no bucket configuration).
_DATA_BUCKET_ACTIONS = ("s3:ListBucket",)
_DATA_OBJECT_ACTIONS = ("s3:GetObject", "s3:GetObjectVersion")
# Only ListBucket: ListBucketMultipartUploads takes no s3:prefix condition (S3's service authorization reference),
# so it could not be confined to a namespace's prefix, and nothing lists uploads (each writer aborts its own by id;
# a lifecycle rule aborts the abandoned ones).
_CHECKPOINT_BUCKET_ACTIONS = ("s3:ListBucket",)
#: The session tag EKS Pod Identity sets to the pod's name (EKS user guide, "Define permissions for EKS Pod
#: Identities to assume roles based on tags"): a prefix per pod, for namespaces whose pods are people's notebooks.
POD_NAME_TAG = "${aws:PrincipalTag/kubernetes-pod-name}"
_CHECKPOINT_OBJECT_ACTIONS = (
    "s3:GetObject",
    "s3:GetObjectVersion",
    "s3:PutObject",
    "s3:DeleteObject",
    "s3:AbortMultipartUpload",
    "s3:ListMultipartUploadParts",
)
# SSE-KMS: GetObject needs Decrypt, PutObject (and multipart) needs GenerateDataKey.
_KEY_ACTIONS = ("kms:Decrypt", "kms:GenerateDataKey")
# FSx for Lustre reaches linked buckets through one service-linked role per file system
# (AWSServiceRoleForFSxS3Access_<fs-id>); with SSE-KMS under a customer-managed key that role must be let
# into the key policy. A name pattern avoids a dependency on the file system (which links to these buckets).
FSX_S3_ROLE_PATH = "role/aws-service-role/s3.data-source.lustre.fsx.amazonaws.com/AWSServiceRoleForFSxS3Access_*"
_FSX_KEY_ACTIONS = ("kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:DescribeKey")


#: What a bucket's VPC rule refuses outside the VPC: every read, write, delete and listing of data.
VPC_ONLY_ACTIONS = ("s3:GetObject*", "s3:PutObject*", "s3:DeleteObject*", "s3:ListBucket*", "s3:RestoreObject",
                    "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts")
#: The construct id aws-cdk-lib gives the stack's bucket-emptying provider (``autoDeleteObjects``).
_AUTO_DELETE_PROVIDER = "Custom::S3AutoDeleteObjectsCustomResourceProvider"


def _positive_days(field: str, value: object) -> int:
    return check_whole_number(field, value, minimum=1, unit="days")


class TrainingBuckets(Construct):
    """The data and checkpoint buckets of the training platform.

    Both buckets: SSE-KMS with one shared key (rotation on, S3 bucket keys on), versioning, all public
    access blocked, TLS-only access (TLS 1.2 minimum), bucket-owner-enforced ownership, and incomplete
    multipart uploads aborted. The checkpoint bucket also expires noncurrent object versions.

    Props (keyword-only):
        data_bucket_name: explicit bucket name, checked against the S3 naming rules. Default: generated.
        checkpoint_bucket_name: same, for the checkpoint bucket. Default: generated.
        retain: True (default) keeps buckets and key when the stack is deleted (use in prod);
            False destroys them, emptied first (every version, by CDK's auto-delete Lambda): CloudFormation
            deletes only empty buckets, so a stack deletion would otherwise end in BucketNotEmpty.
        noncurrent_checkpoint_expiry_days: days after which an overwritten or deleted checkpoint
            version is expired. Default 30.
        abort_incomplete_upload_days: days after which incomplete multipart uploads are aborted. Default 7.
        key: an existing KMS key to use. Default: a new key with rotation on.
        allow_fsx_data_repositories: let FSx for Lustre file systems of this account use the key through S3
            (needed for data repository associations to these buckets). Default True. Needs a key whose
            policy this app controls (a key made here or a ``kms.Key`` passed in).
        vpc_only: an ``ec2.IVpc`` whose endpoints alone may carry reads and writes of the data and checkpoint
            buckets (:meth:`restrict_to_vpc`): a job's credentials used anywhere else are refused. Default None: no
            such rule (a VPC without S3 endpoints reaches S3 through NAT, with no ``aws:SourceVpc``).
        unrestricted_principal_arns: IAM role ARNs that may still use the buckets from outside the VPC (the people
            who upload data and read results from their own machines). CDK's bucket-emptying handler and FSx's
            data repository role are always let through. Default: none.

    Attributes: ``data_bucket``, ``checkpoint_bucket``, ``key``.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        data_bucket_name: str | None = None,
        checkpoint_bucket_name: str | None = None,
        retain: bool = True,
        noncurrent_checkpoint_expiry_days: int = 30,
        abort_incomplete_upload_days: int = 7,
        key: kms.IKey | None = None,
        allow_fsx_data_repositories: bool = True,
        vpc_only: ec2.IVpc | None = None,
        unrestricted_principal_arns: Sequence[str] = (),
    ) -> None:
        super().__init__(scope, id)
        # Deliver access logs through a bucket policy, never ACLs, whatever the app's feature flags say.
        self.node.set_context("@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy", True)
        for field, name in (("data_bucket_name", data_bucket_name), ("checkpoint_bucket_name", checkpoint_bucket_name)):
            if name is not None and not cdk.Token.is_unresolved(name):
                check_bucket_name(field, name)
        if data_bucket_name is not None and data_bucket_name == checkpoint_bucket_name:
            raise invalid("checkpoint_bucket_name", checkpoint_bucket_name, "a name other than data_bucket_name")
        if not isinstance(retain, bool):
            raise invalid("retain", retain, "use True (keep on stack deletion) or False")
        expiry_days = _positive_days("noncurrent_checkpoint_expiry_days", noncurrent_checkpoint_expiry_days)
        abort_days = _positive_days("abort_incomplete_upload_days", abort_incomplete_upload_days)

        removal_policy = cdk.RemovalPolicy.RETAIN if retain else cdk.RemovalPolicy.DESTROY
        self.key: kms.IKey = key or kms.Key(
            self,
            "Key",
            description="Encrypts the training data and checkpoint buckets",
            enable_key_rotation=True,
            removal_policy=removal_policy,
        )
        # Server access logs: SSE-S3, because S3 cannot deliver access logs to a KMS-encrypted bucket.
        self.access_logs_bucket = s3.Bucket(
            self, "AccessLogs", encryption=s3.BucketEncryption.S3_MANAGED, block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED, enforce_ssl=True, minimum_tls_version=1.2,
            versioned=True, auto_delete_objects=removal_policy == cdk.RemovalPolicy.DESTROY,
            removal_policy=removal_policy, lifecycle_rules=[s3.LifecycleRule(id="expire-access-logs",
                                                                             expiration=cdk.Duration.days(90),
                                                                             noncurrent_version_expiration=cdk.Duration.days(1))])
        acknowledge(self.access_logs_bucket, "this bucket is the access-log target of the training buckets; logging "
                    "it into itself would loop", "AwsSolutions-S1")
        abort_rule = s3.LifecycleRule(
            id="abort-incomplete-multipart-uploads",
            abort_incomplete_multipart_upload_after=cdk.Duration.days(abort_days),
        )
        self.data_bucket: s3.Bucket = self._bucket("DataBucket", data_bucket_name, removal_policy, [abort_rule])
        self.checkpoint_bucket: s3.Bucket = self._bucket(
            "CheckpointBucket",
            checkpoint_bucket_name,
            removal_policy,
            [
                abort_rule,
                s3.LifecycleRule(
                    id="expire-noncurrent-checkpoints",
                    noncurrent_version_expiration=cdk.Duration.days(expiry_days),
                    expired_object_delete_marker=True,
                ),
            ],
        )
        if allow_fsx_data_repositories:
            self._allow_fsx_service_role()
        if isinstance(unrestricted_principal_arns, (str, bytes)):
            raise invalid("unrestricted_principal_arns", unrestricted_principal_arns, "a list of IAM role ARNs")
        if unrestricted_principal_arns and vpc_only is None:
            raise invalid("unrestricted_principal_arns", list(unrestricted_principal_arns),
                          "none without vpc_only (nothing is restricted to let them through)")
        if vpc_only is not None:
            self.restrict_to_vpc(vpc_only, unrestricted_principal_arns)

    def restrict_to_vpc(self, vpc: ec2.IVpc, unrestricted_principal_arns: Sequence[str] = ()) -> None:
        """Refuse reads, writes, deletes and listings of the data and checkpoint buckets that do not come through an
        endpoint of ``vpc`` (``aws:SourceVpc``, set on requests through a gateway or an interface endpoint).

        A deny in each bucket's policy, which no identity policy overrides, so a key taken from a pod works only
        inside the VPC. Let through (``aws:PrincipalArn``): ``unrestricted_principal_arns`` (people working from
        their own machines), CDK's bucket-emptying handler (a Lambda outside the VPC, when the buckets are
        destroyed with the stack) and FSx's data repository role (the file system's import and export). Bucket
        management (policies, configuration) is not a data action and stays with CloudFormation.
        """
        for i, arn in enumerate(unrestricted_principal_arns):
            if not cdk.Token.is_unresolved(arn) and not re.fullmatch(r"arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]+", arn):
                raise invalid(f"unrestricted_principal_arns[{i}]", arn, "an IAM role ARN, arn:aws:iam::123456789012:role/NAME")
        stack = cdk.Stack.of(self)
        exempt = [*unrestricted_principal_arns,
                  f"arn:{cdk.Aws.PARTITION}:iam::{stack.account}:{FSX_S3_ROLE_PATH}"]
        emptying = stack.node.try_find_child(_AUTO_DELETE_PROVIDER)
        if emptying is not None:
            exempt.append(emptying.role_arn)
        for bucket in (self.data_bucket, self.checkpoint_bucket):
            bucket.add_to_resource_policy(iam.PolicyStatement(
                sid="OnlyThroughThisVpc", effect=iam.Effect.DENY, principals=[iam.AnyPrincipal()],
                actions=list(VPC_ONLY_ACTIONS), resources=[bucket.bucket_arn, bucket.arn_for_objects("*")],
                conditions={"StringNotEquals": {"aws:SourceVpc": vpc.vpc_id},
                            "ArnNotLike": {"aws:PrincipalArn": exempt}}))

    def _s3_service(self) -> str:
        return f"s3.{cdk.Stack.of(self).region}.amazonaws.com"

    def _allow_fsx_service_role(self) -> None:
        account, partition, region = (cdk.Stack.of(self).account, cdk.Aws.PARTITION, cdk.Stack.of(self).region)
        statement = iam.PolicyStatement(
            sid="AllowFsxLustreDataRepositoriesThroughS3",
            principals=[iam.AnyPrincipal()],
            actions=list(_FSX_KEY_ACTIONS),
            resources=["*"],  # in a key policy "*" means this key
            conditions={
                "StringEquals": {"aws:PrincipalAccount": account, "kms:ViaService": f"s3.{region}.amazonaws.com"},
                "ArnLike": {"aws:PrincipalArn": f"arn:{partition}:iam::{account}:{FSX_S3_ROLE_PATH}"},
            },
        )
        if not self.key.add_to_resource_policy(statement).statement_added:
            raise invalid("allow_fsx_data_repositories", True, f"False with the imported key {self.key.node.path!r} "
                          "(its policy cannot be changed here): pass a kms.Key whose policy this app manages, or set "
                          "it False and grant FSx in the key policy")

    def _bucket(
        self,
        id: str,
        name: str | None,
        removal_policy: cdk.RemovalPolicy,
        lifecycle_rules: list[s3.LifecycleRule],
    ) -> s3.Bucket:
        return s3.Bucket(
            self,
            id,
            bucket_name=name,
            encryption=s3.BucketEncryption.KMS,
            encryption_key=self.key,
            bucket_key_enabled=True,
            versioned=True,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            enforce_ssl=True,
            minimum_tls_version=1.2,
            lifecycle_rules=lifecycle_rules,
            removal_policy=removal_policy,
            # CloudFormation deletes only empty buckets: one the stack deletes is emptied first (every version).
            auto_delete_objects=removal_policy == cdk.RemovalPolicy.DESTROY,
            server_access_logs_bucket=self.access_logs_bucket,
            server_access_logs_prefix=f"{id}/",
        )

    def grant_training_access(self, grantee: iam.IGrantable, *, checkpoint_prefix: str | None = None,
                              per_pod: bool = False) -> iam.Grant:
        """Let ``grantee`` read the data bucket, read and write the checkpoint bucket, and use the key for both.

        ``checkpoint_prefix`` (a namespace, say) confines checkpoint reads, writes, deletes and listings to
        ``<prefix>/``: one team's role cannot touch another's checkpoints. ``per_pod`` (default False) narrows that
        to ``<prefix>/<pod name>/`` through the session tag Pod Identity sets (:data:`POD_NAME_TAG`): one person's
        notebook cannot touch another's. The statements name only the two buckets, their objects and the key
        (which they may use only through S3, ``kms:ViaService``): no wildcard actions such as ``s3:*`` and no other
        resources.
        """
        if checkpoint_prefix is not None and not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,62}", str(checkpoint_prefix)):
            raise invalid("checkpoint_prefix", checkpoint_prefix, "use a namespace-like name such as 'training' "
                                                                  "(lowercase letters, digits, '-')")
        if per_pod and checkpoint_prefix is None:
            raise invalid("per_pod", True, "only with a checkpoint_prefix (the pods' namespace)")
        prefix = f"{checkpoint_prefix}/{POD_NAME_TAG}" if per_pod else checkpoint_prefix
        objects = f"{prefix}/*" if prefix else "*"
        listing = {"StringLike": {"s3:prefix": [f"{prefix}/*", f"{prefix}/"]}} if prefix else None
        data, checkpoints = self.data_bucket, self.checkpoint_bucket
        grants = [
            iam.Grant.add_to_principal(
                grantee=grantee, actions=list(_DATA_BUCKET_ACTIONS), resource_arns=[data.bucket_arn]
            ),
            iam.Grant.add_to_principal(
                grantee=grantee, actions=list(_DATA_OBJECT_ACTIONS), resource_arns=[data.arn_for_objects("*")]
            ),
            iam.Grant.add_to_principal(
                grantee=grantee, actions=list(_CHECKPOINT_BUCKET_ACTIONS), resource_arns=[checkpoints.bucket_arn],
                conditions=listing,
            ),
            iam.Grant.add_to_principal(
                grantee=grantee,
                actions=list(_CHECKPOINT_OBJECT_ACTIONS),
                resource_arns=[checkpoints.arn_for_objects(objects)],
            ),
            iam.Grant.add_to_principal(grantee=grantee, actions=list(_KEY_ACTIONS), resource_arns=[self.key.key_arn],
                                       conditions={"StringEquals": {"kms:ViaService": self._s3_service()}}),
        ]
        if isinstance(grantee, Construct):
            acknowledge(grantee, "object ARNs of exactly the data and checkpoint buckets (checkpoints under the grantee's "
                        "prefix): checkpoint keys are named at run time",
                        wildcard_resource_finding(self, data.arn_for_objects("*")),
                        wildcard_resource_finding(self, checkpoints.arn_for_objects(objects)))
        combined = grants[0]
        for grant in grants[1:]:
            combined = combined.combine(grant)
        return combined
