"""`eks-training render` with Kueue on: each Kueue kind goes to its namespace's LocalQueue, Volcano and Slurm keep
their own queues, and a topology request is made only where a topology-aware flavor can serve it."""

from __future__ import annotations

import copy

import pytest
import yaml

from eks_training.core.preemption import DO_NOT_DISRUPT_ANNOTATION
from eks_training.infra.addons.kueue import flavors_of, queues_of
from eks_training.infra.config import ENVIRONMENTS_DIR, load_environment, parse_config
from eks_training.infra.tools.job_render import RenderError, render_job
from eks_training.workloads.job_queueing import PREFERRED_TOPOLOGY, PRIORITY_LABEL, QUEUE_LABEL, REQUIRED_TOPOLOGY
from eks_training.workloads.jobs import JOB_KINDS
from support.k8s_schemas import validate_k8s_objects

IMAGES = {"gpu": "registry.example/gpu:1", "neuron": "registry.example/neuron:1", "ray": "registry.example/ray:1"}
PROD = load_environment("prod")


def _render(config, kind, **options):
    options = {"images": IMAGES, "dataset": "wiki", "data_input": "s3://corpus-bucket/raw/",
               "tokenizer": "s3://corpus-bucket/tokenizer.json", "namespace": "training", **options}
    if kind == "bionemo":
        options["image"] = "nvcr.io/nvidia/clara/bionemo-framework:2.6"
    return render_job(config, kind, **options)


def _queued(objects):
    return [obj for obj in objects if QUEUE_LABEL in (obj.get("metadata") or {}).get("labels", {})]


@pytest.mark.parametrize("namespace", ["training", "ai-research"])
@pytest.mark.parametrize("kind", [k for k, kind in JOB_KINDS.items() if not kind.is_script])
def test_each_kind_queues_in_its_namespaces_local_queue(kind, namespace):
    objects = _render(PROD, kind, namespace=namespace)
    queued = _queued(objects)
    if JOB_KINDS[kind].kueue is None:
        assert queued == []  # volcano-job: its Volcano queue
        return
    (obj,) = queued
    assert obj["metadata"]["labels"][QUEUE_LABEL] == PROD.kueue_queue(namespace).name == namespace
    assert obj["metadata"]["labels"][PRIORITY_LABEL] == "training-default"
    validate_k8s_objects(objects, kubernetes_versions=("1.31", "1.35"))


def test_prods_flavors_and_quotas():
    flavors = {f.name: f for f in flavors_of(PROD)}
    assert flavors["p5-nodes"].topology is not None and flavors["gpu-h100"].topology is None
    assert flavors["gpu-h100"].node_labels == {"karpenter.sh/nodepool": "gpu-h100",
                                               "node.kubernetes.io/instance-type": "p5.48xlarge"}
    # The group's EKS name, which EKS writes on its nodes (its config name and a digest of its instance type).
    p5_nodes = next(g for g in PROD.accelerated_node_groups if g.name == "p5-nodes")
    assert flavors["p5-nodes"].node_labels == {"eks.amazonaws.com/nodegroup": p5_nodes.eks_name,
                                               "node.kubernetes.io/instance-type": "p5.48xlarge"}
    assert flavors["trn1"].node_taints == ({"key": "aws.amazon.com/neuron", "value": "true", "effect": "NoSchedule"},)
    # CPU jobs go to the team CPU nodes, never to the (tainted) system nodes.
    assert flavors["cpu"].node_labels == {"eks-training/role": "team"} and not flavors["cpu"].node_taints
    research = {q.name: q for q in queues_of(PROD)}["ai-research"]
    h100 = next(q for q in research.quotas if q.flavor == "gpu-h100")
    assert h100.nominal["nvidia.com/gpu"] == 32 and h100.nominal["vpc.amazonaws.com/efa"] == 128
    assert h100.borrowing_limit == {"nvidia.com/gpu": 16} and research.cohort == "training"


def test_topology_is_asked_for_only_where_a_topology_aware_flavor_serves_the_type():
    # p5.48xlarge: the gpu-h100 pool serves it on demand, so by default no topology request (Kueue places by topology
    # only on nodes that exist); the p5-nodes group is topology-aware, so a request can be made for it.
    plain = _render(PROD, "pytorch-job", instance_type="p5.48xlarge")[1]
    assert plain["spec"]["template"]["metadata"]["annotations"] == {DO_NOT_DISRUPT_ANNOTATION: "true"}
    preferred = _render(PROD, "pytorch-job", instance_type="p5.48xlarge", topology="preferred")[1]
    assert preferred["spec"]["template"]["metadata"]["annotations"] == {
        DO_NOT_DISRUPT_ANNOTATION: "true", PREFERRED_TOPOLOGY: "topology.k8s.aws/network-node-layer-3"}
    required, _budget = _render(PROD, "trainjob", instance_type="p5.48xlarge", topology="required", topology_layer=2)
    patch = required["spec"]["runtimePatches"][0]["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"][0]
    assert patch["template"]["spec"]["template"]["metadata"]["annotations"] == {
        REQUIRED_TOPOLOGY: "topology.k8s.aws/network-node-layer-2"}
    # An environment whose only p5 capacity is a standing node group asks for its lowest layer unprompted.
    data = yaml.safe_load((ENVIRONMENTS_DIR / "prod.yaml").read_text())
    data["capacity"]["karpenter_pools"] = [p for p in data["capacity"]["karpenter_pools"] if p["name"] != "gpu-h100"]
    data["capacity"]["gpu_node_groups"][0].update(min_size=2, desired_size=2)
    for queue in data["services"]["kueue_queues"]:
        queue["quotas"] = [q for q in queue["quotas"] if q["flavor"] != "gpu-h100"]
    # ... and the team's queue holds quota there (without it, render refuses a job its queue never admits).
    data["services"]["kueue_queues"][0]["quotas"].append({"flavor": "p5-nodes", "accelerators": 16})
    blocks = parse_config(data, source="prod.yaml")
    auto = _render(blocks, "mpijob", instance_type="p5.48xlarge")[0]
    assert auto["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["metadata"]["annotations"] == {
        DO_NOT_DISRUPT_ANNOTATION: "true", PREFERRED_TOPOLOGY: "topology.k8s.aws/network-node-layer-3"}


@pytest.mark.parametrize(("options", "message"), [
    ({"kind": "pytorch-job", "instance_type": "p4d.24xlarge", "topology": "preferred"},
     "--topology: p4d.24xlarge has no topology-aware flavor in 'prod'"),
    ({"kind": "pytorch-job", "instance_type": "p5.48xlarge", "topology": "required", "topology_layer": 4},
     "--topology-layer: 4 is not allowed: p5.48xlarge nodes carry network layers 1 to 3"),
    ({"kind": "pytorch-job", "topology_layer": 2}, "--topology-layer: 2 is not allowed without --topology"),
    ({"kind": "bionemo", "topology": "preferred"}, "--topology: bionemo is not a multi-node job Kueue places"),
    ({"kind": "volcano-job", "topology": "required"}, "--topology: volcano-job is not a multi-node job Kueue"),
    ({"kind": "pytorch-job", "topology": "nearby"}, "--topology: 'nearby' is not allowed"),
    ({"kind": "pytorch-job", "priority": "urgent"}, "--priority: 'urgent' is not allowed: use one of training-high"),
    ({"kind": "volcano-job", "priority": "training-high"}, "--priority: volcano-job does not queue in Kueue"),
    ({"kind": "data-prep", "topology": "preferred"}, "--topology: data-prep is not a multi-node job Kueue places"),
])
def test_requests_the_environment_cannot_serve_are_one_line(options, message):
    with pytest.raises(RenderError) as raised:
        _render(PROD, **options)
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_a_priority_and_the_kinds_that_need_an_operator_left_off():
    (job,) = _queued(_render(PROD, "pytorch-job", priority="training-low"))
    assert job["metadata"]["labels"][PRIORITY_LABEL] == "training-low"
    data = yaml.safe_load((ENVIRONMENTS_DIR / "prod.yaml").read_text())
    data["services"]["kubeflow_trainer"] = False
    without = parse_config(data, source="prod.yaml")
    with pytest.raises(RenderError, match="^kind: trainjob needs services.kubeflow_trainer, which environment 'prod' "
                                          "leaves off$"):
        _render(without, "trainjob")


def test_without_kueue_nothing_is_queued_and_topology_cannot_be_asked_for():
    data = copy.deepcopy(yaml.safe_load((ENVIRONMENTS_DIR / "prod.yaml").read_text()))
    data["services"]["kueue"] = False
    del data["services"]["kueue_queues"]
    config = parse_config(data, source="prod.yaml")
    for kind in ("pytorch-job", "mpijob", "trainjob", "rayjob"):
        assert _queued(_render(config, kind)) == []
    with pytest.raises(RenderError, match="^--topology: preferred needs Kueue"):
        _render(config, "pytorch-job", topology="preferred")
    with pytest.raises(RenderError, match="^--priority: pytorch-job queues in Kueue, which environment 'prod' does not"):
        _render(config, "pytorch-job", priority="training-high")
