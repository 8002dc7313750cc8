"""Custom resources go out as the classes `make imports` generated from the upstream CRDs, and say what the builders
wrote, field for field; the committed classes are those the CRDs of the checkout and the pinned cdk8s-cli give."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import cdk8s
import cdk8s_plus_28 as kplus
import pytest

from eks_training.core import upstream
from eks_training.core.validation import InvalidValue
from eks_training.workloads.imports import generate
from eks_training.workloads.job_charts import JobChart, RayClusterChart
from eks_training.workloads.job_healthcheck import health_check
from eks_training.workloads.job_mpi import mpi_job
from eks_training.workloads.job_pods import TrainingJob
from eks_training.workloads.job_ray import ray_cluster_for, ray_job_for
from eks_training.workloads.job_volcano import volcano_job
from eks_training.workloads.jobs import PlacementNames
from eks_training.workloads.karpenter import (
    KarpenterPool,
    KarpenterPoolsChart,
    NodeTaint,
    ec2_node_class,
    node_pool,
)
from eks_training.workloads.job_queueing import TRAINJOB, KueueSubmission, TopologyRequest, submit
from eks_training.workloads.job_trainjob import cluster_training_runtime, train_job
from eks_training.workloads.kuberay import RayGpuWorkers
from eks_training.workloads.kueue import Flavor, KueueQueuesChart, NetworkTopology, Quota, TeamQueue, kueue_objects
from eks_training.workloads.slinky import SlurmClusterChart, SlurmPartition
from eks_training.workloads.typed_objects import (
    GENERATED_CLASSES,
    TYPED_GROUPS,
    emit_object,
    emit_typed,
    generated_class,
)
from eks_training.workloads.volcano import QueueResources, VolcanoQueue, VolcanoQueuesChart, volcano_queue
from support.k8s_schemas import chart_objects, crds_folder

REPO = Path(__file__).resolve().parents[2]
IMPORTS = REPO / "workloads" / "imports"
CDK8S_CLI = REPO / "node_modules" / ".bin" / "cdk8s"

GPU_POOL = KarpenterPool(
    name="gpu-p5", accelerator="nvidia", instance_types=("p5.48xlarge",), zone="us-east-1a", accelerator_limit=64,
    capacity_types=("reserved", "on-demand"), efa=True, local_nvme=True,
    capacity_reservation_ids=("cr-0123456789abcdef0",), placement_group_name="training-pg",
    labels={"team": "llm"}, taints=(NodeTaint(key="eks-training/dedicated", value="llm"),),
)
NEURON_POOL = KarpenterPool(
    name="neuron-trn1", accelerator="neuron", instance_types=("trn1.32xlarge",), zone="us-east-1a",
    accelerator_limit=32, capacity_types=("spot", "on-demand"),
)
QUEUE = VolcanoQueue(name="llm", weight=3, capability=QueueResources(cpu=512, memory="4Ti", nvidia_gpus=64),
                     deserved=QueueResources(nvidia_gpus=32), guarantee=QueueResources(cpu="64"))
PARTITIONS = [
    SlurmPartition(name="gpu-a100", instance_type="p4d.24xlarge", accelerator="nvidia", replicas=2, cpu="90",
                   memory="1000Gi", max_nodes=2, features=("a100",)),
    SlurmPartition(name="trainium", instance_type="trn1.32xlarge", accelerator="neuron", replicas=1, cpu="120",
                   memory="480Gi"),
]


KUEUE_FLAVORS = [
    Flavor("gpu-p5", {"eks-training/pool": "gpu-p5", "node.kubernetes.io/instance-type": "p5.48xlarge"},
           node_taints=({"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"},), topology=NetworkTopology(3)),
    Flavor("cpu", {"eks-training/role": "team"}),
]
KUEUE_QUEUES = [
    TeamQueue("llm", ("training",), (
        Quota("gpu-p5", {"cpu": 380, "memory": "3690Gi", "nvidia.com/gpu": 16, "vpc.amazonaws.com/efa": 64},
              {"nvidia.com/gpu": 8}),
        Quota("cpu", {"cpu": 8, "memory": "32Gi"})), cohort="training"),
    TeamQueue("research", ("ai-research",), (Quota("cpu", {"cpu": 4, "memory": "16Gi"}),), cohort="training"),
]


def _job(**changes) -> TrainingJob:
    values = dict(name="llm", namespace="training", image="repo/trainer:1", instance_type="p4d.24xlarge", nodes=2)
    return TrainingJob(**{**values, **changes})


def _json(obj: dict) -> dict:
    """What a manifest says once written out (tuples become lists)."""
    return json.loads(json.dumps(obj))


def builder_objects() -> list[dict]:
    """One object of every custom resource kind the platform writes, from the real builders."""
    objects = [
        volcano_queue(QUEUE),
        ec2_node_class(GPU_POOL, cluster_name="training", node_role_name="KarpenterNode-training"),
        ec2_node_class(NEURON_POOL, cluster_name="training", node_role_name="KarpenterNode-training",
                       ami_version="v20260801", imds_hop_limit=2),
        node_pool(GPU_POOL),
        node_pool(NEURON_POOL),
        mpi_job(_job(checkpoint_s3_uri="s3://ckpt/llm")),
        *health_check(_job()),
        volcano_job(_job(checkpoint_s3_uri="s3://ckpt/llm"), queue="llm", max_retry=2),
        ray_cluster_for(_job()),
        ray_job_for(_job()),
        *kueue_objects(flavors=KUEUE_FLAVORS, queues=KUEUE_QUEUES),
        cluster_training_runtime(instance_type="p5.48xlarge", image="repo/trainer:1", max_restarts=3),
        *submit([train_job(_job(instance_type="p5.48xlarge"))], TRAINJOB,
                KueueSubmission("llm", topology=TopologyRequest("topology.k8s.aws/network-node-layer-3")),
                multi_node=True),
    ]
    slurm = SlurmClusterChart(cdk8s.App(), "slurm", cluster_name="ml", partitions=PARTITIONS)
    objects += [obj for obj in chart_objects(slurm) if obj["apiVersion"].startswith("slinky.slurm.net/")]
    return [obj for obj in objects if generated_class(obj["apiVersion"], obj["kind"]) is not None]


def test_every_kind_with_a_generated_class_is_one_builders_write() -> None:
    written = {(obj["apiVersion"], obj["kind"]) for obj in builder_objects()}
    assert written == set(GENERATED_CLASSES)


@pytest.mark.parametrize("obj", builder_objects(), ids=lambda o: f"{o['kind']}-{o['metadata']['name']}")
def test_the_converter_round_trips_real_builder_output(obj: dict) -> None:
    chart = cdk8s.Chart(cdk8s.App(), "typed")
    api_object = emit_object(chart, obj)
    assert type(api_object) is generated_class(obj["apiVersion"], obj["kind"])
    assert chart_objects(chart) == [_json(obj)]


def test_generated_classes_are_the_kinds_they_are_registered_for() -> None:
    modules = {source.module for source in generate.SOURCES}
    for (api_version, kind), (module, _) in GENERATED_CLASSES.items():
        api_class = generated_class(api_version, kind)
        assert issubclass(api_class, cdk8s.ApiObject)
        assert (api_class.GVK.api_version, api_class.GVK.kind) == (api_version, kind)
        assert module in modules
    assert TYPED_GROUPS == {source.group for source in generate.SOURCES}


def _chart_cases() -> list[tuple[str, object, set[str]]]:
    names = PlacementNames(queue="llm", partition="gpu-a100")
    return [
        ("volcano-queues", lambda app: VolcanoQueuesChart(app, "c", queues=[QUEUE]), {"Queue"}),
        ("karpenter", lambda app: KarpenterPoolsChart(app, "c", cluster_name="training", node_role_name="node",
                                                      pools=[GPU_POOL, NEURON_POOL]), {"EC2NodeClass", "NodePool"}),
        ("slurm", lambda app: SlurmClusterChart(app, "c", cluster_name="ml", partitions=PARTITIONS),
         {"Controller", "NodeSet", "LoginSet", "RestApi", "Accounting"}),
        ("mpijob", lambda app: JobChart(app, "c", kind="mpijob", job=_job(), names=names), {"MPIJob"}),
        ("health-check", lambda app: JobChart(app, "c", kind="health-check", job=_job(), names=names), {"MPIJob"}),
        ("volcano-job", lambda app: JobChart(app, "c", kind="volcano-job", job=_job(), names=names), {"Job"}),
        ("rayjob", lambda app: JobChart(app, "c", kind="rayjob", job=_job(), names=names), {"RayJob"}),
        ("trainjob", lambda app: JobChart(app, "c", kind="trainjob", job=_job(), names=names), {"TrainJob"}),
        ("kueue", lambda app: KueueQueuesChart(app, "c", flavors=KUEUE_FLAVORS, queues=KUEUE_QUEUES),
         {"Topology", "ResourceFlavor", "Cohort", "ClusterQueue", "LocalQueue", "WorkloadPriorityClass"}),
        ("raycluster", lambda app: RayClusterChart(
            app, "c", namespace="training", name="ray", service_account_name="training",
            workers=RayGpuWorkers(instance_type="p4d.24xlarge", gpus_per_worker=8, cpu="90", memory="1000Gi")),
         {"RayCluster"}),
    ]


@pytest.mark.parametrize("make, typed_kinds", [c[1:] for c in _chart_cases()], ids=[c[0] for c in _chart_cases()])
def test_charts_emit_custom_resources_as_generated_classes(make, typed_kinds: set[str]) -> None:
    chart = make(cdk8s.App())
    seen = set()
    for api_object in chart.api_objects:
        expected = generated_class(api_object.api_version, api_object.kind)
        if expected is None:
            # A core object: a plain ApiObject, or the one inside a cdk8s-plus construct (plus's own k8s class).
            assert type(api_object) is cdk8s.ApiObject or type(api_object) is getattr(
                kplus.k8s, f"Kube{api_object.kind}", None), f"{api_object.kind} is a core object"
        else:
            assert type(api_object) is expected, f"{api_object.kind} {api_object.name} is {type(api_object).__name__}"
            seen.add(api_object.kind)
    assert seen == typed_kinds


def test_a_field_the_crd_does_not_define_fails_instead_of_vanishing() -> None:
    queue = volcano_queue(QUEUE)
    queue["spec"]["weigth"] = 2
    with pytest.raises(InvalidValue, match=r"^Queue 'llm' spec\.weigth=2 is not allowed: QueueSpec has no such field"):
        emit_object(cdk8s.Chart(cdk8s.App(), "c"), queue)


def test_wrong_values_fail_with_the_one_line_error() -> None:
    pool = node_pool(GPU_POOL)
    pool["spec"]["disruption"]["consolidationPolicy"] = "WhenIdle"
    with pytest.raises(InvalidValue, match=r"^NodePool 'gpu-p5' spec\.disruption\.consolidationPolicy='WhenIdle' is not "
                                           r"allowed: use one of WhenEmpty, WhenEmptyOrUnderutilized, Balanced$"):
        emit_object(cdk8s.Chart(cdk8s.App(), "c"), pool)
    queue = volcano_queue(QUEUE)
    queue["spec"]["weight"] = "heavy"
    with pytest.raises(InvalidValue, match=r"spec\.weight='heavy' is not allowed: use a number$"):
        emit_object(cdk8s.Chart(cdk8s.App(), "c"), queue)
    queue = volcano_queue(QUEUE)
    queue["spec"]["capability"] = ["cpu"]
    with pytest.raises(InvalidValue, match=r"spec\.capability=\['cpu'\] is not allowed: use a mapping"):
        emit_object(cdk8s.Chart(cdk8s.App(), "c"), queue)


def test_the_class_must_match_the_object_and_a_kind_without_class_is_refused() -> None:
    from eks_training.workloads.imports.sh.karpenter import NodePool

    chart = cdk8s.Chart(cdk8s.App(), "c")
    with pytest.raises(InvalidValue, match=r"^Queue 'llm' apiVersion='scheduling.volcano.sh/v1beta1' is not allowed: "
                                           r"NodePool is karpenter.sh/v1$"):
        emit_typed(chart, NodePool, volcano_queue(QUEUE))
    pod_group = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": "pg"}}
    with pytest.raises(InvalidValue, match=r"^PodGroup apiVersion='scheduling.volcano.sh/v1beta1' is not allowed"):
        emit_object(chart, pod_group)
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a.b/c": "d"}}
    assert type(emit_object(chart, config_map)) is cdk8s.ApiObject
    assert chart_objects(chart) == [config_map]


# --- the committed output is what `make imports` makes now ---------------------------------------------------------

def _record() -> dict:
    return json.loads((IMPORTS / generate.SOURCES_FILE).read_text(encoding="utf-8"))


def test_imports_were_generated_from_the_pinned_upstream_crds() -> None:
    record = _record()
    expected_groups = {s.group: {"module": s.module, "files": list(s.files), "versions": list(s.versions)}
                       for s in generate.SOURCES}
    assert record["groups"] == expected_groups, "generate.SOURCES changed since the last `make imports`: run it"
    assert set(record["crds"]) == {name for s in generate.SOURCES for name in s.files}
    pinned = {a.path.removeprefix("crds/"): a.sha256 for a in upstream.CRDS}
    stale = [name for name, digest in record["crds"].items() if pinned.get(name) != digest]
    assert stale == [], f"{stale}: the pinned CRD (eks_training.core.upstream) changed since the classes were generated: run `make imports`"


def test_imports_were_generated_by_the_pinned_cdk8s_cli() -> None:
    package = json.loads((REPO / "package.json").read_text(encoding="utf-8"))
    assert _record()["cdk8s-cli"] == package["devDependencies"]["cdk8s-cli"]


def test_every_generated_package_ships_in_the_wheel_with_its_assembly() -> None:
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    generated = {".".join(("eks_training.workloads.imports", *path.parent.relative_to(IMPORTS).parts))
                 for path in IMPORTS.rglob("__init__.py") if "__pycache__" not in path.parts}
    assert generated == {"eks_training.workloads.imports"} | {
        f"eks_training.workloads.imports.{s.module}{suffix}" for s in generate.SOURCES for suffix in ("", "._jsii")}
    assert generated <= set(setuptools["packages"])
    assert "*.jsii.tgz" in setuptools["package-data"]["*"]
    assert generate.SOURCES_FILE in setuptools["package-data"]["eks_training.workloads.imports"]
    for source in generate.SOURCES:
        assert list(IMPORTS.joinpath(*source.module.split("."), "_jsii").glob("*.jsii.tgz")), source.module


@pytest.mark.slow
def test_make_imports_reproduces_the_committed_classes(tmp_path: Path) -> None:
    """cdk8s import is deterministic: regenerating one group gives the committed files byte for byte."""
    crds = crds_folder()
    if not CDK8S_CLI.exists() or shutil.which("node") is None:
        pytest.skip("cdk8s-cli is not installed (npm install) or node is not on PATH")
    (source,) = [s for s in generate.SOURCES if s.group == "karpenter.sh"]
    generate.generate(crds, CDK8S_CLI, out=tmp_path, sources=(source,))
    package = Path(*source.module.split("."))

    def files(root: Path) -> dict[str, bytes]:
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / package).rglob("*"))
                if p.is_file() and "__pycache__" not in p.parts}

    regenerated, committed = files(tmp_path), files(IMPORTS)
    assert sorted(regenerated) == sorted(committed)
    assert [name for name in committed if regenerated[name] != committed[name]] == []
