"""Kubernetes scheduling semantics of the deploy check, case by case as the scheduler documents them."""

from __future__ import annotations

from decimal import Decimal

import pytest

from eks_training.infra.tools.check.kube import pod_requests, quantity, selector_mismatches, toleration_matches, why_not

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
BARE_TAINT = {"key": "nvidia.com/gpu", "effect": "NoSchedule"}


@pytest.mark.parametrize(("toleration", "taint", "tolerated"), [
    ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}, GPU_TAINT, True),
    ({"key": "nvidia.com/gpu", "operator": "Exists"}, BARE_TAINT, True),  # empty effect: every effect
    ({"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}, GPU_TAINT, True),
    # The defect the check found: Equal "true" against a taint written without a value.
    ({"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}, BARE_TAINT, False),
    ({"key": "nvidia.com/gpu", "value": "true"}, GPU_TAINT, True),  # the operator defaults to Equal
    ({"key": "nvidia.com/gpu", "operator": "Equal"}, BARE_TAINT, True),  # absent values are both ""
    ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute"}, GPU_TAINT, False),
    ({"operator": "Exists"}, GPU_TAINT, True),  # an empty key with Exists tolerates everything
    ({"operator": "Equal", "value": "true"}, GPU_TAINT, False),  # an empty key needs Exists
    ({"key": "aws.amazon.com/neuron", "operator": "Exists"}, GPU_TAINT, False),
])
def test_toleration_matching(toleration, taint, tolerated):
    assert toleration_matches(toleration, taint) is tolerated


def test_prefer_no_schedule_never_blocks():
    spec = {"containers": [{"name": "c"}]}
    assert why_not(spec, labels={}, taints=[{"key": "x", "effect": "PreferNoSchedule"}], allocatable={}) == []
    assert why_not(spec, labels={}, taints=[{"key": "x", "effect": "NoExecute"}], allocatable={}) != []


def _affinity(*terms):
    return {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}}


@pytest.mark.parametrize(("expression", "labels", "matches"), [
    ({"key": "a", "operator": "In", "values": ["1", "2"]}, {"a": "2"}, True),
    ({"key": "a", "operator": "In", "values": ["1"]}, {}, False),
    ({"key": "a", "operator": "NotIn", "values": ["1"]}, {}, True),  # absent label passes NotIn
    ({"key": "a", "operator": "NotIn", "values": ["1"]}, {"a": "1"}, False),
    ({"key": "a", "operator": "Exists"}, {"a": ""}, True),
    ({"key": "a", "operator": "DoesNotExist"}, {"a": "x"}, False),
    ({"key": "a", "operator": "Gt", "values": ["4"]}, {"a": "8"}, True),
    ({"key": "a", "operator": "Lt", "values": ["4"]}, {"a": "8"}, False),
    ({"key": "a", "operator": "Gt", "values": ["4"]}, {"a": "eight"}, False),
])
def test_affinity_operators(expression, labels, matches):
    assert (selector_mismatches(_affinity({"matchExpressions": [expression]}), labels) == []) is matches


def test_affinity_terms_are_ored_and_expressions_anded():
    spec = _affinity({"matchExpressions": [{"key": "a", "operator": "Exists"}, {"key": "b", "operator": "Exists"}]},
                     {"matchExpressions": [{"key": "c", "operator": "Exists"}]})
    assert selector_mismatches(spec, {"a": "1"})  # first term half met, second not
    assert selector_mismatches(spec, {"a": "1", "b": "1"}) == []
    assert selector_mismatches(spec, {"c": "1"}) == []
    # A term with only matchFields names a node by name, which a node source cannot: it never matches.
    assert selector_mismatches(_affinity({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n"]}]}), {})


def test_node_selector_needs_every_label():
    spec = {"nodeSelector": {"a": "1", "b": "2"}}
    assert selector_mismatches(spec, {"a": "1", "b": "2", "c": "3"}) == []
    assert len(selector_mismatches(spec, {"a": "1"})) == 1


@pytest.mark.parametrize(("text", "value"), [
    ("500m", Decimal("0.5")), ("2", Decimal(2)), (8, Decimal(8)), ("16Gi", Decimal(16 * 2**30)),
    ("1G", Decimal(10**9)), ("1e3", Decimal(1000)), ("128Mi", Decimal(128 * 2**20)), ("1.5", Decimal("1.5")),
])
def test_quantities(text, value):
    assert quantity(text) == value


@pytest.mark.parametrize("text", ["", "1GB", "abc", "1.2.3"])
def test_bad_quantities_name_the_text(text):
    with pytest.raises(ValueError, match="is not a Kubernetes quantity"):
        quantity(text)


def test_requests_sum_containers_and_take_the_largest_init_container():
    spec = {"containers": [{"resources": {"requests": {"cpu": "1", "memory": "1Gi"}}},
                           {"resources": {"limits": {"cpu": "500m", "nvidia.com/gpu": "8"}}}],  # limits stand in
            "initContainers": [{"resources": {"requests": {"cpu": "4"}}}, {"resources": {"requests": {"memory": "512Mi"}}}]}
    assert pod_requests(spec) == {"cpu": Decimal(4), "memory": Decimal(2**30), "nvidia.com/gpu": Decimal(8)}


def test_an_extended_resource_the_node_does_not_advertise_counts_as_zero():
    spec = {"containers": [{"resources": {"requests": {"nvidia.com/gpu": "8"}}}]}
    assert why_not(spec, labels={}, taints=[], allocatable={"cpu": Decimal(8)}) == ["nvidia.com/gpu 8 > 0"]
    assert why_not(spec, labels={}, taints=[], allocatable={"nvidia.com/gpu": Decimal(8)}) == []
