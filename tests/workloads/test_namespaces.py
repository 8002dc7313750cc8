"""Workload namespaces: Pod Security Admission levels, accelerator quotas and container defaults."""

from __future__ import annotations

import cdk8s
import cdk8s_plus_28 as kplus
import pytest
import yaml

from eks_training.workloads.namespaces import (
    ContainerDefaults,
    NamespaceQuota,
    PodSecurity,
    TrainingNamespace,
    TrainingNamespacesChart,
)
from support.k8s_schemas import validate_k8s_objects

LLM_TEAM = TrainingNamespace(
    name="llm",
    labels={"team": "llm"},
    operators=("volcano", "mpi-operator"),
    quota=NamespaceQuota(cpu=2000, memory="16Ti", nvidia_gpus=128, neuron_devices=0, efa_devices=512, pods=500),
)


def _render(namespaces) -> list[dict]:
    # to_json, not the chart's direct ApiObjects: a plus Namespace holds its ApiObject as a child.
    return TrainingNamespacesChart(cdk8s.App(), "ns", namespaces=namespaces).to_json()


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
        # Training pods (device plugins, shm, root images) fit baseline; restricted is only reported.
        "pod-security.kubernetes.io/enforce": "baseline",
        "pod-security.kubernetes.io/warn": "restricted",
        "pod-security.kubernetes.io/audit": "restricted",
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


def test_namespaces_are_cdk8s_plus_and_only_kinds_plus_lacks_are_plain() -> None:
    chart = TrainingNamespacesChart(cdk8s.App(), "ns", namespaces=[LLM_TEAM, TrainingNamespace(name="research")])
    plus = [c for c in chart.node.children if isinstance(c, kplus.Namespace)]
    assert [n.name for n in plus] == ["llm", "research"]
    # ResourceQuota and LimitRange have no cdk8s-plus-28 class: they, and only they, are plain ApiObjects.
    plain = [(c.kind, c.metadata.namespace) for c in chart.node.children if isinstance(c, cdk8s.ApiObject)]
    assert plain == [("ResourceQuota", "llm"), ("LimitRange", "llm"), ("LimitRange", "research")]
    namespaces = [o for o in chart.to_json() if o["kind"] == "Namespace"]
    # plus adds an empty spec (the API server fills in its finalizer, as for a Namespace without one) and nothing else.
    assert [set(o) for o in namespaces] == [{"apiVersion", "kind", "metadata", "spec"}] * 2
    assert all(o["spec"] == {} and set(o["metadata"]) == {"name", "labels"} for o in namespaces)
    # api_objects lists the objects inside the plus constructs too, in the order the chart renders them.
    assert [o.to_json() for o in chart.api_objects] == chart.to_json()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "LLM"}, r"namespace name='LLM' is not allowed: use 1-63 lowercase letters, digits or '-'"),
        ({"name": "kube-system"}, r"namespace name='kube-system' is not allowed: choose a namespace of your own \(this one belongs to Kubernetes\)"),
        ({"name": "a", "operators": ("ray",)}, r"operator='ray' is not allowed: use one of volcano, kuberay"),
        ({"name": "a", "operators": "volcano"}, r"operators='volcano' is not allowed: use a list of "),
        ({"name": "a", "labels": {"bad key!": "x"}}, r"labels key='bad key!' is not allowed: use a label key \[dns-prefix/\]name"),
        ({"name": "a", "quota": NamespaceQuota()}, r"namespace 'a' quota sets no limit"),
        ({"name": "a", "quota": NamespaceQuota(nvidia_gpus=-1)},
         r"quota requests.nvidia.com/gpu=-1 is not allowed: use a non-negative Kubernetes quantity"),
        ({"name": "a", "quota": NamespaceQuota(pods=-5)}, r"quota pods=-5 is not allowed"),
        ({"name": "a", "quota": {"cpu": 1}}, r"quota=\{'cpu': 1\} is not allowed: use a NamespaceQuota"),
        ({"name": "a", "limit_range": ContainerDefaults(memory_request="8Gi", memory_limit="4Gi")}, r"memory_request=8Gi exceeds memory_limit=4Gi"),
        ({"name": "a", "limit_range": ContainerDefaults(cpu_request="half")},
         r"cpu_request='half' is not allowed: use a non-negative Kubernetes quantity"),
        ({"name": "a", "pod_security": PodSecurity(enforce="strict")},
         r"namespace 'a' pod_security enforce='strict' is not allowed: use one of privileged, baseline, restricted"),
        ({"name": "a", "pod_security": PodSecurity(enforce="restricted", warn="baseline")},
         r"pod_security warn='baseline' is not allowed: use 'restricted' or stricter \(it is looser than enforce='restricted'\)"),
        ({"name": "a", "pod_security": "baseline"}, r"pod_security='baseline' is not allowed: use a PodSecurity"),
        ({"name": "a", "labels": {"pod-security.kubernetes.io/enforce": "privileged"}},
         r"labels key='pod-security.kubernetes.io/enforce' is not allowed: leave Pod Security labels to pod_security"),
    ],
)
def test_bad_namespace_inputs_raise_one_line_errors(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message) as caught:
        TrainingNamespace(**kwargs)
    assert "\n" not in str(caught.value)


def test_duplicate_or_missing_namespaces_raise() -> None:
    with pytest.raises(ValueError, match=r"namespace names='llm' is not allowed: each must be unique"):
        _render([LLM_TEAM, LLM_TEAM])
    with pytest.raises(ValueError, match=r"namespaces=\[\] is not allowed: use a non-empty list of TrainingNamespace"):
        _render([])


def _psa(namespace: dict) -> dict[str, str]:
    prefix = "pod-security.kubernetes.io/"
    return {k[len(prefix):]: v for k, v in namespace["metadata"]["labels"].items() if k.startswith(prefix)}


def test_pod_security_levels_per_kind_of_namespace() -> None:
    objects = _render([
        TrainingNamespace(name="train", operators=("volcano", "kuberay", "mpi-operator")),
        # Slinky starts slurmd privileged (BPF, NET_ADMIN, SYS_ADMIN, SYS_NICE): baseline would refuse it.
        TrainingNamespace(name="slurm", operators=("slinky",)),
        TrainingNamespace(name="jupyterhub", operators=("jupyterhub",)),
        TrainingNamespace(name="locked", pod_security=PodSecurity(enforce="restricted")),
    ])
    levels = {o["metadata"]["name"]: _psa(o) for o in objects if o["kind"] == "Namespace"}
    assert levels == {
        "train": {"enforce": "baseline", "warn": "restricted", "audit": "restricted"},
        "slurm": {"enforce": "privileged", "warn": "baseline", "audit": "baseline"},
        "jupyterhub": {"enforce": "baseline", "warn": "restricted", "audit": "restricted"},
        "locked": {"enforce": "restricted", "warn": "restricted", "audit": "restricted"},
    }
    # No namespace of ours is left without an enforced level.
    assert all("enforce" in level for level in levels.values())


def test_training_pods_we_render_fit_baseline(prod) -> None:
    """Baseline forbids privileged, added capabilities beyond its list, host namespaces, hostPath and hostPort:
    nothing our job templates set may need more, or jobs in a training namespace are refused at admission."""
    from eks_training.infra.tools.check.deploy_check import render_all_jobs
    from eks_training.infra.tools.check.placement import pod_templates

    allowed_caps = {"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE",
                    "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}
    training = {n.name for n in prod.config.training_namespaces}
    pods = [pod for kind, objects in render_all_jobs(prod.config).items() for obj in objects
            for pod in pod_templates(f"job {kind}", obj)]
    # The stack's own manifests in training namespaces too (the shared RayCluster).
    pods += [pod for lid, obj in prod.kubernetes_objects() for pod in pod_templates(lid, obj) if pod.namespace in training]
    assert len({pod.owner.split(":")[0] for pod in pods}) >= 4
    for pod in pods:
        spec = pod.spec
        assert not any(spec.get(k) for k in ("hostNetwork", "hostPID", "hostIPC")), pod.owner
        assert not any("hostPath" in v for v in spec.get("volumes") or []), pod.owner
        for container in [*(spec.get("initContainers") or []), *spec.get("containers", [])]:
            context = container.get("securityContext") or {}
            assert not context.get("privileged"), pod.owner
            assert set((context.get("capabilities") or {}).get("add") or []) <= allowed_caps, pod.owner
            assert not any(p.get("hostPort") for p in container.get("ports") or []), pod.owner


def test_notebook_pods_fit_the_jupyterhub_namespace_baseline(prod) -> None:
    """z2jh's `singleuser.cloudMetadata.blockWithIptables` (chart default: true) adds an init container to every
    notebook that is privileged with NET_ADMIN: baseline refuses it, so every notebook would fail to start.
    The namespace's NetworkPolicies (ours and z2jh's singleuser policy) keep notebooks off instance metadata instead."""
    from support import upstream_data

    release = prod.helm_releases["jupyterhub"]
    chart = upstream_data.chart_dir(release["Chart"], release["Version"])
    default = yaml.safe_load((chart / "values.yaml").read_text())["singleuser"]["cloudMetadata"]["blockWithIptables"]
    ours = release["Values"].get("singleuser", {}).get("cloudMetadata", {}).get("blockWithIptables", default)
    namespace = next(o for _, o in prod.kubernetes_objects()
                     if o["kind"] == "Namespace" and o["metadata"]["name"] == release["Namespace"])
    enforce = namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"]
    assert not (ours and enforce != "privileged"), (
        f"jupyterhub values singleuser.cloudMetadata.blockWithIptables={ours!r} adds a privileged NET_ADMIN init "
        f"container that namespace {release['Namespace']!r} (enforce={enforce}) refuses: set it to False")
