"""The `training` ServiceAccount of each workload namespace: a cdk8s-plus ServiceAccount that keeps its token."""

from __future__ import annotations

import cdk8s
import cdk8s_plus_28 as kplus
import pytest

from eks_training.core.names import TRAINING_SERVICE_ACCOUNT
from eks_training.workloads.training_identity import TrainingServiceAccountsChart
from support.k8s_schemas import chart_objects, validate_k8s_objects


def _chart(namespaces) -> TrainingServiceAccountsChart:
    return TrainingServiceAccountsChart(cdk8s.App(), "accounts", namespaces=namespaces)


def test_one_plus_service_account_per_namespace_with_its_token() -> None:
    chart = _chart(["training", "research", "slurm"])
    assert [type(c) for c in chart.node.children] == [kplus.ServiceAccount] * 3
    objects = validate_k8s_objects(chart_objects(chart))
    assert objects == chart.to_json()
    assert [(o["kind"], o["metadata"]["namespace"], o["metadata"]["name"]) for o in objects] == [
        ("ServiceAccount", ns, TRAINING_SERVICE_ACCOUNT) for ns in ("training", "research", "slurm")]
    for obj in objects:
        assert obj["metadata"]["labels"] == {"app.kubernetes.io/part-of": "eks-training",
                                             "app.kubernetes.io/component": "training-identity"}
        # Not plus's false: pods of the account ask for no token themselves, and a Ray head's autoscaler uses it.
        assert obj["automountServiceAccountToken"] is True


def test_ray_heads_run_as_the_account_and_ask_for_no_token_themselves() -> None:
    # Why the account keeps automountServiceAccountToken true: KubeRay binds its autoscaler's Role to the head
    # pod's account, and the head's autoscaler sidecar calls the API with the token the account mounts.
    from eks_training.workloads.job_pods import TrainingJob
    from eks_training.workloads.job_ray import ray_cluster_for

    job = TrainingJob(name="llm", namespace="training", image="repo/trainer:1", instance_type="p4d.24xlarge", nodes=2)
    cluster = ray_cluster_for(job)
    head = cluster["spec"]["headGroupSpec"]["template"]["spec"]
    assert cluster["spec"]["enableInTreeAutoscaling"] is True
    assert head["serviceAccountName"] == TRAINING_SERVICE_ACCOUNT
    assert "automountServiceAccountToken" not in head


@pytest.mark.parametrize(("namespaces", "message"), [
    ([], r"namespaces=\[\] is not allowed: use a non-empty list of namespace names"),
    ("training", r"namespaces='training' is not allowed: use a non-empty list"),
    (["Team_A"], r"namespace='Team_A' is not allowed"),
    (["a", "a"], r"namespaces='a' is not allowed: each must be unique"),
])
def test_bad_namespaces_raise_one_line_errors(namespaces, message) -> None:
    with pytest.raises(ValueError, match=message):
        _chart(namespaces)


def test_the_stack_applies_them_after_the_namespaces_under_the_manifest_id_it_always_had(prod) -> None:
    # The logical ID add_manifest("TrainingServiceAccounts") gave: a new one would make CloudFormation replace the
    # manifest, and deleting the old one would delete the accounts the new one had just applied.
    manifests = prod.resources("Custom::AWSCDK-EKS-KubernetesResource")
    (lid,) = [lid for lid in manifests if "TrainingServiceAccounts" in lid]
    assert lid == "ClustermanifestTrainingServiceAccounts2F10A22B"
    (namespaces,) = [other for other in manifests if other.startswith("ClusterNamespaces")]
    assert namespaces in manifests[lid]["DependsOn"]
    accounts = prod.kubernetes_manifests[lid]
    assert {(o["kind"], o["metadata"]["name"], o["automountServiceAccountToken"]) for o in accounts} == {
        ("ServiceAccount", TRAINING_SERVICE_ACCOUNT, True)}
    assert {o["metadata"]["namespace"] for o in accounts} >= {n.name for n in prod.config.training_namespaces}
