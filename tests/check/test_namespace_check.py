"""`eks-training check` fails a namespace without a Pod Security level or isolating NetworkPolicies, whoever creates
it (our manifests, a chart's own Namespace object, a release's create_namespace), and follows every admission webhook
to its pods: the policies must let the API server reach them (issue 23).

Each test restores one gap in prod's snapshot and checks the finding that names it; prod itself passes (see
test_deploy_check.test_shipped_environments_pass).
"""

from __future__ import annotations

import copy

import pytest
from support import upstream_data

from eks_training.infra.tools.check.deploy_check import check_snapshot, render_all_jobs
from eks_training.infra.tools.check.network_policy import namespace_findings, webhook_flows
from eks_training.infra.tools.check.snapshot import Release, load_snapshot

pytestmark = upstream_data.requires(*upstream_data.installed_charts())


@pytest.fixture(scope="module")
def prod_jobs(prod):
    return render_all_jobs(prod.config)


def _namespace_failures(prod, prod_jobs, snap) -> list:
    report = check_snapshot(snap, config=prod.config, jobs=copy.deepcopy(prod_jobs))
    return [f for f in report.failures if f.area in ("namespace", "network-policy")]


def test_a_release_that_creates_its_namespace_fails(prod, prod_jobs) -> None:
    snap = load_snapshot(copy.deepcopy(prod.template))
    volcano = next(r for r in snap.releases if r.release == "volcano")
    snap.releases.append(Release("Extra", "extra", volcano.chart, volcano.version, "extra-system", {},
                                 create_namespace=True))
    failures = [f for f in _namespace_failures(prod, prod_jobs, snap) if "extra-system" in f.subject + f.field]
    bare = [f for f in failures if f.area == "namespace"]
    assert {f.field for f in bare} == {"metadata.labels pod-security.kubernetes.io/enforce", "NetworkPolicy ingress",
                                       "NetworkPolicy egress"}
    assert all("created by helm release extra (create_namespace)" in f.subject for f in bare)
    # And, open both ways, its pods reach instance metadata and any pod reaches them; under the CNI's strict mode,
    # with no policy selecting them, they would get no network at all.
    assert {f.field for f in failures if f.area == "network-policy"} == {
        "pod extra-system/{} -> 169.254.169.254 TCP/80", "pod default/{app=anything} -> pod extra-system/{} TCP/8443",
        "NetworkPolicy ingress", "NetworkPolicy egress"}


def test_an_operator_namespace_without_its_label_or_default_deny_fails(prod, prod_jobs) -> None:
    snap = load_snapshot(copy.deepcopy(prod.template))
    for lid, objects in snap.manifests.items():
        for obj in objects:
            if obj.get("kind") == "Namespace" and obj["metadata"]["name"] == "kuberay-system":
                obj["metadata"]["labels"].pop("pod-security.kubernetes.io/enforce")
        snap.manifests[lid] = [o for o in objects if not (o.get("kind") == "NetworkPolicy" and
                                                          o["metadata"]["namespace"] == "kuberay-system")]
    found = [f for f in _namespace_failures(prod, prod_jobs, snap) if f.area == "namespace"]
    # The namespace check names the namespace by what creates it (its own manifest); the network-policy area names
    # it by the pods it holds, so one subject of each is expected.
    (subject,) = {f.subject for f in found if f.subject.startswith("namespace kuberay-system")}
    assert "created by manifest" in subject
    assert {"metadata.labels pod-security.kubernetes.io/enforce", "NetworkPolicy ingress", "NetworkPolicy egress"} <= {
        f.field for f in found if f.subject == subject}


def test_a_webhook_the_api_server_cannot_reach_fails(prod, prod_jobs) -> None:
    snap = load_snapshot(copy.deepcopy(prod.template))
    for lid, objects in snap.manifests.items():
        snap.manifests[lid] = [o for o in objects if not (o.get("kind") == "NetworkPolicy" and
                                                          o["metadata"]["namespace"] == "volcano-system" and
                                                          o["metadata"]["name"] == "allow-webhooks-from-api-server")]
    failures = [str(f) for f in _namespace_failures(prod, prod_jobs, snap)]
    assert failures and all("volcano" in f and "is blocked, but the platform needs it" in f for f in failures)
    assert any("ValidatingWebhookConfiguration" in f or "MutatingWebhookConfiguration" in f for f in failures)


def test_an_operator_that_may_reach_instance_metadata_fails(prod, prod_jobs) -> None:
    snap = load_snapshot(copy.deepcopy(prod.template))
    for objects in snap.manifests.values():
        for obj in objects:
            if obj.get("kind") == "NetworkPolicy" and obj["metadata"]["namespace"] == "cert-manager" and \
                    obj["metadata"]["name"] == "allow-https":
                obj["spec"]["egress"][0]["ports"] = []  # every port, as a hand-written policy might say
    failures = [str(f) for f in _namespace_failures(prod, prod_jobs, snap)]
    assert failures == ["[network-policy] flow 'pods of cert-manager must not reach instance metadata' "
                        "pod cert-manager/{} -> 169.254.169.254 TCP/80: is allowed, but must be blocked"]


def test_any_app_is_held_to_it() -> None:
    """With --app (not one of our environments) the rule still holds: here, a bare namespace from a chart."""
    objects = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "loose"}}]
    findings = namespace_findings({"loose": "helm release x"}, {"loose": {}}, objects)
    assert [f[1] for f in findings] == ["metadata.labels pod-security.kubernetes.io/enforce", "NetworkPolicy ingress",
                                        "NetworkPolicy egress"]


def test_webhooks_resolve_through_their_service_to_named_ports() -> None:
    objects = [
        {"kind": "ValidatingWebhookConfiguration", "metadata": {"name": "v"}, "webhooks": [
            {"name": "w", "clientConfig": {"service": {"namespace": "ns", "name": "svc", "port": 443}}}]},
        {"kind": "Service", "metadata": {"namespace": "ns", "name": "svc"},
         "spec": {"selector": {"app": "hook"}, "ports": [{"port": 443, "targetPort": "https"}]}},
        {"kind": "Deployment", "metadata": {"namespace": "ns", "name": "d"}, "spec": {"template": {
            "metadata": {"labels": {"app": "hook", "x": "y"}},
            "spec": {"containers": [{"name": "c", "ports": [{"name": "https", "containerPort": 10250}]}]}}}},
    ]
    flows, unresolved = webhook_flows(objects, vpc_cidr="10.0.0.0/16")
    assert unresolved == [] and [(f.destination.namespace, dict(f.destination.labels), f.port) for f in flows] == [
        ("ns", {"app": "hook"}, 10250)]
