"""The offline Helm checks against the real upstream charts (from the mirror or the user cache; see core.upstream)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support import upstream_data

from eks_training.core import upstream
from eks_training.infra.tools.check import helm
from eks_training.infra.tools.check.helm import HelmCheckError, ValueProblem

requires_charts = upstream_data.requires(*upstream_data.installed_charts())
requires_helm_platform = pytest.mark.skipif(
    platform.system() != "Linux" or platform.machine().lower() not in ("x86_64", "amd64"),
    reason="the kubectl layer's helm binary is built for Linux x86-64 only")
KUBE_VERSION = "1.35"


def _chart(folder: str) -> Path:
    """A pinned chart by its folder name (``<name>-<version>``), or skip."""
    artifact = next(a for a in upstream.CHARTS if a.path == f"charts/{folder}")
    return upstream_data.tree(artifact)


def _paths(problems: list[ValueProblem]) -> list[str]:
    return [problem.path for problem in problems]


# --- the helm binary --------------------------------------------------------------------------------------------


@requires_helm_platform
def test_helm_binary_is_extracted_to_the_cache_and_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    helm.helm_binary.cache_clear()
    try:
        binary = helm.helm_binary()
    finally:
        helm.helm_binary.cache_clear()  # later tests use the user's cache again
    assert binary.is_relative_to(tmp_path / "eks-training")
    assert os.access(binary, os.X_OK)
    assert [p.name for p in binary.parent.iterdir()] == ["helm"]  # no half-written temp file left behind
    version = subprocess.run([str(binary), "version", "--short"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("v4."), version.stdout


def test_without_a_kubectl_layer_there_is_no_helm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(helm, "_kubectl_layer_tarballs", lambda: [])
    helm.helm_binary.cache_clear()
    try:
        with pytest.raises(HelmCheckError, match="lambda-layer-kubectl") as caught:
            helm.helm_binary()
    finally:
        helm.helm_binary.cache_clear()
    assert "\n" not in str(caught.value)


def test_importing_the_module_does_not_load_aws_cdk() -> None:
    # aws_cdk's jsii packages take seconds to import; the check must stay fast to start.
    probe = ("import sys, eks_training.infra.tools.check.helm; "
             "print(sorted(m for m in sys.modules if m.startswith(('aws_cdk', 'jsii'))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


# --- where the charts are ---------------------------------------------------------------------------------------


@requires_charts
@pytest.mark.parametrize(("chart", "version", "folder"), [
    ("volcano", "1.15.1", "volcano-1.15.1"),
    ("oci://public.ecr.aws/karpenter/karpenter", "1.14.1", "karpenter-1.14.1"),
    ("oci://quay.io/jetstack/charts/cert-manager", "v1.21.1", "cert-manager-v1.21.1"),
    ("oci://ghcr.io/slinkyproject/charts/slurm-operator", "1.2.1", "slurm-operator-1.2.1"),
    ("oci://ghcr.io/slinkyproject/charts/slurm-operator-crds", "1.2.1", "slurm-operator-crds-1.2.1"),
    ("aws-efa-k8s-device-plugin", "v0.5.30", "aws-efa-k8s-device-plugin-v0.5.30"),
    ("nvidia-device-plugin", "0.20.0", "nvidia-device-plugin-0.20.0"),
    ("jupyterhub", "4.4.0", "jupyterhub-4.4.0"),
    ("kuberay-operator", "1.7.0", "kuberay-operator-1.7.0"),
    # The release spelling of the version may differ from the folder's by a leading "v".
    ("nvidia-device-plugin", "v0.20.0", "nvidia-device-plugin-0.20.0"),
    ("oci://quay.io/jetstack/charts/cert-manager", "1.21.1", "cert-manager-v1.21.1"),
])
def test_chart_source_finds_the_pinned_chart(chart: str, version: str, folder: str) -> None:
    assert helm.chart_source(chart, version) == _chart(folder)


@requires_charts
def test_chart_source_is_none_for_charts_no_mirror_holds() -> None:
    assert helm.chart_source("oci://public.ecr.aws/neuron/neuron-helm-chart", "1.9.0") is None
    assert helm.chart_source("volcano", "1.14.0") is None  # not a pinned version at all


# --- rendering --------------------------------------------------------------------------------------------------


def _pod_spec(objects: list[dict], kind: str, name: str) -> dict:
    matching = [o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name]
    assert len(matching) == 1, sorted((o["kind"], o["metadata"]["name"]) for o in objects)
    return matching[0]["spec"]["template"]["spec"]


def _required_node_affinity_keys(pod_spec: dict) -> set[str]:
    required = pod_spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    return {expression["key"] for term in required["nodeSelectorTerms"] for expression in term["matchExpressions"]}


@pytest.fixture(scope="module")
def nvidia_default_render() -> list[dict]:
    return helm.render_chart(_chart("nvidia-device-plugin-0.20.0"), release="nvidia-device-plugin",
                             namespace="nvidia-device-plugin", values={}, kube_version=KUBE_VERSION)


@requires_helm_platform
def test_nvidia_device_plugin_requires_feature_discovery_labels_by_default(nvidia_default_render: list[dict]) -> None:
    spec = _pod_spec(nvidia_default_render, "DaemonSet", "nvidia-device-plugin")
    keys = _required_node_affinity_keys(spec)
    assert {"feature.node.kubernetes.io/pci-10de.present", "nvidia.com/gpu.present"} <= keys
    # Node feature discovery is an optional dependency, off unless nfd/gfd is enabled: none of its objects render.
    assert not [o for o in nvidia_default_render if "node-feature-discovery" in o["metadata"]["name"]]


@requires_charts
@requires_helm_platform
def test_nvidia_device_plugin_affinity_is_replaced_by_a_values_list() -> None:
    # Helm replaces lists whole, so our own nodeSelectorTerms drop the NFD ones.
    ours = {"matchExpressions": [{"key": "eks-training/accelerator", "operator": "In", "values": ["nvidia"]}]}
    values = {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [ours]}}}}
    objects = helm.render_chart(_chart("nvidia-device-plugin-0.20.0"), release="nvidia-device-plugin",
                                namespace="nvidia-device-plugin", values=values, kube_version=KUBE_VERSION)
    assert _required_node_affinity_keys(_pod_spec(objects, "DaemonSet", "nvidia-device-plugin")) == {
        "eks-training/accelerator"}


@requires_charts
@requires_helm_platform
def test_nvidia_device_plugin_refuses_feature_discovery_it_does_not_vendor() -> None:
    with pytest.raises(HelmCheckError, match="node-feature-discovery") as caught:
        helm.render_chart(_chart("nvidia-device-plugin-0.20.0"), release="nvidia-device-plugin", namespace="nv",
                          values={"gfd": {"enabled": True}}, kube_version=KUBE_VERSION)
    assert "\n" not in str(caught.value)


@requires_charts
@requires_helm_platform
def test_karpenter_renders_its_controller_with_the_cluster_name() -> None:
    objects = helm.render_chart(_chart("karpenter-1.14.1"), release="karpenter", namespace="kube-system",
                                values={"settings": {"clusterName": "training-dev"}}, kube_version=KUBE_VERSION)
    deployment = next(o for o in objects if o["kind"] == "Deployment")
    assert deployment["metadata"]["namespace"] == "kube-system"
    env = {e["name"]: e.get("value") for c in deployment["spec"]["template"]["spec"]["containers"] for e in c["env"]}
    assert env["CLUSTER_NAME"] == "training-dev"
    assert not [o for o in objects if o["kind"] == "CustomResourceDefinition"]  # crds/ is not rendered


@requires_charts
@requires_helm_platform
def test_a_failing_render_is_one_line_naming_the_cause() -> None:
    with pytest.raises(HelmCheckError, match="clusterName") as caught:
        helm.render_chart(_chart("karpenter-1.14.1"), release="karpenter", namespace="kube-system", values={},
                          kube_version=KUBE_VERSION)
    assert "\n" not in str(caught.value)


def test_a_missing_chart_folder_is_an_error(tmp_path: Path) -> None:
    for call in (lambda: helm.render_chart(tmp_path / "absent", release="r", namespace="n", values={},
                                           kube_version=KUBE_VERSION),
                 lambda: helm.unknown_value_paths(tmp_path / "absent", {"a": 1})):
        with pytest.raises(HelmCheckError, match="absent") as caught:
            call()
        assert "\n" not in str(caught.value)


# --- values the chart would ignore ------------------------------------------------------------------------------

_SYSTEM = {"eks-training/role": "system"}


@requires_charts
def test_volcano_node_selectors_we_set_do_not_exist() -> None:
    values = {"custom": {"scheduler_node_selector": _SYSTEM, "controller_node_selector": _SYSTEM,
                         "admission_node_selector": _SYSTEM}}
    problems = helm.unknown_value_paths(_chart("volcano-1.15.1"), values)
    assert sorted(_paths(problems)) == ["custom.admission_node_selector", "custom.controller_node_selector",
                                        "custom.scheduler_node_selector"]
    scheduler = next(p for p in problems if p.path == "custom.scheduler_node_selector")
    assert "custom.scheduler_ns" in scheduler.reason  # the report names the key the chart does read


@requires_charts
def test_volcano_node_placement_keys_it_reads_are_accepted() -> None:
    toleration = [{"key": "CriticalAddonsOnly", "operator": "Exists"}]
    values = {"custom": {"scheduler_ns": _SYSTEM, "controller_ns": _SYSTEM, "admission_ns": _SYSTEM,
                         "default_ns": _SYSTEM, "scheduler_tolerations": toleration,
                         "default_tolerations": toleration, "scheduler_affinity": {"nodeAffinity": {}},
                         # not in values.yaml, read by templates/agent_scheduler.yaml only
                         "agent_scheduler_affinity": {"podAntiAffinity": {}}}}
    assert helm.unknown_value_paths(_chart("volcano-1.15.1"), values) == []


@requires_charts
@requires_helm_platform
def test_volcano_render_shows_which_node_selector_key_works() -> None:
    values = {"custom": {"scheduler_node_selector": {"ignored": "yes"}, "controller_ns": _SYSTEM}}
    objects = helm.render_chart(_chart("volcano-1.15.1"), release="volcano", namespace="volcano-system",
                                values=values, kube_version=KUBE_VERSION)
    assert "ignored" not in (_pod_spec(objects, "Deployment", "volcano-scheduler").get("nodeSelector") or {})
    assert _pod_spec(objects, "Deployment", "volcano-controllers")["nodeSelector"] == _SYSTEM


@requires_charts
def test_kuberay_node_selector_is_accepted_and_a_made_up_key_is_not() -> None:
    chart = _chart("kuberay-operator-1.7.0")
    assert helm.unknown_value_paths(chart, {"nodeSelector": _SYSTEM}) == []
    # useKubernetesProxy is only commented out in values.yaml; the templates test it with hasKey.
    assert helm.unknown_value_paths(chart, {"useKubernetesProxy": True}) == []
    assert _paths(helm.unknown_value_paths(chart, {"nodeSelectors": _SYSTEM})) == ["nodeSelectors"]


@requires_charts
def test_karpenter_made_up_key_is_flagged_once_and_real_ones_pass() -> None:
    values = {"controller": {"bogus": {"a": 1, "b": {"c": 2}}, "resources": {"requests": {"cpu": "1"}}},
              "settings": {"clusterName": "c"}, "nodeSelector": _SYSTEM}
    problems = helm.unknown_value_paths(_chart("karpenter-1.14.1"), values)
    assert _paths(problems) == ["controller.bogus"]  # its leaves are not reported one by one
    assert "\n" not in problems[0].reason


@requires_charts
def test_subchart_values_are_judged_by_the_subchart_under_its_alias() -> None:
    # The NVIDIA chart's node-feature-discovery dependency reads its values under the alias "nfd".
    chart = _chart("nvidia-device-plugin-0.20.0")
    assert helm.unknown_value_paths(chart, {"nfd": {"worker": {"nodeSelector": _SYSTEM}}}) == []
    assert _paths(helm.unknown_value_paths(chart, {"nfd": {"wroker": {"nodeSelector": _SYSTEM}}})) == ["nfd.wroker"]


@requires_charts
def test_cert_manager_schema_errors_are_reported_at_their_key() -> None:
    chart = _chart("cert-manager-v1.21.1")
    assert helm.unknown_value_paths(chart, {"crds": {"enabled": True}, "nodeSelector": _SYSTEM,
                                            "webhook": {"nodeSelector": _SYSTEM},
                                            "cainjector": {"nodeSelector": _SYSTEM},
                                            "startupapicheck": {"nodeSelector": _SYSTEM}}) == []
    problems = {p.path: p.reason for p in helm.unknown_value_paths(chart, {"replicaCount": "two",
                                                                           "webhook": {"nodeSelectr": _SYSTEM}})}
    assert set(problems) == {"replicaCount", "webhook.nodeSelectr"}
    assert "'two'" in problems["replicaCount"] and "schema" in problems["replicaCount"]


@requires_charts
def test_jupyterhub_schema_forbids_unknown_keys() -> None:
    chart = _chart("jupyterhub-4.4.0")
    assert helm.unknown_value_paths(chart, {"hub": {"nodeSelector": _SYSTEM},
                                            "proxy": {"chp": {"nodeSelector": _SYSTEM}},
                                            "scheduling": {"userScheduler": {"nodeSelector": _SYSTEM}},
                                            "singleuser": {"nodeSelector": _SYSTEM}}) == []
    assert _paths(helm.unknown_value_paths(chart, {"hubb": {"nodeSelector": _SYSTEM}})) == ["hubb"]
    assert _paths(helm.unknown_value_paths(chart, {"hub": {"node_selector": _SYSTEM}})) == ["hub.node_selector"]


def test_template_reading_rules_on_a_small_chart(tmp_path: Path) -> None:
    chart = tmp_path / "toy"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: toy\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text(textwrap.dedent("""\
        image: {repository: r, tag: t}
        placeholder: ~
        listed: [a]
        nested: {inner: 1}
    """))
    (chart / "templates" / "pod.yaml").write_text(textwrap.dedent("""\
        {{/* .Values.commented is only named in a comment */}}
        {{- if .Values.flag }}flag{{ end }}
        {{- toYaml .Values.extra }}
        {{- index .Values.labels "app.kubernetes.io/part-of" }}
        {{- if hasKey .Values "dash-key" }}yes{{ end }}
        {{- with $.Values.nested.inner }}{{ . }}{{ end }}
    """))
    problems = helm.unknown_value_paths(chart, {
        "image": {"tag": "x", "digest": "sha256:0"},       # digest: neither declared nor read
        "placeholder": {"free": {"form": 1}},               # null in values.yaml: anything goes below
        "listed": ["b"], "extra": {"any": {"thing": 1}},    # a list; a map handed on whole
        "labels": {"app.kubernetes.io/part-of": "p", "other": "o"},
        "dash-key": 1, "flag": {"sub": 1},                  # `if` only tests flag: flag.sub is not read
        "commented": 1, "nested": {"inner": 2, "outer": 3},
    })
    assert sorted(_paths(problems)) == ["commented", "flag.sub", "image.digest", "labels.other", "nested.outer"]
