"""Values shared by the device-plugin add-ons: only on nodes of one accelerator kind, tolerating their taint."""

from __future__ import annotations

from typing import Any

from eks_training.core.catalog import accelerator_tolerations
from eks_training.core.names import LABEL_ACCELERATOR


def on_accelerator(accelerator: str) -> dict[str, Any]:
    return {"nodeSelector": {LABEL_ACCELERATOR: accelerator}, "tolerations": accelerator_tolerations(accelerator)}


def require_label(key: str, value: str) -> dict[str, Any]:
    """A required node affinity on one label (replaces a chart's default affinity: Helm replaces lists whole)."""
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}]}}}
