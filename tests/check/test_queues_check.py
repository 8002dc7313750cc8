"""The deploy check's Kueue part on prod's synthesized objects: each queued job kind is admitted through each
LocalQueue onto a flavor whose nodes can take it, and each way a queue can strand a job fails with a finding."""

from __future__ import annotations

import copy

import pytest

from eks_training.core.catalog import EFA_RESOURCE
from eks_training.infra.tools.check.deploy_check import render_all_jobs
from eks_training.infra.tools.check.queues import admit, kueue_objects, podsets, queue_findings
from eks_training.infra.tools.check.snapshot import DEVICE_RESOURCES, load_snapshot
from eks_training.infra.tools.job_render import render_job
from eks_training.workloads.job_queueing import QUEUE_LABEL, REQUIRED_TOPOLOGY

IMAGES = {"gpu": "check.invalid/gpu:1", "neuron": "check.invalid/neuron:1", "ray": "check.invalid/ray:1"}


@pytest.fixture(scope="module")
def prod_jobs(prod):
    return render_all_jobs(prod.config)


def _snapshot(prod):
    return load_snapshot(copy.deepcopy(prod.template))


def _advertised(snap):
    # Every device plugin lands where it should (the rest of the check proves that); here only the queues count.
    return {s.name: {*DEVICE_RESOURCES.get(s.accelerator or "", ()), *([EFA_RESOURCE] if s.efa else [])}
            for s in snap.node_sources}


def _findings(snap, jobs):
    return queue_findings(snap, jobs, _advertised(snap))


def _queue(snap, name):
    return next(obj for _, obj in snap.objects() if obj["kind"] == "ClusterQueue" and obj["metadata"]["name"] == name)


def _flavor_quota(queue, flavor, resource):
    entry = next(f for f in queue["spec"]["resourceGroups"][0]["flavors"] if f["name"] == flavor)
    return next(r for r in entry["resources"] if r["name"] == resource)


def test_every_queued_kind_is_admitted_through_every_local_queue(prod, prod_jobs):
    snap = _snapshot(prod)
    assert _findings(snap, prod_jobs) == []
    kueue = kueue_objects(snap)
    assert set(kueue.local_queues) == {("training", "training"), ("ai-research", "ai-research")}
    trainjob, _budget = prod_jobs["trainjob"]
    admission = admit(podsets(trainjob, kueue.runtimes), "ai-research", kueue)
    assert admission.flavors == {"node": "gpu-h100"} and not admission.borrows
    # ai-research holds no Trainium quota: its neuron-job runs on what the training queue lends through the cohort.
    neuron = next(obj for obj in prod_jobs["neuron-job"] if obj["kind"] == "Job")
    assert admit(podsets(neuron, kueue.runtimes), "ai-research", kueue).borrows
    # The MPIJob's launcher (CPU only, no toleration) goes to the team CPU flavor, its workers to the GPU pool.
    mpijob = next(obj for obj in prod_jobs["mpijob"] if obj["kind"] == "MPIJob")
    assert admit(podsets(mpijob, kueue.runtimes), "training", kueue).flavors == {"launcher": "cpu",
                                                                               "worker": "gpu-h100"}


def test_quota_on_a_node_group_at_size_zero_is_unusable(prod, prod_jobs):
    snap = _snapshot(prod)
    _flavor_quota(_queue(snap, "training"), "p5-nodes", "nvidia.com/gpu")["nominalQuota"] = 16
    messages = [m for s, f, m in _findings(snap, prod_jobs) if s == "ClusterQueue training" and "p5-nodes" in f]
    p5 = next(g for g in prod.config.accelerated_node_groups if g.name == "p5-nodes")
    assert messages and f"on nodes that never exist (node group {p5.eks_name})" in messages[0]


def test_quotas_beyond_what_the_nodes_hold_fail(prod, prod_jobs):
    snap = _snapshot(prod)
    _flavor_quota(_queue(snap, "training"), "gpu-h100", "nvidia.com/gpu")["nominalQuota"] = 200
    (finding,) = [f for f in _findings(snap, prod_jobs) if f[0] == "flavor gpu-h100"]
    assert finding[1] == "nvidia.com/gpu" and "add up to 232, more than its nodes ever hold (64)" in finding[2]


def test_a_resource_the_queue_does_not_cover_strands_the_job(prod, prod_jobs):
    snap = _snapshot(prod)
    for name in ("training", "ai-research"):
        group = _queue(snap, name)["spec"]["resourceGroups"][0]
        index = group["coveredResources"].index(EFA_RESOURCE)
        del group["coveredResources"][index]
        for flavor in group["flavors"]:
            del flavor["resources"][index]
    refused = [f for f in _findings(snap, prod_jobs) if f[1] == "admission" and f[0].startswith("job pytorch-job")]
    assert refused and "requests vpc.amazonaws.com/efa, which ClusterQueue" in refused[0][2]


def test_a_topology_aware_flavor_on_nodes_made_on_demand_never_admits(prod):
    snap = _snapshot(prod)
    flavor = next(obj for _, obj in snap.objects() if obj["kind"] == "ResourceFlavor"
                  and obj["metadata"]["name"] == "gpu-h100")
    flavor["spec"]["topologyName"] = "ec2-network-3-layers"  # as if Karpenter pools placed by topology
    jobs = {"pytorch-job": render_job(prod.config, "pytorch-job", namespace="training", images=IMAGES, dataset="wiki",
                                      instance_type="p5.48xlarge", topology="preferred")}
    messages = [m for _, f, m in _findings(snap, jobs) if f == "flavor gpu-h100"]
    assert messages and all("Kueue places by topology on Ready nodes only" in m for m in messages)


def _standing_block(prod):
    """prod with its p5 node group scaled up and quota on it for the training queue: a reserved block."""
    snap = _snapshot(prod)
    group = next(r for r in snap.resources.values() if r["Type"] == "AWS::EKS::Nodegroup"
                 and "p5" in str(r["Properties"].get("InstanceTypes")))
    group["Properties"]["ScalingConfig"].update(MinSize=2, DesiredSize=2)
    snap.read_node_sources()
    queue = _queue(snap, "training")
    gpu_pool = next(f for f in queue["spec"]["resourceGroups"][0]["flavors"] if f["name"] == "gpu-h100")
    block = next(f for f in queue["spec"]["resourceGroups"][0]["flavors"] if f["name"] == "p5-nodes")
    block["resources"] = copy.deepcopy(gpu_pool["resources"])
    for resource in gpu_pool["resources"]:
        resource["nominalQuota"] = 0
    return snap


def test_a_standing_block_takes_a_job_placed_within_one_network_layer(prod):
    snap = _standing_block(prod)
    jobs = {"trainjob": render_job(prod.config, "trainjob", namespace="training", images=IMAGES, dataset="wiki",
                                   instance_type="p5.48xlarge", topology="required")}
    # (The block's quota, moved from gpu-h100, lets ai-research borrow more than its ResourceQuota allows: that finding
    # is the quota check's; here only the placement counts.)
    assert [f for f in _findings(snap, jobs) if not f[0].startswith("ResourceQuota ")] == []
    kueue = kueue_objects(snap)
    trainjob, _budget = jobs["trainjob"]
    assert admit(podsets(trainjob, kueue.runtimes), "training", kueue).flavors == {"node": "p5-nodes"}


def test_a_job_that_requires_a_level_no_node_carries_fails(prod):
    snap = _standing_block(prod)
    (job,) = [obj for obj in render_job(prod.config, "pytorch-job", namespace="training", images=IMAGES, dataset="wiki",
                                        instance_type="p5.48xlarge", topology="required") if obj["kind"] == "Job"]
    job["spec"]["template"]["metadata"]["annotations"][REQUIRED_TOPOLOGY] = "topology.k8s.aws/network-node-layer-4"
    refused = [m for s, f, m in _findings(snap, {"pytorch-job": [job]}) if f == "admission"]
    assert refused and "has no level topology.k8s.aws/network-node-layer-4" in refused[0]
    # A Topology that names the level is no help: p5 nodes carry three layers.
    topology = next(obj for _, obj in snap.objects() if obj["kind"] == "Topology")
    topology["spec"]["levels"].insert(3, {"nodeLabel": "topology.k8s.aws/network-node-layer-4"})
    messages = [m for _, f, m in _findings(snap, {"pytorch-job": [job]}) if f.endswith(REQUIRED_TOPOLOGY)]
    assert messages and "requires topology.k8s.aws/network-node-layer-4, which no node of node group p5-nodes" \
                        in messages[0]


def test_a_job_naming_no_local_queue_or_no_queue_at_all_fails(prod, prod_jobs):
    snap = _snapshot(prod)
    jobs = copy.deepcopy({"mpijob": prod_jobs["mpijob"], "trainjob": prod_jobs["trainjob"]})
    jobs["mpijob"][0]["metadata"]["labels"][QUEUE_LABEL] = "gpu-team"
    del jobs["trainjob"][0]["metadata"]["labels"][QUEUE_LABEL]
    found = {f[0].split(":")[0]: f[2] for f in _findings(snap, jobs)}
    assert "'gpu-team' is no LocalQueue of namespace training: the job stays suspended" in found["job mpijob"]
    assert "would run outside its team's quota" in found["job trainjob"]


def test_the_node_sources_carry_the_network_labels_of_their_types(prod):
    sources = {s.name: s.labels for s in _snapshot(prod).node_sources}
    p5 = sources["Karpenter pool gpu-h100 (p5.48xlarge)"]
    assert {f"topology.k8s.aws/network-node-layer-{n}" for n in (1, 2, 3)} <= set(p5)
    assert "topology.k8s.aws/network-node-layer-4" not in p5 and "kubernetes.io/hostname" in p5
    system = next(labels for name, labels in sources.items() if name.startswith("node group system"))
    assert not any(key.startswith("topology.k8s.aws/") for key in system)


def test_kueues_chart_with_our_values_watches_only_the_training_namespaces(prod):
    from eks_training.core.versions import KUEUE
    from eks_training.infra.tools.check import helm
    from support import upstream_data

    release = prod.helm_releases["kueue"]
    objects = helm.render_chart(upstream_data.chart_dir(KUEUE.chart, KUEUE.version), release="kueue",
                                namespace=release["Namespace"], values=release["Values"], kube_version="1.35")
    hooks = [w for obj in objects if obj["kind"].endswith("WebhookConfiguration") for w in obj["webhooks"]]
    # Those on jobs and pods (not on Kueue's own kinds): one with failurePolicy Fail on every namespace would hold up
    # any Job of the platform while Kueue is down.
    on_jobs = [w for w in hooks if not any("kueue.x-k8s.io" in rule["apiGroups"] for rule in w["rules"])]
    assert len(on_jobs) > 20, "Kueue's chart renders a webhook per job integration"
    for hook in on_jobs:
        assert hook["namespaceSelector"] == {"matchExpressions": [
            {"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["ai-research", "training"]}]}, hook["name"]
    (manager,) = [obj for obj in objects if obj["kind"] == "Deployment"]
    (container,) = [c for c in manager["spec"]["template"]["spec"]["containers"] if c["name"] == "manager"]
    assert container["image"] == "registry.k8s.io/kueue/kueue:v0.19.2"
    assert manager["spec"]["template"]["spec"]["nodeSelector"] == {"eks-training/role": "system"}


def test_a_namespace_quota_below_what_its_queue_admits_fails(prod, prod_jobs):
    snap = _snapshot(prod)
    assert not [f for f in _findings(snap, prod_jobs) if f[0].startswith("ResourceQuota ")]
    quota = next(obj for _, obj in snap.objects() if obj["kind"] == "ResourceQuota"
                 and obj["metadata"]["namespace"] == "ai-research")
    quota["spec"]["hard"]["requests.nvidia.com/gpu"] = "64"  # what the shipped prod had
    (finding,) = [f for f in _findings(snap, prod_jobs) if f[0].startswith("ResourceQuota ")]
    assert finding == ("ResourceQuota ai-research/training-quota", "spec.hard.requests.nvidia.com/gpu",
                       "64 is below what ClusterQueue ai-research admits through LocalQueue ai-research/ai-research "
                       "(176, borrowing included): Kueue would admit jobs whose pods the API server then refuses")
