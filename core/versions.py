"""EKS add-ons the training cluster installs, and the Kubernetes versions it supports.

Kept apart from the cluster construct so the config layer can validate names and versions without
loading CDK.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

#: EKS charges per cluster-hour: $0.10 in standard support, $0.60 in extended support (the EKS pricing page; AWS's
#: notices for clusters entering extended support quote the same $0.60).
STANDARD_SUPPORT_USD_PER_HOUR = 0.10
EXTENDED_SUPPORT_USD_PER_HOUR = 0.60


@dataclass(frozen=True)
class KubernetesRelease:
    """EKS support window of one Kubernetes minor version (dates from the EKS version calendar)."""

    version: str
    #: None: aws-cdk-lib and the kubectl layer support the version, but its EKS dates are not recorded here yet.
    end_of_standard_support: date | None
    end_of_extended_support: date | None
    #: The day EKS first offered the version (None: long before any date recorded here matters).
    on_eks_since: date | None = None

    def support_status(self, today: date) -> str:
        """``unreleased`` (not on EKS yet), ``standard``, ``extended`` (paid), ``ended`` or ``unrecorded`` (dates
        unknown to us) on ``today``."""
        if self.on_eks_since is not None and today < self.on_eks_since:
            return "unreleased"
        if self.end_of_standard_support is None or self.end_of_extended_support is None:
            return "unrecorded"
        if today <= self.end_of_standard_support:
            return "standard"
        if today <= self.end_of_extended_support:
            return "extended"
        return "ended"


#: Dates from the EKS Kubernetes version calendar (standard support 14 months from release on EKS, extended 12 more).
KUBERNETES_RELEASES: dict[str, KubernetesRelease] = {
    r.version: r
    for r in (
        KubernetesRelease("1.31", date(2025, 11, 26), date(2026, 11, 26)),
        KubernetesRelease("1.32", date(2026, 3, 23), date(2027, 3, 23)),
        KubernetesRelease("1.33", date(2026, 7, 29), date(2027, 7, 29)),
        KubernetesRelease("1.34", date(2026, 12, 2), date(2027, 12, 2)),
        KubernetesRelease("1.35", date(2027, 3, 27), date(2028, 3, 27)),
        KubernetesRelease("1.36", date(2027, 8, 2), date(2028, 8, 2), on_eks_since=date(2026, 6, 2)),
    )
}


def minor(version: str) -> tuple[int, int]:
    """``"1.36"`` as ``(1, 36)``, for ordering versions."""
    major, _, rest = version.partition(".")
    return int(major), int(rest)


def creatable_versions(today: date) -> list[str]:
    """The recorded versions EKS creates clusters of on ``today`` (released, extended support not over), oldest
    first."""
    return [v for v, r in KUBERNETES_RELEASES.items() if r.support_status(today) not in ("unreleased", "ended")]


def refusal(version: str, today: date) -> str | None:
    """Why no cluster of ``version`` can be deployed on ``today`` (and what to choose instead), or None.

    A version never changes by the calendar alone: leaving standard support is a warning (:func:`support_warning`),
    not a refusal. Only the end of extended support refuses it: EKS then creates no such cluster, and has upgraded
    running ones to the next version by itself, so a template that still names it describes no cluster that exists.
    """
    release = KUBERNETES_RELEASES[version]
    if release.support_status(today) != "ended":
        return None
    newer = [v for v in creatable_versions(today) if minor(v) > minor(version)]
    instead = newer[0] if newer else "a newer version"
    return (f"EKS ended extended support for Kubernetes {version} on {release.end_of_extended_support} and no longer "
            f"creates it (running clusters were upgraded to {instead}): use {instead} or newer")


def support_warning(version: str, today: date) -> str | None:
    """A sentence for the synth output when ``version`` is past standard support on ``today``, else None."""
    release = KUBERNETES_RELEASES[version]
    status = release.support_status(today)
    if status == "unreleased":
        return f"Kubernetes {version} is offered by EKS from {release.on_eks_since} on: a cluster cannot be created before"
    if status == "unrecorded":
        return (f"Kubernetes {version}: EKS's support dates for it are not recorded in this eks-training release; "
                "check the EKS version calendar before relying on it")
    if status == "extended":
        extra = (EXTENDED_SUPPORT_USD_PER_HOUR - STANDARD_SUPPORT_USD_PER_HOUR) * 24 * 365
        return (f"Kubernetes {version} left EKS standard support on {release.end_of_standard_support}: extended "
                f"support costs {EXTENDED_SUPPORT_USD_PER_HOUR:.2f} USD per cluster-hour instead of "
                f"{STANDARD_SUPPORT_USD_PER_HOUR:.2f} (about {extra:,.0f} USD a year more) until "
                f"{release.end_of_extended_support}, when EKS upgrades the cluster itself; upgrade one minor version "
                "at a time (README, Change a running platform)")
    if status == "ended":
        return (f"Kubernetes {version} left EKS extended support on {release.end_of_extended_support}: EKS upgrades "
                "such clusters automatically; choose a newer version")
    return None


# --- EKS add-on versions ------------------------------------------------------------------------------------------
# Each add-on is pinned per Kubernetes minor version, so that an upgrade moves the add-ons with the control plane
# (CloudFormation updates them after the cluster, which they reference) and the template says which build runs.
# EKS publishes, per cluster version, the add-on versions it supports (`aws eks describe-addon-versions
# --kubernetes-version 1.36`); the numbers below come from the places named beside them. Unpinned, an add-on stays
# on the build EKS chose when it was created, whatever the cluster is upgraded to.

#: The EKS user guide's tables "the latest version of the Amazon EKS add-on type for each Kubernetes version"
#: (managing-kube-proxy, managing-coredns), as published for Kubernetes 1.30-1.35.
_USER_GUIDE = "EKS user guide, add-on version table"
#: What a Kubernetes 1.36 cluster created without AddonVersion resolved to (EKS's defaults for 1.36), us-west-2,
#: 2026-09-16, recorded in a public deployment log.
_DEFAULTS_136 = "EKS default for 1.36 (resolved 2026-09-16)"
#: Add-ons whose builds are not tied to a Kubernetes minor version: EKS's tables list one VPC CNI build for every
#: cluster version, and the same holds for the agents and CSI drivers below. Each of these builds was recorded
#: running on a cluster: which one is named beside it.
_ONE_BUILD = "one build for every minor version"


@dataclass(frozen=True)
class AddonPin:
    """One EKS add-on build and where its number comes from."""

    version: str
    source: str


def _same(version: str, source: str, minors: tuple[str, ...] = ("1.32", "1.33", "1.34", "1.35", "1.36")):
    return {m: AddonPin(version, source) for m in minors}


#: Add-on -> Kubernetes minor version -> the pinned build. 1.31 has no row: EKS no longer creates it
#: (:func:`refusal`). An add-on absent for a version is left to EKS's default at creation (and says so in the check).
EKS_ADDON_VERSIONS: dict[str, dict[str, AddonPin]] = {
    "vpc-cni": _same("v1.22.4-eksbuild.3", f"{_DEFAULTS_136}, also recorded on 1.33; {_ONE_BUILD}"),
    "kube-proxy": {
        "1.32": AddonPin("v1.32.13-eksbuild.5", _USER_GUIDE),
        "1.33": AddonPin("v1.33.10-eksbuild.2", _USER_GUIDE),
        "1.34": AddonPin("v1.34.6-eksbuild.2", _USER_GUIDE),
        "1.35": AddonPin("v1.35.3-eksbuild.2", _USER_GUIDE),
        "1.36": AddonPin("v1.36.0-eksbuild.21", _DEFAULTS_136),
    },
    "coredns": {
        "1.32": AddonPin("v1.11.4-eksbuild.33", _USER_GUIDE),
        **{m: AddonPin("v1.13.2-eksbuild.4", _USER_GUIDE) for m in ("1.33", "1.34", "1.35")},
        "1.36": AddonPin("v1.14.3-eksbuild.16", _DEFAULTS_136),
    },
    "eks-pod-identity-agent": _same("v1.3.10-eksbuild.3", f"{_DEFAULTS_136}; {_ONE_BUILD}"),
    "aws-ebs-csi-driver": _same("v1.66.0-eksbuild.1", f"recorded running on a 1.33 cluster in 2026; {_ONE_BUILD}"),
    #: v3.3.0-eksbuild.1: the newest EFS CSI build on 2026-07-15 (a public cluster repository's update to it).
    "aws-efs-csi-driver": _same("v3.3.0-eksbuild.1", f"newest build on 2026-07-15; {_ONE_BUILD}"),
    #: No FSx CSI build is recorded here: its EKS add-on has lagged new Kubernetes versions (1.33 was refused for a
    #: time), so no build is assumed to serve them all. EKS picks its default at creation: pin one in
    #: cluster.addon_versions (`aws eks describe-addon-versions --addon-name aws-fsx-csi-driver`).
    "aws-fsx-csi-driver": {},
}
#: The AL2023 EKS AMI release Karpenter's nodes boot (an amazon-eks-ami tag): the newest AL2023 NVIDIA release for
#: Kubernetes 1.36 on 2026-09-18 (AMI 1.36.3-20260911, recorded on a running 1.36 node). A release builds the AMIs of
#: every version EKS supports on its date, so this one serves 1.32-1.36; Karpenter picks the cluster's version in it.
#: Pinned, the nodes' AMI moves only when this does (Karpenter calls "latest" unfit for production: it drifts every
#: node whenever AWS publishes an AMI).
KARPENTER_AMI_RELEASE = "v20260911"


def ami_release_date(release: str) -> date | None:
    """The day an AMI release ``vYYYYMMDD`` was built (None for "latest" or another form)."""
    if len(release) == 9 and release.startswith("v") and release[1:].isdigit():
        return date(int(release[1:5]), int(release[5:7]), int(release[7:9]))
    return None


#: The EKS add-ons every TrainingCluster installs (the CSI drivers of FSx and EFS come with their storage).
DEFAULT_ADDONS: tuple[str, ...] = ("vpc-cni", "coredns", "kube-proxy", "eks-pod-identity-agent", "aws-ebs-csi-driver")


def addon_version(name: str, kubernetes_version: str) -> str | None:
    """The pinned build of EKS add-on ``name`` for clusters of ``kubernetes_version``; None where none is recorded
    (EKS then picks its default when the add-on is created, and an upgrade leaves it there)."""
    pin = EKS_ADDON_VERSIONS.get(name, {}).get(kubernetes_version)
    return pin.version if pin else None


@dataclass(frozen=True)
class HelmPin:
    """An official Helm chart at a pinned version, and the release it is installed as."""

    release: str
    chart: str
    version: str
    namespace: str
    repository: str | None = None  # None: `chart` is an oci:// reference


# The one pin table: every chart the platform installs, read by the add-ons, the constructs and the checks.
# Each chart's digests are in eks_training.core.upstream, which resolves the charts the check renders.
KARPENTER = HelmPin("karpenter", "oci://public.ecr.aws/karpenter/karpenter", "1.14.1", "kube-system")
#: Karpenter's CRDs as their own release, at the controller's version and installed before it: the main chart
#: puts them in crds/, which Helm installs once and never upgrades (1.14 added capacitybuffers).
KARPENTER_CRD = HelmPin("karpenter-crd", "oci://public.ecr.aws/karpenter/karpenter-crd", KARPENTER.version, "kube-system")
VOLCANO = HelmPin("volcano", "volcano", "1.15.1", "volcano-system", "https://volcano-sh.github.io/helm-charts")
KUBERAY = HelmPin("kuberay-operator", "kuberay-operator", "1.7.0", "kuberay-system", "https://ray-project.github.io/kuberay-helm/")
#: v1.21.1 carries the fix for GHSA-8rvj-mm4h-c258 (v1.19.1 does not; ../shared/charts/SOURCES.md).
CERT_MANAGER = HelmPin("cert-manager", "oci://quay.io/jetstack/charts/cert-manager", "v1.21.1", "cert-manager")
SLURM_OPERATOR_CRDS = HelmPin("slurm-operator-crds", "oci://ghcr.io/slinkyproject/charts/slurm-operator-crds", "1.2.1", "slinky")
SLURM_OPERATOR = HelmPin("slurm-operator", "oci://ghcr.io/slinkyproject/charts/slurm-operator", "1.2.1", "slinky")
NVIDIA_DEVICE_PLUGIN = HelmPin("nvidia-device-plugin", "nvidia-device-plugin", "0.20.0", "nvidia-device-plugin",
                               "https://nvidia.github.io/k8s-device-plugin")
NEURON = HelmPin("neuron-helm-chart", "oci://public.ecr.aws/neuron/neuron-helm-chart", "1.9.0", "kube-system")
EFA_DEVICE_PLUGIN = HelmPin("aws-efa-k8s-device-plugin", "aws-efa-k8s-device-plugin", "v0.5.30", "kube-system",
                            "https://aws.github.io/eks-charts")
#: z2jh 4.4.0 (2026-06-10) ships JupyterHub 5.5.0 and KubeSpawner 7.0.0 and needs Kubernetes >= 1.28. Its main
#: branch already asks for >= 1.32, so a later chart would drop our Kubernetes 1.31 clusters.
JUPYTERHUB = HelmPin("jupyterhub", "jupyterhub", "4.4.0", "jupyterhub", "https://hub.jupyter.org/helm-chart/")
#: Kueue: quotas, queues and topology-aware admission for the training namespaces.
KUEUE = HelmPin("kueue", "oci://registry.k8s.io/kueue/charts/kueue", "0.19.2", "kueue-system")
#: JobSet 0.12.0, the version Kubeflow Trainer 2.3.0 names as its dependency; installed as its own release.
JOBSET = HelmPin("jobset", "oci://registry.k8s.io/jobset/charts/jobset", "0.12.0", "jobset-system")
KUBEFLOW_TRAINER = HelmPin("kubeflow-trainer", "oci://ghcr.io/kubeflow/charts/kubeflow-trainer", "2.3.0", "kubeflow-system")
#: The MPI Operator has no chart upstream: its release manifest at this tag, applied by an in-cluster Job.
MPI_OPERATOR_VERSION = "v0.8.0"


# --- Utility images -----------------------------------------------------------------------------------------------
# The small images the platform's own Jobs and sidecars run, pinned by tag and digest: the digest of the multi-arch
# index the tag named when it was recorded, copied from public repositories that pin the same image (each digest
# below was found written in at least two unrelated ones, unless its comment says otherwise). The tag stays in front
# for people; the node pulls by digest, so a re-pushed tag changes nothing until the pin is bumped here.

#: A shell and busybox's tools: Slinky's logfile/initconf sidecars and the FSx workspace Job.
ALPINE_IMAGE = "docker.io/library/alpine:3.23.4@sha256:5b10f432ef3da1b8d4c7eb6c487f2f5a8f096bc91145e68878dd4a5019afde11"
#: Python's standard library for the Slurm key/password generator (its script is ours, in a ConfigMap).
PYTHON_IMAGE = ("docker.io/library/python:3.13.13-alpine3.23"
                "@sha256:420cd0bf0f3998275875e02ecd5808168cf0843cbb4d3c536432f729247b2acc")
#: The in-cluster accounting database: MariaDB 11.4, an LTS release (supported to 2029) that slurmdbd supports.
MARIADB_IMAGE = "docker.io/library/mariadb:11.4.13@sha256:611a2fcc5fa7c6ceb8644c6f74b25ede004ff6c3a6b38c8f8c23d3bbf6c26430"
#: kubectl (with curl and sha256sum) for the MPI Operator installer Job, by the cluster's Kubernetes version: kubectl
#: is supported within one minor version of the API server, so each cluster version gets a kubectl of its minor or
#: a neighbour (a test keeps every row inside the skew and every selectable version covered).
KUBECTL_IMAGES: dict[str, str] = {
    # 1.32.1's digest was found in one public repository only (devfile's registry chart); none newer of 1.31/1.32.
    **dict.fromkeys(("1.31", "1.32"),
                    "docker.io/alpine/k8s:1.32.1@sha256:11e7706b73a219147a1c7cd2ddd8fb27768200ce87207b2808007f9a52d5c119"),
    **dict.fromkeys(("1.33", "1.34", "1.35"),
                    "docker.io/alpine/k8s:1.34.1@sha256:ec714df3813b5405292860f8a1c55c5727bf8c33c88992f1e981efad8065547f"),
    "1.36": "docker.io/alpine/k8s:1.35.3@sha256:097aa60cbef561146757c7494468e9d7b04d843597ad1a1515ed09d0708c8014",
}
