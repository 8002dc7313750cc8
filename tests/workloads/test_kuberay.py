"""KubeRay RayCluster chart and RayJob builder."""

from __future__ import annotations

import cdk8s
import pytest

from eks_training.workloads.job_charts import RayClusterChart
from eks_training.workloads.kuberay import RayClusterConfig, RayGpuWorkers, RayHead, ray_job
from support.fsx import assert_namespace_fsx
from support.k8s_schemas import chart_objects, validate_k8s_object, validate_k8s_objects

P5_WORKERS = RayGpuWorkers(
    instance_type="p5.48xlarge", gpus_per_worker=8, cpu="180", memory="1800Gi", efa_devices=32, min_replicas=0, max_replicas=4
)
CLUSTER = RayClusterConfig(
    namespace="ml", name="ray-gpu", workers=P5_WORKERS, service_account_name="ray-training"
)


def _render(**overrides) -> dict:
    options = dict(namespace="ml", name="ray-gpu", workers=P5_WORKERS, service_account_name="ray-training")
    (obj,) = chart_objects(RayClusterChart(cdk8s.App(), "ray", **{**options, **overrides}))
    return obj


def _as_pod(template: dict) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", **template.get("metadata", {})}, "spec": template["spec"]}


@pytest.fixture(scope="module")
def cluster() -> dict:
    obj = _render()
    validate_k8s_object(obj)
    return obj


def test_ray_cluster_is_valid_and_pod_templates_are_valid_pods(cluster) -> None:
    assert cluster["apiVersion"] == "ray.io/v1" and cluster["kind"] == "RayCluster"
    assert cluster["metadata"]["namespace"] == "ml"
    assert cluster["metadata"]["labels"] == {"app.kubernetes.io/part-of": "eks-training", "app.kubernetes.io/component": "kuberay"}
    spec = cluster["spec"]
    validate_k8s_objects([_as_pod(spec["headGroupSpec"]["template"]), _as_pod(spec["workerGroupSpecs"][0]["template"])])


def test_head_runs_no_tasks_and_uses_a_current_ray_image(cluster) -> None:
    spec = cluster["spec"]
    assert spec["rayVersion"] == "2.49.1"
    assert spec["headGroupSpec"]["rayStartParams"]["num-cpus"] == "0"
    head = spec["headGroupSpec"]["template"]["spec"]
    (container,) = head["containers"]
    assert container["image"] == "rayproject/ray:2.49.1-py311-gpu"
    assert "ray-ml" not in container["image"]
    assert head["serviceAccountName"] == "ray-training"
    assert "tolerations" not in head, "the head must not land on GPU nodes"


def test_gpu_workers_target_the_instance_request_efa_and_mount_fsx(cluster) -> None:
    group = cluster["spec"]["workerGroupSpecs"][0]
    assert (group["minReplicas"], group["maxReplicas"]) == (0, 4)
    pod = group["template"]["spec"]
    assert pod["nodeSelector"] == {"node.kubernetes.io/instance-type": "p5.48xlarge"}
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in pod["tolerations"]
    (container,) = pod["containers"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "8"
    assert container["resources"]["limits"]["vpc.amazonaws.com/efa"] == "32"
    assert container["resources"]["requests"] == container["resources"]["limits"]
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert_namespace_fsx(pod["volumes"], container["volumeMounts"])
    assert volumes[mounts["/dev/shm"]]["emptyDir"] == {"medium": "Memory"}
    assert pod["serviceAccountName"] == "ray-training"
    assert cluster["spec"]["enableInTreeAutoscaling"] is True


def test_without_efa_or_autoscaling_nothing_extra_is_requested() -> None:
    workers = RayGpuWorkers(instance_type="g6e.12xlarge", gpus_per_worker=4, cpu=40, memory="300Gi")
    obj = _render(workers=workers, enable_in_tree_autoscaling=False, head=RayHead(cpu=4, memory="16Gi"))
    validate_k8s_object(obj)
    (container,) = obj["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"]
    assert "vpc.amazonaws.com/efa" not in container["resources"]["limits"]
    assert obj["spec"]["enableInTreeAutoscaling"] is False and "autoscalerOptions" not in obj["spec"]


def test_ray_job_on_a_new_cluster_and_on_an_existing_one_are_valid() -> None:
    new_cluster = ray_job(name="train-llm", namespace="ml", entrypoint="python /shared/train.py", cluster=CLUSTER,
                          runtime_env_yaml="pip: [torch]", active_deadline_seconds=86400)
    existing = ray_job(name="eval", namespace="ml", entrypoint="python eval.py", cluster_selector={"ray.io/cluster": "ray-gpu"})
    validate_k8s_objects([new_cluster, existing])
    assert new_cluster["spec"]["rayClusterSpec"]["headGroupSpec"]["rayStartParams"]["num-cpus"] == "0"
    assert new_cluster["spec"]["shutdownAfterJobFinishes"] is True
    assert existing["spec"]["clusterSelector"] == {"ray.io/cluster": "ray-gpu"}
    assert "rayClusterSpec" not in existing["spec"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"ray_version": "2.49"}, r"ray_version='2.49' is not a Ray release"),
        ({"image": "rayproject/ray-ml:2.9.0-gpu"}, r"carries Ray 2.9.0 but ray_version='2.49.1': they must match"),
        ({"image": "my image"}, r"image='my image' is not a container image reference"),
        ({"namespace": "ML"}, r"namespace='ML' is not allowed: use 1-63 lowercase letters, digits or '-'"),
        ({"workers": "p5"}, r"workers='p5' must be a RayGpuWorkers"),
        ({"enable_in_tree_autoscaling": "yes"}, r"enable_in_tree_autoscaling='yes' must be true or false"),
    ],
)
def test_bad_cluster_inputs_raise_one_line_errors(changes, message) -> None:
    with pytest.raises(ValueError, match=message) as caught:
        _render(**changes)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"instance_type": "p5"}, r"worker instance_type='p5' is not an EC2 type"),
        ({"gpus_per_worker": 0}, r"worker gpus_per_worker=0 is not allowed: use an integer from 1 to 16"),
        ({"memory": "lots"}, r"worker memory='lots' is not allowed: use a non-negative Kubernetes quantity"),
        ({"efa_devices": 33}, r"worker efa_devices=33 is not allowed"),
        ({"min_replicas": 5, "max_replicas": 4}, r"worker max_replicas=4 is not allowed: use an integer >= 5"),
    ],
)
def test_bad_worker_inputs_raise_one_line_errors(changes, message) -> None:
    base = dict(instance_type="p5.48xlarge", gpus_per_worker=8, cpu="180", memory="1800Gi")
    with pytest.raises(ValueError, match=message):
        RayGpuWorkers(**{**base, **changes})


def test_bad_head_inputs_raise_one_line_errors() -> None:
    with pytest.raises(ValueError, match=r"head cpu='many' is not allowed: use a non-negative Kubernetes quantity"):
        RayHead(cpu="many")
    with pytest.raises(ValueError, match=r"head=\{.cpu.: 1\} must be a RayHead"):
        _render(head={"cpu": 1})


def test_bad_ray_job_inputs_raise_one_line_errors() -> None:
    with pytest.raises(ValueError, match=r"exactly one of cluster .* or cluster_selector"):
        ray_job(name="j", namespace="ml", entrypoint="python t.py")
    with pytest.raises(ValueError, match=r"exactly one of cluster"):
        ray_job(name="j", namespace="ml", entrypoint="python t.py", cluster=CLUSTER, cluster_selector={"a": "b"})
    with pytest.raises(ValueError, match=r"entrypoint='  ' must be a non-empty command"):
        ray_job(name="j", namespace="ml", entrypoint="  ", cluster=CLUSTER)
    with pytest.raises(ValueError, match=r"namespace='other' differs from cluster namespace='ml'"):
        ray_job(name="j", namespace="other", entrypoint="python t.py", cluster=CLUSTER)
    with pytest.raises(ValueError, match=r"cluster_selector=\{\} selects nothing"):
        ray_job(name="j", namespace="ml", entrypoint="python t.py", cluster_selector={})
