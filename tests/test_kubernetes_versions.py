"""Versions do not move by themselves: no calendar default, leaving standard support is a warning with its price,
EKS's end of extended support refuses a version, and every add-on has a build pinned for each version EKS runs."""

from __future__ import annotations

import copy
import re
from datetime import date
from pathlib import Path

import pytest
import yaml

from eks_training.core.validation import InvalidValue, check_addon_versions, check_kubernetes_version
from eks_training.core.versions import (DEFAULT_ADDONS, EKS_ADDON_VERSIONS, KARPENTER_AMI_RELEASE, KUBERNETES_RELEASES,
                                        addon_version, ami_release_date, creatable_versions, refusal, support_warning)
from eks_training.infra.config import ConfigError, parse_config

DEV = yaml.safe_load((Path(__file__).resolve().parent.parent / "infra" / "environments" / "dev.yaml").read_text())


def test_every_selectable_version_has_its_support_dates() -> None:
    assert list(KUBERNETES_RELEASES) == ["1.31", "1.32", "1.33", "1.34", "1.35", "1.36"]
    for release in KUBERNETES_RELEASES.values():
        assert release.end_of_standard_support and release.end_of_extended_support, release
        assert release.end_of_extended_support > release.end_of_standard_support
    latest = KUBERNETES_RELEASES["1.36"]
    assert (latest.on_eks_since, latest.end_of_standard_support, latest.end_of_extended_support) == (
        date(2026, 6, 2), date(2027, 8, 2), date(2028, 8, 2))


def test_an_environment_names_its_version_and_the_calendar_never_picks_one() -> None:
    data = copy.deepcopy(DEV)
    del data["kubernetes_version"]
    with pytest.raises(ConfigError) as raised:
        parse_config(data)
    assert str(raised.value) == ('config: kubernetes_version=None is not allowed: name the version the cluster runs, '
                                 'quoted, e.g. "1.36" (eks-training never picks one by date)')
    data["kubernetes_version"] = 1.3  # YAML's reading of an unquoted 1.30
    with pytest.raises(ConfigError, match=r'kubernetes_version=1.3 is not allowed: quote it: "1.30"'):
        parse_config(data)


@pytest.mark.parametrize(("today", "creatable"), [
    (date(2026, 11, 26), ["1.31", "1.32", "1.33", "1.34", "1.35", "1.36"]),  # 1.31's last day of extended support
    (date(2026, 12, 2), ["1.32", "1.33", "1.34", "1.35", "1.36"]),
    (date(2027, 3, 24), ["1.33", "1.34", "1.35", "1.36"]),
])
def test_only_the_end_of_extended_support_refuses_a_version(today: date, creatable: list[str]) -> None:
    assert creatable_versions(today) == creatable
    for version in KUBERNETES_RELEASES:
        assert (refusal(version, today) is None) == (version in creatable), version


def test_1_31_is_refused_for_a_new_cluster_in_one_line() -> None:
    data = {**copy.deepcopy(DEV), "kubernetes_version": "1.31"}
    with pytest.raises(ConfigError) as raised:
        parse_config(data)
    assert str(raised.value) == (
        "config: kubernetes_version='1.31' is not allowed: EKS ended extended support for Kubernetes 1.31 on "
        "2026-11-26 and no longer creates it (running clusters were upgraded to 1.32): use 1.32 or newer")
    # The construct holds its props to the same rule.
    with pytest.raises(InvalidValue, match=r"^version='1.31' is not allowed: EKS ended extended support"):
        check_kubernetes_version("version", "1.31", date(2026, 12, 2))


def test_leaving_standard_support_warns_with_the_date_and_the_price_but_refuses_nothing() -> None:
    today = date(2026, 12, 3)  # 1.34 left standard support the day before
    assert refusal("1.34", today) is None and check_kubernetes_version("v", "1.34", today) == "1.34"
    warning = support_warning("1.34", today)
    assert warning.startswith("Kubernetes 1.34 left EKS standard support on 2026-12-02: extended support costs "
                              "0.60 USD per cluster-hour instead of 0.10 (about 4,380 USD a year more) until 2027-12-02")
    assert support_warning("1.36", today) is None and support_warning("1.35", today) is None
    assert "from 2026-06-02" in support_warning("1.36", date(2026, 5, 1))


def test_every_version_eks_runs_has_a_build_of_every_cluster_addon() -> None:
    runnable = [v for v in KUBERNETES_RELEASES if refusal(v, date(2026, 12, 2)) is None]
    assert runnable == ["1.32", "1.33", "1.34", "1.35", "1.36"]
    for name in DEFAULT_ADDONS:
        for version in runnable:
            build = addon_version(name, version)
            assert build and re.fullmatch(r"v\d+\.\d+\.\d+-eksbuild\.\d+", build), (name, version)
            assert EKS_ADDON_VERSIONS[name][version].source, (name, version)
            check_addon_versions("pin", {name: build})
    # kube-proxy is built per Kubernetes minor version: each row is its own minor's.
    for version in runnable:
        assert addon_version("kube-proxy", version).startswith(f"v{version}."), version
    # An upgrade moves every add-on whose build is tied to the minor version.
    assert addon_version("coredns", "1.35") != addon_version("coredns", "1.36")
    # No recorded FSx CSI build: EKS picks one at creation (the check notes it).
    assert addon_version("aws-fsx-csi-driver", "1.36") is None


def test_latest_is_no_addon_version() -> None:
    with pytest.raises(InvalidValue, match=r"latest pins nothing, so a Kubernetes upgrade leaves the add-on behind"):
        check_addon_versions("cluster.addon_versions", {"coredns": "latest"})


def test_karpenter_nodes_boot_a_pinned_ami_release_that_holds_the_clusters_version(prod) -> None:
    # The alias names a release and no Kubernetes version: Karpenter reads the cluster's, so new nodes follow the
    # control plane, and the AMI moves only when the pin does.
    classes = [obj for _, obj in prod.kubernetes_objects() if obj.get("kind") == "EC2NodeClass"]
    assert classes and {str(c["spec"]["amiSelectorTerms"]) for c in classes} == {
        str([{"alias": f"al2023@{KARPENTER_AMI_RELEASE}"}])}
    assert ami_release_date(KARPENTER_AMI_RELEASE) >= KUBERNETES_RELEASES[prod.config.kubernetes_version].on_eks_since
    data = {**copy.deepcopy(DEV), "capacity": {**DEV.get("capacity", {}), "karpenter_ami_release": "v20260501"}}
    with pytest.raises(ConfigError, match=r"capacity.karpenter_ami_release='v20260501' is not allowed: a release made "
                                          r"since 2026-06-02, when EKS began offering Kubernetes 1.36"):
        parse_config(data)
