"""Typed, validated configuration of one platform environment.

An environment file (``infra/environments/<name>.yaml``) is read once, at the edge, into a frozen
:class:`PlatformConfig`. Every mistake a user can make ends in :class:`ConfigError`, whose message is one
line naming the field, the bad value and what is allowed. Nothing past this module re-validates input.
"""

from __future__ import annotations

import ipaddress
import math
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (BaseModel, ConfigDict, Field, Strict, ValidationError, ValidationInfo, field_validator,
                      model_validator)

from eks_training.core.fsx import DATA_IMPORT_EVENTS, WORKSPACE_EXPORT_EVENTS, WORKSPACE_IMPORT_EVENTS
from eks_training.core.names import (CPU_FLAVOR, FSX_DATA_DIR, FSX_WORKSPACES_DIR, PLATFORM_NAMESPACES, node_group_name,
                                     slurm_pool_name)
from eks_training.core.subnets import (AWS_RESERVED_IPS, default_training_prefix, largest_fitting_prefix,
                                       training_ips_needed, training_prefix_fits)
from eks_training.core.versions import KARPENTER_AMI_RELEASE, KUBERNETES_RELEASES, ami_release_date, creatable_versions
from eks_training.core.catalog import INSTANCE_TYPES, check_accelerator, check_efa, instance_facts, node_capacity
from eks_training.workloads.kueue_admission import GangAdmission
from eks_training.core.validation import (
    ENDPOINT_ACCESS, IDLE_MINUTES, LOG_RETENTION_DAYS, NODE_GROUP_CAPACITY_TYPES, InvalidValue, check_addon_version,
    check_addon_versions, check_bucket_name, check_capacity_reservation, check_endpoint_access, check_job_reference,
    check_kubernetes_version, check_metrics_namespace, check_karpenter_capacity, check_node_group_sizes, check_oidc_sign_in, check_pinned_image,
    check_region, check_role_arn, check_vpc_cidr, check_zones, invalid, DEPLOY_ACCOUNT, check_certificate_arn,
    check_client_cidrs,
)
from eks_training.infra.config_changes import ConfigChangeError, explain_refusal, upgrade_config

ENVIRONMENTS_DIR = Path(__file__).resolve().parent / "environments"

#: Kubernetes versions the platform builds; the source document's set (1.31-1.33) plus the newer ones.
KUBERNETES_VERSIONS = tuple(KUBERNETES_RELEASES)

_DNS_LABEL = re.compile(r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")


@dataclass(frozen=True)
class KueueFlavorSource:
    """One Kueue ResourceFlavor: the nodes of one instance type of one node source (or the team CPU nodes), and how many
    of them the source can ever hold."""

    name: str
    #: The node group's EKS name or the Karpenter pool's name (what its nodes' source label says: Kueue's
    #: SOURCE_LABEL); "team" for the team CPU nodes.
    source: str
    kind: str  # "node group" | "Karpenter pool" | "team"
    instance_type: str
    max_nodes: int
    #: The most accelerators the source holds at once: a pool's limit is shared by the flavors of its types.
    source_accelerators: int
    #: Network layers its nodes carry for topology-aware admission; 0: a quota-only flavor. Only node groups get them:
    #: Kueue places by topology only on nodes that exist (it counts Ready nodes), and a Karpenter pool has none until
    #: a pod asks for one, which a queued job never does before admission.
    topology_layers: int = 0

    @property
    def accelerator(self) -> str | None:
        return INSTANCE_TYPES[self.instance_type].accelerator if self.kind != "team" else None

    def resources(self, quota: "KueueQuotaConfig") -> dict[str, int]:
        """``quota`` as amounts: accelerators, cpu, memory_gib and EFA interfaces (cpu and memory default to what the
        accelerators' whole nodes offer, so a job of N nodes fits a quota of N nodes' accelerators)."""
        capacity = node_capacity(self.instance_type)
        if self.kind == "team":
            return {"accelerators": 0, "cpu": quota.cpu or 0, "memory_gib": quota.memory_gib or 0, "efa": 0}
        nodes = -(-quota.accelerators // capacity.accelerators)
        return {"accelerators": quota.accelerators,
                "cpu": quota.cpu if quota.cpu is not None else nodes * int(capacity.allocatable_cpu),
                "memory_gib": quota.memory_gib if quota.memory_gib is not None
                else nodes * int(capacity.allocatable_memory / 2**30),
                "efa": nodes * capacity.efa_interfaces}

    def capacity(self) -> dict[str, int]:
        """The most this flavor's nodes ever offer (accelerators: the source's, shared by a pool's flavors)."""
        node = node_capacity(self.instance_type)
        return {"accelerators": self.source_accelerators, "cpu": self.max_nodes * int(node.allocatable_cpu),
                "memory_gib": self.max_nodes * int(node.allocatable_memory / 2**30)}


class ConfigError(Exception):
    """A configuration mistake; ``str(err)`` is one line that says what is wrong and what is allowed."""


class _Model(BaseModel):
    """Base of every config section: unknown keys are errors, objects are immutable once built."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


_INSTANCE_TYPE = r"^[a-z][a-z0-9-]*\.[a-z0-9]+$"
_FILE_SYSTEM_PATH = r"^/[A-Za-z0-9._/-]*$"
_S3_PREFIX = r"^[A-Za-z0-9!_.*'()/-]*$"
_ACCOUNT = r"^\d{12}$"
_AMI_RELEASE = r"^(latest|v\d{8})$"
#: What each pattern allows, in words: pattern errors name this instead of the regular expression.
_PATTERN_HELP = {
    _DNS_LABEL.pattern: "use lowercase letters, digits and '-', starting with a letter (e.g. gpu-h100)",
    _INSTANCE_TYPE: "use an EC2 instance type such as m6i.2xlarge",
    _FILE_SYSTEM_PATH: "use an absolute path of letters, digits and . _ / - (e.g. /data)",
    _S3_PREFIX: "use an S3 key prefix of letters, digits and ! _ . * ' ( ) / -",
    _ACCOUNT: "use the 12-digit AWS account id",
    _AMI_RELEASE: "use an AL2023 EKS AMI release such as v20260911 (an amazon-eks-ami tag), or latest",
}

Name = Annotated[str, Field(pattern=_DNS_LABEL.pattern, max_length=40)]
#: A YAML boolean is `true` or `false`: pydantic's lax mode would also take "no", "off", "0" or 1 (the loader keeps
#: YAML 1.1's yes/no/on/off as strings, and this refuses them instead of guessing).
Bool = Annotated[bool, Strict()]
PositiveInt = Annotated[int, Field(ge=1)]
NonNegativeInt = Annotated[int, Field(ge=0)]


class EgressConfig(_Model):
    """A destination outside the VPC that every workload pod may reach (NetworkPolicy takes networks, not names)."""

    name: Name
    #: An IPv4 network, e.g. 203.0.113.0/24 (a package mirror, a model hub's addresses).
    cidr: str
    ports: tuple[Annotated[int, Field(ge=1, le=65535)], ...] = Field(default=(443,), min_length=1)

    @field_validator("cidr")
    @classmethod
    def _cidr(cls, value: str) -> str:
        try:
            network = ipaddress.ip_network(value, strict=True)
        except ValueError:
            network = None
        if network is None or network.version != 4:
            raise invalid("cidr", value, "use an IPv4 network such as 203.0.113.0/24 (host bits zero)")
        return value


class NetworkConfig(_Model):
    """The VPC: its CIDR, NAT gateways and VPC endpoints, or an existing VPC by ids."""

    cidr: str = "10.0.0.0/16"
    #: Prefix length of the training subnet in the training AZ; None: the upper half of `cidr` (a /17 in a /16).
    #: Never derived from capacity: changing it (or `cidr`) replaces the subnet, the file system and the node groups
    #: in it, so set it before the first deploy; the deploy check warns when capacity could outgrow it.
    training_subnet_prefix: Annotated[int, Field(ge=16, le=28)] | None = None
    nat_gateways: Annotated[int, Field(ge=1, le=3)] = 1
    vpc_endpoints: Bool = True
    #: Workload pods (training namespaces, Slurm, notebooks) send HTTPS only to the VPC's endpoints (S3, ECR, STS,
    #: CloudWatch Logs, EC2) and the Kubernetes API, never to the internet. Needs vpc_endpoints; false: HTTPS to any
    #: address (through the NAT gateways).
    restrict_egress: Bool = True
    #: More destinations every workload pod may reach beyond the VPC (a package mirror...), by network and ports.
    egress_allowed: tuple[EgressConfig, ...] = ()

    @field_validator("cidr")
    @classmethod
    def _cidr(cls, value: str) -> str:
        return check_vpc_cidr("cidr", value)  # the TrainingNetwork construct's check

    @model_validator(mode="after")
    def _egress(self) -> "NetworkConfig":
        if self.restrict_egress and not self.vpc_endpoints:
            raise invalid("restrict_egress", True, "false with vpc_endpoints: false (pods would reach neither S3 nor ECR "
                          "nor STS: they are inside the VPC only through its endpoints), or turn vpc_endpoints on")
        names = [e.name for e in self.egress_allowed]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise invalid("egress_allowed names", dupes, "give each destination a unique name")
        return self


class ClusterConfig(_Model):
    """The EKS control plane."""

    #: Private by default: a public endpoint needs `public_access_cidrs` naming who may reach it.
    endpoint_access: Literal[ENDPOINT_ACCESS] = "private"  # type: ignore[valid-type]
    #: Client networks the public endpoint admits (0.0.0.0/0 is accepted with a synth warning).
    public_access_cidrs: tuple[str, ...] = ()
    #: IAM roles your people use, given cluster-admin through EKS access entries (at least one: nobody else can get
    #: in). `arn:aws:iam::${AWS::AccountId}:role/NAME` names a role of the deploy account; it must exist first.
    admin_role_arns: tuple[str, ...] = ()
    #: Keep the identity that deploys the stack a cluster admin (EKS's bootstrap default). Off: admins are
    #: admin_role_arns only. Turn it on only for a cluster deployed with it on: changing it replaces the cluster.
    bootstrap_creator_admin: Bool = False
    #: EKS add-on builds ("vX.Y.Z-eksbuild.N") in place of the ones eks-training records for kubernetes_version
    #: (core/versions.py). An override stays when kubernetes_version changes: remove it when you upgrade.
    addon_versions: dict[str, str] = Field(default_factory=dict)
    #: A way into the private API endpoint (an EC2 Instance Connect Endpoint and a forwarding instance without IAM
    #: role; README "Reach a private cluster"). None: with a private endpoint only.
    api_tunnel: Bool | None = None
    #: Days CloudWatch keeps the control plane's logs (the audit log among them) and the VPC flow logs: the record an
    #: investigation reads, so a year by default whatever `observability.log_retention_days` says. With
    #: `storage.buckets.retain` both log groups and their keys also outlive `cdk destroy`.
    audit_log_retention_days: Literal[LOG_RETENTION_DAYS] = 365  # type: ignore[valid-type]

    @property
    def has_api_tunnel(self) -> bool:
        return self.endpoint_access == "private" if self.api_tunnel is None else self.api_tunnel

    @field_validator("public_access_cidrs")
    @classmethod
    def _cidrs(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for i, cidr in enumerate(value):
            try:
                ipaddress.ip_network(cidr, strict=True)
            except ValueError:
                raise invalid(f"public_access_cidrs[{i}]", cidr, "use a network such as 203.0.113.0/24") from None
        return value

    @model_validator(mode="after")
    def _public_needs_cidrs(self) -> "ClusterConfig":
        check_endpoint_access(self.endpoint_access, self.public_access_cidrs)  # the TrainingCluster's rule
        if self.endpoint_access == "public":  # here networks are required, which a public-only endpoint cannot take
            raise invalid("endpoint_access", "public", "public_and_private with public_access_cidrs naming your "
                          "networks (a public-only endpoint cannot be restricted to networks), or private")
        if self.endpoint_access != "private" and not self.public_access_cidrs:
            raise invalid("public_access_cidrs", [], f"with endpoint_access={self.endpoint_access!r} name the client "
                          "networks the public API endpoint admits (e.g. [203.0.113.0/24]), or use endpoint_access='private'")
        if self.endpoint_access == "private" and self.public_access_cidrs:
            raise invalid("public_access_cidrs", list(self.public_access_cidrs), "none with endpoint_access='private' "
                          "(it would be ignored): remove it or make the endpoint public_and_private")
        return self

    @field_validator("admin_role_arns")
    @classmethod
    def _arns(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for i, arn in enumerate(value):
            check_role_arn(f"admin_role_arns[{i}]", arn)
            if arn in value[:i]:
                raise invalid(f"admin_role_arns[{i}]", arn, "each role once (its access entry is keyed by the role)")
        return value

    @field_validator("addon_versions")
    @classmethod
    def _addons(cls, value: dict[str, str]) -> dict[str, str]:
        return check_addon_versions("addon_versions", value)


class SystemNodesConfig(_Model):
    """The managed node group that runs controllers and operators (AL2023, on-demand)."""

    instance_type: Annotated[str, Field(pattern=_INSTANCE_TYPE)] = "m6i.2xlarge"
    min_size: PositiveInt = 2
    desired_size: PositiveInt = 2
    max_size: PositiveInt = 4
    disk_gib: Annotated[int, Field(ge=20, le=2000)] = 100

    @field_validator("instance_type")
    @classmethod
    def _known_type(cls, value: str) -> str:
        # The check sizes every controller against this type's allocatable: it must be a type we know.
        node_capacity(value)
        return value

    @model_validator(mode="after")
    def _sizes(self) -> "SystemNodesConfig":
        check_node_group_sizes(self.min_size, self.desired_size, self.max_size, smallest=1)
        return self


class TeamNodesConfig(SystemNodesConfig):
    """The managed node group that runs the teams' CPU pods (data preparation, MPI launchers, Ray heads, Slurm login
    pods; AL2023, on-demand) in the training subnet, whose Lustre clients are root-squashed: none of them runs on the
    system nodes, which only the platform's pods tolerate. Kueue's `cpu` flavor is its nodes."""

    min_size: PositiveInt = 1
    desired_size: PositiveInt = 1


class RootVolumeConfig(_Model):
    """The encrypted gp3 root volume of an accelerated node."""

    size_gib: Annotated[int, Field(ge=100, le=16384)] = 500
    iops: Annotated[int, Field(ge=3000, le=16000)] = 10000
    throughput_mibps: Annotated[int, Field(ge=125, le=1000)] = 500


CapacityType = Literal[NODE_GROUP_CAPACITY_TYPES]  # type: ignore[valid-type]


class NodeGroupConfig(_Model):
    """One managed node group of accelerated instances in the training AZ."""

    name: Name
    instance_type: str
    min_size: NonNegativeInt = 0
    desired_size: NonNegativeInt = 0
    max_size: PositiveInt = 1
    capacity_type: CapacityType = "on-demand"
    #: Required for capacity-reservation and capacity-block: the ODCR or Capacity Block id.
    capacity_reservation_id: str | None = None
    efa: Bool = True
    root_volume: RootVolumeConfig = RootVolumeConfig()
    #: The group's name in EKS. Default: `name` and a digest of instance_type and capacity_type, so that changing
    #: either creates the new group beside the old one before the old one is deleted (under one name they would
    #: collide). Set it to `name` to keep a group deployed by an eks-training release before that under its name; a
    #: type change then collides with it, so remove this setting in the same change.
    nodegroup_name: Name | None = None

    @field_validator("instance_type")
    @classmethod
    def _known_type(cls, value: str) -> str:
        instance_facts(value)
        return value

    @property
    def eks_name(self) -> str:
        """The node group's name in EKS (what ``eks.amazonaws.com/nodegroup`` on its nodes says)."""
        return self.nodegroup_name or node_group_name(self.name, self.instance_type, self.capacity_type)

    @model_validator(mode="after")
    def _consistent(self) -> "NodeGroupConfig":
        # The same checks as the AcceleratedNodeGroup construct's: one rule for a file and for props.
        check_node_group_sizes(self.min_size, self.desired_size, self.max_size)
        check_capacity_reservation(self.capacity_type, self.capacity_reservation_id)
        check_efa("efa", self.efa, [self.instance_type])
        return self


class KarpenterPoolConfig(_Model):
    """One Karpenter NodePool + EC2NodeClass for an accelerator family."""

    name: Name
    instance_types: tuple[str, ...] = Field(min_length=1)
    #: Any of on-demand, spot and reserved (On-Demand Capacity Reservations or Capacity Blocks: give their ids).
    capacity_types: tuple[str, ...] = ("on-demand",)
    #: The cr- ids of the reservations the pool may use; required with "reserved", refused without it.
    capacity_reservation_ids: tuple[str, ...] = ()
    #: Most accelerators (GPUs or Neuron devices) the pool may hold at once.
    max_accelerators: PositiveInt = 16
    efa: Bool = True

    @field_validator("instance_types")
    @classmethod
    def _types(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for i, t in enumerate(value):
            instance_facts(t, field=f"instance_types[{i}]")
        kinds = {INSTANCE_TYPES[t].accelerator for t in value}
        if len(kinds) > 1:
            raise invalid("instance_types", list(value), "types of one accelerator kind: make one pool per kind "
                          "(GPU or Neuron)")
        return value

    @model_validator(mode="after")
    def _efa(self) -> "KarpenterPoolConfig":
        check_efa("efa", self.efa, self.instance_types)
        # The pool construct's own check: a file that loads also synthesizes.
        check_karpenter_capacity(self.capacity_types, self.capacity_reservation_ids)
        return self

    @property
    def accelerator(self) -> str:
        return INSTANCE_TYPES[self.instance_types[0]].accelerator


class CapacityConfig(_Model):
    """Where training runs: managed node groups per accelerator kind, and Karpenter pools."""

    gpu_node_groups: tuple[NodeGroupConfig, ...] = ()
    trainium_node_groups: tuple[NodeGroupConfig, ...] = ()
    karpenter_pools: tuple[KarpenterPoolConfig, ...] = ()
    #: The AL2023 EKS AMI release (amazon-eks-ami tag vYYYYMMDD) Karpenter's nodes boot, in the cluster's Kubernetes
    #: version. Their AMI moves only when this does: raising it drifts the pools' idle nodes (busy ones keep theirs).
    #: "latest" follows every AMI AWS publishes. It must be a release made since EKS offered kubernetes_version.
    karpenter_ami_release: Annotated[str, Field(pattern=_AMI_RELEASE)] = KARPENTER_AMI_RELEASE

    @model_validator(mode="after")
    def _kinds(self) -> "CapacityConfig":
        for field, wanted in (("gpu_node_groups", "nvidia"), ("trainium_node_groups", "neuron")):
            for i, group in enumerate(getattr(self, field)):
                check_accelerator(f"{field}[{i}].instance_type", group.instance_type, wanted)
        names = [g.name for g in (*self.gpu_node_groups, *self.trainium_node_groups)]
        pools = [p.name for p in self.karpenter_pools]
        for field, label, seen in (("node group names", "node group", names), ("karpenter_pools names", "pool", pools)):
            dupes = sorted({n for n in seen if seen.count(n) > 1})
            if dupes:
                raise invalid(field, dupes, f"give each {label} a unique name")
        return self


class DataRepositoryAssociationConfig(_Model):
    """A link between a path on the FSx file system and an S3 prefix."""

    file_system_path: Annotated[str, Field(pattern=_FILE_SYSTEM_PATH)]
    #: Which bucket of the platform: the training data or the checkpoints.
    bucket: Literal["data", "checkpoints"]
    s3_prefix: Annotated[str, Field(pattern=_S3_PREFIX)] = ""
    auto_import: tuple[Literal["NEW", "CHANGED", "DELETED"], ...] = ()
    auto_export: tuple[Literal["NEW", "CHANGED", "DELETED"], ...] = ()


#: core.fsx's setting names -> this file's.
_FSX_FIELDS = {"capacity_gib": "storage_capacity_gib", "per_unit_throughput": "per_unit_storage_throughput"}


class FsxConfig(_Model):
    """FSx for Lustre in the training AZ."""

    enabled: Bool = True
    deployment_type: Literal["PERSISTENT_2", "PERSISTENT_1", "SCRATCH_2"] = "PERSISTENT_2"
    storage_capacity_gib: PositiveInt = 1200
    #: MB/s per TiB; None takes the deployment type's default (250 for PERSISTENT_2, 200 for PERSISTENT_1).
    per_unit_storage_throughput: PositiveInt | None = None
    #: Days of daily automatic backups; None: 7 for persistent types, none for SCRATCH_2 (FSx cannot back it up).
    backup_retention_days: Annotated[int, Field(ge=0, le=90)] | None = None
    data_repository_associations: tuple[DataRepositoryAssociationConfig, ...] = (
        DataRepositoryAssociationConfig(file_system_path=FSX_DATA_DIR, bucket="data", s3_prefix="",
                                        auto_import=DATA_IMPORT_EVENTS),
        DataRepositoryAssociationConfig(file_system_path=FSX_WORKSPACES_DIR, bucket="checkpoints", s3_prefix="",
                                        auto_import=WORKSPACE_IMPORT_EVENTS, auto_export=WORKSPACE_EXPORT_EVENTS),
    )

    @model_validator(mode="after")
    def _lustre(self) -> "FsxConfig":
        from eks_training.core.fsx import check_lustre_settings

        try:
            check_lustre_settings(self.deployment_type, self.storage_capacity_gib, self.per_unit_storage_throughput)
        except InvalidValue as err:  # the same rule as the construct's, named as this file names the settings
            raise invalid(_FSX_FIELDS.get(err.field, err.field), err.value, err.allowed) from None
        if self.deployment_type.startswith("SCRATCH") and self.backup_retention_days:
            raise invalid("backup_retention_days", self.backup_retention_days,
                          f"0 or unset: FSx cannot back up {self.deployment_type} file systems")
        return self

    @model_validator(mode="after")
    def _platform_layout(self) -> "FsxConfig":
        # Every pod mounts FSX_DATA_DIR and its namespace's FSX_WORKSPACES_DIR/<ns>; the namespace's IAM role is
        # confined to s3://<checkpoint bucket>/<ns>/. Other links would leave those directories unbacked by S3 or
        # export a workspace outside the prefix its role may read.
        if not self.enabled:
            return self
        links = {(a.file_system_path.rstrip("/"), a.bucket, a.s3_prefix) for a in self.data_repository_associations}
        for path, bucket in ((FSX_DATA_DIR, "data"), (FSX_WORKSPACES_DIR, "checkpoints")):
            if (path, bucket, "") not in links:
                raise invalid("storage.fsx.data_repository_associations",
                              [a.file_system_path for a in self.data_repository_associations],
                              f"keep {path} linked to the {bucket} bucket with s3_prefix '' (pods mount it); add others "
                              "beside it")
        return self


class EfsConfig(_Model):
    """EFS model store (encrypted, elastic throughput) mounted by every training namespace."""

    enabled: Bool = True
    #: EFS automatic backups (AWS Backup's daily plan, kept 35 days).
    backups: Bool = True


class BucketsConfig(_Model):
    """S3 buckets for training data and checkpoints."""

    #: Keep the data (these buckets, the EFS model store, and an FSx file system an update replaces) when the stack
    #: or the resource goes. Default true: an environment deletes its data only when its file says so.
    retain: Bool = True
    noncurrent_checkpoint_days: Annotated[int, Field(ge=1, le=3650)] = 30
    data_bucket_name: str | None = None
    checkpoint_bucket_name: str | None = None

    @field_validator("data_bucket_name", "checkpoint_bucket_name")
    @classmethod
    def _bucket_name(cls, value: str | None, info: ValidationInfo) -> str | None:
        return value if value is None else check_bucket_name(str(info.field_name), value)

    @model_validator(mode="after")
    def _distinct_buckets(self) -> "BucketsConfig":
        if self.data_bucket_name is not None and self.data_bucket_name == self.checkpoint_bucket_name:
            raise invalid("checkpoint_bucket_name", self.checkpoint_bucket_name, "a name other than data_bucket_name")
        return self


class StorageConfig(_Model):
    """Training storage: FSx for Lustre, the EFS model store and the S3 buckets."""

    fsx: FsxConfig = FsxConfig()
    efs: EfsConfig = EfsConfig()
    buckets: BucketsConfig = BucketsConfig()


#: Each quota setting of a training namespace and the resource of :meth:`PlatformConfig.queue_limits` it bounds.
TEAM_QUOTA_RESOURCES = {"max_gpus": "nvidia", "max_neuron_devices": "neuron", "max_cpu": "cpu",
                        "max_memory_gib": "memory_gib"}
#: A training namespace's quota without Kueue, where its settings are left unset.
UNQUEUED_NAMESPACE_QUOTA = {"max_gpus": 64, "max_neuron_devices": 64, "max_cpu": 2000, "max_memory_gib": 16000}


class TrainingNamespaceConfig(_Model):
    """A team's namespace, where its training jobs run: its quota and the IAM roles of its members.

    With ``services.kueue`` on, each ``max_*`` left unset is what the team's Kueue queue can admit (its quotas plus
    what it may borrow); one set below that is refused (Kueue would admit jobs whose pods the namespace's quota then
    refuses). Without Kueue, unset means 64 GPUs, 64 Neuron devices, 2000 vCPUs and 16000 GiB.
    """

    #: Not one of the platform's own namespaces (kube-system, volcano-system, slurm, jupyterhub, ...).
    name: Name
    #: GPUs the namespace's pods may request at once; unset: what its Kueue queue admits (without Kueue: 64).
    max_gpus: NonNegativeInt | None = None
    #: Neuron devices, likewise (without Kueue: 64).
    max_neuron_devices: NonNegativeInt | None = None
    #: vCPUs, likewise (without Kueue: 2000).
    max_cpu: PositiveInt | None = None
    #: Memory in GiB, likewise (without Kueue: 16000).
    max_memory_gib: PositiveInt | None = None
    max_pods: PositiveInt = 500
    #: IAM roles of the team's people: each gets an EKS access entry whose rights are this namespace's only (submit,
    #: watch and delete jobs, read logs and events, exec into pods; no Secrets, no RBAC, no NetworkPolicies, nothing
    #: cluster-wide). A role belongs to one team and is none of cluster.admin_role_arns.
    members: tuple[str, ...] = ()

    @field_validator("name")
    @classmethod
    def _not_the_platforms(cls, value: str) -> str:
        if value in PLATFORM_NAMESPACES:
            raise invalid("name", value, f"a namespace of your own: {value} belongs to {PLATFORM_NAMESPACES[value]} "
                          f"(reserved: {', '.join(PLATFORM_NAMESPACES)})")
        return value

    @field_validator("members")
    @classmethod
    def _member_roles(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for i, arn in enumerate(value):
            check_role_arn(f"members[{i}]", arn)
        if len(set(value)) != len(value):
            raise invalid("members", list(value), "name each role once")
        return value


class VolcanoQueueConfig(_Model):
    """A Volcano queue and its capability (the most it may hold at once)."""

    name: Name
    weight: PositiveInt = 1
    gpus: NonNegativeInt = 64
    neuron_devices: NonNegativeInt = 0
    cpu: PositiveInt = 1000
    memory_gib: PositiveInt = 8000
    reclaimable: Bool = True


class KueueQuotaConfig(_Model):
    """A queue's nominal quota on one ResourceFlavor: what it may hold at once without borrowing."""

    #: A flavor of the environment: a node group's or Karpenter pool's name (a pool of several instance types has one
    #: flavor per type, `<pool>-<size>`, e.g. gpu-g5-12xlarge), or `cpu` (CPU jobs on the team CPU nodes, `team_nodes`).
    flavor: Name
    #: GPUs or Neuron devices (by the flavor's accelerator); 0 on `cpu`.
    accelerators: NonNegativeInt = 0
    #: vCPUs; None: what `accelerators` worth of whole nodes offer (required on `cpu`).
    cpu: PositiveInt | None = None
    #: Memory in GiB; None: what `accelerators` worth of whole nodes offer (required on `cpu`).
    memory_gib: PositiveInt | None = None
    #: Accelerators it may borrow from its cohort beyond its quota when others leave theirs idle; None: no limit.
    borrowing_limit: NonNegativeInt | None = None


class KueueGangAdmissionConfig(_Model):
    """All-or-nothing admission (Kueue's waitForPodsReady): a job whose pods are not all Ready in time gives its quota
    back and is requeued with an exponential backoff. The defaults and why: ``GangAdmission`` (workloads/kueue.py)."""

    #: Minutes from admission until every pod of a job is Ready; past it the job is evicted and requeued.
    timeout_minutes: PositiveInt = GangAdmission.timeout_minutes
    #: Minutes a running job that lost a pod has to get it back Ready, before it is requeued.
    recovery_timeout_minutes: PositiveInt = GangAdmission.recovery_timeout_minutes
    #: Seconds before the first requeue; each next one waits twice as long, at most backoff_max_seconds.
    backoff_base_seconds: PositiveInt = GangAdmission.backoff_base_seconds
    backoff_max_seconds: PositiveInt = GangAdmission.backoff_max_seconds
    #: Requeues before Kueue deactivates the job (its Workload shows it inactive); None: requeue for ever.
    backoff_limit_count: NonNegativeInt | None = GangAdmission.backoff_limit_count

    @model_validator(mode="after")
    def _backoff_order(self) -> "KueueGangAdmissionConfig":
        if self.backoff_max_seconds < self.backoff_base_seconds:
            raise invalid("services.kueue_gang_admission.backoff_max_seconds", self.backoff_max_seconds,
                          f"at least backoff_base_seconds ({self.backoff_base_seconds})")
        return self


class KueueQueueConfig(_Model):
    """A team's Kueue ClusterQueue: its quotas, the namespaces that submit to it (each gets a LocalQueue of this name)
    and the cohort whose idle quota it may borrow."""

    name: Name
    namespaces: tuple[Name, ...] = Field(min_length=1)
    quotas: tuple[KueueQuotaConfig, ...] = Field(min_length=1)
    #: Queues of one cohort lend each other what they leave idle (and reclaim it); None: this queue keeps to itself.
    cohort: Name | None = "training"


class SlurmPartitionConfig(_Model):
    """A Slurm partition: one Slinky NodeSet on one accelerated instance type."""

    name: Name
    instance_type: str
    replicas: NonNegativeInt = 0
    max_nodes: PositiveInt = 4

    @field_validator("instance_type")
    @classmethod
    def _known_type(cls, value: str) -> str:
        instance_facts(value)
        return value


class SignInConfig(_Model):
    """JupyterHub sign-in through your OpenID Connect provider; the client secret stays in a Kubernetes Secret."""

    #: The provider's authorization endpoint (https://).
    authorize_url: str
    #: The provider's token endpoint (https://).
    token_url: str
    #: The provider's user-info endpoint (https://).
    userdata_url: str
    client_id: Annotated[str, Field(min_length=1, max_length=256)]
    #: Kubernetes Secret (key `client-secret`) in the jupyterhub namespace, created with kubectl before sign-in.
    client_secret_name: Name = "jupyterhub-oidc"
    #: Who may sign in: usernames here and/or groups in `allowed_groups` (at least one of the two).
    allowed_users: tuple[str, ...] = ()
    allowed_groups: tuple[str, ...] = ()
    #: The hub's http(s)://HOST/hub/oauth_callback URL, as registered with the provider.
    callback_url: str = "http://localhost:8000/hub/oauth_callback"

    @model_validator(mode="after")
    def _sign_in(self) -> "SignInConfig":
        # The OidcSignIn workload's own check, so a file that loads also synthesizes.
        check_oidc_sign_in(authorize_url=self.authorize_url, token_url=self.token_url, userdata_url=self.userdata_url,
                           callback_url=self.callback_url, client_id=self.client_id, allowed_users=self.allowed_users,
                           allowed_groups=self.allowed_groups)
        return self


class HubLoadBalancerConfig(_Model):
    """JupyterHub over HTTPS through an internal load balancer: notebook users reach it from their networks and sign
    in with the OIDC provider, with no Kubernetes identity and no kubectl."""

    #: ACM certificate of the hub's host name (the host of `jupyterhub_sign_in.callback_url`), in `region`.
    certificate_arn: str
    #: Client networks the load balancer admits (your VPN, your offices). Empty: the VPC's own network only.
    source_ranges: tuple[str, ...] = ()

    @field_validator("source_ranges")
    @classmethod
    def _networks(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return check_client_cidrs("source_ranges", value) if value else value

    @field_validator("certificate_arn")
    @classmethod
    def _certificate(cls, value: str) -> str:
        return check_certificate_arn("certificate_arn", value)


class LoginLoadBalancerConfig(_Model):
    """Slurm's login pods over SSH through an internal load balancer: people log in as their directory's users
    (`slurm_sssd_conf_secret`), with no Kubernetes identity and no kubectl."""

    #: Client networks the load balancer admits (your VPN, your offices). Empty: the VPC's own network only.
    source_ranges: tuple[str, ...] = ()

    @field_validator("source_ranges")
    @classmethod
    def _networks(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return check_client_cidrs("source_ranges", value) if value else value


class ServicesConfig(_Model):
    """Cluster services: operators from their official charts and what we configure on top."""

    karpenter: Bool = True
    volcano: Bool = True
    kuberay: Bool = True
    mpi_operator: Bool = True
    slinky: Bool = True
    jupyterhub: Bool = False
    #: Required with `jupyterhub: true`: who may sign in, and through which provider.
    jupyterhub_sign_in: SignInConfig | None = None
    #: The hub behind an internal HTTPS load balancer (None: reached with `kubectl port-forward` by cluster users).
    jupyterhub_load_balancer: HubLoadBalancerConfig | None = None
    nvidia_device_plugin: Bool = True
    neuron_device_plugin: Bool = True
    neuron_scheduler_extension: Bool = False
    efa_device_plugin: Bool = True
    #: Default-deny NetworkPolicies per workload namespace (and the VPC CNI's policy agent that enforces them).
    network_policies: Bool = True
    volcano_queues: tuple[VolcanoQueueConfig, ...] = (VolcanoQueueConfig(name="ml-training-queue"),)
    #: Kueue: every Kubernetes job kind `eks-training render` writes (but volcano-job) is queued by team quota.
    kueue: Bool = False
    #: Required with `kueue: true`: one ClusterQueue per team; every training namespace in exactly one of them.
    kueue_queues: tuple[KueueQueueConfig, ...] = ()
    #: How long an admitted job's pods have to be Ready before it gives its quota back, and how it is requeued.
    kueue_gang_admission: KueueGangAdmissionConfig = KueueGangAdmissionConfig()
    #: Kubeflow Trainer v2 (and JobSet, which it runs on): the `trainjob` kind and one ClusterTrainingRuntime per
    #: GPU instance type of the environment.
    kubeflow_trainer: Bool = False
    #: Restarts of the whole job after a pod or a node is lost (TrainJob, indexed Job, Volcano Job), each resuming
    #: from the newest complete checkpoint.
    job_max_restarts: Annotated[int, Field(ge=0, le=100)] = 3
    slurm_partitions: tuple[SlurmPartitionConfig, ...] = ()
    #: Secret of the slurm namespace (key `sssd.conf`) with your directory's SSSD configuration (LDAP, AD, FreeIPA):
    #: who may log in to Slurm over SSH, their uids and SSH public keys. Create it before people log in; None: the
    #: login pods know no user (nobody logs in; root never does). Its domain must set `min_id = 1000`: an account
    #: with uid 401 would be the login pod's slurm user, who reads the Slurm key.
    slurm_sssd_conf_secret: Name | None = None
    #: Slurm's login pods behind an internal SSH load balancer (None: reached with `kubectl exec` by cluster users).
    slurm_login_load_balancer: LoginLoadBalancerConfig | None = None
    ray_worker_instance_type: str | None = None
    ray_max_workers: NonNegativeInt = 4


class ImagesConfig(_Model):
    """Where the training images come from: built from `training/` and pushed by `cdk deploy` (the default), or given.

    With ``build_training_images`` the stack builds every variant the environment uses (gpu, neuron, ray, slurmd)
    and the fields below are ignored; without it, jobs, notebooks, Ray and Slurm use these images, which must hold
    the ``eks_training`` package (build them from `training/Dockerfile.*`).
    """

    build_training_images: Bool = True
    gpu_image: str | None = None
    neuron_image: str | None = None
    ray_image: str | None = None
    slurmd_image: str | None = None

    @model_validator(mode="after")
    def _given_images_are_pinned(self) -> "ImagesConfig":
        for field in ("gpu_image", "neuron_image", "ray_image", "slurmd_image"):
            image = getattr(self, field)
            if image is None:
                continue
            if self.build_training_images:
                raise invalid(field, image, "none while build_training_images is true (it would be ignored): set "
                              "build_training_images: false to use your own image")
            # JupyterHub's rule too (it pulls name:tag): a file that loads also synthesizes.
            check_pinned_image(field, image)
        return self


class ObservabilityConfig(_Model):
    """Metrics, logs, dashboard and alarms (the CloudWatch Observability and node monitoring EKS add-ons)."""

    enabled: Bool = True
    #: Days CloudWatch keeps container, node and training-metric logs (a CloudWatch Logs retention value).
    log_retention_days: Literal[LOG_RETENTION_DAYS] = 30  # type: ignore[valid-type]
    #: CloudWatch namespace of the trainer's metrics (embedded metric format).
    metrics_namespace: str = "EksTraining"
    #: Minutes of accelerators under 5% utilisation before the idle alarm fires.
    idle_minutes: Annotated[int, Field(ge=IDLE_MINUTES[0], le=IDLE_MINUTES[1])] = 30
    #: Version of the CloudWatch Observability EKS add-on, vX.Y.Z-eksbuild.N.
    cloudwatch_addon_version: str = "v4.10.3-eksbuild.1"
    #: Version of the EKS node monitoring agent add-on, vX.Y.Z-eksbuild.N.
    node_monitoring_addon_version: str = "v1.6.0-eksbuild.1"
    #: "namespace/job" entries that get a throughput-drop alarm.
    alarm_jobs: tuple[str, ...] = ()
    #: SNS topic the alarms notify (none: a topic of the stack, AlarmTopicArn among its outputs, to subscribe to).
    alarm_topic_arn: Annotated[str, Field(pattern=r"^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$")] | None = None

    # The ObservabilityStack construct's own checks: one rule for a file and for props.
    @field_validator("metrics_namespace")
    @classmethod
    def _metrics_namespace(cls, value: str) -> str:
        return check_metrics_namespace("metrics_namespace", value)

    @field_validator("cloudwatch_addon_version", "node_monitoring_addon_version")
    @classmethod
    def _addon_version(cls, value: str, info: ValidationInfo) -> str:
        return check_addon_version(str(info.field_name), value)

    @field_validator("alarm_jobs")
    @classmethod
    def _alarm_jobs(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for i, job in enumerate(value):
            check_job_reference(f"alarm_jobs[{i}]", job)
        return value


class GitOpsConfig(_Model):
    """Optional Argo CD Applications pointing at the review manifests in a Git repository."""

    enabled: Bool = False
    #: Git repository that holds the review manifests.
    repo_url: str = "https://github.com/your-org/ml-platform"
    #: Branch, tag or commit Argo CD follows.
    revision: str = "main"
    #: Folder in the repository above `<env>/`.
    path_prefix: str = "manifests"


class PlatformConfig(_Model):
    """One environment of the platform, as validated from its YAML file."""

    name: Name
    region: str
    account: Annotated[str, Field(pattern=_ACCOUNT)] | None = None
    #: At least two (EKS needs two), one of them training_az.
    availability_zones: tuple[str, ...] = Field(max_length=6)
    training_az: str
    #: The Kubernetes minor version the cluster runs, quoted ("1.36"). It changes only when you change it,
    #: one minor version per deploy (the control plane, then add-ons, then node groups follow); past EKS standard
    #: support it is a synth warning with the price of extended support, after extended support it is refused.
    kubernetes_version: str
    network: NetworkConfig = NetworkConfig()
    cluster: ClusterConfig = ClusterConfig()
    system_nodes: SystemNodesConfig = SystemNodesConfig()
    team_nodes: TeamNodesConfig = TeamNodesConfig()
    capacity: CapacityConfig = CapacityConfig()
    storage: StorageConfig = StorageConfig()
    training_namespaces: tuple[TrainingNamespaceConfig, ...] = (TrainingNamespaceConfig(name="training"),)
    services: ServicesConfig = ServicesConfig()
    images: ImagesConfig = ImagesConfig()
    observability: ObservabilityConfig = ObservabilityConfig()
    gitops: GitOpsConfig = GitOpsConfig()
    tags: dict[str, str] = Field(default_factory=dict)
    #: CloudFormation termination protection of the stack: `cdk destroy` (and any stack deletion) is refused until
    #: it is turned off (set false and deploy). Default on: a platform is deleted only on purpose.
    termination_protection: Bool = True

    @model_validator(mode="before")
    @classmethod
    def _version_named(cls, data: Any) -> Any:
        if isinstance(data, dict) and "kubernetes_version" not in data:
            # No default: one that followed the calendar would upgrade the control plane on a later deploy unasked.
            raise invalid("kubernetes_version", None, f"name the version the cluster runs, quoted, e.g. "
                          f"\"{creatable_versions(date.today())[-1]}\" (eks-training never picks one by date)")
        return data

    @field_validator("kubernetes_version", mode="before")
    @classmethod
    def _kubernetes_version(cls, value: object) -> str:
        if isinstance(value, float):  # YAML reads 1.36 unquoted as a number (and 1.30 as 1.3)
            raise invalid("kubernetes_version", value, f"quote it: \"{value:.2f}\" (one of "
                          f"{', '.join(creatable_versions(date.today()))})")
        return check_kubernetes_version("kubernetes_version", value, date.today())

    @field_validator("region")
    @classmethod
    def _region(cls, value: str) -> str:
        return check_region("region", value)

    @model_validator(mode="after")
    def _ami_release_has_the_version(self) -> "PlatformConfig":
        built, since = ami_release_date(self.capacity.karpenter_ami_release), \
            KUBERNETES_RELEASES[self.kubernetes_version].on_eks_since
        if built is not None and since is not None and built < since:
            raise invalid("capacity.karpenter_ami_release", self.capacity.karpenter_ami_release,
                          f"a release made since {since}, when EKS began offering Kubernetes {self.kubernetes_version} "
                          "(an older one holds no AMI of it, and Karpenter would launch no node)")
        return self

    @field_validator("tags")
    @classmethod
    def _tags(cls, value: dict[str, str]) -> dict[str, str]:
        for key, val in value.items():
            if not 1 <= len(key) <= 128 or key.lower().startswith("aws:"):
                raise invalid("tags key", key, "use 1-128 characters, not starting with 'aws:'")
            if len(val) > 256:
                raise invalid(f"tags[{key!r}]", val, "use at most 256 characters")
            for field, text in (("tags key", key), (f"tags[{key!r}]", val)):
                if not re.match(r"^[\w .:/=+@-]*$", text):
                    raise invalid(field, text, "use letters, digits, spaces and _ . : / = + - @ (the characters AWS takes)")
        return value

    @model_validator(mode="after")
    def _zones(self) -> "PlatformConfig":
        for i, az in enumerate(self.availability_zones):
            if not (az.startswith(self.region) and re.match(r"^[a-z]$", az[len(self.region):])):
                raise invalid(f"availability_zones[{i}]", az, f"use a zone of region {self.region}, e.g. {self.region}a")
        check_zones(self.availability_zones, self.training_az)  # the TrainingNetwork construct's check
        ns = [n.name for n in self.training_namespaces]
        if len(set(ns)) != len(ns):
            raise invalid("training_namespaces names", ns, "give each namespace a unique name")
        if not self.cluster.admin_role_arns:
            # The cluster's other access entries are the deploy's kubectl handler and the nodes: no person's.
            raise invalid("cluster.admin_role_arns", [], "name at least one IAM role your people use to reach the "
                          f"cluster, e.g. arn:aws:iam::{DEPLOY_ACCOUNT}:role/eks-training-admin (the deploy account's)")
        if self.services.slinky and self.services.slurm_partitions:
            if not self.services.karpenter:
                raise invalid("services.karpenter", False, "true with services.slurm_partitions: each Slurm "
                              "partition runs on Karpenter nodes of its own (slurmd is privileged)")
            taken = {p.name for p in self.capacity.karpenter_pools}
            for partition in self.services.slurm_partitions:
                if slurm_pool_name(partition.name) in taken:
                    raise invalid("capacity.karpenter_pools names", slurm_pool_name(partition.name),
                                  f"another name: the Slurm partition {partition.name!r} has the pool of this name")
        if self.services.jupyterhub and self.services.jupyterhub_sign_in is None:
            raise invalid("services.jupyterhub_sign_in", None, "give one with services.jupyterhub: true, as "
                          "JupyterHub's default authenticator lets anyone in (your OIDC provider's URLs, client id "
                          "and an allow-list)")
        self._check_load_balancers()
        if self.services.jupyterhub and not self.on_demand_instance_types():
            raise invalid("services.jupyterhub", True, "only with accelerated capacity a notebook gets on demand: "
                          "a Karpenter pool, or a node group with desired_size > 0")
        return self

    def _check_load_balancers(self) -> None:
        services = self.services
        hub = services.jupyterhub_load_balancer
        if hub is not None:
            if not services.jupyterhub:
                raise invalid("services.jupyterhub_load_balancer", hub.model_dump(), "none without services.jupyterhub: "
                              "true (it would be ignored)")
            check_certificate_arn("services.jupyterhub_load_balancer.certificate_arn", hub.certificate_arn,
                                  region=self.region)
            callback = services.jupyterhub_sign_in.callback_url if services.jupyterhub_sign_in else None
            if callback is not None and not callback.startswith("https://"):
                raise invalid("services.jupyterhub_sign_in.callback_url", callback, "https://<the certificate's host "
                              "name>/hub/oauth_callback with jupyterhub_load_balancer: the browser comes back through "
                              "its TLS listener")
        if services.slurm_login_load_balancer is not None and not (services.slinky and services.slurm_partitions):
            raise invalid("services.slurm_login_load_balancer", services.slurm_login_load_balancer.model_dump(),
                          "none without services.slinky and services.slurm_partitions (it would be ignored)")

    @model_validator(mode="after")
    def _training_subnet_fits(self) -> "PlatformConfig":
        # The TrainingNetwork construct's sums, run here so that the error names the setting. Capacity is not part
        # of them: a pool limit or a node count never moves the subnet (see training_capacity_shortfall).
        prefix, zones = self.training_prefix(), len(self.availability_zones)
        if training_prefix_fits(self.network.cidr, zones, prefix):
            return self
        best = largest_fitting_prefix(self.network.cidr, zones)
        given = self.network.training_subnet_prefix
        fits = (f"a prefix from /{best} to /28 fits network.cidr {self.network.cidr} beside {zones} zones' public and "
                "private subnets" if best is not None else
                f"none fits network.cidr {self.network.cidr} beside {zones} zones' subnets: use a larger network.cidr")
        allowed = (fits if given is not None else
                   f"set one: the default /{prefix} (the upper half of network.cidr) does not fit; {fits}")
        raise invalid("network.training_subnet_prefix", given, allowed)

    def training_prefix(self) -> int:
        """The training subnet's prefix length: ``network.training_subnet_prefix``, else the upper half of the VPC."""
        given = self.network.training_subnet_prefix
        return given if given is not None else default_training_prefix(self.network.cidr)

    def training_capacity_shortfall(self) -> tuple[int, int] | None:
        """(addresses the accelerated capacity needs at full scale, addresses the training subnet holds) when the
        first exceeds the second; None when it fits."""
        needed = training_ips_needed([(nodes, 1) for _, _, nodes, _ in self.training_subnet_demand()])
        held = 2 ** (32 - self.training_prefix()) - AWS_RESERVED_IPS
        return (needed, held) if needed > held else None

    def training_subnet_demand(self) -> list[tuple[str, int, int, int]]:
        """(field, value, nodes at full scale, value per node) of each setting that puts nodes in the training
        subnet: accelerated node groups, Karpenter pools, the Slurm partitions' own pools and the team CPU nodes."""
        demand = []
        for field in ("gpu_node_groups", "trainium_node_groups"):
            for i, group in enumerate(getattr(self.capacity, field)):
                demand.append((f"capacity.{field}[{i}].max_size", group.max_size, group.max_size, 1))
        for i, pool in enumerate(self.capacity.karpenter_pools):
            smallest = min(INSTANCE_TYPES[t].accelerators for t in pool.instance_types)
            demand.append((f"capacity.karpenter_pools[{i}].max_accelerators", pool.max_accelerators,
                           math.ceil(pool.max_accelerators / smallest), smallest))
        if self.services.slinky:
            for i, partition in enumerate(self.services.slurm_partitions):
                demand.append((f"services.slurm_partitions[{i}].max_nodes", partition.max_nodes, partition.max_nodes, 1))
        demand.append(("team_nodes.max_size", self.team_nodes.max_size, self.team_nodes.max_size, 1))
        return demand

    @model_validator(mode="after")
    def _kueue_queues(self) -> "PlatformConfig":
        services = self.services
        names = [q.name for q in services.kueue_queues]
        if not services.kueue:
            if names:
                raise invalid("services.kueue_queues", names, "none while services.kueue is false (they would be "
                              "ignored): set kueue: true, or remove them")
            return self
        flavors = {f.name: f for f in self.kueue_flavors()}
        every_name = [f.name for f in self.kueue_flavors()]
        clashes = sorted({n for n in every_name if every_name.count(n) > 1})
        if clashes:
            raise invalid("capacity names", clashes, "names whose Kueue flavors differ: 'cpu' is the team CPU nodes' "
                          "flavor, and a pool of several types makes <pool>-<size> flavors")
        if len(set(names)) != len(names):
            raise invalid("services.kueue_queues names", names, "give each queue a unique name")
        training = [n.name for n in self.training_namespaces]
        owner: dict[str, str] = {}
        used: dict[str, list[tuple[str, dict[str, int]]]] = {}
        for i, queue in enumerate(services.kueue_queues):
            for namespace in queue.namespaces:
                field = f"services.kueue_queues[{i}].namespaces"
                if namespace not in training:
                    raise invalid(field, namespace, f"a training namespace: {', '.join(training)}")
                if namespace in owner:
                    raise invalid(field, namespace, f"one queue per namespace ({namespace!r} submits to {owner[namespace]!r})")
                owner[namespace] = queue.name
            seen: set[str] = set()
            for j, quota in enumerate(queue.quotas):
                where = f"services.kueue_queues[{i}].quotas[{j}]"
                flavor = flavors.get(quota.flavor)
                if flavor is None:
                    raise invalid(f"{where}.flavor", quota.flavor, f"a flavor of the environment: {', '.join(flavors)}")
                if quota.flavor in seen:
                    raise invalid(f"{where}.flavor", quota.flavor, "one quota per flavor in a queue")
                seen.add(quota.flavor)
                if flavor.kind == "team" and (quota.accelerators or not quota.cpu or not quota.memory_gib):
                    raise invalid(f"{where}.flavor", quota.flavor, "cpu with cpu and memory_gib and no accelerators "
                                  "(its nodes have none)")
                used.setdefault(quota.flavor, []).append((queue.name, flavor.resources(quota)))
        missing = [n for n in training if n not in owner]
        if missing:
            raise invalid("services.kueue_queues", names, f"a queue for every training namespace ({', '.join(missing)} "
                          "has none: add it to a queue's namespaces)")
        _check_quotas_fit(flavors, used)
        return self

    @model_validator(mode="after")
    def _teams(self) -> "PlatformConfig":
        """Each member role in one team and not an admin (an access entry per role); each namespace's quota at least
        what its Kueue queue admits."""
        admins = set(self.cluster.admin_role_arns)
        owner: dict[str, str] = {}
        for i, team in enumerate(self.training_namespaces):
            for j, arn in enumerate(team.members):
                field = f"training_namespaces[{i}].members[{j}]"
                if arn in admins:
                    raise invalid(field, arn, "a role that is not in cluster.admin_role_arns (an admin has the whole "
                                  "cluster already; a role has one access entry)")
                if arn in owner:
                    raise invalid(field, arn, f"a role of one team ({owner[arn]!r} names it already): give a person "
                                  "in two teams a role per team")
                owner[arn] = team.name
        if not self.services.kueue:
            return self
        for i, team in enumerate(self.training_namespaces):
            queue = self.kueue_queue(team.name)
            if queue is None:
                continue  # _kueue_queues refused it already
            admitted = self.queue_limits(queue)
            for setting, resource in TEAM_QUOTA_RESOURCES.items():
                given = getattr(team, setting)
                if given is not None and given < admitted[resource]:
                    j = self.services.kueue_queues.index(queue)
                    raise invalid(f"training_namespaces[{i}].{setting}", given,
                                  f"at least {admitted[resource]}, what its Kueue queue {queue.name!r} admits "
                                  f"({self.describe_queue_limit(queue, resource)}); leave it unset to take that, or "
                                  f"lower services.kueue_queues[{j}]'s quotas or borrowing_limit")
        return self

    def queue_limits(self, queue: "KueueQueueConfig") -> dict[str, int]:
        """The most ``queue`` holds at once, per resource (``nvidia`` GPUs, ``neuron`` devices, ``cpu``,
        ``memory_gib``): on each flavor its nominal quota plus what it may borrow, summed over the flavors."""
        totals = {"nvidia": 0, "neuron": 0, "cpu": 0, "memory_gib": 0}
        for flavor, amounts in self.queue_flavor_limits(queue).items():
            if flavor.accelerator is not None:
                totals[flavor.accelerator] += amounts["accelerators"]
            totals["cpu"] += amounts["cpu"]
            totals["memory_gib"] += amounts["memory_gib"]
        return totals

    def describe_queue_limit(self, queue: "KueueQueueConfig", resource: str) -> str:
        """Where ``queue``'s limit of ``resource`` comes from, flavor by flavor (those that add to it)."""
        key = resource if resource in ("cpu", "memory_gib") else "accelerators"
        parts = []
        for flavor, amounts in self.queue_flavor_limits(queue).items():
            if amounts[key] and (key != "accelerators" or flavor.accelerator == resource):
                own = amounts["own"][key]
                borrowed = amounts[key] - own
                parts.append(f"{flavor.name} {own}" + (f" + {borrowed} borrowed from cohort {queue.cohort}" if borrowed else ""))
        return ", ".join(parts) or "nothing"

    def queue_flavor_limits(self, queue: "KueueQueueConfig") -> dict[KueueFlavorSource, dict]:
        """Per flavor, what ``queue`` holds at most: its nominal quota, plus what it may borrow from its cohort (Kueue
        lists every flavor in every ClusterQueue: a queue borrows on one it has no quota on too). Borrowing is
        bounded by the queue's borrowing_limit (accelerators only) and by what the cohort's queues hold there."""
        cohort = [q for q in self.services.kueue_queues if queue.cohort is not None and q.cohort == queue.cohort]
        limits = {}
        for flavor in self.kueue_flavors():
            def nominal(q: KueueQueueConfig) -> tuple[dict[str, int], KueueQuotaConfig | None]:
                quota = next((x for x in q.quotas if x.flavor == flavor.name), None)
                return (flavor.resources(quota) if quota else {"accelerators": 0, "cpu": 0, "memory_gib": 0}), quota
            own, quota = nominal(queue)
            amounts: dict = {"own": own}
            for key in ("accelerators", "cpu", "memory_gib"):
                if not cohort:
                    amounts[key] = own[key]
                    continue
                pooled = sum(nominal(q)[0][key] for q in cohort)
                limit = quota.borrowing_limit if key == "accelerators" and quota is not None else None
                amounts[key] = pooled if limit is None else min(own[key] + limit, pooled)
            limits[flavor] = amounts
        return limits

    def namespace_quota(self, name: str) -> dict[str, int]:
        """The ResourceQuota of training namespace ``name``: each ``max_*`` setting, or where unset, what its Kueue
        queue admits (without Kueue: :data:`UNQUEUED_NAMESPACE_QUOTA`)."""
        team = next(n for n in self.training_namespaces if n.name == name)
        queue = self.kueue_queue(name) if self.services.kueue else None
        admitted = self.queue_limits(queue) if queue is not None else None
        quota = {}
        for setting, resource in TEAM_QUOTA_RESOURCES.items():
            given = getattr(team, setting)
            quota[setting] = given if given is not None else (
                admitted[resource] if admitted is not None else UNQUEUED_NAMESPACE_QUOTA[setting])
        quota["max_pods"] = team.max_pods
        return quota

    def kueue_flavors(self) -> tuple[KueueFlavorSource, ...]:
        """The Kueue ResourceFlavors of the environment: each accelerated node group, each instance type of each
        Karpenter pool, and the team CPU nodes."""
        flavors = []
        for group in self.accelerated_node_groups:
            facts = INSTANCE_TYPES[group.instance_type]
            flavors.append(KueueFlavorSource(group.name, group.eks_name, "node group", group.instance_type, group.max_size,
                                             group.max_size * facts.accelerators, facts.network_layers))
        for pool in self.capacity.karpenter_pools:
            for instance_type in pool.instance_types:
                name = pool.name if len(pool.instance_types) == 1 else f"{pool.name}-{instance_type.split('.', 1)[1]}"
                flavors.append(KueueFlavorSource(name, pool.name, "Karpenter pool", instance_type,
                                                 pool.max_accelerators // INSTANCE_TYPES[instance_type].accelerators,
                                                 pool.max_accelerators))
        flavors.append(KueueFlavorSource(CPU_FLAVOR, "team", "team", self.team_nodes.instance_type,
                                         self.team_nodes.max_size, 0))
        return tuple(flavors)

    def kueue_queue(self, namespace: str) -> KueueQueueConfig | None:
        """The Kueue queue ``namespace`` submits to (None without Kueue)."""
        return next((q for q in self.services.kueue_queues if namespace in q.namespaces), None)

    @property
    def accelerated_node_groups(self) -> tuple[NodeGroupConfig, ...]:
        return (*self.capacity.gpu_node_groups, *self.capacity.trainium_node_groups)

    def instance_types(self) -> set[str]:
        """Every accelerated instance type of the environment: node groups, Karpenter pools, Slurm partitions."""
        return ({g.instance_type for g in self.accelerated_node_groups}
                | {t for p in self.capacity.karpenter_pools for t in p.instance_types}
                | {p.instance_type for p in self.services.slurm_partitions})

    def accelerators(self) -> set[str]:
        """Accelerator kinds ("nvidia", "neuron") any node of the environment has."""
        return {INSTANCE_TYPES[t].accelerator for t in self.instance_types()}

    def on_demand_instance_types(self) -> list[str]:
        """Instance types a pod gets a node of when it asks: the Karpenter pools', and node groups kept above 0."""
        types = [t for p in self.capacity.karpenter_pools for t in p.instance_types]
        return types + [g.instance_type for g in self.accelerated_node_groups if g.desired_size > 0]

    @property
    def efa(self) -> bool:
        """Whether any node of the environment has EFA interfaces."""
        return any(g.efa for g in self.accelerated_node_groups) or any(p.efa for p in self.capacity.karpenter_pools)


def _check_quotas_fit(flavors: dict[str, KueueFlavorSource], used: dict[str, list[tuple[str, dict[str, int]]]]) -> None:
    """The queues' nominal quotas add up to no more than the nodes can ever hold (a pool's accelerators are shared by
    its flavors): quota beyond that would admit jobs whose pods never find a node."""
    by_source: dict[str, list[str]] = {}
    for name, flavor in flavors.items():
        by_source.setdefault(flavor.source, []).append(name)
    for source, names in by_source.items():
        for resource, unit in (("accelerators", ""), ("cpu", " vCPUs"), ("memory_gib", " GiB")):
            if resource == "accelerators":
                groups = [names]  # one limit for every flavor of the source
            else:
                groups = [[name] for name in names]
            for group in groups:
                total = sum(amounts[resource] for name in group for _, amounts in used.get(name, []))
                limit = flavors[group[0]].capacity()[resource]
                if total > limit:
                    queues = sorted({queue for name in group for queue, _ in used.get(name, [])})
                    flavor = flavors[group[0]]
                    nodes = "the team CPU nodes" if flavor.kind == "team" else f"{flavor.kind} {source}"
                    raise invalid(f"services.kueue_queues {resource} on {', '.join(group)}", total,
                                  f"at most {limit}{unit}, what {nodes} can ever hold (queues {', '.join(queues)} "
                                  f"add up to {total}{unit})")


def _field_path(loc: tuple[Any, ...]) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif not str(part).startswith("function-") and part not in ("literal[...]",):
            path += ("." if path else "") + str(part)
    return path


def _qualified(path: str, field: str) -> str:
    """The full path of ``field``, named by a check that ran on the section or the setting at ``path``."""
    if not path or field.startswith((f"{path}.", f"{path}[")):
        return field
    head, _, last = path.rpartition(".")
    name = last.split("[")[0]
    if field == last or field.startswith((f"{name}[", f"{name}.", f"{name} ")) or field == name:
        # A field validator names its own setting (or one of its items): that replaces the path's last part.
        return f"{head}.{field}" if head else field
    return f"{path}.{field}"


def _one_line(err: ValidationError, source: str) -> str:
    """``source: field=value is not allowed: what is allowed`` (core.validation's format) for the first error."""
    first = err.errors(include_url=False)[0]
    loc = tuple(p for p in first["loc"] if not (isinstance(p, str) and ("[" in p or p.startswith("function-"))))
    path = _field_path(loc)
    more = err.error_count() - 1
    tail = f" (and {more} more error{'s' if more > 1 else ''})" if more else ""
    error = (first.get("ctx") or {}).get("error")
    if isinstance(error, InvalidValue):
        # Our own checks (shared with the constructs and workloads) name the setting relative to where they ran.
        line = str(invalid(_qualified(path, error.field), error.value, error.allowed))
    elif first["type"] == "missing":
        line = f"{path}: is required"
    else:
        allowed = first["msg"].removeprefix("Value error, ").removeprefix("Input ")
        if first["type"] == "bool_type":
            allowed = "use true or false"
        elif first["type"] == "extra_forbidden":
            allowed = "use a known key (check its spelling; see the config reference in README.md)"
        elif first["type"] == "string_pattern_mismatch":
            pattern = first["ctx"]["pattern"]
            allowed = _PATTERN_HELP.get(pattern, f"match {pattern}")
        value = first.get("input")
        # A whole section as the value says nothing the path does not: name the path and what is allowed.
        shown = not isinstance(value, dict) and len(repr(value)) <= 90
        line = str(invalid(path, value, allowed)) if path and shown else f"{path or 'settings'}: {allowed}"
    return f"{source}: {line}{tail}".replace("\n", " ")


def parse_config(data: Any, *, source: str = "config") -> PlatformConfig:
    """Validate ``data`` (the parsed YAML) into a :class:`PlatformConfig` or raise a one-line :class:`ConfigError`."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the file must hold a mapping of settings, found {type(data).__name__}")
    written = data
    try:
        data = upgrade_config(written)
    except ConfigChangeError as err:
        raise ConfigError(f"{source}: {err}") from None
    try:
        return PlatformConfig.model_validate(data)
    except ValidationError as err:
        raise ConfigError(explain_refusal(written, _one_line(err, source))) from None
    except ValueError as err:  # a validator that raised outside pydantic's wrapping
        raise ConfigError(explain_refusal(written, f"{source}: {err}")) from None


class _RefusedYaml(Exception):
    """A construct the environment files do not take (an alias, an anchor, a merge or a repeated key)."""

    def __init__(self, error: InvalidValue, mark: Any) -> None:
        super().__init__(str(error))
        self.error, self.mark = error, mark


_BOOL_TAG = "tag:yaml.org,2002:bool"
_MERGE_TAG = "tag:yaml.org,2002:merge"


class _StrictLoader(yaml.SafeLoader):
    """YAML as an environment file may write it: plain mappings, lists and scalars, each key once.

    Refused while the document is composed, before anything is built from it: aliases and anchors (an alias bomb
    expands exponentially only once something walks the built objects; refused here it costs nothing), merge
    keys (``<<``, which would quietly pull settings in), repeated keys (YAML keeps the last one silently).
    Booleans are ``true`` and ``false`` only: YAML 1.1's yes/no/on/off stay strings, which the config refuses.
    """

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != _BOOL_TAG]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._path: list[Any] = []

    def _where(self) -> str:
        return _field_path(tuple(part for part in self._path if part is not None)) or "top level"

    def compose_node(self, parent: Any, index: Any) -> Any:
        # index: the key node of a mapping value, the position of a list item, None for a key or the document.
        self._path.append(index.value if isinstance(index, yaml.ScalarNode) else index)
        try:
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                raise _RefusedYaml(invalid(self._where(), f"*{event.anchor}", "write the value out: YAML aliases "
                                           "(*name) and anchors (&name) are not taken"), event.start_mark)
            event = self.peek_event()
            if getattr(event, "anchor", None) is not None:
                raise _RefusedYaml(invalid(self._where(), f"&{event.anchor}", "write the value out: YAML anchors "
                                           "(&name) and aliases (*name) are not taken"), event.start_mark)
            return super().compose_node(parent, index)
        finally:
            self._path.pop()

    def compose_mapping_node(self, anchor: Any) -> Any:
        node = super().compose_mapping_node(anchor)
        seen: set[Any] = set()
        for key, _ in node.value:
            if key.tag == _MERGE_TAG:
                raise _RefusedYaml(invalid(f"{self._where()} key", "<<", "write the settings out: YAML merge keys "
                                           "are not taken"), key.start_mark)
            if isinstance(key, yaml.ScalarNode):
                if key.value in seen:
                    field = _field_path(tuple(p for p in (*self._path, key.value) if p is not None))
                    raise _RefusedYaml(invalid(field, key.value, "give each key once (YAML would keep only the last "
                                               "one)"), key.start_mark)
                seen.add(key.value)
        return node


_StrictLoader.add_implicit_resolver(_BOOL_TAG, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))


def read_yaml(text: str, *, source: str) -> Any:
    """The one document of an environment file, read by :class:`_StrictLoader`; a one-line :class:`ConfigError`."""
    loader = _StrictLoader(text)
    try:
        return loader.get_single_data()
    except _RefusedYaml as err:
        raise ConfigError(f"{source}: line {err.mark.line + 1}: {err.error}") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(err, "problem", None) or "invalid YAML"
        raise ConfigError(f"{source}: not valid YAML{where}: {problem}") from None
    finally:
        loader.dispose()


def load_config_file(path: str | Path, *, name_matches_file: bool = True) -> PlatformConfig:
    """Read and validate one environment file.

    ``name_matches_file`` (default True): the file's ``name`` must be its file name (``prod.yaml`` holds ``name:
    prod``). The name picks the stack (``EksTraining-<name>``), so a copy of one environment's file that kept or
    changed its ``name`` would otherwise deploy over another environment with this file's settings. Pass False
    (``cdk synth -c allow_name_mismatch=true``) only for a file meant to build the environment it names.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except OSError as err:
        raise ConfigError(f"config file {path} cannot be read: {err.strerror}") from None
    config = parse_config(read_yaml(text, source=path.name), source=path.name)
    if name_matches_file and config.name != path.stem:
        raise ConfigError(f"{path.name}: " + str(invalid(
            "name", config.name, f"the file's name, {path.stem!r} (the name picks the stack EksTraining-<name>: a "
            f"file named {path.name} must not build another environment), or rename the file; to build "
            f"{config.name!r} from it on purpose, pass -c allow_name_mismatch=true")))
    return config


def environment_names() -> list[str]:
    return sorted(p.stem for p in ENVIRONMENTS_DIR.glob("*.yaml"))


def load_environment(name: str) -> PlatformConfig:
    """The config of a named environment shipped in ``infra/environments``."""
    if not _DNS_LABEL.match(name or "") or not (ENVIRONMENTS_DIR / f"{name}.yaml").is_file():
        raise ConfigError(str(invalid("env", name, f"use one of the environments {', '.join(environment_names())}")))
    return load_config_file(ENVIRONMENTS_DIR / f"{name}.yaml")  # which holds name: <name>
