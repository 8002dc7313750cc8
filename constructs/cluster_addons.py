"""EKS add-ons the training cluster installs, and the Kubernetes versions it supports.

Kept apart from the cluster construct so the config layer can validate names and versions without
loading CDK.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

#: Managed EKS add-ons installed on every cluster; the value is the default version ("latest" resolves
#: to EKS's default for the cluster version at deploy time; pin "vX.Y.Z-eksbuild.N" in config to freeze).
DEFAULT_ADDONS: dict[str, str] = {
    "vpc-cni": "latest",
    "coredns": "latest",
    "kube-proxy": "latest",
    "eks-pod-identity-agent": "latest",
    "aws-ebs-csi-driver": "latest",
}


@dataclass(frozen=True)
class KubernetesRelease:
    """EKS support window of one Kubernetes minor version (dates from the EKS version calendar)."""

    version: str
    end_of_standard_support: date
    end_of_extended_support: date

    def support_status(self, today: date) -> str:
        """``standard``, ``extended`` (paid) or ``ended`` on ``today``."""
        if today <= self.end_of_standard_support:
            return "standard"
        if today <= self.end_of_extended_support:
            return "extended"
        return "ended"


KUBERNETES_RELEASES: dict[str, KubernetesRelease] = {
    r.version: r
    for r in (
        KubernetesRelease("1.31", date(2025, 11, 26), date(2026, 11, 26)),
        KubernetesRelease("1.32", date(2026, 3, 23), date(2027, 3, 23)),
        KubernetesRelease("1.33", date(2026, 7, 29), date(2027, 7, 29)),
        KubernetesRelease("1.34", date(2026, 12, 2), date(2027, 12, 2)),
        KubernetesRelease("1.35", date(2027, 3, 27), date(2028, 3, 27)),
    )
}


def support_warning(version: str, today: date) -> str | None:
    """A sentence for the synth output when ``version`` is past standard support on ``today``, else None."""
    release = KUBERNETES_RELEASES[version]
    status = release.support_status(today)
    if status == "extended":
        return (f"Kubernetes {version} left EKS standard support on {release.end_of_standard_support}: extended "
                f"support is billed per cluster-hour until {release.end_of_extended_support}; plan an upgrade")
    if status == "ended":
        return (f"Kubernetes {version} left EKS extended support on {release.end_of_extended_support}: EKS upgrades "
                "such clusters automatically; choose a newer version")
    return None
