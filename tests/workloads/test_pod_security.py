"""Training pods run with a restricted security context: the runtime's default seccomp profile, no privilege
escalation, no Linux capability (NET_RAW included), in every container of every job kind `render` writes, of the
TrainJob runtimes and of the shared RayCluster."""

from __future__ import annotations

import cdk8s
import pytest

from eks_training.infra.config import load_environment
from eks_training.infra.tools.check.deploy_check import render_all_jobs
from eks_training.infra.tools.check.placement import pod_templates
from eks_training.infra.addons.kubeflow_trainer import TrainingRuntimesChart
from eks_training.workloads.kuberay import RayClusterConfig, RayGpuWorkers, ray_cluster_spec


def _assert_restricted(owner: str, spec: dict) -> None:
    assert spec.get("securityContext", {}).get("seccompProfile") == {"type": "RuntimeDefault"}, owner
    containers = [*(spec.get("initContainers") or []), *spec["containers"]]
    assert containers, owner
    for container in containers:
        context = container.get("securityContext") or {}
        assert context.get("allowPrivilegeEscalation") is False, (owner, container["name"])
        assert context.get("capabilities") == {"drop": ["ALL"]}, (owner, container["name"])
        assert not context.get("privileged"), (owner, container["name"])


@pytest.fixture(scope="module")
def prod_jobs():
    return render_all_jobs(load_environment("prod"))


def test_every_pod_of_every_job_kind_is_restricted(prod_jobs):
    seen = set()
    for kind, objects in prod_jobs.items():
        for obj in objects:
            for pod in pod_templates(f"job {kind}", obj):
                _assert_restricted(pod.owner, dict(pod.spec))
                seen.add(kind)
    # Every kind with pods of its own (a TrainJob's come from its runtime, below).
    assert seen == set(prod_jobs) - {"trainjob"}


def test_the_trainjob_runtimes_pods_are_restricted():
    chart = TrainingRuntimesChart(cdk8s.App(), "runtimes", instance_types=["p5.48xlarge"],
                                  image="123456789012.dkr.ecr.us-west-2.amazonaws.com/gpu:1", max_restarts=3)
    runtimes = [o for o in chart.to_json() if o["kind"] == "ClusterTrainingRuntime"]
    assert runtimes
    for runtime in runtimes:
        for job in runtime["spec"]["template"]["spec"]["replicatedJobs"]:
            _assert_restricted(runtime["metadata"]["name"], job["template"]["spec"]["template"]["spec"])


def test_the_shared_ray_clusters_head_and_workers_are_restricted():
    workers = RayGpuWorkers(instance_type="g6e.12xlarge", gpus_per_worker=4, cpu=40, memory="300Gi")
    spec = ray_cluster_spec(RayClusterConfig(namespace="training", name="shared-ray", workers=workers,
                                             service_account_name="ray"))
    _assert_restricted("head", spec["headGroupSpec"]["template"]["spec"])
    for group in spec["workerGroupSpecs"]:
        _assert_restricted(group["groupName"], group["template"]["spec"])
