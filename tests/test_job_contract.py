"""The contract between rendered jobs and the trainer: every command parses with the trainer's own parser, reads a
dataset and writes checkpoints on the FSx volume its pod mounts, and runs one of the environment's own images."""

from __future__ import annotations

import io
import json
import re
import shlex
from contextlib import redirect_stdout

import pytest

from eks_training.infra.tools.cli import main
from eks_training.infra.tools.images import environment_images
from eks_training.infra.tools.job_render import RenderError, render_job
from eks_training.training.config import parse_config
from eks_training.workloads.job_trainjob import trainjob_pod_spec
from eks_training.workloads.jobs import JOB_KINDS
from support.fsx import assert_namespace_fsx
from support.k8s_schemas import validate_k8s_objects

ACCOUNT = "123456789012"
TRAINER = "eks_training.training.train"
RAY_TRAINER = "eks_training.training.ray_train"
#: Kinds that run something else than our trainer (nccl-tests, BioNeMo's entry point, data preparation, a bare cluster).
NOT_THE_TRAINER = {"health-check", "bionemo", "data-prep", "raycluster"}  # raycluster: a cluster jobs are sent to
TRAINING_KINDS = sorted(set(JOB_KINDS) - NOT_THE_TRAINER)


@pytest.fixture(scope="module")
def prod_images(prod):
    return environment_images(prod.config, cdk_out=prod.outdir, account=ACCOUNT)


@pytest.fixture(scope="module")
def prod_runtimes(prod):
    """The ClusterTrainingRuntimes prod installs, by name."""
    return {obj["metadata"]["name"]: obj for _, obj in prod.kubernetes_objects() if obj["kind"] == "ClusterTrainingRuntime"}


def as_run(rendered, runtimes):
    """The rendered objects with each TrainJob replaced by the pod template Trainer runs for it (its runtime's pod
    with the TrainJob's image, command and env): the pods are what mount volumes and run commands."""
    if isinstance(rendered, str):
        return rendered
    return [trainjob_pod_spec(obj, runtimes[obj["spec"]["runtimeRef"]["name"]]) if obj["kind"] == "TrainJob" else obj
            for obj in rendered]


def _strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        if node and all(isinstance(x, str) for x in node):
            yield shlex.join(node)
        for value in node:
            yield from _strings(value)


def trainer_argvs(rendered) -> list[list[str]]:
    """The trainer's argv in every command of ``rendered`` (objects or an sbatch script), ray options removed."""
    texts = [rendered] if isinstance(rendered, str) else [t for obj in rendered for t in _strings(obj)]
    found = []
    for text in texts:
        for line in text.splitlines():
            for module in (TRAINER, RAY_TRAINER):
                if f"-m {module}" not in line and f"'-m' '{module}'" not in line:
                    continue
                tokens = shlex.split(line)
                start = tokens.index(module) + 1
                argv = []
                for token in tokens[start:]:
                    if token in ("&&", ";", "|", "||", "&"):
                        break
                    argv.append(token)
                if module == RAY_TRAINER:
                    argv = [a for a in argv if not re.match(r"^--(num-workers|storage-path)=|^--use-gpu$", a)]
                found.append(argv)
    return found


@pytest.mark.parametrize("kind", TRAINING_KINDS)
def test_every_training_kind_parses_with_the_trainers_parser_and_uses_the_mounted_volume(prod, prod_images,
                                                                                        prod_runtimes, kind):
    rendered = as_run(render_job(prod.config, kind, images=prod_images, dataset="wiki", namespace="ai-research"),
                      prod_runtimes)
    argvs = trainer_argvs(rendered)
    assert argvs, f"{kind}: no trainer command found"
    for argv in argvs:
        config = parse_config(argv)
        # The shared data (read-only) and the namespace's own workspace: the two FSx claims every pod mounts.
        assert config.data == "/fsx/data/wiki/train" and config.eval_data == "/fsx/data/wiki/eval"
        assert config.checkpoint_dir == "/fsx/workspace/checkpoints/train"
        assert config.model == "1b"
    if not isinstance(rendered, str):
        mounts = [m for obj in rendered for m in _all(obj, "volumeMounts")]
        claims = [v for obj in rendered for v in _all(obj, "volumes")]
        assert_namespace_fsx(claims, [m for m in mounts if m["name"].startswith("fsx")])


def _all(node, key):
    if isinstance(node, dict):
        for k, value in node.items():
            if k == key and isinstance(value, list):
                yield from value
            else:
                yield from _all(value, key)
    elif isinstance(node, list):
        for value in node:
            yield from _all(value, key)


def test_slurm_nodesets_mount_fsx_where_the_sbatch_script_points(prod, prod_images):
    nodesets = [obj for _, obj in prod.kubernetes_objects() if obj["kind"] == "NodeSet"]
    assert nodesets
    for nodeset in nodesets:
        assert_namespace_fsx(nodeset["spec"]["template"]["spec"]["volumes"], nodeset["spec"]["slurmd"]["volumeMounts"])
    script = render_job(prod.config, "slurm-batch", images=prod_images, dataset="wiki")
    logs = [line.split("=", 1)[1] for line in script.splitlines() if line.startswith("#SBATCH --output=")]
    assert logs and logs[0].startswith("/fsx/workspace/"), "Slurm logs must land in the writable workspace"


@pytest.mark.parametrize("kind", sorted(set(JOB_KINDS) - {"slurm-batch", "bionemo"}))
def test_render_uses_the_environments_own_images(prod, prod_images, kind):
    out = io.StringIO()
    argv = ["render", kind, "--env", "prod", "--dataset", "wiki", "--cdk-out", str(prod.outdir), "--account", ACCOUNT,
            "-o", "json"]
    if kind == "data-prep":
        argv += ["--data-input", "s3://corpus-bucket/raw/", "--tokenizer", "s3://corpus-bucket/tokenizer.json"]
    with redirect_stdout(out):
        assert main(argv) == 0
    rendered = json.loads(out.getvalue())
    images = {c["image"] for obj in rendered for c in (*_all(obj, "containers"), *_all(obj, "initContainers"))}
    # A TrainJob names its image for the runtime's trainer container.
    images |= {obj["spec"]["trainer"]["image"] for obj in rendered if obj["kind"] == "TrainJob"}
    assert images and images <= set(prod_images.values())
    # Pinned: the tag is the hash of the image's inputs, in the deploy account's bootstrap repository.
    for image in images:
        assert re.match(rf"^{ACCOUNT}\.dkr\.ecr\.us-west-2\.amazonaws\.com/cdk-hnb659fds-container-assets-{ACCOUNT}-us-west-2:[0-9a-f]{{64}}$", image)


def test_prod_builds_every_variant_it_runs(prod_images, prod):
    assert set(prod_images) == {"gpu", "neuron", "ray", "slurmd"}
    outputs = prod.template.get("Outputs", {})
    assert {"GpuImageUri", "NeuronImageUri", "RayImageUri", "SlurmdImageUri"} <= set(outputs)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"kind_name": "mpijob"}, "--dataset: mpijob trains on a prepared dataset"),
    ({"kind_name": "data-prep", "dataset": "wiki"}, "--data-input: data-prep needs it"),
    ({"kind_name": "data-prep", "dataset": "wiki", "data_input": "s3://b/x"}, "--tokenizer: data-prep needs it"),
    ({"kind_name": "mpijob", "dataset": "Wiki Text"}, "dataset='Wiki Text'"),
    ({"kind_name": "mpijob", "dataset": "wiki", "model": "huge model"}, "model='huge model' is not allowed"),
])
def test_bad_job_arguments_are_one_line(prod, prod_images, kwargs, message):
    with pytest.raises(ValueError) as raised:
        render_job(prod.config, images=prod_images, **kwargs)
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_render_without_a_synthesized_app_says_what_to_do(prod, tmp_path):
    with pytest.raises(RenderError.__mro__[1]) as raised:
        environment_images(prod.config, cdk_out=tmp_path, account=ACCOUNT)
    assert "run `make synth ENV=prod` first" in str(raised.value)
    with pytest.raises(ValueError, match="^--account: the prod images live in the deploy account's ECR"):
        environment_images(prod.config, cdk_out=prod.outdir)


def test_data_prep_writes_where_training_reads(prod, prod_images):
    job, = render_job(prod.config, "data-prep", images=prod_images, dataset="wiki", data_input="s3://corpus-bucket/raw/",
                      tokenizer="s3://corpus-bucket/tokenizer.json")
    command = job["spec"]["template"]["spec"]["containers"][0]["command"]
    # Pods cannot write the shared data: the output goes to the namespace's workspace, where a training job's
    # `--dataset workspace/wiki` reads it.
    output = command[command.index("--output") + 1]
    assert output == "/fsx/workspace/datasets/wiki"
    (trainer,) = trainer_argvs(render_job(prod.config, "pytorch-job", images=prod_images, dataset="workspace/wiki"))
    config = parse_config(trainer)
    assert (config.data, config.eval_data) == (f"{output}/train", f"{output}/eval")
    spec = job["spec"]["template"]["spec"]
    assert_namespace_fsx(spec["volumes"], spec["containers"][0]["volumeMounts"])
    validate_k8s_objects([job], kubernetes_versions=("1.31", "1.35"))


@pytest.mark.parametrize("kind", ["pytorch-job", "mpijob", "neuron-job"])
def test_health_check_runs_first_on_every_training_node(prod, prod_images, kind):
    rendered = render_job(prod.config, kind, images=prod_images, dataset="wiki", health_check=True)
    specs = [spec for obj in rendered for spec in _pod_specs(obj)
             if any("/" in name for c in spec["containers"] for name in c.get("resources", {}).get("limits", {}))]
    assert specs
    for spec in specs:
        assert spec["initContainers"][0]["name"] == "node-health-check"
    plain = render_job(prod.config, kind, images=prod_images, dataset="wiki")
    assert "node-health-check" not in json.dumps(plain)


def _pod_specs(node):
    """Every pod spec (a dict with containers) inside a rendered object."""
    if isinstance(node, dict):
        if isinstance(node.get("containers"), list):
            yield node
        for value in node.values():
            yield from _pod_specs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _pod_specs(value)


def test_trainjob_runs_on_its_types_runtime_with_the_environments_gpu_image(prod, prod_images, prod_runtimes):
    (trainjob,) = render_job(prod.config, "trainjob", images=prod_images, dataset="wiki", nodes=4)
    runtime = prod_runtimes[trainjob["spec"]["runtimeRef"]["name"]]
    pod = trainjob_pod_spec(trainjob, runtime)["spec"]
    # The runtime's own containers (the health gate) run the stack's GPU image: the tag is its inputs' hash.
    assert {c["image"].rsplit(":", 1)[1] for c in pod["initContainers"]} == {prod_images["gpu"].rsplit(":", 1)[1]}
    (node,) = pod["containers"]
    assert node["image"] == prod_images["gpu"] and node["command"][0] == "torchrun"
    assert node["resources"]["limits"]["nvidia.com/gpu"] == "8" and node["resources"]["limits"]["vpc.amazonaws.com/efa"] == "32"
    assert pod["serviceAccountName"] == "training" and pod["nodeSelector"] == {"node.kubernetes.io/instance-type": "p5.48xlarge"}
    # torchrun's static rendezvous comes from the PET_* variables Trainer sets; the TrainJob must not set them.
    assert not any(e["name"].startswith("PET_") for e in node["env"])
    assert trainjob["spec"]["trainer"]["numNodes"] == 4 and "--nnodes=4" in node["command"]
    validate_k8s_objects([trainjob, runtime], kubernetes_versions=("1.31", "1.35"))
