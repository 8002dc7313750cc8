"""The labels every object of the platform carries, so `kubectl get -l` finds what belongs to whom."""

from __future__ import annotations

from eks_training.core.validation import invalid
from eks_training.workloads.k8s_objects import check_label_value

PART_OF_LABEL = "app.kubernetes.io/part-of"
COMPONENT_LABEL = "app.kubernetes.io/component"
PLATFORM_NAME = "eks-training"
#: The job a pod belongs to, on pods whose controller adds no label of its own that names it.
JOB_LABEL = "eks-training/job"


def common_labels(component: str) -> dict[str, str]:
    """Labels for an object of the platform that belongs to `component` (an operator or piece, e.g. "karpenter").

    Raises ValueError when `component` is empty or not a valid Kubernetes label value.
    """
    if not component:
        raise invalid("component", component, "use a non-empty label value, e.g. 'karpenter'")
    return {PART_OF_LABEL: PLATFORM_NAME, COMPONENT_LABEL: check_label_value("component", component)}
