"""Common labels and the shared input checks behind every chart."""

from __future__ import annotations

from decimal import Decimal

import pytest

from eks_training.workloads.k8s_objects import check_label_key, check_quantity, quantity_value
from eks_training.workloads.labels import common_labels


def test_common_labels_name_the_platform_and_the_component() -> None:
    assert common_labels("kuberay") == {"app.kubernetes.io/part-of": "eks-training", "app.kubernetes.io/component": "kuberay"}


@pytest.mark.parametrize("component", ["", "Has Space", "x" * 64, "-leading"])
def test_bad_component_is_rejected_in_one_line(component) -> None:
    with pytest.raises(ValueError, match=r"component=") as caught:
        common_labels(component)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("quantity", "value"),
    [("64Gi", Decimal(64 * 2**30)), (8, Decimal(8)), ("500m", Decimal("0.5")), ("1.5k", Decimal(1500)), ("1e3", Decimal(1000))],
)
def test_quantities_compare_across_units(quantity, value) -> None:
    assert quantity_value("q", quantity) == value


@pytest.mark.parametrize("bad", ["-1", "8 GB", "1Gb", True, 1.5, ""])
def test_bad_quantities_are_rejected(bad) -> None:
    with pytest.raises(ValueError, match=r"^q=.* is not allowed: use a non-negative Kubernetes quantity, e\.g\. 8, '500m' or '64Gi'$"):
        check_quantity("q", bad)


def test_label_keys_need_a_valid_prefix_and_name() -> None:
    assert check_label_key("labels", "example.com/team") == "example.com/team"
    for bad in ("Example.com/team", "/team", "a/b/c", "x" * 64):
        with pytest.raises(ValueError, match=rf"^labels key={bad!r} is not allowed: use a label key \[dns-prefix/\]name"):
            check_label_key("labels", bad)
