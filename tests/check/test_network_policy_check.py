"""The NetworkPolicy evaluator: Kubernetes' semantics on small hand-made policy sets, then the platform's chart."""

from __future__ import annotations

import copy

import cdk8s
import pytest

from eks_training.infra.addons.network_policies import namespaces_of
from eks_training.infra.tools.check import helm
from eks_training.infra.tools.check.network_policy import (
    Address,
    Flow,
    Pod,
    PolicySet,
    check_flows,
    network_policy_findings,
    required_flows,
)
from eks_training.workloads.network_policies import NetworkPoliciesChart, WorkloadNamespaces
from support import upstream_data
from support.k8s_schemas import chart_objects


def policy(namespace: str, name: str = "p", *, pods: dict | None = None, types: list[str] | None = None,
           ingress: list | None = None, egress: list | None = None) -> dict:
    spec: dict = {"podSelector": pods if pods is not None else {}}
    if types is not None:
        spec["policyTypes"] = types
    if ingress is not None:
        spec["ingress"] = ingress
    if egress is not None:
        spec["egress"] = egress
    return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
            "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def namespace(name: str, **labels: str) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


A = Pod("a", {"app": "web"})
B = Pod("b", {"app": "db"})


def allowed(objects: list[dict], source, destination, port: int = 80, protocol: str = "TCP") -> bool:
    return PolicySet(objects).flow_allowed(Flow("f", source, destination, port, protocol))


# --- isolation ---------------------------------------------------------------------------------------------------


def test_a_pod_no_policy_selects_is_open_both_ways() -> None:
    assert allowed([], A, B)
    # A policy in another namespace, or one selecting other pods, isolates nothing here.
    other = [policy("c", types=["Ingress", "Egress"]), policy("b", pods={"matchLabels": {"app": "cache"}},
                                                              types=["Ingress"])]
    assert allowed(other, A, B)


def test_isolation_is_per_direction() -> None:
    deny_ingress_b = [policy("b", types=["Ingress"])]
    assert not allowed(deny_ingress_b, A, B)
    assert allowed(deny_ingress_b, B, A)  # B's egress is not isolated
    deny_egress_a = [policy("a", types=["Egress"])]
    assert not allowed(deny_egress_a, A, B)
    assert allowed(deny_egress_a, B, A)  # A's ingress is not isolated


def test_policy_types_default_to_ingress_plus_egress_only_with_egress_rules() -> None:
    # No policyTypes, no egress section: Ingress only, so A may still send.
    assert allowed([policy("a")], A, B)
    assert not allowed([policy("a")], B, A)
    # No policyTypes but an (empty) egress section: both.
    assert not allowed([policy("a", egress=[])], A, B)


# --- OR across policies, AND within a peer -------------------------------------------------------------------------


def test_any_selecting_policy_can_allow() -> None:
    deny = policy("b", "deny", types=["Ingress"])
    allow_a = policy("b", "allow", pods={"matchLabels": {"app": "db"}}, types=["Ingress"],
                     ingress=[{"from": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "a"}}}]}])
    assert not allowed([deny], A, B)
    assert allowed([deny, allow_a], A, B)
    assert allowed([allow_a, deny], A, B)


def test_namespace_and_pod_selector_in_one_peer_both_must_match() -> None:
    both = policy("b", types=["Ingress"], ingress=[{"from": [{
        "namespaceSelector": {"matchLabels": {"team": "x"}}, "podSelector": {"matchLabels": {"app": "web"}}}]}])
    objects = [both, namespace("a", team="x"), namespace("c", team="y")]
    assert allowed(objects, A, B)
    assert not allowed(objects, Pod("a", {"app": "other"}), B)  # namespace matches, pod does not
    assert not allowed(objects, Pod("c", {"app": "web"}), B)  # pod matches, namespace does not
    # The same selectors as two peers: either one suffices (OR).
    either = policy("b", types=["Ingress"], ingress=[{"from": [
        {"namespaceSelector": {"matchLabels": {"team": "x"}}}, {"podSelector": {"matchLabels": {"app": "web"}}}]}])
    objects = [either, namespace("a", team="x"), namespace("c", team="y")]
    assert allowed(objects, Pod("a", {"app": "other"}), B)
    assert allowed(objects, Pod("b", {"app": "web"}), B)
    # A podSelector alone means the policy's own namespace: web in c is not web in b.
    assert not allowed(objects, Pod("c", {"app": "web"}), B)


def test_match_expressions_and_the_automatic_namespace_name_label() -> None:
    rule = policy("b", types=["Ingress"], ingress=[{"from": [{
        "namespaceSelector": {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["a"]}]},
        "podSelector": {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["batch"]},
                                             {"key": "debug", "operator": "DoesNotExist"},
                                             {"key": "app", "operator": "Exists"}]}}]}])
    # Namespace "a" has no Namespace object here: only the name label the API server sets.
    assert allowed([rule], A, B)
    assert not allowed([rule], Pod("a", {"app": "batch"}), B)
    assert not allowed([rule], Pod("a", {"app": "web", "debug": "1"}), B)
    assert not allowed([rule], Pod("a", {}), B)
    assert not allowed([rule], Pod("z", {"app": "web"}), B)


# --- ipBlock and ports ---------------------------------------------------------------------------------------------


def test_ip_block_with_except() -> None:
    egress = [policy("a", types=["Egress"], egress=[{"to": [{"ipBlock": {"cidr": "10.0.0.0/16", "except": ["10.0.5.0/24"]}}]}])]
    assert allowed(egress, A, Address("10.0.4.9"))
    assert not allowed(egress, A, Address("10.0.5.9"))
    assert not allowed(egress, A, Address("10.1.0.1"))
    # ipBlock does not match pods (their addresses are not modelled).
    assert not allowed(egress, A, B)


def test_ports_protocols_and_ranges() -> None:
    egress = [policy("a", types=["Egress"], egress=[{"ports": [
        {"protocol": "UDP", "port": 53}, {"port": 1018, "endPort": 1023}, {"protocol": "SCTP"}]}])]
    ip = Address("10.0.0.1")
    assert allowed(egress, A, ip, 53, "UDP")
    assert not allowed(egress, A, ip, 53, "TCP")  # protocol matters
    assert allowed(egress, A, ip, 1018) and allowed(egress, A, ip, 1023)  # protocol defaults to TCP
    assert not allowed(egress, A, ip, 1017) and not allowed(egress, A, ip, 1024)
    assert allowed(egress, A, ip, 9999, "SCTP")  # no port: every port of the protocol
    # No ports at all: every port; no `to`: every peer.
    assert allowed([policy("a", types=["Egress"], egress=[{}])], A, ip, 12345, "UDP")


def test_a_flow_needs_egress_at_the_source_and_ingress_at_the_destination() -> None:
    egress_ok = policy("a", "out", types=["Egress"], egress=[{"to": [{"namespaceSelector": {}}]}])
    ingress_ok = policy("b", "in", types=["Ingress"], ingress=[{"from": [{"namespaceSelector": {}}]}])
    deny_a = policy("a", "deny", types=["Egress"])
    deny_b = policy("b", "deny", types=["Ingress"])
    assert not allowed([deny_a, deny_b, egress_ok], A, B)
    assert not allowed([deny_a, deny_b, ingress_ok], A, B)
    assert allowed([deny_a, deny_b, egress_ok, ingress_ok], A, B)


def test_a_named_port_matches_only_the_destination_port_of_that_name() -> None:
    named = [policy("b", types=["Ingress"], ingress=[{"ports": [{"port": "notebook-port"}]}])]
    policy_set = PolicySet(named)
    assert policy_set.flow_allowed(Flow("f", A, B, 8888, port_name="notebook-port"))
    assert not policy_set.flow_allowed(Flow("f", A, B, 8888))  # the flow does not say the port has that name
    assert not policy_set.flow_allowed(Flow("f", A, B, 8888, port_name="http"))


def test_unsupported_inputs_raise_one_line_errors() -> None:
    bad_port = [policy("a", types=["Egress"], egress=[{"ports": [{"port": 1.5}]}])]
    with pytest.raises(ValueError, match=r"ports port=1.5 is not allowed: use a port number or a port name") as caught:
        allowed(bad_port, A, Address("10.0.0.1"))
    assert "\n" not in str(caught.value)
    bad_operator = [policy("b", types=["Ingress"], ingress=[{"from": [{"podSelector": {
        "matchExpressions": [{"key": "k", "operator": "Equals", "values": ["v"]}]}}]}])]
    with pytest.raises(ValueError, match=r"operator='Equals' is not allowed: use In, NotIn, Exists or DoesNotExist"):
        allowed(bad_operator, Pod("b"), B)
    with pytest.raises(ValueError, match=r"flow 'x' port=0 is not allowed"):
        Flow("x", A, B, 0)
    with pytest.raises(ValueError, match=r"flow 'x' protocol='ICMP' is not allowed"):
        Flow("x", A, B, 1, "ICMP")
    with pytest.raises(ValueError, match=r"address ip='10.0.0' is not allowed: use an IP address"):
        Address("10.0.0")
    with pytest.raises(ValueError, match=r"metadata.namespace is missing"):
        PolicySet([{"kind": "NetworkPolicy", "metadata": {"name": "p"}, "spec": {}}])


# --- the platform's policies ---------------------------------------------------------------------------------------


def _platform(namespaces: WorkloadNamespaces, vpc_cidr: str) -> list[dict]:
    return chart_objects(NetworkPoliciesChart(cdk8s.App(), "np", namespaces=namespaces, vpc_cidr=vpc_cidr))


@pytest.fixture(scope="module")
def prod_view(prod):
    namespaces = namespaces_of(prod.config)
    vpc_cidr = prod.config.network.cidr
    return namespaces, vpc_cidr, _platform(namespaces, vpc_cidr)


def test_prod_namespaces_are_all_covered(prod_view) -> None:
    namespaces, _, _ = prod_view
    # prod runs Slurm, JupyterHub and KubeRay: each part of the flow list is exercised.
    assert namespaces.slurm and namespaces.jupyterhub and namespaces.kuberay_operator and namespaces.slinky_operator
    assert len(namespaces.training) == 2


def test_prod_needed_flows_pass_and_forbidden_ones_are_denied(prod_view) -> None:
    namespaces, vpc_cidr, objects = prod_view
    flows = required_flows(namespaces, vpc_cidr=vpc_cidr)
    assert {f.expected for f in flows} == {True, False}
    assert check_flows(objects, flows) == []
    assert network_policy_findings(objects, namespaces=namespaces, vpc_cidr=vpc_cidr) == []


def test_flows_that_must_stay_closed_are_closed_by_the_policies_not_by_accident(prod_view) -> None:
    # Without any policy every flow passes: each expected-denied flow is denied by the chart's policies.
    namespaces, vpc_cidr, _ = prod_view
    forbidden = [f for f in required_flows(namespaces, vpc_cidr=vpc_cidr) if not f.expected]
    assert {f.name for f, _, _ in check_flows([], forbidden)} == {f.name for f in forbidden}


@pytest.mark.parametrize(("removed", "blocked_flow"), [
    ("allow-dns", "training pod in training resolves names (UDP)"),
    ("allow-https", "training pod in training reaches S3 (checkpoints, data), ECR, STS and CloudWatch Logs"),
    ("allow-shared-storage", "training pod in training reaches FSx for Lustre"),
    ("allow-pod-identity", "training pod in training gets credentials from the Pod Identity agent"),
    ("allow-same-namespace", "torchrun c10d rendezvous in training"),
    ("allow-ray-dashboard-from-kuberay", "KubeRay operator submits and follows RayJobs in training"),
    ("allow-slurmrestd-from-slinky", "Slinky operator reaches slurmrestd"),
    ("allow-notebook-to-hub-ingress", "notebook reports to the hub"),
    ("allow-notebook-to-hub-egress", "notebook reports to the hub"),
])
def test_removing_a_needed_allowance_is_a_finding(prod_view, removed: str, blocked_flow: str) -> None:
    namespaces, vpc_cidr, objects = prod_view
    target_namespace = {"allow-slurmrestd-from-slinky": "slurm"}.get(removed, "jupyterhub" if "notebook" in removed else "training")
    kept = [o for o in objects if (o["metadata"]["name"], o["metadata"]["namespace"]) != (removed, target_namespace)]
    assert len(kept) == len(objects) - 1
    findings = network_policy_findings(kept, namespaces=namespaces, vpc_cidr=vpc_cidr)
    assert (f"flow {blocked_flow!r}",) in {f[:1] for f in findings}
    assert all(f[2] == "is blocked, but the platform needs it" for f in findings)


def test_an_open_door_is_a_finding(prod_view) -> None:
    namespaces, vpc_cidr, objects = prod_view
    # A policy that lets every namespace into the training namespace opens the Ray dashboard to all.
    wide_open = policy("training", "allow-all", types=["Ingress"], ingress=[{"from": [{"namespaceSelector": {}}]}])
    findings = network_policy_findings([*objects, wide_open], namespaces=namespaces, vpc_cidr=vpc_cidr)
    names = {f[0] for f in findings}
    assert "flow 'a pod of another namespace must not reach the Ray dashboard in training'" in names
    assert "flow 'a pod of another namespace must not reach training pods in training'" in names
    # ai-research's own egress isolation still stops its pods: a flow needs both ends.
    assert "flow 'training namespaces are isolated from each other (ai-research -> training)'" not in names
    assert all(f[2] == "is allowed, but must be blocked" for f in findings)


def test_a_namespace_without_default_deny_is_a_finding(prod_view) -> None:
    namespaces, vpc_cidr, objects = prod_view
    findings = network_policy_findings([o for o in objects if o["metadata"]["namespace"] != "slurm"],
                                       namespaces=namespaces, vpc_cidr=vpc_cidr)
    assert ("namespace slurm", "NetworkPolicy ingress") in {f[:2] for f in findings}
    assert ("namespace slurm", "NetworkPolicy egress") in {f[:2] for f in findings}


def test_the_jupyterhub_charts_own_policies_are_off_and_would_open_doors(prod, prod_view) -> None:
    """z2jh ships NetworkPolicies of its own (hub, proxy, singleuser); policies only add up, so theirs would open
    what ours close: its hub and proxy policies let them reach every private and public address and instance
    metadata (issue 23). With our values the chart renders none; with its defaults the check sees the doors."""
    namespaces, vpc_cidr, objects = prod_view
    release = prod.helm_releases["jupyterhub"]
    source = upstream_data.chart_dir(release["Chart"], release["Version"])

    def policies(values: dict) -> list[dict]:
        try:
            rendered = helm.render_chart(source, release=release["Release"], namespace=release["Namespace"],
                                         values=values, kube_version=prod.config.kubernetes_version)
        except helm.HelmCheckError as error:
            pytest.skip(f"helm cannot run here: {error}")
        return [{**o, "metadata": {"namespace": release["Namespace"], **o["metadata"]}}
                for o in rendered if o.get("kind") == "NetworkPolicy"]

    assert policies(release["Values"]) == []
    assert network_policy_findings(objects, namespaces=namespaces, vpc_cidr=vpc_cidr) == []
    defaults = copy.deepcopy(release["Values"])
    for part in (defaults["hub"], defaults["proxy"]["chp"], defaults["singleuser"]):
        part.pop("networkPolicy")
    charts = policies(defaults)
    assert {o["metadata"]["name"] for o in charts} == {"hub", "proxy", "singleuser"}
    opened = {f[0] for f in network_policy_findings([*objects, *charts], namespaces=namespaces, vpc_cidr=vpc_cidr)}
    assert any("the hub must not reach instance metadata" in subject for subject in opened), opened


# --- before a pod's policies are programmed, and pods strict mode would leave without network ---------------------


def test_a_training_pod_reaches_neither_the_internet_nor_kube_system_before_or_after_its_policies(prod) -> None:
    from eks_training.infra.tools.check.network_policy import before_policies_findings, enforcing_mode

    (cni,) = [r["Properties"] for r in prod.resources("AWS::EKS::Addon").values()
              if r["Properties"]["AddonName"] == "vpc-cni"]
    # Before: the add-on's own setting (strict: a new pod is denied until its policies are programmed).
    mode = enforcing_mode(cni["ConfigurationValues"])
    assert mode == "strict"
    namespaces, vpc_cidr = namespaces_of(prod.config), prod.config.network.cidr
    assert before_policies_findings(mode, namespaces, vpc_cidr=vpc_cidr) == []
    # After: the policies prod applies, evaluated with Kubernetes' rules.
    objects = [o for _, o in prod.kubernetes_objects() if o.get("kind") in ("NetworkPolicy", "Namespace")]
    worker = Pod("training", {"training.kubeflow.org/job-role": "worker"})
    policies = PolicySet(objects)
    for flow in (Flow("internet", worker, Address("203.0.113.10"), 443),
                 Flow("s3 anywhere", worker, Address("52.218.128.10"), 443),
                 Flow("karpenter", worker, Pod("kube-system", {"app.kubernetes.io/name": "karpenter"}), 8443),
                 Flow("coredns metrics", worker, Pod("kube-system", {"k8s-app": "kube-dns"}), 9153)):
        assert not policies.flow_allowed(flow), flow.name
    assert policies.flow_allowed(Flow("dns", worker, Pod("kube-system", {"k8s-app": "kube-dns"}), 53, "UDP"))


@pytest.mark.parametrize(("values", "mode"), [
    ('{"enableNetworkPolicy": "true"}', "standard"),
    ('{"enableNetworkPolicy": "true", "env": {"NETWORK_POLICY_ENFORCING_MODE": "standard"}}', "standard"),
    ("{}", None),
    (None, None),
])
def test_standard_mode_or_no_agent_lets_a_new_pod_out_before_its_policies(prod_view, values, mode) -> None:
    from eks_training.infra.tools.check.network_policy import before_policies_findings, enforcing_mode

    namespaces, vpc_cidr, _ = prod_view
    assert enforcing_mode(values) == mode
    findings = before_policies_findings(enforcing_mode(values), namespaces, vpc_cidr=vpc_cidr)
    # Both doors, for every workload namespace, each naming the fix.
    assert len(findings) == 2 * len(namespaces.workload())
    assert {f[0] for f in findings} >= {"flow 'a new pod in training before its policies apply reaches the internet'",
                                        "flow 'a new pod in ai-research before its policies apply reaches kube-system'"}
    assert all(("NETWORK_POLICY_ENFORCING_MODE=strict" if mode else "agent is off") in f[2] for f in findings)


def test_strict_mode_finds_a_namespace_whose_pods_no_policy_selects() -> None:
    from eks_training.infra.tools.check.network_policy import strict_mode_findings

    objects = [policy("kube-system", "open", types=["Ingress", "Egress"], ingress=[{}], egress=[{}]),
               policy("kueue-system", "only-egress", egress=[{}], types=["Egress"])]
    findings = strict_mode_findings(objects, {"kube-system": "EKS add-on coredns", "kueue-system": "helm kueue",
                                              "amazon-cloudwatch": "EKS add-on amazon-cloudwatch-observability"})
    assert [(f[0], f[1]) for f in findings] == [
        ("namespace amazon-cloudwatch (EKS add-on amazon-cloudwatch-observability)", "NetworkPolicy ingress"),
        ("namespace amazon-cloudwatch (EKS add-on amazon-cloudwatch-observability)", "NetworkPolicy egress"),
        ("namespace kueue-system (helm kueue)", "NetworkPolicy ingress")]
    assert "no network at all" in findings[0][2]


def test_prod_leaves_only_the_eks_add_ons_namespaces_open_and_opens_them_before_their_pods(prod) -> None:
    from eks_training.constructs.cluster import OPEN_POLICY_NAME

    opened = {obj["metadata"]["namespace"]: lid for lid, obj in prod.kubernetes_objects()
              if obj.get("kind") == "NetworkPolicy" and obj["metadata"]["name"] == OPEN_POLICY_NAME}
    assert set(opened) == {"kube-system", "amazon-cloudwatch"}
    resources = prod.template["Resources"]
    for lid, resource in resources.items():
        if resource["Type"] == "AWS::EKS::Addon" and resource["Properties"]["AddonName"] not in (
                "vpc-cni", "eks-pod-identity-agent", "kube-proxy"):
            assert opened["kube-system"] in resource.get("DependsOn", []), lid
    (cloudwatch,) = [lid for lid, r in resources.items() if r["Type"] == "AWS::EKS::Addon"
                     and r["Properties"]["AddonName"] == "amazon-cloudwatch-observability"]
    assert opened["amazon-cloudwatch"] in resources[cloudwatch]["DependsOn"]
