"""The ServiceAccounts workload pods get AWS access through: ``training`` in every workload namespace and ``ray`` in
the namespaces where Ray runs, each a cdk8s-plus-28 ``kplus.ServiceAccount``.

EKS Pod Identity associates both accounts of a namespace with the namespace's IAM role (``TrainingPlatformStack``).
They differ in what they may do in Kubernetes:

* ``training`` mounts no API token (plus's default, said here): job pods, notebooks, data preparation and the
  checkpoint sidecar never call the Kubernetes API (Pod Identity hands out AWS credentials through its own
  projected token, not this one), so a compromised job gets nothing from the API server. MPI launchers use their
  own account (``mpi-launcher``).
* ``ray`` mounts its token: KubeRay binds its in-tree autoscaler's Role (create/delete pods, patch the RayCluster)
  to the account the head pod names, and the autoscaler sidecar calls the API as it. Giving Ray its own account
  keeps those rights on Ray's pods instead of on every pod of the namespace.
"""

from __future__ import annotations

from collections.abc import Sequence

import cdk8s
import cdk8s_plus_28 as kplus
import constructs

from eks_training.core.names import RAY_SERVICE_ACCOUNT, TRAINING_SERVICE_ACCOUNT
from eks_training.core.validation import invalid
from eks_training.workloads.k8s_objects import check_dns_label, check_unique
from eks_training.workloads.labels import common_labels
from eks_training.workloads.namespaces import api_objects_of

COMPONENT = "training-identity"


def add_service_account(scope: constructs.Construct, name: str, namespace: str) -> kplus.ServiceAccount:
    """``training`` (no API token) or ``ray`` (its token: KubeRay's autoscaler calls the API as it) in ``namespace``."""
    check_dns_label("namespace", namespace)
    if name not in (TRAINING_SERVICE_ACCOUNT, RAY_SERVICE_ACCOUNT):
        raise invalid("service account", name, f"{TRAINING_SERVICE_ACCOUNT} or {RAY_SERVICE_ACCOUNT}")
    return kplus.ServiceAccount(scope, f"ServiceAccount:{namespace}:{name}", automount_token=name == RAY_SERVICE_ACCOUNT,
                                metadata=cdk8s.ApiObjectMetadata(name=name, namespace=namespace,
                                                                 labels=common_labels(COMPONENT)))


class TrainingServiceAccountsChart(cdk8s.Chart):
    """``training`` in each of ``namespaces`` and ``ray`` in each of ``ray_namespaces`` (a subset); the namespaces
    must exist first."""

    def __init__(self, scope: constructs.Construct, id: str, *, namespaces: Sequence[str],
                 ray_namespaces: Sequence[str] = ()) -> None:
        super().__init__(scope, id)
        if isinstance(namespaces, (str, bytes)) or not namespaces:
            raise invalid("namespaces", namespaces, "use a non-empty list of namespace names")
        check_unique("namespaces", list(namespaces))
        if isinstance(ray_namespaces, (str, bytes)) or not set(ray_namespaces) <= set(namespaces):
            raise invalid("ray_namespaces", ray_namespaces, f"use namespaces of {list(namespaces)!r}")
        self.accounts = [add_service_account(self, TRAINING_SERVICE_ACCOUNT, ns) for ns in namespaces]
        self.ray_accounts = [add_service_account(self, RAY_SERVICE_ACCOUNT, ns) for ns in ray_namespaces]

    @property
    def api_objects(self) -> list[cdk8s.ApiObject]:
        """The ServiceAccounts' ApiObjects (each inside its plus construct), in namespace order."""
        return api_objects_of(self)
