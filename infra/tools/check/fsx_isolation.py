"""Who mounts what of the FSx file system: each namespace its own workspace read-write, the shared data read-only,
the root nobody but kube-system, and every FSx claim a pod names present in the pod's namespace.

The FSx CSI driver mounts ``<dnsname>@tcp:/<mountname>``: the part of a PV's mountname after the file system's own
mount name is the directory it exposes (none: the root, every team's files). In the snapshot the mount name itself is
a CloudFormation token written as text, so the directory is whatever follows its first ``/``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from eks_training.core.names import FSX_DATA_DIR, FSX_WORKSPACES_DIR
from eks_training.infra.tools.check.placement import PodTemplate

FSX_CSI_DRIVER = "fsx.csi.aws.com"
#: The only namespace whose pods may mount the root: the platform's workspace Job, out of every team's reach.
ROOT_NAMESPACES = frozenset({"kube-system"})


@dataclass(frozen=True)
class FsxVolume:
    """One FSx PersistentVolume as the check sees it."""

    name: str
    claim_namespace: str
    claim_name: str
    directory: str
    read_only: bool
    handle: str


def fsx_volumes(objects: Iterable[Mapping[str, Any]]) -> list[FsxVolume]:
    """The FSx PersistentVolumes among ``objects`` that are reserved for a claim."""
    found = []
    for obj in objects:
        spec = obj.get("spec") or {}
        csi = spec.get("csi") or {}
        claim = spec.get("claimRef") or {}
        if obj.get("kind") != "PersistentVolume" or csi.get("driver") != FSX_CSI_DRIVER or not claim:
            continue
        mount_name = str((csi.get("volumeAttributes") or {}).get("mountname", ""))
        directory = "/" + mount_name.partition("/")[2].strip("/")
        read_only = bool(csi.get("readOnly"))  # what the driver is told; accessModes only guide binding
        found.append(FsxVolume(obj["metadata"]["name"], claim.get("namespace", ""), claim.get("name", ""), directory,
                               read_only, str(csi.get("volumeHandle", ""))))
    return found


def _within(directory: str, root: str) -> bool:
    return directory == root or directory.startswith(root + "/")


def volume_findings(volumes: Iterable[FsxVolume]) -> list[tuple[str, str, str]]:
    """(subject, field, message) for every volume that opens more than its namespace should see."""
    findings = []
    by_namespace: dict[str, list[FsxVolume]] = {}
    for volume in volumes:
        subject = f"PersistentVolume {volume.name} (claim {volume.claim_namespace}/{volume.claim_name})"
        namespace = volume.claim_namespace
        by_namespace.setdefault(namespace, []).append(volume)
        if volume.directory == "/":
            if namespace not in ROOT_NAMESPACES:
                findings.append((subject, "mountname", f"mounts the file system root in namespace {namespace!r}: every "
                                 "team's workspace and the shared data, read-write; mount a sub-directory"))
        elif _within(volume.directory, FSX_DATA_DIR):
            if not volume.read_only:
                findings.append((subject, "csi.readOnly", f"mounts the shared data {volume.directory} writable: any pod "
                                 f"of {namespace!r} can change every team's datasets; set readOnly"))
        elif _within(volume.directory, FSX_WORKSPACES_DIR):
            owner = volume.directory[len(FSX_WORKSPACES_DIR) + 1:].split("/", 1)[0]
            if owner != namespace:
                findings.append((subject, "mountname", f"mounts {volume.directory}, the workspace of "
                                 f"{owner or 'every namespace'!r}, in namespace {namespace!r}"))
    for namespace, owned in by_namespace.items():
        handles: dict[str, str] = {}
        for volume in owned:
            if volume.handle in handles:
                findings.append((f"PersistentVolume {volume.name}", "csi.volumeHandle",
                                 f"{volume.handle!r} is also {handles[volume.handle]}'s handle: kubelet never mounts "
                                 "both in one pod (aws-fsx-csi-driver#328); give each volume its own handle"))
            handles[volume.handle] = volume.name
    return findings


def missing_claim_findings(pods: Iterable[PodTemplate], claims: set[tuple[str, str]],
                           fsx_claim_names: set[str]) -> list[tuple[str, str, str]]:
    """Pods naming a platform FSx claim that their namespace lacks: they stay Pending (FailedMount)."""
    findings = []
    for pod in pods:
        for volume in pod.spec.get("volumes") or []:
            claim = (volume.get("persistentVolumeClaim") or {}).get("claimName")
            if claim in fsx_claim_names and (pod.namespace, claim) not in claims:
                findings.append((pod.owner, f"volumes[{volume.get('name')}]",
                                 f"claim {claim!r} does not exist in namespace {pod.namespace!r}: the pod never starts"))
    return findings
