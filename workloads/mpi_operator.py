"""What MPIJobs (`kubeflow.org/v2beta1`) need in each training namespace: a launcher identity.

The v2 MPI Operator (v0.3.0 onwards) starts workers over SSH with keys it generates per job; the old
`kubectl exec` delivery (and its `pods/exec` permission) is gone. So the launcher gets its own
ServiceAccount with read-only access to the pods of its namespace (enough for launch scripts that wait for
workers or list their addresses) and nothing more. Job builders set `serviceAccountName` to
`LAUNCHER_SERVICE_ACCOUNT` on the launcher template.
"""

from __future__ import annotations

from collections.abc import Sequence

import cdk8s
import constructs

from eks_training.core.names import MPI_LAUNCHER_SERVICE_ACCOUNT as LAUNCHER_SERVICE_ACCOUNT
from eks_training.workloads.k8s_objects import check_dns_label, check_unique, emit
from eks_training.workloads.labels import common_labels

COMPONENT = "mpi-operator"
_LAUNCHER_POD_VERBS = ["get", "list", "watch"]


def launcher_rbac(namespace: str) -> list[dict]:
    """The launcher ServiceAccount, its pod-reading Role and the RoleBinding between them, in `namespace`."""
    check_dns_label("namespace", namespace)
    metadata = {"name": LAUNCHER_SERVICE_ACCOUNT, "namespace": namespace, "labels": common_labels(COMPONENT)}
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": metadata},
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": metadata,
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": _LAUNCHER_POD_VERBS}],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": metadata,
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": LAUNCHER_SERVICE_ACCOUNT},
            "subjects": [{"kind": "ServiceAccount", "name": LAUNCHER_SERVICE_ACCOUNT, "namespace": namespace}],
        },
    ]


class MpiOperatorSupportChart(cdk8s.Chart):
    """The MPIJob launcher ServiceAccount, Role and RoleBinding in each training namespace."""

    def __init__(self, scope: constructs.Construct, id: str, *, namespaces: Sequence[str]) -> None:
        super().__init__(scope, id)
        if isinstance(namespaces, (str, bytes)) or not namespaces:
            raise ValueError(f"namespaces={namespaces!r} must be a non-empty list of namespace names")
        check_unique("namespaces", list(namespaces))
        for namespace in namespaces:
            for obj in launcher_rbac(namespace):
                emit(self, obj)
