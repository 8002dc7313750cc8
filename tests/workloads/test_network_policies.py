"""Default-deny NetworkPolicies per workload namespace and their allowances (the rendered objects)."""

from __future__ import annotations

import cdk8s
import cdk8s_plus_28 as kplus
import pytest

from eks_training.workloads.network_policies import (
    CrossNamespaceIngress,
    InNamespaceAllowance,
    NamespacePolicy,
    NetworkPoliciesChart,
    Port,
    EgressAllowance,
    WorkloadEgress,
    WorkloadNamespaces,
    kubernetes_service_ip,
    network_policy,
)
from support.k8s_schemas import validate_k8s_objects

ALL = WorkloadNamespaces(training=("team-a", "team-b"), slurm="slurm", jupyterhub="jupyterhub",
                         kuberay_operator="kuberay-system", slinky_operator="slinky")


def _chart(namespaces, vpc_cidr: str = "10.0.0.0/16") -> NetworkPoliciesChart:
    return NetworkPoliciesChart(cdk8s.App(), "np", namespaces=namespaces, vpc_cidr=vpc_cidr)


def _render(namespaces, vpc_cidr: str = "10.0.0.0/16") -> list[dict]:
    # to_json, not the chart's direct ApiObjects: each plus construct holds its ApiObject as a child.
    return _chart(namespaces, vpc_cidr).to_json()


def _by_namespace(objects: list[dict]) -> dict[str, dict[str, dict]]:
    out: dict[str, dict[str, dict]] = {}
    for obj in objects:
        out.setdefault(obj["metadata"]["namespace"], {})[obj["metadata"]["name"]] = obj
    return out


def test_every_workload_namespace_is_isolated_both_ways_and_objects_are_valid() -> None:
    objects = validate_k8s_objects(_render(ALL))
    assert {o["kind"] for o in objects} == {"NetworkPolicy"}
    policies = _by_namespace(objects)
    # Operators' namespaces get nothing: their pods only call the API.
    assert set(policies) == {"team-a", "team-b", "slurm", "jupyterhub"}
    for namespace, mine in policies.items():
        deny = mine["default-deny"]["spec"]
        # No rules, both types (plus lists Egress first; the order means nothing): every pod isolated both ways.
        assert deny["podSelector"] == {} and sorted(deny["policyTypes"]) == ["Egress", "Ingress"], namespace
        assert not deny.get("ingress") and not deny.get("egress"), namespace
        for obj in mine.values():
            assert obj["metadata"]["labels"]["app.kubernetes.io/part-of"] == "eks-training"


def test_common_egress_is_dns_https_pod_identity_and_storage_in_the_vpc() -> None:
    mine = _by_namespace(_render(ALL, vpc_cidr="10.20.0.0/16"))["team-a"]
    (dns,) = mine["allow-dns"]["spec"]["egress"]
    assert dns["to"] == [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
                          "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}]
    assert sorted((p["protocol"], p["port"]) for p in dns["ports"]) == [("TCP", 53), ("UDP", 53)]
    # HTTPS to the VPC (its endpoints, the private API endpoint) and the kubernetes Service's address: no internet.
    https = mine["allow-https"]["spec"]["egress"]
    assert https == [{"to": [{"ipBlock": {"cidr": cidr}}], "ports": [{"protocol": "TCP", "port": 443}]}
                     for cidr in ("10.20.0.0/16", "172.20.0.1/32")]
    (storage,) = mine["allow-shared-storage"]["spec"]["egress"]
    assert storage["to"] == [{"ipBlock": {"cidr": "10.20.0.0/16"}}]
    assert storage["ports"] == [{"protocol": "TCP", "port": 988}, {"protocol": "TCP", "port": 1018, "endPort": 1023},
                                {"protocol": "TCP", "port": 2049}]
    (identity,) = mine["allow-pod-identity"]["spec"]["egress"]
    assert identity == {"to": [{"ipBlock": {"cidr": "169.254.170.23/32"}}], "ports": [{"protocol": "TCP", "port": 80}]}
    # Egress-only policies: they must not open ingress by being listed as Ingress too.
    for name in ("allow-dns", "allow-https", "allow-shared-storage", "allow-pod-identity"):
        assert mine[name]["spec"]["policyTypes"] == ["Egress"]


def test_unrestricted_egress_opens_https_and_the_user_list_adds_destinations() -> None:
    egress = WorkloadEgress(restricted=False, allowances=(
        EgressAllowance("pypi-mirror", "203.0.113.0/24", (Port(443), Port(8080))),))
    objects = validate_k8s_objects(NetworkPoliciesChart(cdk8s.App(), "np", namespaces=ALL, vpc_cidr="192.168.0.0/16",
                                                        egress=egress).to_json())
    policies = _by_namespace(objects)
    for namespace in ALL.workload():
        mine = policies[namespace]
        assert mine["allow-https"]["spec"]["egress"] == [{"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}],
                                                          "ports": [{"protocol": "TCP", "port": 443}]}]
        mirror = mine["allow-pypi-mirror"]["spec"]
        assert mirror["podSelector"] == {} and mirror["policyTypes"] == ["Egress"]
        assert mirror["egress"] == [{"to": [{"ipBlock": {"cidr": "203.0.113.0/24"}}],
                                     "ports": [{"protocol": "TCP", "port": 443}, {"protocol": "TCP", "port": 8080}]}]
    # Only the hub reaches the sign-in provider beyond the VPC; notebooks and the proxy do not.
    sign_in = policies["jupyterhub"]["allow-hub-to-sign-in-provider"]["spec"]
    assert sign_in["podSelector"] == {"matchLabels": {"component": "hub"}}
    assert not any("sign-in" in name for ns, mine in policies.items() if ns != "jupyterhub" for name in mine)
    # Outside 10.0.0.0/8, EKS's default service range (and so the kubernetes Service) is 10.100.0.0/16.
    assert kubernetes_service_ip("192.168.0.0/16") == "10.100.0.1" and kubernetes_service_ip("10.8.0.0/16") == "172.20.0.1"


def test_training_and_slurm_allow_their_own_namespace_jupyterhub_only_components() -> None:
    policies = _by_namespace(_render(ALL))
    for namespace in ("team-a", "team-b", "slurm"):
        same = policies[namespace]["allow-same-namespace"]["spec"]
        # A podSelector alone (no namespaceSelector): the policy's own namespace; no ports ([]): every port.
        assert same["ingress"] == [{"from": [{"podSelector": {}}], "ports": []}]
        assert same["egress"] == [{"to": [{"podSelector": {}}], "ports": []}]
        assert sorted(same["policyTypes"]) == ["Egress", "Ingress"]
    hub = policies["jupyterhub"]
    assert "allow-same-namespace" not in hub
    ingress = hub["allow-notebook-to-hub-ingress"]["spec"]
    assert ingress["podSelector"] == {"matchLabels": {"component": "hub"}}
    assert ingress["ingress"] == [{"from": [{"podSelector": {"matchLabels": {"component": "singleuser-server"}}}],
                                   "ports": [{"protocol": "TCP", "port": 8081}]}]


def test_cross_namespace_allowances_follow_the_operators() -> None:
    policies = _by_namespace(_render(ALL))
    ray = policies["team-a"]["allow-ray-dashboard-from-kuberay"]["spec"]
    (rule,) = ray["ingress"]
    # One peer with both selectors: the operator's pods in the operator's namespace only.
    assert rule["from"] == [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kuberay-system"}},
                             "podSelector": {"matchLabels": {"app.kubernetes.io/name": "kuberay-operator"}}}]
    assert rule["ports"] == [{"protocol": "TCP", "port": 8265}]
    restd = policies["slurm"]["allow-slurmrestd-from-slinky"]["spec"]["ingress"]
    # Every pod of the operator's namespace (an empty podSelector beside the namespaceSelector selects them all).
    assert restd == [{"from": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "slinky"}},
                                "podSelector": {}}],
                      "ports": [{"protocol": "TCP", "port": 6820}]}]
    without = _by_namespace(_render(WorkloadNamespaces(training=("team-a",))))
    assert set(without) == {"team-a"}
    assert not [name for name in without["team-a"] if "kuberay" in name or "slinky" in name]


def test_own_policy_list_renders() -> None:
    own = NamespacePolicy("lab", same_namespace_all=False, in_namespace=(
        InNamespaceAllowance("web-to-db", {"app": "web"}, {"app": "db"}, (Port(5432),)),),
        cross_namespace=(CrossNamespaceIngress("scrape", "monitoring", (Port(9090, end_port=9091),)),))
    mine = _by_namespace(validate_k8s_objects(_render([own])))["lab"]
    assert set(mine) == {"default-deny", "allow-dns", "allow-https", "allow-pod-identity", "allow-shared-storage",
                         "allow-web-to-db-egress", "allow-web-to-db-ingress", "allow-scrape"}
    assert mine["allow-scrape"]["spec"]["ingress"][0]["ports"] == [{"protocol": "TCP", "port": 9090, "endPort": 9091}]


@pytest.mark.parametrize(("build", "message"), [
    (lambda: Port(0), r"port=0 is not allowed: use an integer from 1 to 65535"),
    (lambda: Port(53, "ICMP"), r"port protocol='ICMP' is not allowed: use one of TCP, UDP, SCTP"),
    (lambda: Port(1023, end_port=1018), r"port 1023 end_port=1018 is not allowed: use an integer from 1023 to 65535"),
    (lambda: InNamespaceAllowance("a", {}, {"app": "x"}, (Port(1),)), r"allowance 'a' from_labels=\{\} would select every pod"),
    (lambda: InNamespaceAllowance("a", {"app": "x"}, {"app": "y"}, ()), r"allowance 'a' ports=\(\) is not allowed: use a non-empty list of Port"),
    (lambda: CrossNamespaceIngress("a", "Bad_NS", (Port(1),)), r"allowance 'a' from_namespace='Bad_NS' is not allowed: use 1-63 lowercase letters"),
    (lambda: NamespacePolicy("ns", in_namespace="x"), r"namespace 'ns' in_namespace='x' is not allowed: use a list of InNamespaceAllowance"),
    (lambda: WorkloadNamespaces(training=()), r"training=\(\) is not allowed: use a non-empty list of namespace names"),
    (lambda: WorkloadNamespaces(training=("a",), slurm="a"), r"workload namespaces='a' is not allowed: each must be unique"),
    (lambda: _render(ALL, vpc_cidr="10.0.0.1/16"), r"vpc_cidr='10.0.0.1/16' is not allowed: use an IPv4 network such as '10.0.0.0/16' \(host bits zero\)"),
    (lambda: _render([]), r"namespaces=\[\] is not allowed: use a WorkloadNamespaces or a non-empty list of NamespacePolicy"),
    (lambda: _render([NamespacePolicy("a"), NamespacePolicy("a")]), r"policy namespaces='a' is not allowed: each must be unique"),
    (lambda: EgressAllowance("mirror", "203.0.113.1/24", (Port(443),)),
     r"allowance 'mirror' cidr='203.0.113.1/24' is not allowed: use an IPv4 network such as '203.0.113.0/24' \(host bits zero\)"),
    (lambda: WorkloadEgress(allowances=(EgressAllowance("a", "203.0.113.0/24", (Port(443),)),) * 2),
     r"egress allowance names='a' is not allowed: each must be unique"),
])
def test_bad_inputs_raise_one_line_errors(build, message) -> None:
    with pytest.raises(ValueError, match=message) as caught:
        build()
    assert "\n" not in str(caught.value)


def test_every_policy_is_a_cdk8s_plus_network_policy() -> None:
    chart = _chart(ALL)
    plus = [c for c in chart.node.children if isinstance(c, kplus.NetworkPolicy)]
    # Nothing is written as a plain ApiObject beside them: each object in the output is one plus policy.
    assert not [c for c in chart.node.children if isinstance(c, cdk8s.ApiObject)]
    # 4 namespaces x 6 common (deny, DNS, HTTPS, Pod Identity, storage, own namespace or hub pairs) and the rest.
    assert len(plus) == len(chart.to_json()) == 37
    # api_objects lists the ApiObjects inside the plus constructs, in the order the chart renders them.
    assert [o.to_json() for o in chart.api_objects] == chart.to_json()
    assert {(p.metadata.namespace, p.metadata.name) for p in plus} == {
        (o["metadata"]["namespace"], o["metadata"]["name"]) for o in chart.to_json()}


def test_rendered_policies_allow_what_workloads_need_and_nothing_else() -> None:
    """The policies' meaning, evaluated with Kubernetes' rules (the deploy check's model), not their shape."""
    from eks_training.infra.tools.check.network_policy import Address, Flow, Pod, PolicySet

    policies = PolicySet(_render(ALL, vpc_cidr="10.20.0.0/16"))
    worker, peer = Pod("team-a", {"app": "trainer"}), Pod("team-a", {"app": "other"})
    allowed = [
        Flow("dns", worker, Pod("kube-system", {"k8s-app": "kube-dns"}), 53, "UDP"),
        Flow("dns over tcp", worker, Pod("kube-system", {"k8s-app": "kube-dns"}), 53),
        Flow("s3 through its interface endpoint", worker, Address("10.20.0.10"), 443),
        Flow("the kubernetes Service", worker, Address("172.20.0.1"), 443),
        Flow("pod identity", worker, Address("169.254.170.23"), 80),
        Flow("lustre lnet", worker, Address("10.20.5.5"), 1021),
        Flow("efs", worker, Address("10.20.5.5"), 2049),
        Flow("nccl", worker, peer, 43012),
        Flow("kuberay to dashboard", Pod("kuberay-system", {"app.kubernetes.io/name": "kuberay-operator"}), worker, 8265),
        Flow("slinky to slurmrestd", Pod("slinky", {"any": "pod"}), Pod("slurm", {}), 6820),
        Flow("notebook to hub", Pod("jupyterhub", {"component": "singleuser-server"}), Pod("jupyterhub", {"component": "hub"}), 8081),
        Flow("hub to the sign-in provider", Pod("jupyterhub", {"component": "hub"}), Address("203.0.113.10"), 443),
    ]
    denied = [
        Flow("instance metadata", worker, Address("169.254.169.254"), 80),
        Flow("plain http out", worker, Address("203.0.113.10"), 80),
        Flow("https to the internet", worker, Address("203.0.113.10"), 443),
        Flow("s3 past its endpoint (a bucket anywhere)", worker, Address("52.218.128.10"), 443),
        Flow("notebook https to the internet", Pod("jupyterhub", {"component": "singleuser-server"}),
             Address("203.0.113.10"), 443),
        Flow("kube-system but DNS", worker, Pod("kube-system", {"app.kubernetes.io/name": "karpenter"}), 8443),
        Flow("lustre outside the vpc", worker, Address("10.21.5.5"), 988),
        Flow("another team", worker, Pod("team-b", {"app": "trainer"}), 43012),
        Flow("other kuberay pod to dashboard", Pod("kuberay-system", {"app": "other"}), worker, 8265),
        Flow("kuberay operator to another port", Pod("kuberay-system", {"app.kubernetes.io/name": "kuberay-operator"}), worker, 22),
        Flow("notebook to notebook", Pod("jupyterhub", {"component": "singleuser-server"}),
             Pod("jupyterhub", {"component": "singleuser-server"}), 8888),
        Flow("notebook to proxy api", Pod("jupyterhub", {"component": "singleuser-server"}), Pod("jupyterhub", {"component": "proxy"}), 8001),
    ]
    assert [f.name for f in allowed if not policies.flow_allowed(f)] == []
    assert [f.name for f in denied if policies.flow_allowed(f)] == []


def test_network_policy_builder_isolates_only_what_it_is_told() -> None:
    chart = cdk8s.Chart(cdk8s.App(), "c")
    ingress_only = network_policy(chart, "lab", "deny-in", isolate=("Ingress",))
    selected = network_policy(chart, "lab", "web", selects={"app": "web"})
    selected.add_egress_rule(kplus.Pods.select(selected, "db", labels={"app": "db"}), [Port(5432).plus()])
    rendered = {o["metadata"]["name"]: o["spec"] for o in chart.to_json()}
    assert rendered["deny-in"] == {"podSelector": {}, "policyTypes": ["Ingress"]}
    assert rendered["web"]["podSelector"] == {"matchLabels": {"app": "web"}}
    # An egress rule isolates egress only: ingress to the web pods stays as other policies leave it.
    assert rendered["web"]["policyTypes"] == ["Egress"]
    assert ingress_only.metadata.get_label("app.kubernetes.io/part-of") == "eks-training"
    with pytest.raises(ValueError, match=r"network policy 'x' isolate='ingress' is not allowed: use one of Ingress, Egress"):
        network_policy(chart, "lab", "x", isolate=("ingress",))


def test_load_balancer_clients_reach_the_proxys_http_port_and_the_login_ssh_port_only() -> None:
    import dataclasses

    clients = ("10.8.0.0/16", "10.0.0.0/16")
    policies = _by_namespace(validate_k8s_objects(_render(dataclasses.replace(
        ALL, hub_clients=clients, login_clients=clients))))
    hub = policies["jupyterhub"]["allow-proxy-from-load-balancer"]["spec"]
    assert hub["podSelector"] == {"matchLabels": {"component": "proxy"}} and hub["policyTypes"] == ["Ingress"]
    assert [rule["from"] for rule in hub["ingress"]] == [[{"ipBlock": {"cidr": c}}] for c in clients]
    assert all(rule["ports"] == [{"port": 8000, "protocol": "TCP"}] for rule in hub["ingress"])
    login = policies["slurm"]["allow-ssh-from-load-balancer"]["spec"]
    assert login["podSelector"] == {"matchLabels": {"app.kubernetes.io/name": "login"}}
    assert all(rule["ports"] == [{"port": 22, "protocol": "TCP"}] for rule in login["ingress"])
    # Without load balancers, nothing outside the cluster reaches either.
    plain = _by_namespace(_render(ALL))
    assert not any("load-balancer" in name for ns in ("jupyterhub", "slurm") for name in plain[ns])


@pytest.mark.parametrize(("make", "expected"), [
    (lambda: WorkloadNamespaces(training=("a",), hub_clients=("10.8.0.0/16",)), "hub_clients=('10.8.0.0/16',)"),
    (lambda: WorkloadNamespaces(training=("a",), slurm="slurm", login_clients=("10.8.0.1/16",)),
     "login_clients='10.8.0.1/16'"),
])
def test_load_balancer_clients_need_their_namespace_and_networks(make, expected) -> None:
    with pytest.raises(ValueError) as raised:
        make()
    assert f"{expected} is not allowed: " in str(raised.value)
