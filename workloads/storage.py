"""In-cluster storage of the training namespaces: FSx for Lustre volumes (see fsx_volumes), the EFS model store,
a StorageClass for scratch FSx file systems and the cluster's default block StorageClass."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import cdk8s
import constructs

from eks_training.core.names import MODELS_CLAIM_NAME
from eks_training.core.validation import invalid
from eks_training.workloads.fsx_volumes import FSX_COMPONENT, LUSTRE_MOUNT_OPTIONS, FsxVolume, add_fsx_volumes
from eks_training.workloads.k8s_objects import check_dns_label, check_dns_subdomain, check_quantity, check_unique, emit
from eks_training.workloads.namespaces import api_objects_of
from eks_training.workloads.persistent_volumes import (
    ABSOLUTE_PATH,
    ACCESS_POINT_ID,
    EBS_CSI_DRIVER,
    EFS_CSI_DRIVER,
    FILE_SYSTEM_ID,
    FSX_CSI_DRIVER,
    SECURITY_GROUP_ID,
    STATIC_STORAGE_CLASS,
    SUBNET_ID,
    check_literal,
    static_volume,
    storage_class,
    volume_claim,
)

__all__ = ["FsxVolume", "StorageChart"]

DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"
EFS_COMPONENT = "efs-models"
#: The EFS model store's StorageClass (an access point per claim).
EFS_STORAGE_CLASS = "efs-models"


def models_claim(namespace: str, storage_class: str, *, name: str = MODELS_CLAIM_NAME, size: str = "1Ti",
                 volume_name: str | None = None) -> dict:
    """A namespace's claim on the EFS model store: provisioned by ``storage_class`` (an access point per claim), or
    bound to ``volume_name``."""
    return volume_claim(name=name, namespace=namespace, component=EFS_COMPONENT, storage=size,
                        storage_class=storage_class, volume_name=volume_name)


class StorageChart(cdk8s.Chart):
    """FSx for Lustre and EFS storage for the training namespaces.

    Keyword values:
        namespaces: training namespaces that get the claims (at least one, distinct DNS labels).
        fsx: the shared FSx file system; each namespace gets its read-only data claim and its own workspace claim,
            each bound to a PV of one sub-directory (:mod:`eks_training.workloads.fsx_volumes`). None: no FSx objects.
        efs_file_system_id: the EFS model store; adds the ``efs_storage_class_name`` StorageClass (efs-ap
            dynamic provisioning) and a ``models_claim_name`` claim per namespace. None: no EFS objects.
        efs_access_point_ids: namespace -> existing access point id; that namespace's models claim is bound to a
            static PV on the access point instead of a dynamically provisioned one.
        scratch_storage_class: add ``scratch_storage_class_name`` for dynamic SCRATCH_2 file systems in
            ``scratch_subnet_id`` with ``scratch_security_group_ids`` (both required then), tagged with
            ``scratch_tags`` (the FSx CSI driver's ``extraTags``; the driver's IAM role may manage only file systems
            with the stack's owner tag). Default tags: none.
        default_storage_class_name: an encrypted gp3 EBS StorageClass marked as the cluster default, for claims
            that name no class (Helm charts' databases and state, e.g. the JupyterHub hub, Slurm's controller); EKS
            makes none default. None: no default class.
        workspace_job: with ``fsx``, the Job that creates the namespaces' workspace directories is in this chart
            (default True). False: apply :func:`~eks_training.workloads.fsx_volumes.add_workspace_directories_job`
            in a chart whose manifest prunes (this chart's volumes must never be pruned), so that the Job a change
            renames replaces its finished predecessor.
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
        models_claim_name: str = MODELS_CLAIM_NAME,
        models_claim_size: str = "1Ti",
        efs_storage_class_name: str = EFS_STORAGE_CLASS,
        efs_base_path: str = "/ml-models",
        scratch_storage_class: bool = False,
        scratch_subnet_id: str | None = None,
        scratch_security_group_ids: Sequence[str] = (),
        scratch_storage_class_name: str = "fsx-lustre-scratch",
        scratch_tags: Mapping[str, str] | None = None,
        default_storage_class_name: str | None = "gp3",
        workspace_job: bool = True,
    ) -> None:
        super().__init__(scope, id)
        if isinstance(namespaces, str) or not namespaces:
            raise invalid("namespaces", namespaces, "use a non-empty list of namespace names")
        namespaces = [check_dns_label("namespaces", ns) for ns in namespaces]
        check_unique("namespaces", namespaces)
        if fsx is not None and not isinstance(fsx, FsxVolume):
            raise invalid("fsx", fsx, "use an FsxVolume or None")
        if default_storage_class_name is not None:
            default_class = storage_class(
                name=check_dns_subdomain("default_storage_class_name", default_storage_class_name),
                component="block-storage", provisioner=EBS_CSI_DRIVER,
                parameters={"type": "gp3", "encrypted": "true"}, reclaim_policy="Delete",
                binding_mode="WaitForFirstConsumer")
            default_class["metadata"].setdefault("annotations", {})[DEFAULT_CLASS_ANNOTATION] = "true"
            emit(self, default_class)
        if fsx is None and efs_file_system_id is None and not scratch_storage_class and default_storage_class_name is None:
            raise invalid("fsx, efs_file_system_id, scratch_storage_class, default_storage_class_name",
                          (None, None, False, None), "give at least one of them")
        check_dns_subdomain("models_claim_name", models_claim_name)

        if fsx is not None:
            add_fsx_volumes(self, fsx, namespaces, workspace_job=workspace_job)
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
            raise invalid("efs_access_point_ids", dict(efs_access_point_ids), "give them only with efs_file_system_id")
        if scratch_storage_class:
            self._add_scratch_class(
                check_dns_subdomain("scratch_storage_class_name", scratch_storage_class_name),
                scratch_subnet_id,
                scratch_security_group_ids,
                dict(scratch_tags or {}),
            )
        elif scratch_subnet_id is not None or scratch_security_group_ids:
            raise invalid("scratch_subnet_id", scratch_subnet_id, "set scratch_storage_class=True or leave the scratch "
                          "values out")

    @property
    def api_objects(self) -> list[cdk8s.ApiObject]:
        """Every ApiObject in render order, the FSx workspace Job's (inside its plus construct) too."""
        return api_objects_of(self)

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
        check_literal("efs_file_system_id", file_system_id, FILE_SYSTEM_ID, "an EFS file system id like 'fs-0123456789abcdef0'")
        if not isinstance(base_path, str) or not ABSOLUTE_PATH.match(base_path):
            raise invalid("efs_base_path", base_path, "use an absolute path such as '/ml-models'")
        unknown = sorted(set(access_point_ids) - set(namespaces))
        if unknown:
            raise invalid("efs_access_point_ids keys", unknown, f"use namespaces from {namespaces!r}")
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
            volume_name = None  # no access point given: the class provisions one per claim
            if access_point is not None:
                check_literal(f"efs_access_point_ids[{namespace!r}]", access_point, ACCESS_POINT_ID,
                              "an access point id like 'fsap-0123456789abcdef0'")
                volume_name = check_dns_subdomain("models persistent volume name", f"{models_claim_name}-{namespace}")
                emit(self, static_volume(
                    name=volume_name, component=EFS_COMPONENT, claim_namespace=namespace, claim_name=models_claim_name,
                    storage=models_claim_size,
                    # The EFS CSI volume handle for an access point is "<file system id>::<access point id>".
                    csi={"driver": EFS_CSI_DRIVER, "volumeHandle": f"{file_system_id}::{access_point}"}))
            emit(self, models_claim(namespace, storage_class_name if volume_name is None else STATIC_STORAGE_CLASS,
                                    name=models_claim_name, size=models_claim_size, volume_name=volume_name))

    def _add_scratch_class(self, name: str, subnet_id: str | None, security_group_ids: Sequence[str],
                           tags: dict[str, str]) -> None:
        if subnet_id is None:
            raise invalid("scratch_subnet_id", None, "give the subnet id with scratch_storage_class=True")
        check_literal("scratch_subnet_id", subnet_id, SUBNET_ID, "a subnet id like 'subnet-0123456789abcdef0'")
        if isinstance(security_group_ids, str) or not security_group_ids:
            raise invalid("scratch_security_group_ids", security_group_ids, "use a non-empty list of security group ids")
        for group in security_group_ids:
            check_literal("scratch_security_group_ids", group, SECURITY_GROUP_ID, "security group ids like 'sg-0123456789abcdef0'")
        for key, value in tags.items():
            if not isinstance(key, str) or not isinstance(value, str) or not key or "," in key + value or "=" in key + value:
                raise invalid("scratch_tags", tags, "tag keys and values without ',' or '=' (the driver's extraTags "
                                                    "format is key=value,...)")
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
                    # key=value,... as the driver reads it (no ',' or '=' inside a key or value).
                    **({"extraTags": ",".join(f"{k}={v}" for k, v in tags.items())} if tags else {}),
                },
                reclaim_policy="Delete",
                binding_mode="WaitForFirstConsumer",
                mount_options=LUSTRE_MOUNT_OPTIONS,
            ),
        )
