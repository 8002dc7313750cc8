"""KubeRay operator and, when the environment names a worker type, a shared autoscaling RayCluster (pin: KUBERAY)."""

from __future__ import annotations

from dataclasses import dataclass

from eks_training.core.catalog import INSTANCE_TYPES, whole_node_requests
from eks_training.core.names import RAY_SERVICE_ACCOUNT, SYSTEM_NODE_SELECTOR
from eks_training.core.versions import KUBERAY
from eks_training.workloads.job_charts import RayClusterChart
from eks_training.workloads.kuberay import RayGpuWorkers


@dataclass(frozen=True)
class KubeRay:
    name: str = "kuberay"
    depends_on: tuple[str, ...] = ()

    def enabled(self, config) -> bool:
        return config.services.kuberay

    def install(self, ctx):
        release = ctx.release(KUBERAY, {"nodeSelector": dict(SYSTEM_NODE_SELECTOR)})
        services = ctx.config.services
        if services.ray_worker_instance_type:
            facts = INSTANCE_TYPES[services.ray_worker_instance_type]
            cpu, memory = whole_node_requests(facts.instance_type)
            chart = RayClusterChart(
                ctx.k8s, "ray-cluster", namespace=ctx.config.training_namespaces[0].name, name="shared-ray",
                service_account_name=RAY_SERVICE_ACCOUNT,
                workers=RayGpuWorkers(instance_type=facts.instance_type, gpus_per_worker=facts.accelerators, cpu=cpu,
                                      memory=memory, efa_devices=facts.efa_interfaces,
                                      max_replicas=services.ray_max_workers),
                image=ctx.image("ray"))
            ctx.chart("ray-cluster", chart, release, ctx.namespaces_manifest, ctx.storage_manifest)
        return release


ADDON = KubeRay()
