"""The ``training`` ServiceAccount of each workload namespace: the identity its pods get AWS access through.

EKS Pod Identity associates each account with its namespace's IAM role (``TrainingPlatformStack``); the account
itself is a cdk8s-plus-28 ``kplus.ServiceAccount``.

``automountServiceAccountToken`` is true, said on purpose against plus's default (false), which would change
what the account meant when it was a plain object (unset: true). Pods that run as ``training`` set no
``automountServiceAccountToken`` of their own, and some call the Kubernetes API with the token: a Ray head with
in-tree autoscaling (KubeRay binds its autoscaler's Role to the account the head pod names, and the autoscaler
sidecar calls the API as it). Job pods, notebooks and Ray workers that never call the API would lose nothing
without it, but turning it off here needs the pods that use the API to ask for it first; MPI launchers use their
own account (``mpi-launcher``), not this one.
"""

from __future__ import annotations

from collections.abc import Sequence

import cdk8s
import cdk8s_plus_28 as kplus
import constructs

from eks_training.core.names import TRAINING_SERVICE_ACCOUNT
from eks_training.core.validation import invalid
from eks_training.workloads.k8s_objects import check_dns_label, check_unique
from eks_training.workloads.labels import common_labels
from eks_training.workloads.namespaces import api_objects_of

COMPONENT = "training-identity"


class TrainingServiceAccountsChart(cdk8s.Chart):
    """One ``training`` ServiceAccount (``kplus.ServiceAccount``) per namespace; the namespaces must exist first."""

    def __init__(self, scope: constructs.Construct, id: str, *, namespaces: Sequence[str]) -> None:
        super().__init__(scope, id)
        if isinstance(namespaces, (str, bytes)) or not namespaces:
            raise invalid("namespaces", namespaces, "use a non-empty list of namespace names")
        check_unique("namespaces", list(namespaces))
        self.accounts = [
            # True, not plus's false: see the module docstring (pods of the account rely on the token today).
            kplus.ServiceAccount(self, f"ServiceAccount:{check_dns_label('namespace', ns)}", automount_token=True,
                                 metadata=cdk8s.ApiObjectMetadata(name=TRAINING_SERVICE_ACCOUNT, namespace=ns,
                                                                  labels=common_labels(COMPONENT)))
            for ns in namespaces]

    @property
    def api_objects(self) -> list[cdk8s.ApiObject]:
        """The ServiceAccounts' ApiObjects (each inside its plus construct), in namespace order."""
        return api_objects_of(self)
