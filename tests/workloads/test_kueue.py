"""Kueue's objects and how a job kind is submitted through a queue; the TrainJob runtime and the restart limits."""

from __future__ import annotations

import pytest

from eks_training.core.preemption import DO_NOT_DISRUPT_ANNOTATION
from eks_training.core.validation import InvalidValue
from eks_training.workloads.job_indexed import pytorch_job
from eks_training.workloads.job_pods import TrainingJob
from eks_training.workloads.job_queueing import (
    BATCH_JOB,
    INTEGRATIONS,
    MPIJOB,
    PREFERRED_TOPOLOGY,
    PRIORITY_LABEL,
    QUEUE_LABEL,
    RAYCLUSTER,
    RAYJOB,
    REQUIRED_TOPOLOGY,
    TRAINJOB,
    KueueSubmission,
    TopologyRequest,
    submit,
)
from eks_training.workloads.job_trainjob import cluster_training_runtime, trainjob_pod_spec
from eks_training.workloads.jobs import JOB_KINDS, PlacementNames
from eks_training.workloads.kuberay import OVERWRITE_COMMAND_ANNOTATION
from eks_training.workloads.kueue import Flavor, NetworkTopology, Quota, TeamQueue, kueue_objects
from support.k8s_schemas import validate_k8s_objects

GPU = Flavor("gpu-p5", {"eks-training/pool": "gpu-p5", "node.kubernetes.io/instance-type": "p5.48xlarge"},
             node_taints=({"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"},))
BLOCK = Flavor("p5-block", {"eks-training/pool": "p5-block", "node.kubernetes.io/instance-type": "p5.48xlarge"},
               node_taints=GPU.node_taints, topology=NetworkTopology(3))
CPU = Flavor("cpu", {"eks-training/role": "team"})
LLM = TeamQueue("llm", ("training", "llm-dev"), (
    Quota("gpu-p5", {"cpu": 760, "memory": "7380Gi", "nvidia.com/gpu": 32, "vpc.amazonaws.com/efa": 128},
          {"nvidia.com/gpu": 16}),
    Quota("cpu", {"cpu": 8, "memory": "32Gi"})), cohort="platform")
RESEARCH = TeamQueue("research", ("ai-research",), (Quota("cpu", {"cpu": 4, "memory": "16Gi"}),), cohort="platform")
SUBMISSION = KueueSubmission("llm", topology=TopologyRequest("topology.k8s.aws/network-node-layer-3"))


def _job(**changes) -> TrainingJob:
    return TrainingJob(**{"name": "llm", "namespace": "training", "image": "repo/trainer:1",
                          "instance_type": "p5.48xlarge", "nodes": 4, **changes})


def test_the_objects_validate_and_every_queue_lists_every_flavor_it_may_borrow():
    objects = validate_k8s_objects(kueue_objects(flavors=[GPU, BLOCK, CPU], queues=[LLM, RESEARCH]))
    by_kind: dict[str, list[dict]] = {}
    for obj in objects:
        by_kind.setdefault(obj["kind"], []).append(obj)
    (topology,) = by_kind["Topology"]
    assert topology["metadata"]["name"] == "ec2-network-3-layers"
    assert [level["nodeLabel"] for level in topology["spec"]["levels"]] == [
        "topology.k8s.aws/network-node-layer-1", "topology.k8s.aws/network-node-layer-2",
        "topology.k8s.aws/network-node-layer-3", "kubernetes.io/hostname"]
    flavors = {f["metadata"]["name"]: f["spec"] for f in by_kind["ResourceFlavor"]}
    assert flavors["p5-block"]["topologyName"] == "ec2-network-3-layers" and "topologyName" not in flavors["gpu-p5"]
    # Taints describe the nodes; no flavor adds tolerations, so a CPU-only job is never sent to a GPU node.
    assert all("tolerations" not in f for f in flavors.values())
    queues = {q["metadata"]["name"]: q["spec"] for q in by_kind["ClusterQueue"]}
    research = queues["research"]
    (group,) = research["resourceGroups"]
    assert group["coveredResources"] == ["cpu", "memory", "nvidia.com/gpu", "vpc.amazonaws.com/efa"]
    assert [f["name"] for f in group["flavors"]] == ["gpu-p5", "p5-block", "cpu"]
    gpu = {r["name"]: r for r in group["flavors"][0]["resources"]}
    assert gpu["nvidia.com/gpu"] == {"name": "nvidia.com/gpu", "nominalQuota": 0}  # may only borrow there
    llm_gpu = {r["name"]: r for r in queues["llm"]["resourceGroups"][0]["flavors"][0]["resources"]}
    assert llm_gpu["nvidia.com/gpu"] == {"name": "nvidia.com/gpu", "nominalQuota": 32, "borrowingLimit": 16}
    assert research["cohortName"] == "platform" and research["preemption"]["withinClusterQueue"] == "LowerPriority"
    assert research["namespaceSelector"]["matchExpressions"][0]["values"] == ["ai-research"]
    assert {(q["metadata"]["namespace"], q["spec"]["clusterQueue"]) for q in by_kind["LocalQueue"]} == {
        ("training", "llm"), ("llm-dev", "llm"), ("ai-research", "research")}
    assert [c["metadata"]["name"] for c in by_kind["Cohort"]] == ["platform"]
    assert {p["metadata"]["name"]: p["value"] for p in by_kind["WorkloadPriorityClass"]} == {
        "training-high": 100000, "training-default": 10000, "training-low": 1000}


@pytest.mark.parametrize(("build", "message"), [
    (lambda: Flavor("gpu", {}), "flavor 'gpu' node_labels={} is not allowed"),
    (lambda: kueue_objects(flavors=[CPU], queues=[LLM]), "queue 'llm' quota flavor='gpu-p5' is not allowed"),
    (lambda: kueue_objects(flavors=[GPU, CPU], queues=[LLM, TeamQueue("other", ("training",), ())]),
     "queue namespaces (one queue each)"),
    (lambda: KueueSubmission("llm", priority="urgent"), "priority='urgent' is not allowed"),
    (lambda: TopologyRequest("topology.kubernetes.io/zone"), "topology level='topology.kubernetes.io/zone'"),
])
def test_bad_queue_inputs_are_one_line(build, message):
    with pytest.raises(ValueError) as raised:
        build()
    assert message in str(raised.value) and "\n" not in str(raised.value)


def _suspended(obj: dict, path: tuple[str, ...]) -> bool:
    node = obj
    for key in path:
        node = node[key]
    return node is True


# data-prep is built from a DataPrepJob: tests/test_queued_jobs.py renders it through its queue.
@pytest.mark.parametrize("kind", [k for k, kind in JOB_KINDS.items() if kind.kueue is not None
                                  and kind.accelerator != "none"])
def test_every_kueue_kind_is_labelled_suspended_and_asks_for_topology_only_when_multi_node(kind):
    spec = JOB_KINDS[kind]
    job = _job(nodes=4 if spec.multi_node else 1, instance_type="trn1.32xlarge" if spec.accelerator == "neuron"
               else "p5.48xlarge")
    objects = spec.render(job, PlacementNames(kueue=SUBMISSION))
    admitted = [obj for obj in objects if spec.kueue.admits(obj)]
    assert len(admitted) == 1
    (obj,) = admitted
    assert obj["metadata"]["labels"][QUEUE_LABEL] == "llm"
    assert obj["metadata"]["labels"][PRIORITY_LABEL] == "training-default"
    assert _suspended(obj, spec.kueue.suspend)
    templates = list(spec.kueue.multi_node_templates(obj))
    # Karpenter's do-not-disrupt and KubeRay's command annotation are the pods' own (save on stop), not Kueue's.
    annotations = [{k: v for k, v in ((t.get("metadata") or {}).get("annotations") or {}).items()
                    if k not in (DO_NOT_DISRUPT_ANNOTATION, OVERWRITE_COMMAND_ANNOTATION)} for t in templates]
    if spec.multi_node:
        assert annotations and all(a == {PREFERRED_TOPOLOGY: "topology.k8s.aws/network-node-layer-3"}
                                   for a in annotations)
    else:
        assert annotations == [{}]
    validate_k8s_objects(objects, kubernetes_versions=("1.31", "1.35"))


def test_every_integration_is_one_a_kind_uses():
    used = {kind.kueue for kind in JOB_KINDS.values() if kind.kueue is not None}
    assert used == set(INTEGRATIONS) == {BATCH_JOB, MPIJOB, RAYJOB, RAYCLUSTER, TRAINJOB}


def test_a_queued_ray_cluster_runs_at_its_full_size_without_the_autoscaler():
    (cluster, _) = JOB_KINDS["raycluster"].render(_job(), PlacementNames(kueue=SUBMISSION))
    assert cluster["spec"]["enableInTreeAutoscaling"] is False and "autoscalerOptions" not in cluster["spec"]
    (workers,) = cluster["spec"]["workerGroupSpecs"]
    assert workers["replicas"] == workers["minReplicas"] == workers["maxReplicas"] == 4
    # Its pods hold no API token: the `ray` account's autoscaler rights (patch this RayCluster) would let them grow it
    # past what Kueue admitted.
    for pod in (cluster["spec"]["headGroupSpec"]["template"]["spec"], workers["template"]["spec"]):
        assert pod["serviceAccountName"] == "training" and pod["automountServiceAccountToken"] is False
    (job,) = [o for o in JOB_KINDS["rayjob"].render(_job(), PlacementNames(kueue=SUBMISSION)) if o["kind"] == "RayJob"]
    ray = job["spec"]["rayClusterSpec"]
    assert {g["template"]["spec"]["serviceAccountName"] for g in [ray["headGroupSpec"], *ray["workerGroupSpecs"]]} == {
        "training"}
    # Unqueued, the cluster keeps autoscaling from zero, as `ray` (whose rights the autoscaler needs).
    (plain, _) = JOB_KINDS["raycluster"].render(_job(), PlacementNames())
    assert plain["spec"]["enableInTreeAutoscaling"] is True and plain["spec"]["workerGroupSpecs"][0]["replicas"] == 0
    assert plain["spec"]["headGroupSpec"]["template"]["spec"]["serviceAccountName"] == "ray"


def test_a_required_topology_and_no_queue():
    required = KueueSubmission("llm", topology=TopologyRequest("topology.k8s.aws/network-node-layer-2", required=True))
    job = JOB_KINDS["pytorch-job"].render(_job(), PlacementNames(kueue=required))[1]
    assert job["spec"]["template"]["metadata"]["annotations"] == {
        DO_NOT_DISRUPT_ANNOTATION: "true", REQUIRED_TOPOLOGY: "topology.k8s.aws/network-node-layer-2"}
    unqueued = JOB_KINDS["pytorch-job"].render(_job(), PlacementNames())[1]
    assert QUEUE_LABEL not in unqueued["metadata"]["labels"] and "suspend" not in unqueued["spec"]
    with pytest.raises(ValueError, match="no batch/v1 Job among the objects"):
        submit([{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job"}], BATCH_JOB, SUBMISSION, multi_node=True)


def test_the_runtime_restarts_the_whole_job_a_bounded_number_of_times_behind_a_health_gate():
    (runtime,) = validate_k8s_objects([cluster_training_runtime(instance_type="p5.48xlarge", image="repo/trainer:1",
                                                                max_restarts=5)])
    template = runtime["spec"]["template"]["spec"]
    assert {k: v for k, v in template["failurePolicy"].items() if k != "rules"} == {
        "maxRestarts": 5, "restartStrategy": "Recreate"}
    (node,) = template["replicatedJobs"]
    assert node["name"] == "node" and node["template"]["spec"]["backoffLimit"] == 0
    assert node["template"]["metadata"]["labels"] == {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}
    pod = node["template"]["spec"]["template"]["spec"]
    assert [c["name"] for c in pod["initContainers"]] == ["node-health-check"]
    assert pod["containers"][0]["name"] == "node" and pod["serviceAccountName"] == "training"
    assert {v["persistentVolumeClaim"]["claimName"] for v in pod["volumes"] if "persistentVolumeClaim" in v} == {
        "fsx-data", "fsx-workspace"}
    with pytest.raises(InvalidValue, match="^instance_type='trn1.32xlarge' is not allowed: a GPU instance type"):
        cluster_training_runtime(instance_type="trn1.32xlarge", image="repo/trainer:1", max_restarts=1)


def test_a_trainjob_becomes_the_runtimes_pod_with_its_command_and_topology():
    runtime = cluster_training_runtime(instance_type="p5.48xlarge", image="registry/stack-image:abc", max_restarts=3)
    trainjob, _budget = JOB_KINDS["trainjob"].render(_job(image="registry/job-image:1"), PlacementNames(kueue=SUBMISSION))
    template = trainjob_pod_spec(trainjob, runtime)
    assert template["metadata"]["annotations"] == {DO_NOT_DISRUPT_ANNOTATION: "true",
                                                   PREFERRED_TOPOLOGY: "topology.k8s.aws/network-node-layer-3"}
    (node,) = template["spec"]["containers"]
    assert node["image"] == "registry/job-image:1" and node["command"][3:6] == ["torchrun", "--nnodes=4",
                                                                                "--nproc_per_node=8"]
    assert {"name": "JOB_NAME", "value": "llm"} in node["env"]
    assert template["spec"]["initContainers"][0]["image"] == "registry/stack-image:abc"


@pytest.mark.parametrize(("restarts", "expected"), [
    (0, {"backoffLimit": 0}),
    (3, {"backoffLimitPerIndex": 3, "maxFailedIndexes": 0}),
])
def test_the_indexed_job_brings_every_rank_back_a_bounded_number_of_times(restarts, expected):
    _, job, _budget = validate_k8s_objects(pytorch_job(_job(), max_restarts=restarts),
                                           kubernetes_versions=("1.31", "1.35"))
    limits = {k: v for k, v in job["spec"].items() if k in ("backoffLimit", "backoffLimitPerIndex", "maxFailedIndexes")}
    assert limits == expected
    volcano, _budget = JOB_KINDS["volcano-job"].render(_job(), PlacementNames(queue="q", max_restarts=restarts))
    assert volcano["spec"]["maxRetry"] == restarts
    assert {p["action"] for p in volcano["spec"]["policies"]} == {"RestartJob"}
