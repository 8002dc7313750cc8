"""People: a team member reaches their own namespace's jobs and nothing else, as EKS and Kubernetes RBAC decide.

The evaluator (infra/tools/check/rbac.py) is held to Kubernetes' documented RBAC semantics first; then prod's
synthesized access entries and RBAC objects (ours and the charts') are evaluated with it, the jobs being the very
objects `eks-training render` writes.
"""

from __future__ import annotations

import copy

import pytest
import yaml
from support import upstream_data

from eks_training.infra.tools.check.access import (access_policies, entry_identities, rbac_objects_of,
                                                   team_access_findings)
from eks_training.infra.tools.check.rbac import (Authorizer, Grant, Identity, Request, guess_resource, object_request,
                                                 resource_request, rule_allows)
from eks_training.infra.tools.check.snapshot import load_snapshot
from eks_training.infra.tools.job_render import RenderError, render_job
from eks_training.workloads.jobs import JOB_KINDS
from eks_training.workloads.team_access import member_group

IMAGES = {"gpu": "check.invalid/gpu:1", "neuron": "check.invalid/neuron:1", "ray": "check.invalid/ray:1"}
ALICE = Identity("arn:aws:sts::123456789012:assumed-role/alice/s", ("team-a",))


# --- the evaluator, against the RBAC documentation's rules -----------------------------------------------------------


def test_rules_match_as_kubernetes_documents() -> None:
    rule = {"apiGroups": [""], "resources": ["pods", "pods/log"], "verbs": ["get"]}
    assert rule_allows(rule, resource_request("get", "pods/log", namespace="a"))
    assert not rule_allows(rule, resource_request("get", "pods/exec", namespace="a"))  # a subresource is its own
    assert not rule_allows(rule, resource_request("get", "pods", group="batch", namespace="a"))
    assert rule_allows({"apiGroups": ["*"], "resources": ["*/scale"], "verbs": ["*"]},
                       resource_request("update", "deployments/scale", group="apps", namespace="a"))
    named = {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "create"], "resourceNames": ["x"]}
    assert rule_allows(named, Request("get", "configmaps", "", "a", "x"))
    assert not rule_allows(named, Request("create", "configmaps", "", "a", ""))  # a create names no object yet
    urls = {"nonResourceURLs": ["/apis/*", "/version"], "verbs": ["get"]}
    assert rule_allows(urls, Request("get", path="/apis/batch/v1")) and not rule_allows(urls, Request("get", path="/metrics"))


def test_bindings_scope_and_aggregation_as_kubernetes_documents() -> None:
    objects = [
        {"kind": "ClusterRole", "metadata": {"name": "reader", "labels": {"agg": "yes"}},
         "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]},
                   {"nonResourceURLs": ["/metrics"], "verbs": ["get"]}]},
        {"kind": "ClusterRole", "metadata": {"name": "all-readers"},
         "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"agg": "yes"}}]}},
        # A ClusterRole bound by a RoleBinding: its rules in that namespace only, its URL rules nowhere.
        {"kind": "RoleBinding", "metadata": {"name": "b", "namespace": "a"},
         "roleRef": {"kind": "ClusterRole", "name": "all-readers"}, "subjects": [{"kind": "Group", "name": "team-a"}]},
        {"kind": "Role", "metadata": {"name": "r", "namespace": "b"},
         "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}]},
        {"kind": "RoleBinding", "metadata": {"name": "sa", "namespace": "b"}, "roleRef": {"kind": "Role", "name": "r"},
         "subjects": [{"kind": "ServiceAccount", "name": "robot"}]},
    ]
    rbac = Authorizer(objects)
    assert rbac.allows(ALICE, resource_request("list", "pods", namespace="a"))
    assert not rbac.allows(ALICE, resource_request("list", "pods", namespace="b"))
    assert not rbac.allows(ALICE, resource_request("list", "pods", namespace=None))
    assert not rbac.allows(ALICE, Request("get", path="/metrics"))
    # Every authenticated identity gets Kubernetes' discovery defaults, which kubectl needs.
    assert rbac.allows(ALICE, Request("get", path="/apis/kueue.x-k8s.io/v1beta2"))
    robot = Identity("system:serviceaccount:b:robot")
    assert rbac.allows(robot, resource_request("get", "secrets", namespace="b"))
    assert not rbac.allows(Identity("system:serviceaccount:a:robot"), resource_request("get", "secrets", namespace="b"))


def test_the_resource_names_kubectl_guesses_are_the_pinned_crds_plurals() -> None:
    """`render` objects are authorized by the resource their kind maps to: for every custom resource we pin, the
    guessed plural is the CRD's own, and every kind's objects are the ones its registry entry says it creates."""
    crds = upstream_data.file_path("crds/kubeflow-trainer/trainer.kubeflow.org_trainjobs.yaml").parent.parent
    checked = 0
    for path in crds.rglob("*.yaml"):
        names = _crd_names(path.read_text())
        assert guess_resource(names["kind"]) == names["plural"], path.name
        checked += 1
    assert checked >= 25
    assert guess_resource("NetworkPolicy") == "networkpolicies" and guess_resource("Ingress") == "ingresses"


def _crd_names(text: str) -> dict:
    """A CRD's spec.names block, parsed alone (the schemas below it run to megabytes)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "names:" and line.startswith("  ") and
                 not line.startswith("    " * 2))
    indent = len(lines[start]) - len(lines[start].lstrip())
    block = [lines[start]]
    for line in lines[start + 1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        block.append(line)
    return yaml.safe_load("\n".join(line[indent:] for line in block))["names"]


# --- prod's members ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def prod_access(prod):
    snap = load_snapshot(copy.deepcopy(prod.template))
    objects = [obj for _, obj in snap.objects()]
    entries = {e.groups[0]: e for e in entry_identities(snap) if e.groups}
    return snap, Authorizer(rbac_objects_of(objects)), entries


def _rendered(config, namespace: str) -> dict[str, list[dict]]:
    jobs = {}
    for kind in JOB_KINDS.values():
        try:
            jobs[kind.name] = render_job(config, kind.name, namespace=namespace, images=IMAGES, dataset="d",
                                         image="check.invalid/own:1" if kind.image is None else None,
                                         data_input="s3://check-bucket/corpus",
                                         tokenizer="s3://check-bucket/tokenizer.json")
        except RenderError:
            continue
    return jobs


def test_a_member_applies_every_rendered_job_in_their_namespace_and_none_in_another(prod, prod_access) -> None:
    _, rbac, entries = prod_access
    member = entries[member_group("ai-research")].identity
    jobs = _rendered(prod.config, "ai-research")
    objects = [obj for name, rendered in jobs.items() if not isinstance(rendered, str) for obj in rendered]
    assert {"mpijob", "pytorch-job", "trainjob", "rayjob", "data-prep"} <= set(jobs) and len(objects) >= 10
    for name, rendered in jobs.items():  # each kind's registry entry names what it renders: the Role grants that
        made = set() if isinstance(rendered, str) else {(r.group, r.resource) for r in map(
            lambda o: object_request("create", o), rendered)}
        assert made == set(JOB_KINDS[name].creates), name
    for obj in objects:
        # kubectl apply: read, then create (a new job) or patch (a changed one); and delete it again.
        for verb in ("get", "create", "patch", "delete"):
            assert rbac.allows(member, object_request(verb, obj)), (verb, obj["kind"])
        elsewhere = {**obj, "metadata": {**obj["metadata"], "namespace": "training"}}
        assert not rbac.allows(member, object_request("create", elsewhere)), obj["kind"]
        assert rbac.allows(entries[member_group("training")].identity, object_request("create", elsewhere))


def test_a_member_cannot_read_another_teams_pods_secrets_or_logs_nor_exec_there(prod_access) -> None:
    _, rbac, entries = prod_access
    member = entries[member_group("ai-research")].identity
    for verb, resource in (("get", "pods"), ("list", "pods"), ("get", "pods/log"), ("create", "pods/exec"),
                           ("get", "pods/exec"), ("get", "secrets"), ("list", "secrets")):
        assert not rbac.allows(member, resource_request(verb, resource, namespace="training")), (verb, resource)
        assert not rbac.allows(member, resource_request(verb, resource, namespace="kube-system")), (verb, resource)
    for verb, resource in (("get", "pods"), ("get", "pods/log"), ("create", "pods/exec"), ("list", "events")):
        assert rbac.allows(member, resource_request(verb, resource, namespace="ai-research")), (verb, resource)
    # Their own namespace's Secrets, tokens, RBAC, NetworkPolicies and quota stay out of reach too.
    for verb, resource, group in (("get", "secrets", ""), ("create", "serviceaccounts/token", ""),
                                  ("impersonate", "serviceaccounts", ""), ("create", "pods", ""),
                                  ("delete", "networkpolicies", "networking.k8s.io"), ("update", "resourcequotas", ""),
                                  ("create", "rolebindings", "rbac.authorization.k8s.io")):
        assert not rbac.allows(member, resource_request(verb, resource, group=group, namespace="ai-research"))


def test_eks_edit_policy_would_open_what_the_members_role_keeps_shut() -> None:
    """Why members get a Role of ours and not AmazonEKSEditPolicy on their namespace: by the EKS user guide's own
    table, Edit reads Secrets, impersonates ServiceAccounts and deletes NetworkPolicies."""
    policies = access_policies()
    edit = Grant("AmazonEKSEditPolicy", tuple(policies["AmazonEKSEditPolicy"]), frozenset({"ai-research"}))
    rbac = Authorizer([])
    opened = [request for request in (resource_request("get", "secrets", namespace="ai-research"),
                                      resource_request("impersonate", "serviceaccounts", namespace="ai-research"),
                                      resource_request("delete", "networkpolicies", group="networking.k8s.io",
                                                       namespace="ai-research"))
              if rbac.allows(ALICE, request, [edit])]
    assert len(opened) == 3
    assert not rbac.allows(ALICE, resource_request("get", "secrets", namespace="training"), [edit])  # its scope holds
    admin = Grant("AmazonEKSClusterAdminPolicy", tuple(policies["AmazonEKSClusterAdminPolicy"]))
    assert rbac.allows(ALICE, Request("delete", "nodes"), [admin]) and rbac.allows(ALICE, Request("get", path="/x"), [admin])


def test_the_check_fails_a_member_role_that_reaches_beyond_its_namespace(prod, prod_access) -> None:
    snap, _, _ = prod_access
    snap = load_snapshot(copy.deepcopy(prod.template))
    objects = [obj for _, obj in snap.objects()]
    role = next(o for o in objects if o["kind"] == "Role" and o["metadata"]["namespace"] == "ai-research"
                and o["metadata"]["name"] == "eks-training-member")
    role["rules"].append({"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list"]})
    objects.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                    "metadata": {"name": "oops"}, "roleRef": {"kind": "ClusterRole", "name": "pod-reader"},
                    "subjects": [{"kind": "Group", "name": member_group("ai-research")}]})
    objects.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                    "metadata": {"name": "pod-reader"}, "rules": [{"apiGroups": [""], "resources": ["pods"],
                                                                   "verbs": ["get", "list"]}]})
    findings, _ = team_access_findings(snap, rbac_objects_of(objects), None, ["training", "ai-research"], None)
    messages = [m for _, f, m in findings if f == f"group {member_group('ai-research')}"]
    assert "may get secrets in ai-research (through RoleBinding ai-research/eks-training-member)" in " ".join(messages)
    assert any(m.startswith("may list pods in training (through ClusterRoleBinding oops)") for m in messages)
    assert not [m for _, f, m in findings if f == f"group {member_group('training')}"]
