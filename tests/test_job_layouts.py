"""A 3D layout in every multi-node kind: the trainer's flags arrive as given, each node runs one rank per GPU, a
tensor-parallel group fits inside a node, every pod asks for the node's EFA interfaces, and the deploy check's
scheduling and Kueue stages still place the job on prod. Layouts a job's nodes cannot hold are refused in one line."""

from __future__ import annotations

import copy
import re
import shlex

import pytest

from eks_training.core.catalog import EFA_RESOURCE
from eks_training.infra.tools.check.placement import place, pod_templates
from eks_training.infra.tools.check.queues import queue_findings
from eks_training.infra.tools.check.snapshot import DEVICE_RESOURCES, load_snapshot
from eks_training.infra.tools.job_render import RenderError, render_job
from eks_training.training.config import parse_config
from eks_training.training.layout import Layout, check_launch
from eks_training.workloads.job_trainjob import trainjob_pod_spec
from support.trainer_command import trainer_argv

IMAGES = {"gpu": "check.invalid/gpu:1", "neuron": "check.invalid/neuron:1", "ray": "check.invalid/ray:1"}
#: The multi-node kinds that run our trainer on GPUs.
KINDS = ("pytorch-job", "mpijob", "volcano-job", "trainjob", "slurm-batch", "rayjob")
NODES, GPUS, EFA = 2, 8, 32  # p5.48xlarge: 8 H100s and 32 EFA interfaces per node
THREE_D = "--model 70b --seq-len 4096 --parallel fsdp --tensor-parallel 8 --pipeline-parallel 2 " \
          "--pipeline-schedule 1f1b --grad-accum 4 --activation-checkpointing true"


def _render(prod, kind: str, train_args: str = THREE_D, instance_type: str = "p5.48xlarge", nodes: int = NODES):
    return render_job(prod.config, kind, images=IMAGES, dataset="wiki", namespace="training",
                      instance_type=instance_type, nodes=nodes, train_args=train_args, name="llama-3d")


def _pods(prod, kind: str, rendered) -> list:
    """The pod templates of a rendered job; a TrainJob's is its runtime's pod with its command (what Trainer runs)."""
    runtimes = {obj["metadata"]["name"]: obj for _, obj in prod.kubernetes_objects()
                if obj["kind"] == "ClusterTrainingRuntime"}
    pods = []
    for obj in rendered:
        if obj["kind"] == "TrainJob":
            template = trainjob_pod_spec(obj, runtimes[obj["spec"]["runtimeRef"]["name"]])
            obj = {"kind": "Pod", "metadata": obj["metadata"], "spec": template["spec"]}
        pods += pod_templates(kind, obj)
    return pods


def _commands(rendered) -> list[str]:
    if isinstance(rendered, str):
        return rendered.splitlines()
    found = []

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("command", "args") and isinstance(value, list):
                    found.append(shlex.join(value))
                elif key == "entrypoint" and isinstance(value, str):
                    found.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(rendered)
    return found


def _ranks(kind: str, rendered, line: str) -> tuple[int, int]:
    """Nodes and ranks per node as the kind's launcher will start them."""
    if kind == "rayjob":
        # Ray Train starts --num-workers ranks, one per GPU of the worker pods (one pod per node).
        (job,) = [obj for obj in rendered if obj["kind"] == "RayJob"]
        (group,) = job["spec"]["rayClusterSpec"]["workerGroupSpecs"]
        gpus = int(group["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"])
        assert int(re.search(r"--num-workers=(\d+)", line).group(1)) == group["replicas"] * gpus
        return group["replicas"], gpus
    if kind == "trainjob":
        # Rendered beside its PodDisruptionBudget. Trainer's torch plugin starts numProcPerNode ranks per node: the
        # runtime of the type says one per GPU.
        (trainjob,) = [obj for obj in rendered if obj["kind"] == "TrainJob"]
        return trainjob["spec"]["trainer"]["numNodes"], GPUS
    nodes = re.search(r"--nnodes=(\S+)", line).group(1)
    per_node = int(re.search(r"--nproc_per_node=(\d+)", line).group(1))
    return (NODES if nodes == "$SLURM_NNODES" else int(nodes)), per_node


@pytest.mark.parametrize("kind", KINDS)
def test_a_3d_layout_renders_in_every_multi_node_kind(prod, kind: str) -> None:
    rendered = _render(prod, kind)
    lines = [(line, argv) for line in _commands(rendered) if (argv := trainer_argv(line)) is not None]
    assert lines, kind
    for line, argv in lines:
        config = parse_config(argv)
        assert (config.tensor_parallel, config.pipeline_parallel, config.parallel, config.model) == (8, 2, "fsdp", "70b")
        nodes, per_node = _ranks(kind, rendered, line)
        assert (nodes, per_node) == (NODES, GPUS), kind
        # Launchers number a node's ranks consecutively: tensor 8 of 8 ranks per node is one node's GPUs.
        assert check_launch(argv, nodes, per_node, "p5.48xlarge") == Layout(16, "fsdp", 8, 2, "1f1b")
    if kind == "slurm-batch":
        assert "#SBATCH --ntasks-per-node=1" in rendered and f"#SBATCH --gpus-per-node={GPUS}" in rendered
        assert "export FI_PROVIDER=efa" in rendered
        return
    gpu_pods = [pod for pod in _pods(prod, kind, rendered) if pod.accelerated]
    assert gpu_pods
    for pod in gpu_pods:
        for container in pod.spec["containers"]:
            limits = container["resources"]["limits"]
            if "nvidia.com/gpu" in limits:
                assert limits["nvidia.com/gpu"] == str(GPUS) and limits[EFA_RESOURCE] == str(EFA), (kind, limits)


def _advertised(snap):
    return {s.name: {*DEVICE_RESOURCES.get(s.accelerator or "", ()), *([EFA_RESOURCE] if s.efa else [])}
            for s in snap.node_sources}


def test_the_deploy_check_places_3d_jobs(prod) -> None:
    snap = load_snapshot(copy.deepcopy(prod.template))
    jobs = {kind: _render(prod, kind) for kind in KINDS if kind != "slurm-batch"}
    pods = [pod for kind, objs in jobs.items() for pod in _pods(prod, kind, objs)]
    placements = place(pods, snap.node_sources, _advertised(snap))
    assert placements and all(p.reachable for p in placements), [(p.pod.owner, p.rejected) for p in placements
                                                                  if not p.reachable]
    assert queue_findings(snap, jobs, _advertised(snap)) == []


@pytest.mark.parametrize(("kind", "train_args", "instance_type", "message"), [
    # A tensor group wider than a node would run its per-layer collectives over EFA.
    ("pytorch-job", "--tensor-parallel 16", "p5.48xlarge", "--tensor-parallel=16 is not allowed: a divisor of the 8 "
     "ranks per node of p5.48xlarge, so each tensor-parallel group stays inside one node"),
    ("rayjob", "--model 8b --tensor-parallel 3", "p5.48xlarge", "--tensor-parallel=3 is not allowed"),
    ("mpijob", "--model 1b --pipeline-parallel 32 --grad-accum 32", "p5.48xlarge",
     "--pipeline-parallel=32 is not allowed: a divisor of the world size 16"),
    ("slurm-batch", "--model 8b --pipeline-parallel 2", "p5.48xlarge", "--grad-accum=1 is not allowed: at least "
     "--pipeline-parallel 2"),
    ("volcano-job", "--parallel fsdp --shard-group-size 3", "p5.48xlarge", "--shard-group-size=3 is not allowed"),
    # 1b ties its output layer to the embedding (Llama-3.2-1B): data parallel only.
    ("slurm-batch", "--model 1b --pipeline-parallel 2 --grad-accum 2", "p5.48xlarge", "--pipeline-parallel=2 is "
     "not allowed: 1 for a model whose output layer shares the input embedding"),
    ("pytorch-job", "--model tiny-moe --expert-parallel 3", "p5.48xlarge", "--expert-parallel=3 is not allowed"),
    # Neuron runs data parallel only in this trainer.
    ("neuron-job", "--tensor-parallel 2", "trn1.32xlarge", "--tensor-parallel=2 is not allowed: 1 on trn1.32xlarge"),
    ("neuron-job", "--parallel fsdp", "trn1.32xlarge", "--parallel='fsdp' is not allowed: ddp on trn1.32xlarge"),
])
def test_a_layout_the_nodes_cannot_hold_is_refused_in_one_line(prod, kind, train_args, instance_type, message):
    with pytest.raises(RenderError) as refused:
        _render(prod, kind, train_args, instance_type)
    text = str(refused.value)
    assert text.startswith("--train-args: ") and message in text and "\n" not in text, text
