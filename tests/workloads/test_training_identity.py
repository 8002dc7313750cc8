"""The ServiceAccounts workload pods get AWS access through: `training` everywhere without an API token, `ray` where
Ray runs, with the token its autoscaler needs."""

from __future__ import annotations

import cdk8s
import cdk8s_plus_28 as kplus
import pytest

from eks_training.workloads.training_identity import TrainingServiceAccountsChart
from support.k8s_schemas import chart_objects, validate_k8s_objects


def _chart(namespaces, ray_namespaces=()) -> TrainingServiceAccountsChart:
    return TrainingServiceAccountsChart(cdk8s.App(), "accounts", namespaces=namespaces, ray_namespaces=ray_namespaces)


def test_training_accounts_mount_no_token_and_ray_accounts_do() -> None:
    chart = _chart(["training", "research", "slurm"], ray_namespaces=["training", "research"])
    assert [type(c) for c in chart.node.children] == [kplus.ServiceAccount] * 5
    objects = validate_k8s_objects(chart_objects(chart))
    assert objects == chart.to_json()
    assert [(o["metadata"]["namespace"], o["metadata"]["name"], o["automountServiceAccountToken"]) for o in objects] == [
        ("training", "training", False), ("research", "training", False), ("slurm", "training", False),
        ("training", "ray", True), ("research", "ray", True)]
    for obj in objects:
        assert obj["metadata"]["labels"] == {"app.kubernetes.io/part-of": "eks-training",
                                             "app.kubernetes.io/component": "training-identity"}


def test_ray_pods_run_as_ray_and_job_pods_as_training() -> None:
    # KubeRay binds its autoscaler's Role (create/delete pods, patch the RayCluster) to the head pod's account: only
    # Ray's pods may carry it. Every other job pod runs as `training`, which mounts no token.
    from eks_training.workloads.job_pods import TrainingJob
    from eks_training.workloads.job_ray import ray_cluster_for, ray_job_for
    from eks_training.workloads.jobs import PlacementNames, job_kind

    job = TrainingJob(name="llm", namespace="training", image="repo/trainer:1", instance_type="p4d.24xlarge", nodes=2)
    for cluster in (ray_cluster_for(job), ray_job_for(job)["spec"]["rayClusterSpec"]):
        spec = cluster if "headGroupSpec" in cluster else cluster["spec"]
        assert spec["enableInTreeAutoscaling"] is True
        pods = [spec["headGroupSpec"]["template"]["spec"], *(g["template"]["spec"] for g in spec["workerGroupSpecs"])]
        assert {pod["serviceAccountName"] for pod in pods} == {"ray"}
        assert all("automountServiceAccountToken" not in pod for pod in pods)  # the account's setting applies
    indexed = [o for o in job_kind("pytorch-job").build(job, PlacementNames()) if o["kind"] == "Job"]
    assert [o["spec"]["template"]["spec"]["serviceAccountName"] for o in indexed] == ["training"]


@pytest.mark.parametrize(("namespaces", "ray", "message"), [
    ([], (), r"namespaces=\[\] is not allowed: use a non-empty list of namespace names"),
    ("training", (), r"namespaces='training' is not allowed: use a non-empty list"),
    (["Team_A"], (), r"namespace='Team_A' is not allowed"),
    (["a", "a"], (), r"namespaces='a' is not allowed: each must be unique"),
    (["a"], ["b"], r"ray_namespaces=\['b'\] is not allowed: use namespaces of \['a'\]"),
])
def test_bad_namespaces_raise_one_line_errors(namespaces, ray, message) -> None:
    with pytest.raises(ValueError, match=message):
        _chart(namespaces, ray)


def test_the_stack_applies_them_after_the_namespaces_under_the_manifest_id_it_always_had(prod) -> None:
    # The logical ID add_manifest("TrainingServiceAccounts") gave: a new one would make CloudFormation replace the
    # manifest, and deleting the old one would delete the accounts the new one had just applied.
    manifests = prod.resources("Custom::AWSCDK-EKS-KubernetesResource")
    (lid,) = [lid for lid in manifests if "TrainingServiceAccounts" in lid]
    assert lid == "ClustermanifestTrainingServiceAccounts2F10A22B"
    (namespaces,) = [other for other in manifests if other.startswith("ClusterNamespaces")]
    assert namespaces in manifests[lid]["DependsOn"]
    accounts = prod.kubernetes_manifests[lid]
    training = {n.name for n in prod.config.training_namespaces}
    assert {o["metadata"]["namespace"] for o in accounts if o["metadata"]["name"] == "training"} >= training
    assert {o["metadata"]["namespace"] for o in accounts if o["metadata"]["name"] == "ray"} == training
    assert {(o["metadata"]["name"], o["automountServiceAccountToken"]) for o in accounts} == {("training", False),
                                                                                              ("ray", True)}


def test_both_accounts_of_a_namespace_get_its_aws_role(prod) -> None:
    associations = prod.resources("AWS::EKS::PodIdentityAssociation")
    by_account = {(a["Properties"]["Namespace"], a["Properties"]["ServiceAccount"]): a["Properties"]["RoleArn"]
                  for a in associations.values()}
    for namespace in (n.name for n in prod.config.training_namespaces):
        assert by_account[(namespace, "ray")] == by_account[(namespace, "training")]
