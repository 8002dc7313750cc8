"""The platform's services as add-ons any CDK app puts on its own :class:`~eks_training.constructs.cluster.
TrainingCluster`, and the team that `eks-training render`'s jobs run in::

    from eks_training.addons import Kueue, NvidiaDevicePlugin, TeamQueue, Quota, TrainingTeam, node_group_flavor

Each add-on is a construct ``(scope, id, *, cluster, ...typed props)``; the platform stack composes the same ones.
They live in ``eks_training.infra.addons.<module>`` (the stack's registry), which keeps working; this is their
public name.
"""

from eks_training.infra.addons import ClusterAddon
from eks_training.infra.addons.cert_manager import CertManager
from eks_training.infra.addons.efa_device_plugin import EfaDevicePlugin
from eks_training.infra.addons.jobset import JobSet
from eks_training.infra.addons.jupyterhub import JupyterHub
from eks_training.infra.addons.karpenter import Karpenter
from eks_training.infra.addons.kubeflow_trainer import KubeflowTrainer
from eks_training.infra.addons.kuberay import KubeRay
from eks_training.infra.addons.kueue import Kueue, node_group_flavor, pool_flavors, cpu_flavor
from eks_training.infra.addons.mpi_operator import MpiOperator
from eks_training.infra.addons.network_policies import NetworkPolicies
from eks_training.infra.addons.neuron_device_plugin import NeuronDevicePlugin
from eks_training.infra.addons.nvidia_device_plugin import NvidiaDevicePlugin
from eks_training.infra.addons.slinky import Slinky
from eks_training.infra.addons.team import TrainingTeam
from eks_training.infra.addons.volcano import Volcano
from eks_training.workloads.karpenter import KarpenterPool
from eks_training.workloads.kueue import Flavor, Quota, TeamQueue
from eks_training.workloads.namespaces import NamespaceQuota
from eks_training.workloads.network_policies import EgressAllowance, WorkloadEgress
from eks_training.workloads.volcano import QueueResources, VolcanoQueue

#: Every add-on construct, by the name it is imported as.
ADDONS = (CertManager, EfaDevicePlugin, JobSet, JupyterHub, Karpenter, KubeflowTrainer, KubeRay, Kueue, MpiOperator,
          NetworkPolicies, NeuronDevicePlugin, NvidiaDevicePlugin, Slinky, TrainingTeam, Volcano)

__all__ = [cls.__name__ for cls in ADDONS] + [
    "ADDONS", "ClusterAddon", "EgressAllowance", "Flavor", "KarpenterPool", "NamespaceQuota", "Quota", "QueueResources",
    "TeamQueue", "VolcanoQueue", "WorkloadEgress", "node_group_flavor", "pool_flavors", "cpu_flavor"]
