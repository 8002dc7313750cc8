"""Install the MPI Operator's pinned upstream release manifest at deploy time, after checking its digest.

The MPI Operator (kubeflow.org/v2beta1) ships no Helm chart, and its manifest (about 9,000 lines of CRD) must
not be vendored nor inlined in a CloudFormation template. A one-shot Job downloads the release manifest of the
pinned tag, refuses it unless its SHA-256 equals the digest pinned here, and applies it server-side (the CRD is
too large for client-side apply's last-applied annotation).
"""

from __future__ import annotations

import re

import cdk8s
import constructs

from eks_training.workloads.k8s_objects import emit
from eks_training.workloads.labels import common_labels
from eks_training.workloads.platform_names import SYSTEM_NODE_SELECTOR

MPI_OPERATOR_VERSION = "v0.8.0"
#: sha256 of deploy/v2beta1/mpi-operator.yaml at tag v0.8.0 of github.com/kubeflow/mpi-operator.
MPI_OPERATOR_SHA256 = "b38def13a94abe60b2a4b3485239d77f64892b8fbd202e9e435a6031b7500a8f"
MANIFEST_URL = "https://raw.githubusercontent.com/kubeflow/mpi-operator/{version}/deploy/v2beta1/mpi-operator.yaml"
#: kubectl, curl and sha256sum in one small image.
INSTALLER_IMAGE = "docker.io/alpine/k8s:1.33.4"
NAMESPACE = "mpi-operator-install"
COMPONENT = "mpi-operator"

_SCRIPT = """\
set -eu
curl -fsSL --retry 5 --retry-delay 5 -o /tmp/mpi-operator.yaml "$MANIFEST_URL"
echo "$MANIFEST_SHA256  /tmp/mpi-operator.yaml" | sha256sum -c -
kubectl apply --server-side --force-conflicts -f /tmp/mpi-operator.yaml
kubectl -n mpi-operator rollout status deployment/mpi-operator --timeout=300s
"""


class MpiOperatorInstallChart(cdk8s.Chart):
    """A Job (with the ServiceAccount and binding it needs) that installs the pinned MPI Operator release.

    Applying an operator creates CRDs, ClusterRoles and a namespace, so the installer is bound to
    ``cluster-admin``; it lives in its own namespace, and nothing else runs as that account.
    """

    def __init__(self, scope: constructs.Construct, id: str, *, version: str = MPI_OPERATOR_VERSION,
                 sha256: str = MPI_OPERATOR_SHA256, image: str = INSTALLER_IMAGE) -> None:
        super().__init__(scope, id)
        if not re.fullmatch(r"v\d+\.\d+\.\d+", version):
            raise ValueError(f"version={version!r} is not a release tag such as v0.8.0")
        if not re.fullmatch(r"[0-9a-f]{64}", sha256):
            raise ValueError(f"sha256={sha256!r} is not a hex SHA-256 digest (64 characters 0-9a-f)")
        labels = common_labels(COMPONENT)
        meta = {"name": "mpi-operator-installer", "namespace": NAMESPACE, "labels": labels}
        emit(self, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE, "labels": labels}})
        emit(self, {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta})
        emit(self, {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                    "metadata": {"name": "mpi-operator-installer", "labels": labels},
                    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
                    "subjects": [{"kind": "ServiceAccount", "name": meta["name"], "namespace": NAMESPACE}]})
        emit(self, {"apiVersion": "batch/v1", "kind": "Job",
                    "metadata": {**meta, "name": f"install-mpi-operator-{version.replace('.', '-')}"},
                    "spec": {"backoffLimit": 3, "template": {"metadata": {"labels": labels}, "spec": {
                        "serviceAccountName": meta["name"], "restartPolicy": "OnFailure",
                        "nodeSelector": dict(SYSTEM_NODE_SELECTOR),
                        "securityContext": {"runAsNonRoot": True, "runAsUser": 65534},
                        "containers": [{
                            "name": "install", "image": image, "command": ["/bin/sh", "-c", _SCRIPT],
                            "env": [{"name": "MANIFEST_URL", "value": MANIFEST_URL.format(version=version)},
                                    {"name": "MANIFEST_SHA256", "value": sha256}],
                            "securityContext": {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": False,
                                                "capabilities": {"drop": ["ALL"]}},
                            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"},
                                          "limits": {"memory": "256Mi"}}}]}}}})
