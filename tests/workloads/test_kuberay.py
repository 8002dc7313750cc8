"""KubeRay RayCluster chart and RayJob builder."""

from __future__ import annotations

import cdk8s
import pytest

from eks_training.workloads.job_charts import RayClusterChart
from eks_training.workloads.kuberay import RayClusterConfig, RayGpuWorkers, RayHead, ray_job
from support.errors import assert_refused
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
    ("changes", "field", "value", "allowed"),
    [
        ({"ray_version": "2.49"}, "ray_version", "2.49", "use a Ray release X.Y.Z"),
        ({"image": "rayproject/ray-ml:2.9.0-gpu"}, "image", "rayproject/ray-ml:2.9.0-gpu",
         "use an image of ray_version 2.49.1 (this one carries Ray 2.9.0)"),
        ({"image": "my image"}, "image", "my image", "use a container image reference"),
        ({"namespace": "ML"}, "namespace", "ML", "use 1-63 lowercase letters, digits or '-'"),
        ({"workers": "p5"}, "workers", "p5", "use a RayGpuWorkers"),
        ({"enable_in_tree_autoscaling": "yes"}, "enable_in_tree_autoscaling", "yes", "use true or false"),
    ],
)
def test_bad_cluster_inputs_raise_one_line_errors(changes, field, value, allowed) -> None:
    assert_refused(lambda: _render(**changes), field, value, allowed)


@pytest.mark.parametrize(
    ("changes", "field", "value", "allowed"),
    [
        ({"instance_type": "p5"}, "worker instance_type", "p5", "use an EC2 type, e.g. 'p5.48xlarge'"),
        ({"gpus_per_worker": 0}, "worker gpus_per_worker", 0, "use an integer from 1 to 16"),
        ({"memory": "lots"}, "worker memory", "lots", "use a non-negative Kubernetes quantity"),
        ({"efa_devices": 33}, "worker efa_devices", 33, "use an integer from 0 to 32"),
        ({"min_replicas": 5, "max_replicas": 4}, "worker max_replicas", 4, "use an integer >= 5"),
    ],
)
def test_bad_worker_inputs_raise_one_line_errors(changes, field, value, allowed) -> None:
    base = dict(instance_type="p5.48xlarge", gpus_per_worker=8, cpu="180", memory="1800Gi")
    assert_refused(lambda: RayGpuWorkers(**{**base, **changes}), field, value, allowed)


def test_bad_head_inputs_raise_one_line_errors() -> None:
    assert_refused(lambda: RayHead(cpu="many"), "head cpu", "many", "use a non-negative Kubernetes quantity")
    assert_refused(lambda: _render(head={"cpu": 1}), "head", {"cpu": 1}, "use a RayHead")


@pytest.mark.parametrize(
    ("options", "field", "value", "allowed"),
    [
        ({}, "RayJob cluster_selector", None, "give exactly one of cluster (a new RayCluster) or cluster_selector "
                                              "(an existing one); neither is given"),
        ({"cluster": CLUSTER, "cluster_selector": {"a": "b"}}, "RayJob cluster_selector", {"a": "b"},
         "give exactly one of cluster (a new RayCluster) or cluster_selector (an existing one); both are given"),
        ({"entrypoint": "  ", "cluster": CLUSTER}, "RayJob entrypoint", "  ", "use a non-empty command"),
        ({"namespace": "other", "cluster": CLUSTER}, "RayJob namespace", "other", "use the cluster's namespace 'ml'"),
        ({"cluster_selector": {}}, "RayJob cluster_selector", {}, "an empty selector selects nothing"),
    ],
)
def test_bad_ray_job_inputs_raise_one_line_errors(options, field, value, allowed) -> None:
    assert_refused(lambda: ray_job(**{"name": "j", "namespace": "ml", "entrypoint": "python t.py", **options}),
             field, value, allowed)
