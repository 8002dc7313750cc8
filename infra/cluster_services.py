"""Cluster services of one environment: operator charts, then our cdk8s charts on top, in dependency order.

Every chart of ours that creates custom resources depends on its operator's Helm release, so CloudFormation
installs the CRDs first and, on `cdk destroy`, removes our objects before their operator.
"""

from __future__ import annotations

from typing import Any, Mapping

import cdk8s
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct

from eks_training.constructs.instance_types import INSTANCE_TYPES, accelerator_tolerations, whole_node_requests
from eks_training.infra import operators
from eks_training.infra.config import PlatformConfig
from eks_training.infra.operators import HelmRelease
from eks_training.workloads.jupyterhub import jupyterhub_values, profiles_for
from eks_training.workloads.kuberay import RayClusterChart, RayGpuWorkers
from eks_training.workloads.mpi_operator import MpiOperatorSupportChart
from eks_training.workloads.mpi_operator_install import MpiOperatorInstallChart
from eks_training.workloads.platform_names import (
    FSX_CLAIM_NAME,
    LABEL_ACCELERATOR,
    LABEL_EFA,
    SYSTEM_NODE_SELECTOR,
    TRAINING_SERVICE_ACCOUNT,
)
from eks_training.workloads.slinky import SlurmClusterChart, SlurmPartition
from eks_training.workloads.volcano import QueueResources, VolcanoQueue, VolcanoQueuesChart

SLURM_NAMESPACE = "slurm"
_SYSTEM_NODES = SYSTEM_NODE_SELECTOR


def _on_accelerator(accelerator: str) -> dict[str, Any]:
    """Values that put a device plugin only on nodes of one accelerator kind, tolerating their taint."""
    return {"nodeSelector": {LABEL_ACCELERATOR: accelerator}, "tolerations": accelerator_tolerations(accelerator)}


def _require_label(key: str, value: str) -> dict[str, Any]:
    """A required node affinity on one label (replaces a chart's default affinity: Helm replaces lists whole)."""
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}]}}}


class ClusterServices(Construct):
    """Operators from their pinned charts and our charts on top, as the environment's ``services`` says.

    Attributes: ``releases`` (release name -> HelmChart), ``manifests`` (chart id -> KubernetesManifest).
    """

    def __init__(self, scope: Construct, id: str, *, config: PlatformConfig, cluster: eks.Cluster,
                 k8s: cdk8s.App, namespaces_manifest: eks.KubernetesManifest,
                 storage_manifest: eks.KubernetesManifest | None, system_nodes: Construct | None = None) -> None:
        super().__init__(scope, id)
        # Every release is installed with wait: its pods need nodes, so it waits for the system node group.
        self.system_nodes = system_nodes
        self.config, self.cluster, self.k8s = config, cluster, k8s
        self.releases: dict[str, eks.HelmChart] = {}
        self.manifests: dict[str, eks.KubernetesManifest] = {}
        services = config.services
        accelerators = {INSTANCE_TYPES[t].accelerator for t in self._instance_types()}
        efa = any(g.efa for g in config.accelerated_node_groups) or any(p.efa for p in config.capacity.karpenter_pools)
        training_namespace = config.training_namespaces[0].name

        if services.nvidia_device_plugin and "nvidia" in accelerators:
            # The chart's default affinity asks for NFD/GFD labels that nothing sets here: ours replaces it.
            self._release(operators.NVIDIA_DEVICE_PLUGIN, {**_on_accelerator("nvidia"),
                                                           "affinity": _require_label(LABEL_ACCELERATOR, "nvidia"),
                                                           "priorityClassName": "system-node-critical"})
        if services.neuron_device_plugin and "neuron" in accelerators:
            self._release(operators.NEURON, {
                "devicePlugin": _on_accelerator("neuron"),
                "npd": {"enabled": False},
                "scheduler": {"enabled": services.neuron_scheduler_extension}})
        if services.efa_device_plugin and efa:
            self._release(operators.EFA_DEVICE_PLUGIN, {
                "nodeSelector": {LABEL_EFA: "true"}, "tolerations": [{"operator": "Exists"}]})

        if services.volcano:
            # custom.default_ns places the scheduler, controllers and admission webhook (and its init Job).
            volcano = self._release(operators.VOLCANO, {"custom": {"default_ns": _SYSTEM_NODES}})
            queues = [VolcanoQueue(name=q.name, weight=q.weight, reclaimable=q.reclaimable, capability=QueueResources(
                cpu=q.cpu, memory=f"{q.memory_gib}Gi", nvidia_gpus=q.gpus or None,
                neuron_devices=q.neuron_devices or None)) for q in services.volcano_queues]
            self._chart("volcano-queues", VolcanoQueuesChart(k8s, "volcano-queues", queues=queues), volcano)

        if services.kuberay:
            kuberay = self._release(operators.KUBERAY, {"nodeSelector": _SYSTEM_NODES})
            if services.ray_worker_instance_type:
                facts = INSTANCE_TYPES[services.ray_worker_instance_type]
                cpu, memory = whole_node_requests(facts.instance_type)
                chart = RayClusterChart(
                    k8s, "ray-cluster", namespace=training_namespace, name="shared-ray",
                    fsx_claim_name=FSX_CLAIM_NAME, service_account_name=TRAINING_SERVICE_ACCOUNT,
                    workers=RayGpuWorkers(instance_type=facts.instance_type, gpus_per_worker=facts.accelerators,
                                          cpu=cpu, memory=memory, efa_devices=facts.efa_interfaces,
                                          max_replicas=services.ray_max_workers))
                self._chart("ray-cluster", chart, kuberay, namespaces_manifest, storage_manifest)

        if services.mpi_operator:
            install = self._chart("mpi-operator-install", MpiOperatorInstallChart(k8s, "mpi-operator-install"))
            support = MpiOperatorSupportChart(k8s, "mpi-operator-support",
                                              namespaces=[n.name for n in config.training_namespaces])
            self._chart("mpi-operator-support", support, install, namespaces_manifest)

        if services.slinky and services.slurm_partitions:
            # Each cert-manager component has its own selector; the top-level one places only the controller.
            cert_manager = self._release(operators.CERT_MANAGER, {
                "crds": {"enabled": True}, "nodeSelector": _SYSTEM_NODES,
                **{part: {"nodeSelector": _SYSTEM_NODES} for part in ("webhook", "cainjector", "startupapicheck")}})
            crds = self._release(operators.SLURM_OPERATOR_CRDS, {})
            slurm_operator = self._release(operators.SLURM_OPERATOR, {
                part: {"nodeSelector": _SYSTEM_NODES} for part in ("operator", "webhook")}, cert_manager, crds)
            partitions = []
            for p in services.slurm_partitions:
                cpu, memory = whole_node_requests(p.instance_type)
                partitions.append(SlurmPartition(name=p.name, instance_type=p.instance_type,
                                                 accelerator=INSTANCE_TYPES[p.instance_type].accelerator,
                                                 replicas=p.replicas, cpu=cpu, memory=memory, max_nodes=p.max_nodes))
            chart = SlurmClusterChart(k8s, "slurm-cluster", cluster_name=f"{config.name}-slurm", partitions=partitions,
                                      fsx_claim_name=FSX_CLAIM_NAME, namespace=SLURM_NAMESPACE, create_namespace=False)
            self._chart("slurm-cluster", chart, slurm_operator, namespaces_manifest, storage_manifest)

        if services.jupyterhub:
            values = jupyterhub_values(
                namespace=operators.JUPYTERHUB.namespace, fsx_claim_name=FSX_CLAIM_NAME,
                training_service_account=TRAINING_SERVICE_ACCOUNT, profiles=profiles_for(self._on_demand_instance_types()),
                gpu_image=config.images.gpu_image, neuron_image=config.images.neuron_image)
            self._release(operators.JUPYTERHUB, values, namespaces_manifest, storage_manifest, create_namespace=False)

    def _on_demand_instance_types(self) -> list[str]:
        """Instance types a pod can get a node of when it asks: the Karpenter pools' (managed groups at 0 never scale)."""
        types = [t for p in self.config.capacity.karpenter_pools for t in p.instance_types]
        types += [g.instance_type for g in self.config.accelerated_node_groups if g.desired_size > 0]
        if not types:
            raise ValueError(f"services.jupyterhub: environment {self.config.name!r} has no accelerated capacity that "
                             "a notebook can get on demand (a Karpenter pool, or a node group with desired_size > 0)")
        return types

    def _instance_types(self) -> set[str]:
        config = self.config
        return ({g.instance_type for g in config.accelerated_node_groups}
                | {t for p in config.capacity.karpenter_pools for t in p.instance_types}
                | {p.instance_type for p in config.services.slurm_partitions})

    def _release(self, pinned: HelmRelease, values: Mapping[str, Any], *after: Construct | None,
                 create_namespace: bool = True) -> eks.HelmChart:
        release = self.cluster.add_helm_chart(
            pinned.release, chart=pinned.chart, repository=pinned.repository, version=pinned.version,
            namespace=pinned.namespace, release=pinned.release, create_namespace=create_namespace, values=dict(values),
            wait=True)
        for dependency in (*after, self.system_nodes):
            if dependency is not None:
                release.node.add_dependency(dependency)
        self.releases[pinned.release] = release
        return release

    def _chart(self, id: str, chart: cdk8s.Chart, *after: Construct | None) -> eks.KubernetesManifest:
        manifest = self.cluster.add_cdk8s_chart(id, chart)
        for dependency in after:
            if dependency is not None:
                manifest.node.add_dependency(dependency)
        self.manifests[id] = manifest
        return manifest
