"""The admission policy that keeps workload namespaces' Services ClusterIP: its objects against the Kubernetes
schemas, and its CEL rule run by a CEL interpreter on the Services it must refuse or admit."""

from __future__ import annotations

import cdk8s
import celpy
import pytest
from support.k8s_schemas import validate_k8s_objects

from eks_training.workloads.service_exposure import ServiceExposureChart, service_exposure_objects


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
