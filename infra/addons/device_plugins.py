"""Values shared by the device-plugin add-ons: only on nodes of one accelerator kind, tolerating their taint."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from eks_training.core.catalog import accelerator_tolerations
from eks_training.core.names import LABEL_ACCELERATOR, SLURM_PARTITION_TAINT


def plugin_tolerations(accelerator: str) -> list[dict[str, str]]:
    """What a device plugin of ``accelerator`` tolerates: the accelerator's taint, and the Slurm partitions' taint
    (their nodes are ``accelerator`` nodes of their own, and slurmd gets no device without the plugin)."""
    return [*accelerator_tolerations(accelerator),
            {"key": SLURM_PARTITION_TAINT, "operator": "Exists", "effect": "NoSchedule"}]


def on_accelerator(accelerator: str) -> dict[str, Any]:
    return {"nodeSelector": {LABEL_ACCELERATOR: accelerator}, "tolerations": plugin_tolerations(accelerator)}


def placement_values(node_selector: Mapping[str, str], tolerations: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The chart values that place a DaemonSet: on nodes with these labels, tolerating these taints."""
    return {"nodeSelector": dict(node_selector), "tolerations": [dict(t) for t in tolerations]}


def require_labels(labels: Mapping[str, str]) -> dict[str, Any]:
    """A required node affinity on these labels (replaces a chart's default affinity: Helm replaces lists whole)."""
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": key, "operator": "In", "values": [value]} for key, value in labels.items()]}]}}}
