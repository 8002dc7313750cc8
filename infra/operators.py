"""Pinned Helm releases of the operators and device plugins the platform installs (one table, one place).

Versions follow ../shared/crds/SOURCES.md (the CRD schemas the tests validate against come from the same tags).
"""

from __future__ import annotations

from dataclasses import dataclass

from eks_training.workloads import jupyterhub


@dataclass(frozen=True)
class HelmRelease:
    """An official Helm chart at a pinned version."""

    release: str
    chart: str
    version: str
    namespace: str
    repository: str | None = None  # None: `chart` is an oci:// reference


VOLCANO = HelmRelease("volcano", "volcano", "1.15.1", "volcano-system", "https://volcano-sh.github.io/helm-charts")
KUBERAY = HelmRelease("kuberay-operator", "kuberay-operator", "1.7.0", "kuberay-system",
                      "https://ray-project.github.io/kuberay-helm/")
CERT_MANAGER = HelmRelease("cert-manager", "oci://quay.io/jetstack/charts/cert-manager", "v1.19.1", "cert-manager")
SLURM_OPERATOR_CRDS = HelmRelease("slurm-operator-crds", "oci://ghcr.io/slinkyproject/charts/slurm-operator-crds",
                                  "1.2.1", "slinky")
SLURM_OPERATOR = HelmRelease("slurm-operator", "oci://ghcr.io/slinkyproject/charts/slurm-operator", "1.2.1", "slinky")
NVIDIA_DEVICE_PLUGIN = HelmRelease("nvidia-device-plugin", "nvidia-device-plugin", "0.20.0", "nvidia-device-plugin",
                                   "https://nvidia.github.io/k8s-device-plugin")
NEURON = HelmRelease("neuron-helm-chart", "oci://public.ecr.aws/neuron/neuron-helm-chart", "1.9.0", "kube-system")
EFA_DEVICE_PLUGIN = HelmRelease("aws-efa-k8s-device-plugin", "aws-efa-k8s-device-plugin", "v0.5.30", "kube-system",
                                "https://aws.github.io/eks-charts")
JUPYTERHUB = HelmRelease("jupyterhub", jupyterhub.JUPYTERHUB_CHART_NAME, jupyterhub.JUPYTERHUB_CHART_VERSION, "jupyterhub",
                         jupyterhub.JUPYTERHUB_CHART_REPOSITORY)
