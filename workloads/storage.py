"""In-cluster storage objects: FSx for Lustre and EFS volumes and claims for every training namespace.

A PersistentVolume is cluster-scoped and binds exactly one claim, so the one FSx file system gets one static
PV per training namespace (`<claim>-<namespace>`), each pre-bound both ways (PV claimRef, PVC volumeName)
so no other claim can take it. Values such as the FSx DNS name are CloudFormation tokens when the chart is
added to the EKS cluster: tokens are put in the manifest as they are and only literal values are checked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cdk8s
import constructs

from eks_training.core.validation import is_token
from eks_training.workloads.k8s_objects import (
    check_dns_label,
    check_dns_subdomain,
    check_int,
    check_quantity,
    check_unique,
    emit,
)
from eks_training.workloads.labels import common_labels

FSX_CSI_DRIVER = "fsx.csi.aws.com"
EFS_CSI_DRIVER = "efs.csi.aws.com"
EBS_CSI_DRIVER = "ebs.csi.aws.com"
DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"
FSX_COMPONENT = "fsx-lustre"
EFS_COMPONENT = "efs-models"
# Static binding: an empty class keeps the default StorageClass (if any) from provisioning a new volume.
STATIC_STORAGE_CLASS = ""
# FSx CSI docs mount Lustre with flock so that file locks work across nodes (used by checkpoint writers).
LUSTRE_MOUNT_OPTIONS = ("flock",)

_FILE_SYSTEM_ID = re.compile(r"^fs-[0-9a-f]{8,17}$")
_ACCESS_POINT_ID = re.compile(r"^fsap-[0-9a-f]{8,17}$")
_SUBNET_ID = re.compile(r"^subnet-[0-9a-f]{8,17}$")
_SECURITY_GROUP_ID = re.compile(r"^sg-[0-9a-f]{8,17}$")
_HOSTNAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$")
_MOUNT_NAME = re.compile(r"^[a-z0-9]{3,8}$")
_ABSOLUTE_PATH = re.compile(r"^(/[A-Za-z0-9._-]+)+$")


def _check_literal(field: str, value: object, pattern: re.Pattern[str], allowed: str) -> str:
    """Check a literal AWS value; a CDK token passes through untouched (its value exists only at deploy time)."""
    if is_token(value):
        return value
    if not isinstance(value, str) or not pattern.match(value):
        raise ValueError(f"{field}={value!r} is not allowed: use {allowed}")
    return value


@dataclass(frozen=True)
class FsxVolume:
    """An existing FSx for Lustre file system, as LustreStorage exposes it (values may be CDK tokens)."""

    file_system_id: str
    dns_name: str
    mount_name: str
    capacity_gib: int

    def __post_init__(self) -> None:
        _check_literal("file_system_id", self.file_system_id, _FILE_SYSTEM_ID, "an FSx file system id like 'fs-0123456789abcdef0'")
        _check_literal("dns_name", self.dns_name, _HOSTNAME, "the file system's DNS name, e.g. 'fs-0123.fsx.us-west-2.amazonaws.com'")
        _check_literal("mount_name", self.mount_name, _MOUNT_NAME, "the Lustre mount name: 3-8 lower-case letters or digits")
        check_int("capacity_gib", self.capacity_gib, minimum=1)


def _metadata(name: str, component: str, namespace: str | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "labels": common_labels(component)}
    if namespace is not None:
        metadata["namespace"] = namespace
    return metadata


def static_volume(
    *, name: str, component: str, claim_namespace: str, claim_name: str, storage: str, csi: dict[str, Any],
    mount_options: Sequence[str] = (),
) -> dict[str, Any]:
    """A ReadWriteMany PersistentVolume reserved (claimRef) for one claim; Retain so deleting the claim keeps data."""
    spec: dict[str, Any] = {
        "capacity": {"storage": storage},
        "volumeMode": "Filesystem",
        "accessModes": ["ReadWriteMany"],
        "persistentVolumeReclaimPolicy": "Retain",
        "storageClassName": STATIC_STORAGE_CLASS,
        "claimRef": {"namespace": claim_namespace, "name": claim_name},
        "csi": csi,
    }
    if mount_options:
        spec["mountOptions"] = list(mount_options)
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": _metadata(name, component), "spec": spec}


def volume_claim(
    *, name: str, namespace: str, component: str, storage: str, storage_class: str, volume_name: str | None = None
) -> dict[str, Any]:
    """A ReadWriteMany claim, bound to ``volume_name`` when given (static) or provisioned by ``storage_class``."""
    spec: dict[str, Any] = {
        "accessModes": ["ReadWriteMany"],
        "storageClassName": storage_class,
        "resources": {"requests": {"storage": storage}},
    }
    if volume_name is not None:
        spec["volumeName"] = volume_name
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": _metadata(name, component, namespace),
        "spec": spec,
    }


def storage_class(
    *, name: str, component: str, provisioner: str, parameters: dict[str, str], reclaim_policy: str,
    binding_mode: str, mount_options: Sequence[str] = (),
) -> dict[str, Any]:
    """A StorageClass for dynamic provisioning by a CSI driver."""
    obj: dict[str, Any] = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": _metadata(name, component),
        "provisioner": provisioner,
        "parameters": parameters,
        "reclaimPolicy": reclaim_policy,
        "volumeBindingMode": binding_mode,
    }
    if mount_options:
        obj["mountOptions"] = list(mount_options)
    return obj


class StorageChart(cdk8s.Chart):
    """FSx for Lustre and EFS storage for the training namespaces.

    Keyword values:
        namespaces: training namespaces that get the claims (at least one, distinct DNS labels).
        fsx: the shared FSx file system; each namespace gets a static PV ``<fsx_claim_name>-<ns>`` and a claim
            ``fsx_claim_name`` bound to it. None: no FSx objects.
        efs_file_system_id: the EFS model store; adds the ``efs_storage_class_name`` StorageClass (efs-ap
            dynamic provisioning) and a ``models_claim_name`` claim per namespace. None: no EFS objects.
        efs_access_point_ids: namespace -> existing access point id; that namespace's models claim is bound to a
            static PV on the access point instead of a dynamically provisioned one.
        scratch_storage_class: add ``scratch_storage_class_name`` for dynamic SCRATCH_2 file systems in
            ``scratch_subnet_id`` with ``scratch_security_group_ids`` (both required then).
        default_storage_class_name: an encrypted gp3 EBS StorageClass marked as the cluster default, for claims
            that name no class (Helm charts' databases and state, e.g. the JupyterHub hub, Slurm's controller); EKS
            makes none default. None: no default class.
    """

    def __init__(
        self,
        scope: constructs.Construct,
        id: str,
        *,
        namespaces: Sequence[str],
        fsx: FsxVolume | None = None,
        efs_file_system_id: str | None = None,
        efs_access_point_ids: Mapping[str, str] | None = None,
        fsx_claim_name: str = "fsx-lustre",
        models_claim_name: str = "models",
        models_claim_size: str = "1Ti",
        efs_storage_class_name: str = "efs-models",
        efs_base_path: str = "/ml-models",
        scratch_storage_class: bool = False,
        scratch_subnet_id: str | None = None,
        scratch_security_group_ids: Sequence[str] = (),
        scratch_storage_class_name: str = "fsx-lustre-scratch",
        default_storage_class_name: str | None = "gp3",
    ) -> None:
        super().__init__(scope, id)
        if isinstance(namespaces, str) or not namespaces:
            raise ValueError(f"namespaces={namespaces!r} is not allowed: use a non-empty list of namespace names")
        namespaces = [check_dns_label("namespaces", ns) for ns in namespaces]
        check_unique("namespaces", namespaces)
        if fsx is not None and not isinstance(fsx, FsxVolume):
            raise ValueError(f"fsx={fsx!r} is not allowed: use an FsxVolume or None")
        if default_storage_class_name is not None:
            default_class = storage_class(
                name=check_dns_subdomain("default_storage_class_name", default_storage_class_name),
                component="block-storage", provisioner=EBS_CSI_DRIVER,
                parameters={"type": "gp3", "encrypted": "true"}, reclaim_policy="Delete",
                binding_mode="WaitForFirstConsumer")
            default_class["metadata"].setdefault("annotations", {})[DEFAULT_CLASS_ANNOTATION] = "true"
            emit(self, default_class)
        if fsx is None and efs_file_system_id is None and not scratch_storage_class and default_storage_class_name is None:
            raise ValueError(
                "fsx=None, efs_file_system_id=None, scratch_storage_class=False is not allowed: give at least one of them"
            )
        check_dns_subdomain("fsx_claim_name", fsx_claim_name)
        check_dns_subdomain("models_claim_name", models_claim_name)

        if fsx is not None:
            self._add_fsx_volumes(fsx, namespaces, fsx_claim_name)
        if efs_file_system_id is not None:
            self._add_models(
                efs_file_system_id,
                dict(efs_access_point_ids or {}),
                namespaces,
                models_claim_name=models_claim_name,
                models_claim_size=check_quantity("models_claim_size", models_claim_size),
                storage_class_name=check_dns_subdomain("efs_storage_class_name", efs_storage_class_name),
                base_path=efs_base_path,
            )
        elif efs_access_point_ids:
            raise ValueError(
                f"efs_access_point_ids={dict(efs_access_point_ids)!r} is not allowed without efs_file_system_id"
            )
        if scratch_storage_class:
            self._add_scratch_class(
                check_dns_subdomain("scratch_storage_class_name", scratch_storage_class_name),
                scratch_subnet_id,
                scratch_security_group_ids,
            )
        elif scratch_subnet_id is not None or scratch_security_group_ids:
            raise ValueError(
                f"scratch_subnet_id={scratch_subnet_id!r} is not allowed with scratch_storage_class=False: "
                "set scratch_storage_class=True or leave the scratch values out"
            )

    def _add_fsx_volumes(self, fsx: FsxVolume, namespaces: list[str], claim_name: str) -> None:
        storage = f"{fsx.capacity_gib}Gi"
        for namespace in namespaces:
            volume_name = check_dns_subdomain("fsx persistent volume name", f"{claim_name}-{namespace}")
            emit(
                self,
                static_volume(
                    name=volume_name,
                    component=FSX_COMPONENT,
                    claim_namespace=namespace,
                    claim_name=claim_name,
                    storage=storage,
                    mount_options=LUSTRE_MOUNT_OPTIONS,
                    csi={
                        "driver": FSX_CSI_DRIVER,
                        "volumeHandle": fsx.file_system_id,
                        "volumeAttributes": {"dnsname": fsx.dns_name, "mountname": fsx.mount_name},
                    },
                ),
            )
            emit(
                self,
                volume_claim(
                    name=claim_name,
                    namespace=namespace,
                    component=FSX_COMPONENT,
                    storage=storage,
                    storage_class=STATIC_STORAGE_CLASS,
                    volume_name=volume_name,
                ),
            )

    def _add_models(
        self,
        file_system_id: str,
        access_point_ids: dict[str, str],
        namespaces: list[str],
        *,
        models_claim_name: str,
        models_claim_size: str,
        storage_class_name: str,
        base_path: str,
    ) -> None:
        _check_literal("efs_file_system_id", file_system_id, _FILE_SYSTEM_ID, "an EFS file system id like 'fs-0123456789abcdef0'")
        if not isinstance(base_path, str) or not _ABSOLUTE_PATH.match(base_path):
            raise ValueError(f"efs_base_path={base_path!r} is not allowed: use an absolute path such as '/ml-models'")
        unknown = sorted(set(access_point_ids) - set(namespaces))
        if unknown:
            raise ValueError(f"efs_access_point_ids keys {unknown!r} are not allowed: use namespaces from {namespaces!r}")
        emit(
            self,
            storage_class(
                name=storage_class_name,
                component=EFS_COMPONENT,
                provisioner=EFS_CSI_DRIVER,
                parameters={
                    "provisioningMode": "efs-ap",
                    "fileSystemId": file_system_id,
                    "directoryPerms": "755",
                    "gidRangeStart": "1000",
                    "gidRangeEnd": "2000",
                    "basePath": base_path,
                },
                # Models outlive the claims that made them: deleting a claim must not delete its access point.
                reclaim_policy="Retain",
                binding_mode="Immediate",
            ),
        )
        for namespace in namespaces:
            access_point = access_point_ids.get(namespace)
            if access_point is None:
                emit(
                    self,
                    volume_claim(
                        name=models_claim_name,
                        namespace=namespace,
                        component=EFS_COMPONENT,
                        storage=models_claim_size,
                        storage_class=storage_class_name,
                    ),
                )
                continue
            _check_literal(
                f"efs_access_point_ids[{namespace!r}]", access_point, _ACCESS_POINT_ID, "an access point id like 'fsap-0123456789abcdef0'"
            )
            volume_name = check_dns_subdomain("models persistent volume name", f"{models_claim_name}-{namespace}")
            emit(
                self,
                static_volume(
                    name=volume_name,
                    component=EFS_COMPONENT,
                    claim_namespace=namespace,
                    claim_name=models_claim_name,
                    storage=models_claim_size,
                    # The EFS CSI volume handle for an access point is "<file system id>::<access point id>".
                    csi={"driver": EFS_CSI_DRIVER, "volumeHandle": f"{file_system_id}::{access_point}"},
                ),
            )
            emit(
                self,
                volume_claim(
                    name=models_claim_name,
                    namespace=namespace,
                    component=EFS_COMPONENT,
                    storage=models_claim_size,
                    storage_class=STATIC_STORAGE_CLASS,
                    volume_name=volume_name,
                ),
            )

    def _add_scratch_class(self, name: str, subnet_id: str | None, security_group_ids: Sequence[str]) -> None:
        if subnet_id is None:
            raise ValueError("scratch_subnet_id=None is not allowed with scratch_storage_class=True: give the subnet id")
        _check_literal("scratch_subnet_id", subnet_id, _SUBNET_ID, "a subnet id like 'subnet-0123456789abcdef0'")
        if isinstance(security_group_ids, str) or not security_group_ids:
            raise ValueError(
                f"scratch_security_group_ids={security_group_ids!r} is not allowed: use a non-empty list of security group ids"
            )
        for group in security_group_ids:
            _check_literal("scratch_security_group_ids", group, _SECURITY_GROUP_ID, "security group ids like 'sg-0123456789abcdef0'")
        emit(
            self,
            storage_class(
                name=name,
                component=FSX_COMPONENT,
                provisioner=FSX_CSI_DRIVER,
                parameters={
                    "subnetId": subnet_id,
                    "securityGroupIds": ",".join(security_group_ids),
                    # SCRATCH_2 takes no perUnitStorageThroughput (the source document's "200" is rejected by FSx).
                    "deploymentType": "SCRATCH_2",
                    "fileSystemTypeVersion": "2.15",
                    "dataCompressionType": "LZ4",
                },
                reclaim_policy="Delete",
                binding_mode="WaitForFirstConsumer",
                mount_options=LUSTRE_MOUNT_OPTIONS,
            ),
        )
