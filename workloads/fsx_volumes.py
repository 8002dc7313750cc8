"""FSx for Lustre in the cluster: each namespace's volumes on sub-directories of the one file system, and what
pods mount.

The FSx CSI driver mounts ``<dnsname>@tcp:/<mountname>``, so a PersistentVolume whose mountname is
``<mount name>/<directory>`` mounts only that directory (a Lustre fileset mount, "Mounting specific filesets" in the
FSx for Lustre guide; the driver has no sub-directory provisioner, kubernetes-sigs/aws-fsx-csi-driver#247). Every training namespace gets two static
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
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from eks_training.core.names import (
    DATA_PATH,
    FSX_DATA_CLAIM_NAME,
    FSX_DATA_DIR,
    FSX_WORKSPACE_CLAIM_NAME,
    WORKSPACE_PATH,
    WORKSPACE_SUBDIRS,
    workspace_dir,
)
from eks_training.core.fsx import SMALLEST_LUSTRE_GIB
from eks_training.core.validation import invalid
from eks_training.core.versions import ALPINE_IMAGE
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
    import cdk8s_plus_28 as kplus
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
#: The workspaces' mode: world-writable with the sticky bit (see workspace_directories_script).
WORKSPACE_MODE = "1777"
#: The workspace Job's name is this and a hash (workspace_job_name).
WORKSPACE_JOB_PREFIX = "fsx-workspaces"
#: A shell with mkdir and chmod: the platform's one small utility image, pinned by digest in core.versions.
WORKSPACE_JOB_IMAGE = ALPINE_IMAGE


#: What each static claim requests. A claim binds to a volume whose capacity covers its request, and Kubernetes
#: never changes a static claim's request (PersistentVolumeClaimResize admits growth only through a StorageClass
#: that allows expansion): fixed at the smallest file system, so growing FSx updates the volumes' capacity (which
#: may change) and no claim. Lustre enforces no per-volume size; pods see the file system's.
STATIC_CLAIM_REQUEST = f"{SMALLEST_LUSTRE_GIB}Gi"


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
    handle, mount_name = fsx.file_system_id, fsx.mount_name
    if directory is not None:
        handle, mount_name = f"{handle}::{directory}", f"{mount_name}{directory}"
    return {"driver": FSX_CSI_DRIVER, "volumeHandle": handle,
            "volumeAttributes": {"dnsname": fsx.dns_name, "mountname": mount_name}}


def _bound_pair(*, fsx: FsxVolume, namespace: str, claim_name: str, directory: str | None,
                read_only: bool = False) -> list[dict[str, Any]]:
    """A static PV of ``directory`` and the claim in ``namespace`` it is reserved for, bound both ways."""
    volume_name = check_dns_subdomain("fsx persistent volume name",
                                      claim_name if namespace == ROOT_NAMESPACE else f"{claim_name}-{namespace}")
    return [
        static_volume(name=volume_name, component=FSX_COMPONENT, claim_namespace=namespace, claim_name=claim_name,
                      storage=f"{fsx.capacity_gib}Gi", mount_options=LUSTRE_MOUNT_OPTIONS, csi=_csi(fsx, directory),
                      read_only=read_only),
        volume_claim(name=claim_name, namespace=namespace, component=FSX_COMPONENT, storage=STATIC_CLAIM_REQUEST,
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


def workspace_directories_script(namespaces: Sequence[str]) -> str:
    """The shell script of the Job that creates every namespace's workspace directories on the root claim
    (idempotent: mkdir -p).

    The mount, not the file mode, separates the teams: each namespace's pods see only their own workspace,
    whatever user their images run as. The mode is ``1777``, not ``0777``: the file system squashes root (uid 0 of
    every client but the system nodes is nobody), so a pod whose image runs as root still creates files, but the
    sticky bit keeps anyone from deleting or renaming another user's entries, and the files a job writes (``0644``
    under the images' uid 1000) cannot be rewritten by root on a node. What remains (Lustre trusts the uid a client
    sends, so a node root that switches to uid 1000 acts as every job) is written down in docs/design.md.
    """
    paths = [f"{_ROOT_MOUNT_PATH}{workspace_dir(ns)}/{sub}" for ns in namespaces for sub in WORKSPACE_SUBDIRS]
    roots = [f"{_ROOT_MOUNT_PATH}{workspace_dir(ns)}" for ns in namespaces]
    return f"set -eu; mkdir -p {' '.join(paths)}; chmod {WORKSPACE_MODE} {' '.join(roots + paths)}"


def workspace_job_name(rendered: Mapping[str, Any]) -> str:
    """The workspace Job's name: :data:`WORKSPACE_JOB_PREFIX` and a hash of the whole rendered Job but its name.

    A Job's pod template (and its selector, completions, completion mode) cannot be changed in place: the API
    server refuses the kubectl handler's apply, and the deploy fails. Any change to what the Job renders (the
    namespaces' script, a toleration, the image, a default of cdk8s-plus) names a new Job instead, which the
    manifest holding it creates while removing the old, finished one; the same Job rendered again keeps its name.
    """
    unnamed = json.loads(json.dumps(rendered))
    unnamed.get("metadata", {}).pop("name", None)
    digest = hashlib.sha256(json.dumps(unnamed, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return f"{WORKSPACE_JOB_PREFIX}-{digest[:10]}"


def add_workspace_directories_job(scope: constructs.Construct, namespaces: Sequence[str], *,
                                  root_claim: str = ROOT_CLAIM_NAME) -> kplus.Job:
    """The workspace Job (:func:`workspace_directories_script`) as a cdk8s-plus ``kplus.Job`` in kube-system, named
    by :func:`workspace_job_name` (apply it in a manifest that prunes, so a renamed Job's predecessor goes).

    plus's defaults that would change its meaning are given: no runAsNonRoot (plus's container default; the
    container runs as root, see below), ``imagePullPolicy: IfNotPresent`` (plus: Always), requests and limits
    as before (plus: 1 CPU / 512Mi requests, 1.5 CPU / 2Gi limits), ``restartPolicy: OnFailure`` (plus's Job:
    Never), no API token (plus's default, said here), system nodes as required node affinity (plus has no
    nodeSelector) and the pod's seccompProfile through a JSON patch (plus-28 has none).
    """
    # Imported here: the job builders import this module, and `eks-training render` must not load jsii.
    import cdk8s
    import cdk8s_plus_28 as kplus

    from eks_training.workloads.plus_pods import (
        hardened_container,
        on_system_nodes,
        requests_with_memory_limit,
        runtime_default_seccomp,
    )

    script = workspace_directories_script(namespaces)
    labels = common_labels(FSX_COMPONENT)
    # Construct ids without the Job's name: the name is a hash of what renders (pod label cdk8s.io/metadata.addr
    # included), so it is set last, below.
    root = kplus.Volume.from_persistent_volume_claim(
        scope, f"Volume:{ROOT_NAMESPACE}:{WORKSPACE_JOB_PREFIX}:root",
        kplus.PersistentVolumeClaim.from_claim_name(scope, f"Claim:{ROOT_NAMESPACE}:{WORKSPACE_JOB_PREFIX}:{root_claim}",
                                                    root_claim),
        name="root")
    job = kplus.Job(
        scope, f"Job:{ROOT_NAMESPACE}:{WORKSPACE_JOB_PREFIX}",
        metadata=cdk8s.ApiObjectMetadata(name=WORKSPACE_JOB_PREFIX, namespace=ROOT_NAMESPACE, labels=labels),
        # plus also labels the pod with cdk8s.io/metadata.addr (its own address for the pod; no selector uses it).
        pod_metadata=cdk8s.ApiObjectMetadata(labels=labels),
        backoff_limit=10,
        restart_policy=kplus.RestartPolicy.ON_FAILURE,  # plus's Job default: Never
        automount_service_account_token=False,  # mkdir needs no API
        # No runAsNonRoot at the pod either (plus's pod default is none; said here): the container runs as 0.
        security_context=kplus.PodSecurityContextProps(ensure_non_root=False),
        volumes=[root],
    )
    on_system_nodes(job)
    runtime_default_seccomp(job)
    job.add_container(
        name="mkdir", image=WORKSPACE_JOB_IMAGE, command=["/bin/sh", "-c", script],
        image_pull_policy=kplus.ImagePullPolicy.IF_NOT_PRESENT,  # plus's default: Always
        # Root owns the file system root, so creating directories there needs uid 0 but no capability (the
        # owner's mode bits suffice): every capability dropped, no escalation, read-only root file system.
        security_context=hardened_container(non_root=False, user=0),
        resources=requests_with_memory_limit("fsx workspace job", "50m", "32Mi", memory_limit="64Mi", cpu_limit="200m"),
        volume_mounts=[kplus.VolumeMount(path=_ROOT_MOUNT_PATH, volume=root)],
    )
    # Last: the name covers the Job as rendered now, every patch above included (change nothing after this).
    api_object = cdk8s.ApiObject.of(job)
    api_object.add_json_patch(cdk8s.JsonPatch.replace("/metadata/name", workspace_job_name(api_object.to_json())))
    return job


def add_fsx_volumes(chart: constructs.Construct, fsx: FsxVolume, namespaces: Sequence[str], *,
                    root_claim: str = ROOT_CLAIM_NAME, workspace_job: bool = True) -> None:
    """Every namespace's two volumes, the root volume in kube-system (claim ``root_claim``: one per set of
    namespaces that one manifest applies) and, with ``workspace_job``, the Job that creates the workspaces (False:
    the caller adds it with :func:`add_workspace_directories_job`, to a chart of its own)."""
    if not isinstance(fsx, FsxVolume):
        raise invalid("fsx", fsx, "use an FsxVolume or None")
    for namespace in namespaces:
        for obj in namespace_volumes(fsx, namespace):
            emit(chart, obj)
    add_root_volume(chart, fsx, root_claim=root_claim)
    if workspace_job:
        add_workspace_directories_job(chart, namespaces, root_claim=root_claim)


def add_root_volume(chart: constructs.Construct, fsx: FsxVolume, *, root_claim: str = ROOT_CLAIM_NAME) -> None:
    """The file system's root as a volume bound to claim ``root_claim`` in kube-system (the workspace Job's)."""
    for obj in _bound_pair(fsx=fsx, namespace=ROOT_NAMESPACE, claim_name=check_dns_subdomain("root_claim", root_claim),
                           directory=None):
        emit(chart, obj)


def add_workspace_setup(chart: constructs.Construct, fsx: FsxVolume, namespaces: Sequence[str], *,
                        root_claim: str = ROOT_CLAIM_NAME) -> None:
    """The root volume in kube-system (claim ``root_claim``) and the Job that creates ``namespaces``' workspaces."""
    add_root_volume(chart, fsx, root_claim=root_claim)
    add_workspace_directories_job(chart, namespaces, root_claim=root_claim)
