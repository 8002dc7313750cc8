"""The recorded EKS calendar picks the default Kubernetes version by date; every selectable version has its dates."""

from __future__ import annotations

from datetime import date

import pytest

from eks_training.core.versions import KUBERNETES_RELEASES, default_kubernetes_version, support_warning


@pytest.mark.parametrize(("today", "expected"), [
    (date(2026, 6, 1), "1.35"),   # 1.36 is on EKS from 2026-06-02
    (date(2026, 6, 2), "1.36"),
    (date(2026, 12, 1), "1.36"),  # the day the issue asks about
    (date(2027, 8, 2), "1.36"),   # its last day of standard support
])
def test_the_default_is_the_newest_version_in_standard_support_that_eks_offers(today: date, expected: str) -> None:
    assert default_kubernetes_version(today) == expected


def test_every_selectable_version_has_its_support_dates() -> None:
    assert list(KUBERNETES_RELEASES) == ["1.31", "1.32", "1.33", "1.34", "1.35", "1.36"]
    for release in KUBERNETES_RELEASES.values():
        assert release.end_of_standard_support and release.end_of_extended_support, release
        assert release.end_of_extended_support > release.end_of_standard_support
    latest = KUBERNETES_RELEASES["1.36"]
    assert (latest.on_eks_since, latest.end_of_standard_support, latest.end_of_extended_support) == (
        date(2026, 6, 2), date(2027, 8, 2), date(2028, 8, 2))


def test_on_2026_12_01_the_warnings_follow_the_calendar() -> None:
    today = date(2026, 12, 1)
    assert support_warning("1.36", today) is None and support_warning("1.34", today) is None
    assert "left EKS standard support on 2026-07-29" in support_warning("1.33", today)
    assert "left EKS extended support on 2026-11-26" in support_warning("1.31", today)
    assert "from 2026-06-02" in support_warning("1.36", date(2026, 5, 1))
