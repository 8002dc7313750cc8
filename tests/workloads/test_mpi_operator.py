"""MPIJob launcher identity in each training namespace."""

from __future__ import annotations

import cdk8s
import pytest

from eks_training.workloads.mpi_operator import LAUNCHER_SERVICE_ACCOUNT, MpiOperatorSupportChart
from support.k8s_schemas import chart_objects, validate_k8s_objects


def _render(namespaces) -> list[dict]:
    return chart_objects(MpiOperatorSupportChart(cdk8s.App(), "mpi", namespaces=namespaces))


def test_each_namespace_gets_a_bound_read_only_launcher_identity() -> None:
    objects = validate_k8s_objects(_render(["team-a", "team-b"]))
    assert len(objects) == 6
    for namespace in ("team-a", "team-b"):
        mine = {o["kind"]: o for o in objects if o["metadata"]["namespace"] == namespace}
        assert set(mine) == {"ServiceAccount", "Role", "RoleBinding"}
        assert mine["ServiceAccount"]["metadata"]["name"] == LAUNCHER_SERVICE_ACCOUNT == "mpi-launcher"
        binding = mine["RoleBinding"]
        assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": mine["Role"]["metadata"]["name"]}
        assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "mpi-launcher", "namespace": namespace}]
        (rule,) = mine["Role"]["rules"]
        # v2beta1 launches over SSH: reading pods is all a launcher may need; no exec, no writes.
        assert rule["resources"] == ["pods"] and set(rule["verbs"]) <= {"get", "list", "watch"}
        for obj in mine.values():
            assert obj["metadata"]["labels"]["app.kubernetes.io/component"] == "mpi-operator"
            assert obj["metadata"]["labels"]["app.kubernetes.io/part-of"] == "eks-training"


@pytest.mark.parametrize(
    ("namespaces", "message"),
    [
        ([], r"namespaces=\[\] must be a non-empty list of namespace names"),
        ("team-a", r"namespaces='team-a' must be a non-empty list"),
        (["Team_A"], r"namespace='Team_A' is not a valid name"),
        (["a", "a"], r"namespaces has 'a' twice"),
    ],
)
def test_bad_namespaces_raise_one_line_errors(namespaces, message) -> None:
    with pytest.raises(ValueError, match=message):
        _render(namespaces)
