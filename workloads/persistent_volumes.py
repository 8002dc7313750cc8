"""Plain PersistentVolume, PersistentVolumeClaim and StorageClass objects, and checks of the AWS ids they carry.

cdk8s-plus-28 has no class for CSI PersistentVolumes (only in-tree EBS, Azure and GCE disks) nor StorageClasses,
so these stay plain objects. Values such as an FSx DNS name are CloudFormation tokens when a chart is added to the
EKS cluster: tokens go into the manifest as they are and only literal values are checked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from eks_training.core.validation import invalid, is_token
from eks_training.workloads.labels import common_labels

FSX_CSI_DRIVER = "fsx.csi.aws.com"
EFS_CSI_DRIVER = "efs.csi.aws.com"
EBS_CSI_DRIVER = "ebs.csi.aws.com"
# Static binding: an empty class keeps the default StorageClass (if any) from provisioning a new volume.
STATIC_STORAGE_CLASS = ""

FILE_SYSTEM_ID = re.compile(r"^fs-[0-9a-f]{8,17}$")
ACCESS_POINT_ID = re.compile(r"^fsap-[0-9a-f]{8,17}$")
SUBNET_ID = re.compile(r"^subnet-[0-9a-f]{8,17}$")
SECURITY_GROUP_ID = re.compile(r"^sg-[0-9a-f]{8,17}$")
HOSTNAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$")
ABSOLUTE_PATH = re.compile(r"^(/[A-Za-z0-9._-]+)+$")


def check_literal(field: str, value: object, pattern: re.Pattern[str], allowed: str) -> str:
    """Check a literal AWS value; a CDK token passes through untouched (its value exists only at deploy time)."""
    if is_token(value):
        return value  # type: ignore[return-value]
    if not isinstance(value, str) or not pattern.match(value):
        raise invalid(field, value, f"use {allowed}")
    return value


def metadata(name: str, component: str, namespace: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"name": name, "labels": common_labels(component)}
    if namespace is not None:
        result["namespace"] = namespace
    return result


def static_volume(
    *, name: str, component: str, claim_namespace: str, claim_name: str, storage: str, csi: dict[str, Any],
    mount_options: Sequence[str] = (), read_only: bool = False,
) -> dict[str, Any]:
    """A PersistentVolume reserved (claimRef) for one claim; Retain so deleting the claim keeps the data.

    ``read_only``: ReadOnlyMany, and the CSI driver is asked for a read-only mount (the FSx driver adds ``ro``),
    so no pod can write through it whatever its volumeMount says.
    """
    if read_only:
        csi = {**csi, "readOnly": True}
    spec: dict[str, Any] = {
        "capacity": {"storage": storage},
        "volumeMode": "Filesystem",
        "accessModes": ["ReadOnlyMany" if read_only else "ReadWriteMany"],
        "persistentVolumeReclaimPolicy": "Retain",
        "storageClassName": STATIC_STORAGE_CLASS,
        "claimRef": {"namespace": claim_namespace, "name": claim_name},
        "csi": csi,
    }
    if mount_options:
        spec["mountOptions"] = list(mount_options)
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": metadata(name, component), "spec": spec}


def volume_claim(
    *, name: str, namespace: str, component: str, storage: str, storage_class: str, volume_name: str | None = None,
    read_only: bool = False,
) -> dict[str, Any]:
    """A claim, bound to ``volume_name`` when given (static) or provisioned by ``storage_class``."""
    spec: dict[str, Any] = {
        "accessModes": ["ReadOnlyMany" if read_only else "ReadWriteMany"],
        "storageClassName": storage_class,
        "resources": {"requests": {"storage": storage}},
    }
    if volume_name is not None:
        spec["volumeName"] = volume_name
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": metadata(name, component, namespace),
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
        "metadata": metadata(name, component),
        "provisioner": provisioner,
        "parameters": parameters,
        "reclaimPolicy": reclaim_policy,
        "volumeBindingMode": binding_mode,
    }
    if mount_options:
        obj["mountOptions"] = list(mount_options)
    return obj
