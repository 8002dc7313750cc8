"""JupyterHub chart values: accelerator notebook profiles with the right devices, placement and no secrets."""

from __future__ import annotations

import copy
import os
from pathlib import Path

import jsonschema
import pytest
import yaml

from eks_training.workloads.jupyterhub import (
    DEFAULT_NOTEBOOK_PROFILES,
    JUPYTERHUB_CHART_VERSION,
    PROXY_PUBLIC_SERVICE,
    HubLoadBalancer,
    NotebookProfile,
    OidcSignIn,
    jupyterhub_values,
    profiles_for,
)
from support import upstream_data
from support.fsx import assert_namespace_fsx
from support.k8s_schemas import validate_k8s_object

GPU_IMAGE = "quay.io/jupyter/pytorch-notebook:cuda12-python-3.12"
NEURON_IMAGE = "763104351884.dkr.ecr.us-west-2.amazonaws.com/pytorch-training-neuronx:2.1.0"


def values(**overrides) -> dict:
    kwargs = dict(namespace="jupyter", training_service_account="training",
                  gpu_image=GPU_IMAGE, neuron_image=NEURON_IMAGE, profiles=DEFAULT_NOTEBOOK_PROFILES)
    kwargs.update(overrides)
    return jupyterhub_values(**kwargs)


@pytest.fixture(scope="module")
def profiles() -> dict[str, dict]:
    return {entry["slug"]: entry for entry in values()["singleuser"]["profileList"]}


def test_default_profiles_are_one_gpu_eight_gpus_and_trainium(profiles):
    assert list(profiles) == ["gpu-1", "gpu-8", "trainium"]
    assert [slug for slug, entry in profiles.items() if entry.get("default")] == ["gpu-1"]


def test_one_gpu_profile(profiles):
    override = profiles["gpu-1"]["kubespawner_override"]
    assert override["extra_resource_limits"] == {"nvidia.com/gpu": "1"}
    assert override["extra_resource_guarantees"] == {"nvidia.com/gpu": "1"}
    assert override["node_selector"] == {"node.kubernetes.io/instance-type": "g5.xlarge"}
    assert override["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert override["image"] == GPU_IMAGE
    assert not [v for v in override["volumes"].values() if "persistentVolumeClaim" in v]


def test_eight_gpu_profile_has_efa_and_fsx(profiles):
    override = profiles["gpu-8"]["kubespawner_override"]
    # p4d.24xlarge: 8 A100 GPUs, 4 EFA interfaces.
    assert override["extra_resource_limits"] == {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "4"}
    assert override["node_selector"] == {"node.kubernetes.io/instance-type": "p4d.24xlarge"}
    # Notebooks read the shared data and write only their own folder of the namespace's workspace (the pod's name).
    assert_namespace_fsx(override["volumes"], override["volume_mounts"], workspace_sub_path="{pod_name}")


def test_trainium_profile_asks_for_all_sixteen_neuron_devices(profiles):
    override = profiles["trainium"]["kubespawner_override"]
    assert override["extra_resource_limits"] == {"aws.amazon.com/neuron": "16"}
    assert override["tolerations"] == [{"key": "aws.amazon.com/neuron", "operator": "Exists", "effect": "NoSchedule"}]
    assert override["node_selector"] == {"node.kubernetes.io/instance-type": "trn1.32xlarge"}
    assert override["image"] == NEURON_IMAGE


@pytest.mark.parametrize("slug", [p.slug for p in DEFAULT_NOTEBOOK_PROFILES])
def test_each_profile_makes_a_valid_pod(profiles, slug):
    # What KubeSpawner would put in the pod, checked against the Kubernetes schemas.
    override = profiles[slug]["kubespawner_override"]
    container = {
        "name": "notebook",
        "image": override["image"],
        "resources": {
            "requests": {"cpu": str(override["cpu_guarantee"]), **override["extra_resource_guarantees"]},
            "limits": {**override["extra_resource_limits"]},
        },
        "volumeMounts": list(override["volume_mounts"].values()),
    }
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": slug},
           "spec": {"containers": [container], "nodeSelector": override["node_selector"],
                    "tolerations": override["tolerations"], "volumes": list(override["volumes"].values())}}
    validate_k8s_object(pod)
    mounted = {m["name"] for m in container["volumeMounts"]}
    assert mounted == {v["name"] for v in pod["spec"]["volumes"]}
    assert override["volumes"]["shm"]["emptyDir"] == {"medium": "Memory"}


def test_values_set_the_training_service_account_and_default_image():
    singleuser = values()["singleuser"]
    assert singleuser["serviceAccountName"] == "training"
    assert singleuser["image"] == {"name": "quay.io/jupyter/pytorch-notebook", "tag": "cuda12-python-3.12"}


DIGEST = "sha256:" + "0123456789abcdef" * 4


@pytest.mark.parametrize("image", [
    f"quay.io/jupyter/pytorch-notebook:cuda12-python-3.12@{DIGEST}",
    "registry.example.com:5000/ml/notebook:v1",
])
def test_a_digest_rides_in_the_tag_so_the_chart_pulls_the_whole_reference(image):
    """z2jh pulls f"{name}:{tag}": with the digest in the tag that is the reference given, digest included."""
    result = values(gpu_image=image)
    name, tag = result["singleuser"]["image"]["name"], result["singleuser"]["image"]["tag"]
    assert f"{name}:{tag}" == image
    assert "@" not in name and ":" not in name.rsplit("/", 1)[-1]
    gpu_profile = next(p for p in result["singleuser"]["profileList"] if p["slug"] == "gpu-1")
    assert gpu_profile["kubespawner_override"]["image"] == image


@pytest.mark.parametrize(("field", "image", "allowed"), [
    ("gpu_image", f"quay.io/jupyter/pytorch-notebook@{DIGEST}", "put the tag in front of the digest"),
    ("neuron_image", f"quay.io/jupyter/pytorch-notebook@{DIGEST}", "a digest alone leaves no tag"),
    ("gpu_image", "quay.io/jupyter/pytorch-notebook:v1@sha256:abc", "registry/name:tag@sha256:<64 hex>"),
    ("gpu_image", f"quay.io/jupyter/pytorch-notebook:latest@{DIGEST}", "(not :latest)"),
    ("neuron_image", "neuronx:2.1.0", "use a pinned registry/name:tag"),
])
def test_an_image_the_chart_cannot_pull_as_name_and_tag_is_refused_saying_why(field, image, allowed):
    from eks_training.core.validation import InvalidValue

    with pytest.raises(InvalidValue) as raised:
        values(**{field: image})
    assert (raised.value.field, raised.value.value) == (field, image)
    assert allowed in raised.value.allowed


def test_values_hold_no_secret_material():
    forbidden = {"cookieSecret", "secretToken", "apiToken", "password", "cryptoKey", "token", "secret"}

    def walk(node, path):
        if isinstance(node, dict):
            for key, value in node.items():
                assert key not in forbidden, f"{path}.{key}"
                walk(value, f"{path}.{key}")
        elif isinstance(node, list):
            for index, item in enumerate(node):
                walk(item, f"{path}[{index}]")

    result = values()
    walk(result, "values")
    # Hub and proxy secrets stay with the chart: of the hub and proxy we set only placement and the Service type.
    assert set(result["hub"]) == {"nodeSelector", "tolerations", "networkPolicy"}
    # On the system nodes, tolerating their taint (only the platform's pods do).
    assert result["proxy"] == {"service": {"type": "ClusterIP"}, "chp": {
        "nodeSelector": {"eks-training/role": "system"}, "tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"}],
        "networkPolicy": {"enabled": False}}}


def test_custom_profile_of_a_p5_gets_its_32_efa_interfaces():
    p5 = NotebookProfile(slug="h100", display_name="8x H100", description="p5", instance_type="p5.48xlarge",
                         accelerators=8, cpu_guarantee=180, mem_guarantee="1800G", efa=True)
    entry = values(profiles=[p5])["singleuser"]["profileList"][0]
    assert entry["kubespawner_override"]["extra_resource_limits"] == {"nvidia.com/gpu": "8",
                                                                      "vpc.amazonaws.com/efa": "32"}


def test_chart_version_is_a_z2jh_4_release():
    assert JUPYTERHUB_CHART_VERSION.split(".")[0] == "4"


def _deep_merge(base: dict, extra: dict) -> dict:
    merged = copy.deepcopy(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def test_values_pass_the_charts_own_values_schema():
    chart = upstream_data.chart_dir("jupyterhub", JUPYTERHUB_CHART_VERSION)
    schema = yaml.safe_load((chart / "values.schema.yaml").read_text())
    defaults = yaml.safe_load((chart / "values.yaml").read_text())
    # Helm validates the defaults merged with the user's values.
    jsonschema.validate(_deep_merge(defaults, values()), schema)


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda: values(gpu_image="quay.io/jupyter/pytorch-notebook"), "gpu_image='quay.io/jupyter/pytorch-notebook'"),
        (lambda: values(neuron_image="neuronx:latest"), "neuron_image='neuronx:latest'"),
        (lambda: values(namespace="Jupyter"), "namespace='Jupyter'"),
        (lambda: values(profiles=[]), "profiles=[]"),
        (lambda: values(profiles=[DEFAULT_NOTEBOOK_PROFILES[0]] * 2), "profile slugs='gpu-1'"),
        (lambda: NotebookProfile(slug="GPU", display_name="x", description="x", instance_type="g5.xlarge",
                                 accelerators=1, cpu_guarantee=1, mem_guarantee="4G"), "slug='GPU'"),
        (lambda: NotebookProfile(slug="g", display_name="x", description="x", instance_type="g5.xlarge",
                                 accelerators=2, cpu_guarantee=1, mem_guarantee="4G"), "accelerators=2"),
        (lambda: NotebookProfile(slug="g", display_name="x", description="x", instance_type="g5.xlarge",
                                 accelerators=1, cpu_guarantee=1, mem_guarantee="4G", efa=True), "efa=True"),
        (lambda: NotebookProfile(slug="g", display_name="x", description="x", instance_type="g5.xlarge",
                                 accelerators=1, cpu_guarantee=4, mem_guarantee="4G"), "cpu_guarantee=4"),
        (lambda: NotebookProfile(slug="g", display_name="x", description="x", instance_type="g5.xlarge",
                                 accelerators=1, cpu_guarantee=1, mem_guarantee="16G"), "mem_guarantee='16G'"),
        (lambda: NotebookProfile(slug="g", display_name="x", description="x", instance_type="g5.xlarge",
                                 accelerators=1, cpu_guarantee=1, mem_guarantee="4Gi"), "mem_guarantee='4Gi'"),
        (lambda: NotebookProfile(slug="g", display_name="x", description="x", instance_type="m5.large",
                                 accelerators=1, cpu_guarantee=1, mem_guarantee="4G"), "instance_type='m5.large'"),
        (lambda: OidcSignIn(authorize_url="https://idp.example.com/authorize", token_url="https://idp.example.com/token",
                            userdata_url="https://idp.example.com/userinfo", client_id="hub", client_secret_name="oidc"),
         "sign-in allowed_users=[]"),
        (lambda: OidcSignIn(authorize_url="http://idp.example.com/authorize", token_url="https://idp.example.com/token",
                            userdata_url="https://idp.example.com/userinfo", client_id="hub", client_secret_name="oidc",
                            allowed_groups=("ml",)), "sign-in authorize_url='http://idp.example.com/authorize'"),
    ],
)
def test_bad_input_gets_a_one_line_error_naming_field_and_value(make, expected):
    with pytest.raises(ValueError) as raised:
        make()
    # The one format: the field and the bad value, then what is allowed.
    assert f"{expected} is not allowed: " in str(raised.value)
    assert "\n" not in str(raised.value)


def test_profiles_follow_the_capacity_smallest_first_each_a_whole_node():
    from eks_training.core.catalog import node_capacity
    from eks_training.infra.tools.check.kube import quantity

    profiles = profiles_for(["trn1.32xlarge", "p5.48xlarge", "g5.xlarge", "p5.48xlarge"])
    assert [p.instance_type for p in profiles] == ["g5.xlarge", "p5.48xlarge", "trn1.32xlarge"]
    assert [p.default for p in profiles] == [True, False, False]
    for profile in profiles:
        capacity = node_capacity(profile.instance_type)
        assert profile.accelerators == capacity.accelerators
        assert 0 < profile.cpu_guarantee <= capacity.allocatable_cpu
        # KubeSpawner's G is GiB: the notebook must fit what the kubelet leaves.
        assert quantity(profile.mem_guarantee + "i") <= capacity.allocatable_memory
    assert profiles[1].efa and not profiles[0].efa


# --- the hub behind an internal NLB with TLS: notebook users need no Kubernetes access --------------------------

CERTIFICATE = "arn:aws:acm:us-west-2:123456789012:certificate/12345678-1234-4234-8234-123456789012"
SIGN_IN = dict(authorize_url="https://idp.example.com/authorize", token_url="https://idp.example.com/token",
               userdata_url="https://idp.example.com/userinfo", client_id="hub", client_secret_name="oidc",
               allowed_groups=("ml",), callback_url="https://hub.example.com/hub/oauth_callback")


def _rendered_proxy_public(**overrides) -> dict:
    """The chart's proxy-public Service, rendered by the real helm from our values."""
    from eks_training.infra.tools.check import helm

    result = values(sign_in=OidcSignIn(**SIGN_IN),
                    load_balancer=HubLoadBalancer(CERTIFICATE, ("10.8.0.0/16",)), **overrides)
    objects = helm.render_chart(upstream_data.chart_dir("jupyterhub", JUPYTERHUB_CHART_VERSION), release="jupyterhub",
                                namespace="jupyterhub", values=result, kube_version="1.33.0")
    (service,) = [o for o in objects if o["kind"] == "Service" and o["metadata"]["name"] == PROXY_PUBLIC_SERVICE]
    return service


def test_the_hub_is_an_internal_tls_load_balancer_from_the_named_networks_only():
    service = _rendered_proxy_public()
    annotations = service["metadata"]["annotations"]
    assert service["spec"]["type"] == "LoadBalancer"
    assert service["spec"]["loadBalancerSourceRanges"] == ["10.8.0.0/16"]
    assert annotations["service.beta.kubernetes.io/aws-load-balancer-type"] == "nlb"
    assert annotations["service.beta.kubernetes.io/aws-load-balancer-internal"] == "true"
    assert annotations["service.beta.kubernetes.io/aws-load-balancer-ssl-cert"] == CERTIFICATE
    assert annotations["service.beta.kubernetes.io/aws-load-balancer-ssl-negotiation-policy"].startswith(
        "ELBSecurityPolicy-TLS13")
    # Targets: the system nodes, where the proxy runs (its nodeSelector), and no other node opens the node port.
    proxy_nodes = values(sign_in=OidcSignIn(**SIGN_IN), load_balancer=HubLoadBalancer(CERTIFICATE, ("10.8.0.0/16",)))[
        "proxy"]["chp"]["nodeSelector"]
    assert annotations["service.beta.kubernetes.io/aws-load-balancer-target-node-labels"] == ",".join(
        f"{k}={v}" for k, v in proxy_nodes.items())
    # One port: HTTPS (the TLS listener, named in ssl-ports) to the proxy's plain http port; no plain port 80.
    (port,) = service["spec"]["ports"]
    assert (port["name"], port["port"], port["targetPort"]) == ("https", 443, "http")
    assert annotations["service.beta.kubernetes.io/aws-load-balancer-ssl-ports"] == port["name"]
    validate_k8s_object(service)


def test_hub_values_with_a_load_balancer_pass_the_charts_schema():
    chart = upstream_data.chart_dir("jupyterhub", JUPYTERHUB_CHART_VERSION)
    schema = yaml.safe_load((chart / "values.schema.yaml").read_text())
    defaults = yaml.safe_load((chart / "values.yaml").read_text())
    result = values(sign_in=OidcSignIn(**SIGN_IN), load_balancer=HubLoadBalancer(CERTIFICATE, ("10.8.0.0/16",)))
    jsonschema.validate(_deep_merge(defaults, result), schema)


@pytest.mark.parametrize(("make", "expected"), [
    (lambda: HubLoadBalancer("arn:aws:acm:us-west-2:123456789012:certificate/nope", ("10.8.0.0/16",)),
     "hub load_balancer certificate_arn='arn:aws:acm:us-west-2:123456789012:certificate/nope'"),
    (lambda: HubLoadBalancer(None, ("10.8.0.0/16",)), "hub load_balancer certificate_arn=None"),
    (lambda: HubLoadBalancer(CERTIFICATE, ()), "hub load_balancer source_ranges=()"),
    (lambda: HubLoadBalancer(CERTIFICATE, ("0.0.0.0/0",)), "hub load_balancer source_ranges=['0.0.0.0/0']"),
    (lambda: HubLoadBalancer(CERTIFICATE, ("10.8.0.1/16",)), "hub load_balancer source_ranges[0]='10.8.0.1/16'"),
    (lambda: values(load_balancer=HubLoadBalancer(CERTIFICATE, ("10.8.0.0/16",))), "sign-in callback_url=None"),
    (lambda: values(sign_in=OidcSignIn(**{**SIGN_IN, "callback_url": "http://localhost:8000/hub/oauth_callback"}),
                    load_balancer=HubLoadBalancer(CERTIFICATE, ("10.8.0.0/16",))),
     "sign-in callback_url='http://localhost:8000/hub/oauth_callback'"),
])
def test_a_hub_load_balancer_that_would_not_work_or_would_open_a_door_is_refused_in_one_line(make, expected):
    with pytest.raises(ValueError) as raised:
        make()
    assert f"{expected} is not allowed: " in str(raised.value) and "\n" not in str(raised.value)
