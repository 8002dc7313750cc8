"""Every pod runs as a ServiceAccount that exists in its namespace: one that does not keeps the pod from being
created at all (the API server refuses it), which only shows once a job is submitted or an operator reconciles.

Accounts come from the stack's manifests and the rendered Helm releases; ``default`` exists in every namespace.
Pods whose operator makes the account itself are the operator's business, not ours: pass only the templates whose
accounts the platform must provide.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from eks_training.infra.tools.check.placement import PodTemplate


def service_accounts(objects: Iterable[Mapping[str, Any]]) -> set[tuple[str, str]]:
    """(namespace, name) of every ServiceAccount among ``objects``."""
    return {((o.get("metadata") or {}).get("namespace"), (o.get("metadata") or {}).get("name"))
            for o in objects if o.get("kind") == "ServiceAccount"}


def missing_account_findings(pods: Iterable[PodTemplate], accounts: set[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """(subject, field, message) for each pod template naming an account its namespace lacks."""
    findings = []
    for pod in pods:
        name = pod.spec.get("serviceAccountName") or "default"
        if name != "default" and (pod.namespace, name) not in accounts:
            findings.append((pod.owner, "serviceAccountName", f"{name!r} does not exist in namespace "
                             f"{pod.namespace!r}: the API server refuses the pod"))
    return findings
