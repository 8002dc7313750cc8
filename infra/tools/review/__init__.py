"""What a reviewer reads after ``cdk synth``: the Kubernetes objects as YAML, the Helm releases, a cost summary.

Three pieces: :mod:`.render` reads the synthesized templates (tokens shown as text, manifests, Helm releases,
file names), :mod:`.summary` makes the summary and its cost estimate from the price table, and :mod:`.cli` writes
the review folder (``python -m eks_training.infra.tools.review --env prod --out cdk.out``; see there for what it holds).
"""

from __future__ import annotations

from eks_training.infra.tools.review.cli import main, write_review
from eks_training.infra.tools.review.render import (
    HELM_CHART,
    KUBERNETES_RESOURCE,
    ReviewError,
    chart_file_name,
    helm_releases,
    kubernetes_manifests,
    load_templates,
    manifest_construct_ids,
    readable_name,
    readable_token,
    render_cfn_string,
    strip_tokens,
)
from eks_training.infra.tools.review.summary import PRICES_FILE, TOP_RESOURCE_TYPES, Prices, estimate_cost, format_summary, summarize

__all__ = [
    "HELM_CHART", "KUBERNETES_RESOURCE", "PRICES_FILE", "TOP_RESOURCE_TYPES",
    "Prices", "ReviewError",
    "chart_file_name", "estimate_cost", "format_summary", "helm_releases", "kubernetes_manifests", "load_templates",
    "main", "manifest_construct_ids", "readable_name", "readable_token", "render_cfn_string", "strip_tokens",
    "summarize", "write_review",
]
