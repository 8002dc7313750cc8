"""Who reaches the cluster, and with which rights: the app's EKS access entries, evaluated like EKS authorizes them.

EKS authorizes a request of an IAM principal through its access entry: first the access policies associated with it
(each with a cluster or namespace scope; their Kubernetes rules are what the EKS user guide's "Review access policy
permissions" lists: ``infra/tools/data/eks_access_policies.json`` records that table with its source), then
Kubernetes RBAC for the entry's
``kubernetesGroups``. :func:`entry_identities` reads the entries; :func:`team_access_findings` holds every team's
members to their namespace: what a job needs there is allowed, and another namespace, a Secret, the namespace's
RBAC, NetworkPolicies and quota, and anything cluster-scoped are not.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from eks_training.infra.tools.check.rbac import Authorizer, Grant, Identity, Request, object_request, resource_request
from eks_training.infra.tools.check.snapshot import PlatformSnapshot, text
from eks_training.workloads.team_access import member_group

ACCESS_POLICIES_FILE = "eks_access_policies.json"
_POLICY_ARN = re.compile(r"cluster-access-policy/(AmazonEKS\w+)$")
_TEAM_GROUP = re.compile(r"^eks-training:([a-z0-9-]+):members$")

Finding = tuple[str, str, str]  # subject, field, message


# --- the access policies, from the EKS user guide -------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def access_policies() -> Mapping[str, list[dict[str, Any]]]:
    """Each AmazonEKS*Policy's RBAC rules, as the EKS user guide tabulates them (the data file names the page and its
    commit: facts recorded with their source, like the price list)."""
    data = json.loads(resources.files("eks_training.infra.tools.data").joinpath(ACCESS_POLICIES_FILE).read_text())
    return data["policies"]


@dataclass(frozen=True)
class PolicyAssociation:
    """An access policy associated with an entry: its name and its scope (None: the cluster; else namespaces)."""

    policy: str
    namespaces: tuple[str, ...] | None = None


@dataclass(frozen=True)
class AccessEntry:
    """One EKS access entry: the principal, the Kubernetes groups, the associated access policies."""

    logical_id: str
    principal: str
    groups: tuple[str, ...]
    policies: tuple[PolicyAssociation, ...] = ()

    @property
    def identity(self) -> Identity:
        return Identity(self.principal, self.groups)

    def grants(self, policies: Mapping[str, list[dict[str, Any]]]) -> list[Grant]:
        """The access policies' rules as grants (an unknown policy grants nothing here: see :func:`unknown_policies`)."""
        return [Grant(f"access policy {a.policy}", tuple(policies.get(a.policy, ())),
                      None if a.namespaces is None else frozenset(a.namespaces)) for a in self.policies]


def entry_identities(snap: PlatformSnapshot) -> list[AccessEntry]:
    """Every ``AWS::EKS::AccessEntry`` of the template (the nodes' and the kubectl handler's too)."""
    entries = []
    for lid, resource in snap.of_type("AWS::EKS::AccessEntry").items():
        props = resource.get("Properties") or {}
        associations = []
        for policy in props.get("AccessPolicies") or []:
            match = _POLICY_ARN.search(text(policy.get("PolicyArn")))
            scope = policy.get("AccessScope") or {}
            namespaces = tuple(scope.get("Namespaces") or ()) if scope.get("Type") == "namespace" else None
            associations.append(PolicyAssociation(match.group(1) if match else text(policy.get("PolicyArn")), namespaces))
        entries.append(AccessEntry(lid, text(props.get("PrincipalArn")), tuple(props.get("KubernetesGroups") or ()),
                                   tuple(associations)))
    return entries


# --- what a team member may and may not do -------------------------------------------------------------------------


@dataclass
class TeamAccess:
    """One team's members as the check found them: their entries and what was verified."""

    namespace: str
    members: list[str] = field(default_factory=list)
    allowed: int = 0
    refused: int = 0


def member_needs(namespace: str, jobs: Mapping[str, list[dict]] | None) -> list[Request]:
    """What a member must be able to do in their own namespace: apply every job `render` writes (get, create,
    patch), delete it, and follow it (pods, logs, events, exec)."""
    needs = []
    for objects in (jobs or {}).values():
        for obj in objects:
            own = {**obj, "metadata": {**(obj.get("metadata") or {}), "namespace": namespace}}
            needs += [object_request(verb, own) for verb in ("get", "create", "patch", "delete")]
    needs += [resource_request(verb, resource, namespace=namespace) for verb, resource in (
        ("list", "pods"), ("get", "pods/log"), ("create", "pods/exec"), ("list", "events"))]
    needs.append(resource_request("get", "localqueues", group="kueue.x-k8s.io", namespace=namespace))
    return needs


def member_limits(namespace: str, others: Sequence[str]) -> list[Request]:
    """What a member must not do: anything in another namespace, the Secrets, tokens, RBAC, NetworkPolicies, quota
    and bare pods of their own, anything cluster-scoped."""
    refused = []
    for other in others:
        refused += [resource_request(verb, resource, namespace=other) for verb, resource in (
            ("get", "pods"), ("list", "pods"), ("get", "pods/log"), ("create", "pods/exec"), ("list", "secrets"))]
        refused.append(resource_request("create", "jobs", group="batch", namespace=other))
    refused += [resource_request(verb, resource, namespace=namespace, group=group) for verb, resource, group in (
        ("get", "secrets", ""), ("list", "secrets", ""), ("create", "serviceaccounts/token", ""),
        ("impersonate", "serviceaccounts", ""), ("create", "pods", ""), ("delete", "networkpolicies", "networking.k8s.io"),
        ("update", "resourcequotas", ""), ("delete", "limitranges", ""), ("create", "roles", "rbac.authorization.k8s.io"),
        ("create", "rolebindings", "rbac.authorization.k8s.io"), ("patch", "localqueues", "kueue.x-k8s.io"),
        ("delete", "namespaces", ""))]
    refused += [resource_request(verb, resource, namespace=None, group=group) for verb, resource, group in (
        ("list", "namespaces", ""), ("list", "nodes", ""), ("list", "secrets", ""), ("list", "pods", ""),
        ("create", "clusterrolebindings", "rbac.authorization.k8s.io"), ("patch", "clusterqueues", "kueue.x-k8s.io"))]
    return refused


def team_access_findings(snap: PlatformSnapshot, rbac_objects: Iterable[Mapping[str, Any]],
                         jobs: Mapping[str, list[dict]] | None, workload_namespaces: Sequence[str],
                         policies: Mapping[str, list[dict[str, Any]]] | None,
                         teams: list[TeamAccess] | None = None) -> tuple[list[Finding], list[str]]:
    """(findings, notes) for every access entry that puts a principal in a team's group: each is held to
    :func:`member_needs` and :func:`member_limits`; each team found is appended to ``teams``."""
    authorizer = Authorizer(list(rbac_objects))
    findings: list[Finding] = []
    notes: list[str] = []
    by_team: dict[str, TeamAccess] = {}
    for entry in entry_identities(snap):
        namespaces = [m.group(1) for g in entry.groups if (m := _TEAM_GROUP.match(g))]
        if not namespaces:
            continue
        if entry.policies and policies is None:
            notes.append(f"access entry {entry.logical_id}: its access policies' rules are not at hand, so only its "
                         "RBAC is evaluated")
        extra = entry.grants(policies or {})
        subject = f"access entry {entry.logical_id} ({entry.principal})"
        for namespace in namespaces:
            team = by_team.setdefault(namespace, TeamAccess(namespace))
            team.members.append(entry.principal)
            for request in member_needs(namespace, jobs):
                if authorizer.allows(entry.identity, request, extra):
                    team.allowed += 1
                else:
                    findings.append((subject, f"group {member_group(namespace)}",
                                     f"cannot {request}: a team member must (submit, watch and follow its jobs)"))
            others = [n for n in workload_namespaces if n not in namespaces] + ["kube-system"]
            for request in member_limits(namespace, others):
                granted = authorizer.allowed_by(entry.identity, request, extra)
                if granted is None:
                    team.refused += 1
                else:
                    findings.append((subject, f"group {member_group(namespace)}",
                                     f"may {request} (through {granted}): a team member's rights end at their "
                                     "namespace's jobs"))
    if teams is not None:
        teams.extend(by_team.values())
    return findings, notes


def rbac_objects_of(objects: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The RBAC objects among ``objects``."""
    kinds = {"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"}
    return [o for o in objects if o.get("kind") in kinds and str(o.get("apiVersion", "")).startswith("rbac.")]
