"""FSx for Lustre in the cluster: each namespace's volumes on sub-directories of the one file system, and what
pods mount.

The FSx CSI driver mounts ``<dnsname>@tcp:/<mountname>``, so a PersistentVolume whose mountname is
``<mount name>/<directory>`` mounts only that directory (a Lustre sub-directory mount; the driver has no
sub-directory provisioner, kubernetes-sigs/aws-fsx-csi-driver#247). Every training namespace gets two static
volumes, each pre-bound both ways (PV claimRef, PVC volumeName) to its claim:

* ``fsx-data``: FSX_DATA_DIR, the shared datasets imported from the data bucket, read-only (the PV asks the driver
  for a read-only mount, so no volumeMount can write through it);
* ``fsx-workspace``: FSX_WORKSPACES_DIR/<namespace>, read-write, exported to the checkpoint bucket under
  ``<namespace>/``: the prefix the namespace's IAM role is confined to.

A pod can only name claims of its own namespace and those reach nothing else, so no team reads or writes another's
workspace and no pod writes the shared data. Two details make it work:

* kubelet keys a pod's volumes by driver and volumeHandle: two PVs of one file system with one handle never both
  mount in one pod (aws-fsx-csi-driver#328). Each PV gets its own handle, ``<file system id>::<directory>``; the
  driver uses the handle only as a lock key when mounting, and the volumes are Retain (never deleted through it).
* mounting a missing directory fails, so a Job in kube-system mounts the root (the only volume that does, in a
  namespace no team can use) and creates every workspace with WORKSPACE_SUBDIRS; a pod that starts before it has
  run retries its mount until the directory exists.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from eks_training.core.names import (
    DATA_PATH,
    FSX_DATA_CLAIM_NAME,
    FSX_DATA_DIR,
    FSX_WORKSPACE_CLAIM_NAME,
    SYSTEM_NODE_SELECTOR,
    WORKSPACE_PATH,
    WORKSPACE_SUBDIRS,
    workspace_dir,
)
from eks_training.core.validation import invalid
from eks_training.workloads.k8s_objects import check_dns_subdomain, check_int, emit
from eks_training.workloads.labels import common_labels
from eks_training.workloads.persistent_volumes import (
    FILE_SYSTEM_ID,
    FSX_CSI_DRIVER,
    HOSTNAME,
    STATIC_STORAGE_CLASS,
    check_literal,
    static_volume,
    volume_claim,
)

if TYPE_CHECKING:  # the job builders import this module, and `eks-training render` must not load jsii
    import constructs

FSX_COMPONENT = "fsx-lustre"
# FSx CSI docs mount Lustre with flock so that file locks work across nodes (used by checkpoint writers).
LUSTRE_MOUNT_OPTIONS = ("flock",)
_MOUNT_NAME = re.compile(r"^[a-z0-9]{3,8}$")

#: Pod volume names of the two claims (every pod that uses FSx mounts both, at DATA_PATH and WORKSPACE_PATH).
DATA_VOLUME = "fsx-data"
WORKSPACE_VOLUME = "fsx-workspace"

#: Where the workspace Job creates the namespaces' directories: the root claim lives only in kube-system.
ROOT_NAMESPACE = "kube-system"
ROOT_CLAIM_NAME = "fsx-root"
_ROOT_MOUNT_PATH = "/fsx-root"
#: A shell with mkdir and chmod, pinned by tag like the platform's other helper images.
WORKSPACE_JOB_IMAGE = "public.ecr.aws/docker/library/busybox:1.37.0"


@dataclass(frozen=True)
class FsxVolume:
    """An existing FSx for Lustre file system, as LustreStorage exposes it (values may be CDK tokens)."""

    file_system_id: str
    dns_name: str
    mount_name: str
    capacity_gib: int

    def __post_init__(self) -> None:
        check_literal("file_system_id", self.file_system_id, FILE_SYSTEM_ID, "an FSx file system id like 'fs-0123456789abcdef0'")
        check_literal("dns_name", self.dns_name, HOSTNAME, "the file system's DNS name, e.g. 'fs-0123.fsx.us-west-2.amazonaws.com'")
        check_literal("mount_name", self.mount_name, _MOUNT_NAME, "the Lustre mount name: 3-8 lower-case letters or digits")
        check_int("capacity_gib", self.capacity_gib, minimum=1)


def fsx_pod_volumes() -> list[dict[str, Any]]:
    """The pod volumes of a namespace's two FSx claims (the data claim is read-only at the pod level too)."""
    return [
        {"name": DATA_VOLUME, "persistentVolumeClaim": {"claimName": FSX_DATA_CLAIM_NAME, "readOnly": True}},
        {"name": WORKSPACE_VOLUME, "persistentVolumeClaim": {"claimName": FSX_WORKSPACE_CLAIM_NAME}},
    ]


def fsx_mounts() -> list[dict[str, Any]]:
    """The container mounts of the two claims: shared data (read-only) and the namespace's workspace."""
    return [
        {"name": DATA_VOLUME, "mountPath": DATA_PATH, "readOnly": True},
        {"name": WORKSPACE_VOLUME, "mountPath": WORKSPACE_PATH},
    ]


def _csi(fsx: FsxVolume, directory: str | None) -> dict[str, Any]:
    """The CSI source of ``directory`` (None: the root) with a handle of its own (see the module docstring)."""
    if directory is None:
        return {"driver": FSX_CSI_DRIVER, "volumeHandle": fsx.file_system_id,
                "volumeAttributes": {"dnsname": fsx.dns_name, "mountname": fsx.mount_name}}
    return {"driver": FSX_CSI_DRIVER, "volumeHandle": f"{fsx.file_system_id}::{directory}",
            "volumeAttributes": {"dnsname": fsx.dns_name, "mountname": f"{fsx.mount_name}{directory}"}}


def _bound_pair(*, fsx: FsxVolume, namespace: str, claim_name: str, directory: str | None,
                read_only: bool = False) -> list[dict[str, Any]]:
    """A static PV of ``directory`` and the claim in ``namespace`` it is reserved for, bound both ways."""
    volume_name = check_dns_subdomain("fsx persistent volume name",
                                      claim_name if namespace == ROOT_NAMESPACE else f"{claim_name}-{namespace}")
    storage = f"{fsx.capacity_gib}Gi"
    return [
        static_volume(name=volume_name, component=FSX_COMPONENT, claim_namespace=namespace, claim_name=claim_name,
                      storage=storage, mount_options=LUSTRE_MOUNT_OPTIONS, csi=_csi(fsx, directory),
                      read_only=read_only),
        volume_claim(name=claim_name, namespace=namespace, component=FSX_COMPONENT, storage=storage,
                     storage_class=STATIC_STORAGE_CLASS, volume_name=volume_name, read_only=read_only),
    ]


def namespace_volumes(fsx: FsxVolume, namespace: str) -> list[dict[str, Any]]:
    """The shared data (read-only) and the namespace's own workspace, each a PV bound to the namespace's claim."""
    return [
        *_bound_pair(fsx=fsx, namespace=namespace, claim_name=FSX_DATA_CLAIM_NAME, directory=FSX_DATA_DIR,
                     read_only=True),
        *_bound_pair(fsx=fsx, namespace=namespace, claim_name=FSX_WORKSPACE_CLAIM_NAME,
                     directory=workspace_dir(namespace)),
    ]


def workspace_directories_job(namespaces: Sequence[str]) -> dict[str, Any]:
    """The Job that creates every namespace's workspace directories on the root claim (idempotent: mkdir -p).

    Its name carries a hash of what it creates: a Job's pod template is immutable, so a new namespace list is a new
    Job (the stack prunes the old one) instead of a failed apply. The directories are world-writable because the
    mount, not the file mode, separates the teams: each namespace's pods see only their own workspace, whatever
    user their images run as.
    """
    paths = [f"{_ROOT_MOUNT_PATH}{workspace_dir(ns)}/{sub}" for ns in namespaces for sub in WORKSPACE_SUBDIRS]
    roots = [f"{_ROOT_MOUNT_PATH}{workspace_dir(ns)}" for ns in namespaces]
    script = f"set -eu; mkdir -p {' '.join(paths)}; chmod 0777 {' '.join(roots + paths)}"
    digest = hashlib.sha256(script.encode()).hexdigest()[:10]
    labels = common_labels(FSX_COMPONENT)
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": f"fsx-workspaces-{digest}", "namespace": ROOT_NAMESPACE, "labels": labels},
        "spec": {
            "backoffLimit": 10,
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "restartPolicy": "OnFailure",
                    "automountServiceAccountToken": False,
                    "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
                    "nodeSelector": dict(SYSTEM_NODE_SELECTOR),
                    "containers": [{
                        "name": "mkdir",
                        "image": WORKSPACE_JOB_IMAGE,
                        "command": ["/bin/sh", "-c", script],
                        # Root owns the file system root, so creating directories there needs uid 0 but no
                        # capability (the owner's mode bits suffice).
                        "securityContext": {"runAsUser": 0, "allowPrivilegeEscalation": False,
                                            "readOnlyRootFilesystem": True, "capabilities": {"drop": ["ALL"]}},
                        "resources": {"requests": {"cpu": "50m", "memory": "32Mi"},
                                      "limits": {"cpu": "200m", "memory": "64Mi"}},
                        "volumeMounts": [{"name": "root", "mountPath": _ROOT_MOUNT_PATH}],
                    }],
                    "volumes": [{"name": "root", "persistentVolumeClaim": {"claimName": ROOT_CLAIM_NAME}}],
                },
            },
        },
    }


def add_fsx_volumes(chart: constructs.Construct, fsx: FsxVolume, namespaces: Sequence[str]) -> None:
    """Every namespace's two volumes, the root volume in kube-system and the Job that creates the workspaces."""
    if not isinstance(fsx, FsxVolume):
        raise invalid("fsx", fsx, "use an FsxVolume or None")
    for namespace in namespaces:
        for obj in namespace_volumes(fsx, namespace):
            emit(chart, obj)
    for obj in _bound_pair(fsx=fsx, namespace=ROOT_NAMESPACE, claim_name=ROOT_CLAIM_NAME, directory=None):
        emit(chart, obj)
    emit(chart, workspace_directories_job(namespaces))
