"""Training namespaces with accelerator quotas and container defaults."""

from __future__ import annotations

import cdk8s
import pytest

from eks_training.workloads.namespaces import ContainerDefaults, NamespaceQuota, TrainingNamespace, TrainingNamespacesChart
from support.k8s_schemas import chart_objects, validate_k8s_objects

LLM_TEAM = TrainingNamespace(
    name="llm",
    labels={"team": "llm"},
    operators=("volcano", "mpi-operator"),
    quota=NamespaceQuota(cpu=2000, memory="16Ti", nvidia_gpus=128, neuron_devices=0, efa_devices=512, pods=500),
)


def _render(namespaces) -> list[dict]:
    return chart_objects(TrainingNamespacesChart(cdk8s.App(), "ns", namespaces=namespaces))


def test_namespace_quota_and_defaults_are_valid_and_labelled() -> None:
    objects = validate_k8s_objects(_render([LLM_TEAM, TrainingNamespace(name="research", limit_range=None)]))
    kinds = [(o["kind"], o["metadata"].get("namespace")) for o in objects]
    assert kinds == [
        ("Namespace", None), ("ResourceQuota", "llm"), ("LimitRange", "llm"), ("Namespace", None),
    ]
    namespace = objects[0]
    assert namespace["metadata"]["labels"] == {
        "app.kubernetes.io/part-of": "eks-training",
        "app.kubernetes.io/component": "namespaces",
        "eks-training/uses-volcano": "true",
        "eks-training/uses-mpi-operator": "true",
        "team": "llm",
    }
    assert objects[1]["spec"]["hard"] == {
        "requests.cpu": "2000",
        "requests.memory": "16Ti",
        "requests.nvidia.com/gpu": "128",
        "requests.aws.amazon.com/neuron": "0",
        "requests.vpc.amazonaws.com/efa": "512",
        "pods": "500",
    }
    (limits,) = objects[2]["spec"]["limits"]
    assert limits == {"type": "Container", "defaultRequest": {"cpu": "500m", "memory": "1Gi"}, "default": {"memory": "4Gi"}}
    for obj in objects:
        assert obj["metadata"]["labels"]["app.kubernetes.io/part-of"] == "eks-training"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "LLM"}, r"namespace name='LLM' is not a valid name"),
        ({"name": "kube-system"}, r"namespace name='kube-system' belongs to Kubernetes"),
        ({"name": "a", "operators": ("ray",)}, r"operator='ray' is not allowed: use one of volcano, kuberay"),
        ({"name": "a", "operators": "volcano"}, r"operators='volcano' must be a list"),
        ({"name": "a", "labels": {"bad key!": "x"}}, r"key 'bad key!' is not a valid label key"),
        ({"name": "a", "quota": NamespaceQuota()}, r"namespace 'a' quota sets no limit"),
        ({"name": "a", "quota": NamespaceQuota(nvidia_gpus=-1)}, r"quota requests.nvidia.com/gpu=-1 is not a non-negative"),
        ({"name": "a", "quota": NamespaceQuota(pods=-5)}, r"quota pods=-5 is not allowed"),
        ({"name": "a", "quota": {"cpu": 1}}, r"quota=\{'cpu': 1\} must be a NamespaceQuota"),
        ({"name": "a", "limit_range": ContainerDefaults(memory_request="8Gi", memory_limit="4Gi")}, r"memory_request=8Gi exceeds memory_limit=4Gi"),
        ({"name": "a", "limit_range": ContainerDefaults(cpu_request="half")}, r"cpu_request='half' is not a non-negative"),
    ],
)
def test_bad_namespace_inputs_raise_one_line_errors(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message) as caught:
        TrainingNamespace(**kwargs)
    assert "\n" not in str(caught.value)


def test_duplicate_or_missing_namespaces_raise() -> None:
    with pytest.raises(ValueError, match=r"namespace names has 'llm' twice"):
        _render([LLM_TEAM, LLM_TEAM])
    with pytest.raises(ValueError, match=r"must be a non-empty list of TrainingNamespace"):
        _render([])
