"""The admission policy that keeps workload namespaces' Services ClusterIP: its objects against the Kubernetes
schemas, and its CEL rule run by a CEL interpreter on the Services it must refuse or admit."""

from __future__ import annotations

import cdk8s
import celpy
import pytest
from support.k8s_schemas import validate_k8s_objects

from eks_training.workloads.service_exposure import (EXPRESSION, ExposedService, ServiceExposureChart,
                                                    exposure_expression, service_exposure_objects)


def _admits(service: dict) -> bool:
    """Every rule of the policy as the chart writes it, run by a CEL interpreter: admitted when all hold."""
    (policy, _) = service_exposure_objects(["training"])
    environment = celpy.Environment()
    return all(bool(environment.program(environment.compile(v["expression"])).evaluate(
        {"object": celpy.json_to_cel(service)})) for v in policy["spec"]["validations"])


def test_the_chart_renders_a_valid_policy_and_binding() -> None:
    objects = validate_k8s_objects(ServiceExposureChart(cdk8s.App(), "x", namespaces=["training", "slurm"]).to_json())
    assert [o["kind"] for o in objects] == ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"]
    assert objects[1]["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"][0]["values"] == [
        "training", "slurm"]


@pytest.mark.parametrize(("service_type", "admitted"), [
    ("LoadBalancer", False), ("NodePort", False), ("ClusterIP", True), ("ExternalName", False), (None, True)])
def test_the_rule_refuses_what_reaches_past_the_cluster(service_type, admitted) -> None:
    spec = {"ports": [{"port": 8265}], **({"type": service_type} if service_type else {})}
    assert _admits({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ray-head"}, "spec": spec}) is admitted


@pytest.mark.parametrize(("extra", "admitted"), [
    ({"externalIPs": ["203.0.113.10"]}, False), ({"externalIPs": []}, True), ({"clusterIP": "None"}, True)])
def test_the_rule_refuses_external_ips_on_any_type(extra, admitted) -> None:
    spec = {"type": "ClusterIP", "ports": [{"port": 8265}], **extra}
    assert _admits({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ray-head"}, "spec": spec}) is admitted


@pytest.mark.parametrize("namespaces", [[], "training", ["training", "training"], ["Bad_Name"]])
def test_bad_namespace_lists_get_one_line(namespaces) -> None:
    with pytest.raises(ValueError, match=r"^namespaces"):
        service_exposure_objects(namespaces)


# --- the platform's own internal load balancers: exactly these Services, in exactly one shape ------------------

HUB = ExposedService("jupyterhub", "proxy-public", ("10.8.0.0/16", "10.0.0.0/16"))
LOGIN = ExposedService("slurm", "prod-slurm-login", ("10.8.0.0/16",))


def _admitted_in(namespace: str, service: dict, exposed=(HUB, LOGIN)) -> bool:
    environment = celpy.Environment()
    program = environment.program(environment.compile(exposure_expression(exposed)))
    return bool(program.evaluate({"object": celpy.json_to_cel(service),
                                  "request": celpy.json_to_cel({"namespace": namespace})}))


def _internal_nlb(name: str, ranges=("10.8.0.0/16",), **annotations) -> dict:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "annotations": {
        "service.beta.kubernetes.io/aws-load-balancer-type": "nlb",
        "service.beta.kubernetes.io/aws-load-balancer-internal": "true", **annotations}},
        "spec": {"type": "LoadBalancer", "ports": [{"port": 443}], "loadBalancerSourceRanges": list(ranges)}}


def test_the_named_internal_load_balancers_are_admitted() -> None:
    assert _admitted_in("jupyterhub", _internal_nlb("proxy-public", ("10.8.0.0/16", "10.0.0.0/16")))
    assert _admitted_in("slurm", _internal_nlb("prod-slurm-login"))


def _variant(change) -> dict:
    service = _internal_nlb("proxy-public")
    change(service)
    return service


@pytest.mark.parametrize(("namespace", "service"), [
    pytest.param("training", _internal_nlb("proxy-public"), id="another namespace"),
    pytest.param("jupyterhub", _internal_nlb("notebook"), id="another name"),
    pytest.param("jupyterhub", _internal_nlb("prod-slurm-login"), id="the other Service's name"),
    pytest.param("jupyterhub", _internal_nlb("proxy-public", ("0.0.0.0/0",)), id="the internet"),
    pytest.param("jupyterhub", _internal_nlb("proxy-public", ("10.8.0.0/16", "192.168.0.0/16")), id="a wider range"),
    pytest.param("jupyterhub", _variant(lambda s: s["spec"].pop("loadBalancerSourceRanges")), id="no ranges"),
    pytest.param("jupyterhub", _variant(lambda s: s["spec"].update(loadBalancerSourceRanges=[])), id="empty ranges"),
    pytest.param("jupyterhub", _internal_nlb(
        "proxy-public", **{"service.beta.kubernetes.io/aws-load-balancer-internal": "false"}), id="internet-facing"),
    pytest.param("jupyterhub", _variant(lambda s: s["metadata"].pop("annotations")), id="no annotations"),
    pytest.param("jupyterhub", _internal_nlb(
        "proxy-public", **{"service.beta.kubernetes.io/aws-load-balancer-type": "external"}), id="another controller"),
    pytest.param("jupyterhub", _variant(lambda s: s["spec"].update(loadBalancerClass="service.k8s.aws/nlb")),
                 id="a load balancer class"),
    pytest.param("jupyterhub", _variant(lambda s: s["spec"].update(type="NodePort")), id="a node port"),
    pytest.param("jupyterhub", _variant(lambda s: s["spec"].update(externalIPs=["10.0.5.5"])), id="external IPs"),
])
def test_anything_else_is_refused(namespace, service) -> None:
    assert not _admitted_in(namespace, service)


def test_without_exposed_services_every_load_balancer_is_refused() -> None:
    assert exposure_expression(()) == EXPRESSION
    assert not _admitted_in("jupyterhub", _internal_nlb("proxy-public"), exposed=())


def test_the_chart_puts_the_exceptions_in_the_policy() -> None:
    objects = validate_k8s_objects(ServiceExposureChart(cdk8s.App(), "x", namespaces=["jupyterhub", "slurm"],
                                                        exposed=[HUB, LOGIN]).to_json())
    assert objects[0]["spec"]["validations"][0]["expression"] == exposure_expression([HUB, LOGIN])


@pytest.mark.parametrize(("make", "expected"), [
    (lambda: ExposedService("jupyterhub", "proxy-public", ()), "source_ranges=()"),
    (lambda: ExposedService("jupyterhub", "proxy-public", ("0.0.0.0/0",)), "source_ranges=['0.0.0.0/0']"),
    (lambda: service_exposure_objects(["training"], [HUB]), "exposed service namespace='jupyterhub'"),
    (lambda: service_exposure_objects(["jupyterhub"], [HUB, HUB]), "exposed services='jupyterhub/proxy-public'"),
])
def test_bad_exposed_services_get_one_line(make, expected) -> None:
    with pytest.raises(ValueError) as raised:
        make()
    assert f"{expected} is not allowed: " in str(raised.value) and "\n" not in str(raised.value)
