"""A team's people in the cluster: one namespaced Role for its members, bound to the Kubernetes group that their EKS
access entries name (``kubernetesGroups``), and nothing else.

Why a Role of our own and not an EKS access policy. The namespace-scoped policies AWS offers are the Kubernetes
user-facing roles (the EKS user guide, "Review access policy permissions"): ``AmazonEKSViewPolicy`` cannot submit a
job nor exec into a pod, and ``AmazonEKSEditPolicy`` (like ``AmazonEKSAdminPolicy``) also reads and writes every
Secret of the namespace, impersonates its ServiceAccounts, deletes its NetworkPolicies and writes its Services,
ConfigMaps and claims; Admin adds Roles and RoleBindings, so a member could grant themselves anything the namespace
holds. An access entry with no policy and a group is authorized by RBAC alone, so the group's Role is all a member
has: the job kinds `eks-training render` writes (each kind's ``creates``, :data:`eks_training.workloads.jobs.
JOB_KINDS`), read access to what those jobs become (pods, logs, events, Kueue workloads, Volcano pod groups), and
exec and port-forward into the namespace's pods. No Secret, ServiceAccount or token; no Role or RoleBinding; no
NetworkPolicy, ResourceQuota or LimitRange write; no bare pod (jobs go through their queue); nothing cluster-scoped.

What a member can still reach through the pods they start, by Kubernetes' design: a pod may name any ServiceAccount
of its namespace and mount any Secret there. Our team namespaces hold no Secret of the platform's (the MPI Operator
writes each MPIJob's SSH key there, a team's own); their accounts are ``training`` (no API token; the team's AWS role
through Pod Identity), ``ray`` (KubeRay's autoscaler rights on the namespace's pods and RayClusters) and
``mpi-launcher`` (reads pods): all confined to the team's own namespace.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from eks_training.workloads.k8s_objects import check_dns_label
from eks_training.workloads.labels import common_labels

COMPONENT = "team-access"
#: The Role (and RoleBinding) in each team's namespace.
MEMBER_ROLE = "eks-training-member"
RBAC_API = "rbac.authorization.k8s.io"
#: What a member does with a job object: submit (kubectl apply reads first, then creates or patches), watch, delete.
JOB_VERBS = ("get", "list", "watch", "create", "update", "patch", "delete")
READ_VERBS = ("get", "list", "watch")
#: What the jobs become, read-only: (API group, resources).
WATCHED = (
    ("", ("pods", "pods/log", "pods/status", "events", "services", "persistentvolumeclaims", "resourcequotas",
          "limitranges")),
    ("events.k8s.io", ("events",)),
    ("kueue.x-k8s.io", ("workloads", "localqueues")),
    ("scheduling.volcano.sh", ("podgroups",)),
)
#: Into a running pod: a shell, a port (kubectl's WebSocket streams are a GET since Kubernetes 1.30; both are allowed).
POD_SESSIONS = ("pods/exec", "pods/portforward")


def member_group(namespace: str) -> str:
    """The Kubernetes group of ``namespace``'s members (what their EKS access entries put them in)."""
    check_dns_label("namespace", namespace)
    # EKS refuses groups that start with "system:"; ours say whose they are.
    return f"eks-training:{namespace}:members"


def member_rules(job_kinds: Iterable[Any] | None = None) -> list[dict[str, Any]]:
    """The Role's rules: create/watch/delete the objects of ``job_kinds`` (default: every kind `render` knows), read
    what they become, exec and port-forward."""
    if job_kinds is None:
        from eks_training.workloads.jobs import JOB_KINDS

        job_kinds = JOB_KINDS.values()
    by_group: dict[str, set[str]] = {}
    for kind in job_kinds:
        for group, resource in kind.creates:
            by_group.setdefault(group, set()).add(resource)
    rules = [{"apiGroups": [group], "resources": sorted(resources), "verbs": list(JOB_VERBS)}
             for group, resources in sorted(by_group.items())]
    rules += [{"apiGroups": [group], "resources": list(resources), "verbs": list(READ_VERBS)}
              for group, resources in WATCHED]
    rules.append({"apiGroups": [""], "resources": list(POD_SESSIONS), "verbs": ["get", "create"]})
    return rules


def member_access_objects(namespace: str, job_kinds: Iterable[Any] | None = None) -> list[dict[str, Any]]:
    """The members' Role and its RoleBinding to :func:`member_group` in ``namespace``."""
    group = member_group(namespace)
    metadata = {"name": MEMBER_ROLE, "namespace": namespace, "labels": common_labels(COMPONENT)}
    return [
        {"apiVersion": f"{RBAC_API}/v1", "kind": "Role", "metadata": dict(metadata), "rules": member_rules(job_kinds)},
        {"apiVersion": f"{RBAC_API}/v1", "kind": "RoleBinding", "metadata": dict(metadata),
         "roleRef": {"apiGroup": RBAC_API, "kind": "Role", "name": MEMBER_ROLE},
         "subjects": [{"apiGroup": RBAC_API, "kind": "Group", "name": group}]},
    ]
