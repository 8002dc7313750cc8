"""Pieces every Slurm object builder shares: metadata, images, resources and the shared FSx volume (package-internal)."""

from __future__ import annotations

from typing import Any

from eks_training.workloads.labels import common_labels
from eks_training.workloads.slinky.settings import COMPONENT, SLURM_IMAGE_REGISTRY

def object_metadata(name: str, namespace: str | None, **extra: Any) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "labels": common_labels(COMPONENT)}
    if namespace is not None:
        metadata["namespace"] = namespace
    metadata.update(extra)
    return metadata


def api_object(api_version: str, kind: str, metadata: dict[str, Any], **body: Any) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": metadata, **body}


def slurm_image(component: str, tag: str) -> str:
    return f"{SLURM_IMAGE_REGISTRY}/{component}:{tag}"


def resources(cpu: str, memory: str, extended: dict[str, int] | None = None) -> dict[str, Any]:
    """Requests with memory (and extended resources) also as limits: Slurm sizes a node from the limits, and
    extended resources must have equal requests and limits."""
    extra = {name: count for name, count in (extended or {}).items() if count > 0}
    return {"requests": {"cpu": cpu, "memory": memory, **extra}, "limits": {"memory": memory, **extra}}


POD_LABELS = {"labels": common_labels(COMPONENT)}
