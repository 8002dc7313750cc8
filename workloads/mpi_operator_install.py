"""Install the MPI Operator's pinned upstream release manifest at deploy time, after checking its digest.

The MPI Operator (kubeflow.org/v2beta1) ships no Helm chart, and its manifest (about 9,000 lines of CRD) must
not be vendored nor inlined in a CloudFormation template. A one-shot Job downloads the release manifest of the
pinned tag, refuses it unless its SHA-256 equals the digest pinned here, applies it server-side (the CRD is
too large for client-side apply's last-applied annotation), pins the operator to the system nodes, and unbinds
its own rights.
"""

from __future__ import annotations

import json
import re

import cdk8s
import constructs

from eks_training.core.names import SYSTEM_NODE_SELECTOR
from eks_training.core.versions import MPI_OPERATOR_VERSION  # the one pin table
from eks_training.workloads.k8s_objects import emit
from eks_training.workloads.labels import common_labels
from eks_training.workloads.namespaces import PodSecurity
from eks_training.workloads.network_policies import KUBE_DNS, NAMESPACE_NAME_LABEL

#: sha256 of deploy/v2beta1/mpi-operator.yaml at tag v0.8.0 of github.com/kubeflow/mpi-operator.
MPI_OPERATOR_SHA256 = "b38def13a94abe60b2a4b3485239d77f64892b8fbd202e9e435a6031b7500a8f"
MANIFEST_URL = "https://raw.githubusercontent.com/kubeflow/mpi-operator/{version}/deploy/v2beta1/mpi-operator.yaml"
#: kubectl, curl and sha256sum in one small image.
INSTALLER_IMAGE = "docker.io/alpine/k8s:1.33.4"
NAMESPACE = "mpi-operator-install"
COMPONENT = "mpi-operator"

#: What the pinned manifest creates (kind, name); the installer's RBAC grants exactly these and nothing else.
OPERATOR_NAMESPACE = "mpi-operator"
CRD_NAME = "mpijobs.kubeflow.org"
CLUSTER_ROLES = ("kubeflow-mpijobs-admin", "kubeflow-mpijobs-edit", "kubeflow-mpijobs-view", "mpi-operator")
#: The one ClusterRole the manifest binds (ClusterRoleBinding mpi-operator -> ClusterRole mpi-operator).
BOUND_CLUSTER_ROLE = "mpi-operator"
CLUSTER_ROLE_BINDING = "mpi-operator"
OPERATOR_SERVICE_ACCOUNT = "mpi-operator"
OPERATOR_DEPLOYMENT = "mpi-operator"
INSTALLER = "mpi-operator-installer"
#: Seconds a finished Job (and its pod) is kept for its logs before Kubernetes deletes it.
TTL_SECONDS_AFTER_FINISHED = 3600

_SCRIPT = """\
set -eu
curl -fsSL --retry 5 --retry-delay 5 -o /tmp/mpi-operator.yaml "$MANIFEST_URL"
echo "$MANIFEST_SHA256  /tmp/mpi-operator.yaml" | sha256sum -c -
kubectl apply --server-side --force-conflicts -f /tmp/mpi-operator.yaml
kubectl -n mpi-operator patch deployment mpi-operator --type merge -p "$NODE_SELECTOR_PATCH"
kubectl -n mpi-operator rollout status deployment/mpi-operator --timeout=300s
# Done: give up the installer's rights (a later deploy that changes this chart binds them again for its run).
kubectl -n mpi-operator delete rolebinding mpi-operator-installer --ignore-not-found
kubectl delete clusterrolebinding mpi-operator-installer --ignore-not-found
"""

RBAC_GROUP = "rbac.authorization.k8s.io"


def installer_cluster_rules() -> list[dict]:
    """Cluster-scoped rights to server-side apply the manifest's cluster-scoped objects, each by name.

    Server-side apply is a PATCH; when the object does not exist yet the API server also checks ``create`` for
    that same name, so ``create`` can be limited by resourceNames here (a plain POST could not be).
    RBAC lets a subject write a role with permissions it does not hold only with ``escalate`` on that role, and
    bind a role only with ``bind`` on it: both are granted on the manifest's role names alone, instead of holding
    the operator's own rights.
    """
    apply = ["get", "create", "patch"]
    return [
        {"apiGroups": ["apiextensions.k8s.io"], "resources": ["customresourcedefinitions"], "resourceNames": [CRD_NAME], "verbs": apply},
        # Our chart creates the namespace (so the namespaced rights below can be a RoleBinding in it); the
        # manifest's Namespace object then only patches its labels.
        {"apiGroups": [""], "resources": ["namespaces"], "resourceNames": [OPERATOR_NAMESPACE], "verbs": ["get", "patch"]},
        {"apiGroups": [RBAC_GROUP], "resources": ["clusterroles"], "resourceNames": list(CLUSTER_ROLES), "verbs": [*apply, "escalate"]},
        {"apiGroups": [RBAC_GROUP], "resources": ["clusterroles"], "resourceNames": [BOUND_CLUSTER_ROLE], "verbs": ["bind"]},
        {"apiGroups": [RBAC_GROUP], "resources": ["clusterrolebindings"], "resourceNames": [CLUSTER_ROLE_BINDING], "verbs": apply},
        # The script's last step removes the installer's own binding.
        {"apiGroups": [RBAC_GROUP], "resources": ["clusterrolebindings"], "resourceNames": [INSTALLER], "verbs": ["get", "delete"]},
    ]


def installer_namespace_rules() -> list[dict]:
    """Rights in the operator's namespace only: its ServiceAccount and Deployment, by name."""
    apply = ["get", "create", "patch"]
    return [
        {"apiGroups": [""], "resources": ["serviceaccounts"], "resourceNames": [OPERATOR_SERVICE_ACCOUNT], "verbs": apply},
        {"apiGroups": ["apps"], "resources": ["deployments"], "resourceNames": [OPERATOR_DEPLOYMENT], "verbs": apply},
        # `kubectl rollout status` lists and watches the Deployment (it filters by name on the client's side).
        {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["list", "watch"]},
        {"apiGroups": [RBAC_GROUP], "resources": ["rolebindings"], "resourceNames": [INSTALLER], "verbs": ["get", "delete"]},
    ]


def installer_network_policy() -> dict:
    """The installer's namespace: no ingress; egress only to DNS and HTTPS (the release download, the API)."""
    return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
            "metadata": {"name": "installer", "namespace": NAMESPACE, "labels": common_labels(COMPONENT)},
            "spec": {"podSelector": {}, "policyTypes": ["Ingress", "Egress"], "egress": [
                {"to": [{"namespaceSelector": {"matchLabels": {NAMESPACE_NAME_LABEL: KUBE_DNS["namespace"]}},
                         "podSelector": {"matchLabels": dict(KUBE_DNS["pod_labels"])}}],
                 "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]},
                # raw.githubusercontent.com has no fixed addresses, and the API's Service VIP is outside the VPC.
                {"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "ports": [{"protocol": "TCP", "port": 443}]}]}}


class MpiOperatorInstallChart(cdk8s.Chart):
    """A Job that installs the pinned MPI Operator release, with only the rights that install needs.

    No ``cluster-admin``: a ClusterRole names each cluster-scoped object of the manifest (CRD, ClusterRoles,
    ClusterRoleBinding, the namespace), a Role in the operator's namespace names its ServiceAccount and
    Deployment. The Job also pins the operator's Deployment to the system nodes, then deletes both of its
    bindings; Kubernetes deletes the finished Job after ``TTL_SECONDS_AFTER_FINISHED``.

    What remains after a successful run: the installer's ServiceAccount, ClusterRole and Role, bound to nothing
    (a later deploy that changes this chart re-applies the bindings and the Job, which runs and unbinds again).
    While the Job runs, ``escalate``/``bind`` on the operator's role names would let a thief of its token write
    any rights into those roles and bind them: the window is the Job's run, in a namespace where nothing else runs.
    """

    def __init__(self, scope: constructs.Construct, id: str, *, version: str = MPI_OPERATOR_VERSION,
                 sha256: str = MPI_OPERATOR_SHA256, image: str = INSTALLER_IMAGE) -> None:
        super().__init__(scope, id)
        if not re.fullmatch(r"v\d+\.\d+\.\d+", version):
            raise ValueError(f"version={version!r} is not a release tag such as v0.8.0")
        if not re.fullmatch(r"[0-9a-f]{64}", sha256):
            raise ValueError(f"sha256={sha256!r} is not a hex SHA-256 digest (64 characters 0-9a-f)")
        labels = common_labels(COMPONENT)
        meta = {"name": INSTALLER, "namespace": NAMESPACE, "labels": labels}
        subjects = [{"kind": "ServiceAccount", "name": INSTALLER, "namespace": NAMESPACE}]
        # The Job is the only pod here and is fully hardened; the operator's upstream Deployment sets no
        # securityContext, which baseline admits and restricted would not.
        emit(self, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE, "labels": {
            **labels, **PodSecurity(enforce="restricted").labels(f"namespace {NAMESPACE!r}")}}})
        emit(self, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": OPERATOR_NAMESPACE, "labels": {
            **labels, **PodSecurity().labels(f"namespace {OPERATOR_NAMESPACE!r}")}}})
        emit(self, {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta})
        emit(self, {"apiVersion": f"{RBAC_GROUP}/v1", "kind": "ClusterRole", "metadata": {"name": INSTALLER, "labels": labels},
                    "rules": installer_cluster_rules()})
        emit(self, {"apiVersion": f"{RBAC_GROUP}/v1", "kind": "ClusterRoleBinding", "metadata": {"name": INSTALLER, "labels": labels},
                    "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": INSTALLER}, "subjects": subjects})
        in_operator_ns = {**meta, "namespace": OPERATOR_NAMESPACE}
        emit(self, {"apiVersion": f"{RBAC_GROUP}/v1", "kind": "Role", "metadata": in_operator_ns, "rules": installer_namespace_rules()})
        emit(self, {"apiVersion": f"{RBAC_GROUP}/v1", "kind": "RoleBinding", "metadata": in_operator_ns,
                    "roleRef": {"apiGroup": RBAC_GROUP, "kind": "Role", "name": INSTALLER}, "subjects": subjects})
        node_selector_patch = json.dumps({"spec": {"template": {"spec": {"nodeSelector": dict(SYSTEM_NODE_SELECTOR)}}}},
                                         sort_keys=True)
        emit(self, {"apiVersion": "batch/v1", "kind": "Job",
                    "metadata": {**meta, "name": f"install-mpi-operator-{version.replace('.', '-')}"},
                    "spec": {"backoffLimit": 3, "ttlSecondsAfterFinished": TTL_SECONDS_AFTER_FINISHED,
                             "template": {"metadata": {"labels": labels}, "spec": {
                        "serviceAccountName": INSTALLER, "restartPolicy": "OnFailure",
                        "nodeSelector": dict(SYSTEM_NODE_SELECTOR),
                        "securityContext": {"runAsNonRoot": True, "runAsUser": 65534, "runAsGroup": 65534,
                                            "seccompProfile": {"type": "RuntimeDefault"}},
                        "containers": [{
                            "name": "install", "image": image, "command": ["/bin/sh", "-c", _SCRIPT],
                            "env": [{"name": "MANIFEST_URL", "value": MANIFEST_URL.format(version=version)},
                                    {"name": "MANIFEST_SHA256", "value": sha256},
                                    {"name": "NODE_SELECTOR_PATCH", "value": node_selector_patch},
                                    # kubectl writes its discovery cache under $HOME: /tmp is writable for 65534.
                                    {"name": "HOME", "value": "/tmp"}],
                            "securityContext": {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                                "capabilities": {"drop": ["ALL"]}},
                            # The download and kubectl's cache are the only writes: an emptyDir at /tmp.
                            "volumeMounts": [{"name": "tmp", "mountPath": "/tmp"}],
                            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"},
                                          "limits": {"memory": "256Mi"}}}],
                        "volumes": [{"name": "tmp", "emptyDir": {"sizeLimit": "64Mi"}}]}}}})
        emit(self, installer_network_policy())
