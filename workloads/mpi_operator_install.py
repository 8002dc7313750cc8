"""Install the MPI Operator's pinned upstream release manifest at deploy time, after checking its digest.

The MPI Operator (kubeflow.org/v2beta1) ships no Helm chart, and its manifest (about 9,000 lines of CRD) must
not be vendored nor inlined in a CloudFormation template. A one-shot Job downloads the release manifest of the
pinned tag, refuses it unless its SHA-256 equals the digest pinned here, applies it server-side (the CRD is
too large for client-side apply's last-applied annotation), pins the operator to the system nodes, and unbinds
its own rights.

Every object here is a cdk8s-plus-28 construct (Namespaces, ServiceAccount, ClusterRole/Role and their bindings,
the Job with its emptyDir volume, the NetworkPolicy), with plus's defaults set where they would change what the
manifest meant when it was written as plain dicts:

* ``automountServiceAccountToken``: plus defaults it to false on pods and ServiceAccounts. The Job needs the token
  (kubectl calls the API), so its pod sets it true; the ServiceAccount keeps plus's false, so a token is mounted
  only where a pod asks for it (the Job is the only pod that uses the account).
* container ``securityContext``: plus defaults to runAsNonRoot, readOnlyRootFilesystem, no privilege escalation,
  not privileged; all are given explicitly, with the capabilities drop.
* ``imagePullPolicy``: plus defaults to Always; IfNotPresent is given (the image is pinned by digest, so a pull
  could only fetch the same bytes again).
* resources: plus gives every container 1 CPU / 512Mi requests and 1.5 CPU / 2Gi limits unless told; the
  requests and the memory limit are given, and no CPU limit.
* ``restartPolicy``: plus's Job defaults to Never; OnFailure is given (retry in the same pod, up to backoffLimit).
* plus also writes fields the API server would default to the same values: ``dnsPolicy: ClusterFirst``,
  ``hostNetwork: false``, ``setHostnameAsFQDN: false``, ``terminationGracePeriodSeconds: 30``,
  ``fsGroupChangePolicy: Always`` (inert without an fsGroup), a Namespace's empty ``spec``, a ServiceAccount
  subject's ``apiGroup: ""``; and a ``cdk8s.io/metadata.addr`` label on the pod, which nothing selects on.
* scheduling: plus has no ``nodeSelector``; ``scheduling.attract`` writes the same constraint as required node
  affinity (one term, one ``In`` expression per label of SYSTEM_NODE_SELECTOR: the node must have all of them);
  ``scheduling.tolerate`` the system nodes' taint.

What plus cannot express, and how it is written instead:

* the pod's ``seccompProfile``: plus-28's pod security context has none (only containers'); it is added to the
  Job's pod with a JSON patch, so every container of the pod, ephemeral debug containers too, runs RuntimeDefault.
* RBAC rules that name objects (``resourceNames``): plus's rules take resources, and only its own objects carry
  names; :class:`NamedResource` is the small ``IApiResource`` that names an object of the upstream manifest.
  plus writes one rule per named object (rights add up in RBAC, so this grants exactly what a rule listing
  several names did).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import cdk8s
import cdk8s_plus_28 as kplus
import constructs
import jsii

from eks_training.core.validation import invalid
from eks_training.core.names import system_placement
from eks_training.core import upstream
from eks_training.core.versions import KUBECTL_IMAGES, MPI_OPERATOR_VERSION  # the pin table
from eks_training.workloads.labels import common_labels
from eks_training.workloads.namespaces import PodSecurity, api_objects_of
from eks_training.workloads.network_policies import (HTTPS_PORT, OperatorNamespacePolicy, Port, add_operator_policies,
                                                     allow_dns, allow_egress_to_cidr, network_policy)
from eks_training.workloads.plus_pods import on_system_nodes, runtime_default_seccomp

#: sha256 of deploy/v2beta1/mpi-operator.yaml at the pinned tag of github.com/kubeflow/mpi-operator (the lock's).
MPI_OPERATOR_SHA256 = upstream.file_artifact(f"charts/mpi-operator-{MPI_OPERATOR_VERSION}/mpi-operator.yaml").sha256
MANIFEST_URL = "https://raw.githubusercontent.com/kubeflow/mpi-operator/{version}/deploy/v2beta1/mpi-operator.yaml"
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


def installer_image(kubernetes_version: str) -> str:
    """kubectl, curl and sha256sum in one small image, pinned by digest, with a kubectl inside the supported skew
    (one minor version) of a ``kubernetes_version`` API server (:data:`~eks_training.core.versions.KUBECTL_IMAGES`)."""
    if kubernetes_version not in KUBECTL_IMAGES:
        raise invalid("kubernetes_version", kubernetes_version, f"use one of {', '.join(KUBECTL_IMAGES)}")
    return KUBECTL_IMAGES[kubernetes_version]


@jsii.implements(kplus.IApiResource, kplus.IApiEndpoint)
class NamedResource:
    """An API resource for cdk8s-plus RBAC rules, limited to one object's name (None: every object).

    plus's own objects name themselves; this names objects that the upstream manifest creates, which are no
    construct of ours.
    """

    def __init__(self, api_group: str, resource_type: str, resource_name: str | None = None) -> None:
        self._api_group, self._resource_type, self._resource_name = api_group, resource_type, resource_name

    @property
    def api_group(self) -> str:
        return self._api_group

    @property
    def resource_type(self) -> str:
        return self._resource_type

    @property
    def resource_name(self) -> str | None:
        return self._resource_name

    def as_api_resource(self) -> kplus.IApiResource:
        return self

    def as_non_api_resource(self) -> str | None:
        return None


@dataclass(frozen=True)
class Grant:
    """Verbs on one resource of one API group, limited to ``names`` when any are given."""

    verbs: tuple[str, ...]
    api_group: str
    resource: str
    names: tuple[str, ...] = ()

    def resources(self) -> list[NamedResource]:
        """What the plus rule is given: one resource per name, or the whole resource when unnamed."""
        return [NamedResource(self.api_group, self.resource, name) for name in self.names or (None,)]


_APPLY = ("get", "create", "patch")


def installer_cluster_rules() -> list[Grant]:
    """Cluster-scoped rights to server-side apply the manifest's cluster-scoped objects, each by name.

    Server-side apply is a PATCH; when the object does not exist yet the API server also checks ``create`` for
    that same name, so ``create`` can be limited by resourceNames here (a plain POST could not be).
    RBAC lets a subject write a role with permissions it does not hold only with ``escalate`` on that role, and
    bind a role only with ``bind`` on it: both are granted on the manifest's role names alone, instead of holding
    the operator's own rights.
    """
    return [
        Grant(_APPLY, "apiextensions.k8s.io", "customresourcedefinitions", (CRD_NAME,)),
        # Our chart creates the namespace (so the namespaced rights below can be a RoleBinding in it); the
        # manifest's Namespace object then only patches its labels.
        Grant(("get", "patch"), "", "namespaces", (OPERATOR_NAMESPACE,)),
        Grant((*_APPLY, "escalate"), RBAC_GROUP, "clusterroles", CLUSTER_ROLES),
        Grant(("bind",), RBAC_GROUP, "clusterroles", (BOUND_CLUSTER_ROLE,)),
        Grant(_APPLY, RBAC_GROUP, "clusterrolebindings", (CLUSTER_ROLE_BINDING,)),
        # The script's last step removes the installer's own binding.
        Grant(("get", "delete"), RBAC_GROUP, "clusterrolebindings", (INSTALLER,)),
    ]


def installer_namespace_rules() -> list[Grant]:
    """Rights in the operator's namespace only: its ServiceAccount and Deployment, by name."""
    return [
        Grant(_APPLY, "", "serviceaccounts", (OPERATOR_SERVICE_ACCOUNT,)),
        Grant(_APPLY, "apps", "deployments", (OPERATOR_DEPLOYMENT,)),
        # `kubectl rollout status` lists and watches the Deployment (it filters by name on the client's side).
        Grant(("list", "watch"), "apps", "deployments"),
        Grant(("get", "delete"), RBAC_GROUP, "rolebindings", (INSTALLER,)),
    ]


def add_installer_network_policy(scope: constructs.Construct) -> kplus.NetworkPolicy:
    """The installer's namespace: no ingress; egress only to DNS and HTTPS (the release download, the API)."""
    policy = network_policy(scope, NAMESPACE, "installer", component=COMPONENT, isolate=("Ingress", "Egress"))
    allow_dns(policy)
    # raw.githubusercontent.com has no fixed addresses, and the API's Service VIP is outside the VPC.
    allow_egress_to_cidr(policy, "0.0.0.0/0", [Port(HTTPS_PORT)])
    return policy


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

    * ``kubernetes_version``: the cluster's, which picks the installer image (required unless ``image`` is given).
    * ``image``: another image with kubectl, curl and sha256sum (default: :func:`installer_image` of
      ``kubernetes_version``).
    """

    def __init__(self, scope: constructs.Construct, id: str, *, version: str = MPI_OPERATOR_VERSION,
                 sha256: str = MPI_OPERATOR_SHA256, kubernetes_version: str | None = None,
                 image: str | None = None) -> None:
        super().__init__(scope, id)
        if image is None and kubernetes_version is None:
            raise invalid("kubernetes_version", None, "the cluster's Kubernetes version (it picks the installer's "
                                                      "kubectl), or an image")
        image = image or installer_image(kubernetes_version)
        if not re.fullmatch(r"v\d+\.\d+\.\d+", version):
            raise invalid("version", version, "use a release tag such as v0.8.0")
        if not re.fullmatch(r"[0-9a-f]{64}", sha256):
            raise invalid("sha256", sha256, "use a hex SHA-256 digest (64 characters 0-9a-f)")
        labels = common_labels(COMPONENT)
        # The Job is the only pod here and is fully hardened; the operator's upstream Deployment sets no
        # securityContext, which baseline admits and restricted would not.
        kplus.Namespace(self, "Namespace:installer", metadata=cdk8s.ApiObjectMetadata(name=NAMESPACE, labels={
            **labels, **PodSecurity(enforce="restricted").labels(f"namespace {NAMESPACE!r}")}))
        kplus.Namespace(self, "Namespace:operator", metadata=cdk8s.ApiObjectMetadata(name=OPERATOR_NAMESPACE, labels={
            **labels, **PodSecurity().labels(f"namespace {OPERATOR_NAMESPACE!r}")}))
        # automount_token=False (plus's default, said here): only a pod that asks gets the token; the Job asks.
        account = kplus.ServiceAccount(self, "ServiceAccount", automount_token=False,
                                       metadata=cdk8s.ApiObjectMetadata(name=INSTALLER, namespace=NAMESPACE, labels=labels))
        cluster_role = kplus.ClusterRole(self, "ClusterRole", metadata=cdk8s.ApiObjectMetadata(name=INSTALLER, labels=labels))
        for grant in installer_cluster_rules():
            cluster_role.allow(list(grant.verbs), *grant.resources())
        kplus.ClusterRoleBinding(self, "ClusterRoleBinding", role=cluster_role,
                                 metadata=cdk8s.ApiObjectMetadata(name=INSTALLER, labels=labels)).add_subjects(account)
        in_operator_ns = cdk8s.ApiObjectMetadata(name=INSTALLER, namespace=OPERATOR_NAMESPACE, labels=labels)
        role = kplus.Role(self, "Role", metadata=in_operator_ns)
        for grant in installer_namespace_rules():
            role.allow(list(grant.verbs), *grant.resources())
        kplus.RoleBinding(self, "RoleBinding", role=role, metadata=in_operator_ns).add_subjects(account)
        node_selector_patch = json.dumps({"spec": {"template": {"spec": system_placement()}}},
                                         sort_keys=True)
        # The download and kubectl's cache are the only writes: an emptyDir at /tmp.
        tmp = kplus.Volume.from_empty_dir(self, "tmp", "tmp", size_limit=cdk8s.Size.mebibytes(64))
        job = kplus.Job(
            self, "Job",
            metadata=cdk8s.ApiObjectMetadata(name=f"install-mpi-operator-{version.replace('.', '-')}",
                                             namespace=NAMESPACE, labels=labels),
            # plus also labels the pod with cdk8s.io/metadata.addr (its own address for the pod; no selector uses it).
            pod_metadata=cdk8s.ApiObjectMetadata(labels=labels),
            backoff_limit=3,
            ttl_after_finished=cdk8s.Duration.seconds(TTL_SECONDS_AFTER_FINISHED),
            service_account=account,
            # plus's default is false; kubectl needs the token.
            automount_service_account_token=True,
            # plus's Job default is Never.
            restart_policy=kplus.RestartPolicy.ON_FAILURE,
            security_context=kplus.PodSecurityContextProps(ensure_non_root=True, user=65534, group=65534),
            volumes=[tmp],
        )
        on_system_nodes(job)
        runtime_default_seccomp(job)
        job.add_container(
            name="install", image=image, command=["/bin/sh", "-c", _SCRIPT],
            # plus's default is Always; the digest pins the bytes, so a pull could only fetch them again.
            image_pull_policy=kplus.ImagePullPolicy.IF_NOT_PRESENT,
            env_variables={
                "MANIFEST_URL": kplus.EnvValue.from_value(MANIFEST_URL.format(version=version)),
                "MANIFEST_SHA256": kplus.EnvValue.from_value(sha256),
                "NODE_SELECTOR_PATCH": kplus.EnvValue.from_value(node_selector_patch),
                # kubectl writes its discovery cache under $HOME: /tmp is writable for 65534.
                "HOME": kplus.EnvValue.from_value("/tmp"),
            },
            # All of plus's defaults, said here, with the capabilities drop it does not default to.
            security_context=kplus.ContainerSecurityContextProps(
                ensure_non_root=True, privileged=False, allow_privilege_escalation=False, read_only_root_filesystem=True,
                capabilities=kplus.ContainerSecutiryContextCapabilities(drop=[kplus.Capability.ALL])),
            # Without these plus requests 1 CPU / 512Mi and limits 1.5 CPU / 2Gi; no CPU limit is meant.
            resources=kplus.ContainerResources(
                cpu=kplus.CpuResources(request=kplus.Cpu.millis(100)),
                memory=kplus.MemoryResources(request=cdk8s.Size.mebibytes(128), limit=cdk8s.Size.mebibytes(256))),
            volume_mounts=[kplus.VolumeMount(path="/tmp", volume=tmp)],
        )
        add_installer_network_policy(self)
        # The operator itself only calls the API (it has no webhook): isolated like every operator namespace.
        add_operator_policies(self, OperatorNamespacePolicy(OPERATOR_NAMESPACE), vpc_cidr="0.0.0.0/0")

    @property
    def api_objects(self) -> list[cdk8s.ApiObject]:
        """The objects' ApiObjects (each inside its plus construct), in render order."""
        return api_objects_of(self)
