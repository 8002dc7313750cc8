"""What MPIJobs (`kubeflow.org/v2beta1`) need in each training namespace: a launcher identity.

The v2 MPI Operator (v0.3.0 onwards) starts workers over SSH with keys it generates per job; the old
`kubectl exec` delivery (and its `pods/exec` permission) is gone. So the launcher gets its own
ServiceAccount with read-only access to the pods of its namespace (enough for launch scripts that wait for
workers or list their addresses) and nothing more. Job builders set `serviceAccountName` to
`LAUNCHER_SERVICE_ACCOUNT` on the launcher template.

The three objects are cdk8s-plus-28 constructs (``kplus.ServiceAccount``, ``kplus.Role``, ``kplus.RoleBinding``).
Where plus's defaults would change what the objects mean, the chart says what it means instead:

* ``automountServiceAccountToken``: plus writes false on a ServiceAccount unless told. The launcher pods of
  ``eks-training render`` (job_mpi.py, job_healthcheck.py) set no ``automountServiceAccountToken`` of their own
  and read pods through the API with this account's token, so the account says true: what an unset field
  meant before (a token for every pod of the account).
* a RoleBinding subject gets ``apiGroup: ""`` from plus, the core group a ServiceAccount subject belongs to
  (the API server reads an absent one the same way).
"""

from __future__ import annotations

from collections.abc import Sequence

import cdk8s
import cdk8s_plus_28 as kplus
import constructs

from eks_training.core.names import MPI_LAUNCHER_SERVICE_ACCOUNT as LAUNCHER_SERVICE_ACCOUNT
from eks_training.core.validation import invalid
from eks_training.workloads.k8s_objects import check_dns_label, check_unique
from eks_training.workloads.labels import common_labels
from eks_training.workloads.namespaces import api_objects_of

COMPONENT = "mpi-operator"
LAUNCHER_POD_VERBS = ("get", "list", "watch")


def add_launcher_rbac(scope: constructs.Construct,
                      namespace: str) -> tuple[kplus.ServiceAccount, kplus.Role, kplus.RoleBinding]:
    """The launcher ServiceAccount, its pod-reading Role and the RoleBinding between them, in `namespace`."""
    check_dns_label("namespace", namespace)

    def metadata() -> cdk8s.ApiObjectMetadata:
        return cdk8s.ApiObjectMetadata(name=LAUNCHER_SERVICE_ACCOUNT, namespace=namespace, labels=common_labels(COMPONENT))

    # True, not plus's false: the launcher pods ask for no token themselves and call the API with this one.
    account = kplus.ServiceAccount(scope, f"ServiceAccount:{namespace}", metadata=metadata(), automount_token=True)
    role = kplus.Role(scope, f"Role:{namespace}", metadata=metadata())
    role.allow(list(LAUNCHER_POD_VERBS), kplus.ApiResource.PODS)
    binding = kplus.RoleBinding(scope, f"RoleBinding:{namespace}", role=role, metadata=metadata())
    binding.add_subjects(account)
    return account, role, binding


class MpiOperatorSupportChart(cdk8s.Chart):
    """The MPIJob launcher ServiceAccount, Role and RoleBinding in each training namespace."""

    def __init__(self, scope: constructs.Construct, id: str, *, namespaces: Sequence[str]) -> None:
        super().__init__(scope, id)
        if isinstance(namespaces, (str, bytes)) or not namespaces:
            raise invalid("namespaces", namespaces, "use a non-empty list of namespace names")
        check_unique("namespaces", list(namespaces))
        for namespace in namespaces:
            add_launcher_rbac(self, namespace)

    @property
    def api_objects(self) -> list[cdk8s.ApiObject]:
        """The ServiceAccounts', Roles' and RoleBindings' ApiObjects (each inside its plus construct), in render order."""
        return api_objects_of(self)
