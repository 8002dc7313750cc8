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
from eks_training.workloads.job_pods import LAUNCH_MODULE
from eks_training.workloads.job_trainjob import trainjob_pod_spec
from eks_training.workloads.jobs import JOB_KINDS
from support.fsx import assert_namespace_fsx
from support.k8s_schemas import validate_k8s_objects
from support.trainer_command import trainer_argv

ACCOUNT = "123456789012"
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
    return [argv for text in texts for line in text.splitlines() if (argv := trainer_argv(line)) is not None]


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
        assert config.checkpoint_dir == f"/fsx/workspace/checkpoints/{kind}"  # no name given: the kind's
        assert config.model == "small"  # the trainer's default too: one default everywhere
    if not isinstance(rendered, str):
        mounts = [m for obj in rendered for m in _all(obj, "volumeMounts")]
        claims = [v for obj in rendered for v in _all(obj, "volumes")]
        assert_namespace_fsx(claims, [m for m in mounts if m["name"].startswith("fsx")])


def test_two_jobs_of_different_kinds_never_share_a_checkpoint_folder(prod, prod_images):
    folders = {kind: {parse_config(argv).checkpoint_dir
                      for argv in trainer_argvs(render_job(prod.config, kind, namespace="training", images=prod_images,
                                                           dataset="wiki"))}
               for kind in TRAINING_KINDS}
    assert all(len(found) == 1 for found in folders.values()), folders
    assert len({found.pop() for found in folders.values()}) == len(TRAINING_KINDS), folders


def test_render_without_a_name_derives_a_unique_one_and_prints_it(prod, capsys):
    argv = ["render", "pytorch-job", "--env", "prod", "--namespace", "training", "--dataset", "wiki", "--image",
            "registry.example/t:1", "-o", "json"]
    names, folders = [], []
    for _ in range(2):
        assert main(argv) == 0
        captured = capsys.readouterr()
        (line,) = captured.err.splitlines()
        match = re.match(r"^job name: (pytorch-job-\d{4}-\d{6}-[0-9a-f]{4}) \(derived; its checkpoints: (\S+); "
                         r"render again with --name \1 to resume it\)$", line)
        assert match, line
        names.append(match.group(1))
        (argv_,) = trainer_argvs(json.loads(captured.out))
        folders.append(parse_config(argv_).checkpoint_dir)
        assert folders[-1] == match.group(2) == f"/fsx/workspace/checkpoints/{names[-1]}"
    assert names[0] != names[1] and folders[0] != folders[1]
    assert main([*argv, "--name", "llama-sft"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and parse_config(trainer_argvs(json.loads(captured.out))[0]).checkpoint_dir == \
        "/fsx/workspace/checkpoints/llama-sft"


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
    script = render_job(prod.config, "slurm-batch", namespace="training", images=prod_images, dataset="wiki")
    logs = [line.split("=", 1)[1] for line in script.splitlines() if line.startswith("#SBATCH --output=")]
    assert logs and logs[0].startswith("/fsx/workspace/"), "Slurm logs must land in the writable workspace"


@pytest.mark.parametrize("kind", sorted(set(JOB_KINDS) - {"slurm-batch", "bionemo"}))
def test_render_uses_the_environments_own_images(prod, prod_images, kind):
    out = io.StringIO()
    argv = ["render", kind, "--env", "prod", "--namespace", "training", "--dataset", "wiki", "--cdk-out", str(prod.outdir),
            "--account", ACCOUNT,
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
        render_job(prod.config, namespace="training", images=prod_images, **kwargs)
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_render_without_a_synthesized_app_says_what_to_do(prod, tmp_path):
    with pytest.raises(RenderError.__mro__[1]) as raised:
        environment_images(prod.config, cdk_out=tmp_path, account=ACCOUNT)
    assert "run `make synth ENV=prod` first" in str(raised.value)
    with pytest.raises(ValueError, match="^--account: the prod images live in the deploy account's ECR"):
        environment_images(prod.config, cdk_out=prod.outdir)


def test_data_prep_writes_where_training_reads(prod, prod_images):
    job, = render_job(prod.config, "data-prep", namespace="training", images=prod_images, dataset="wiki",
                      data_input="s3://corpus-bucket/raw/",
                      tokenizer="s3://corpus-bucket/tokenizer.json")
    command = job["spec"]["template"]["spec"]["containers"][0]["command"]
    # Pods cannot write the shared data: the output goes to the namespace's workspace, where a training job's
    # `--dataset workspace/wiki` reads it.
    output = command[command.index("--output") + 1]
    assert output == "/fsx/workspace/datasets/wiki"
    (trainer,) = trainer_argvs(render_job(prod.config, "pytorch-job", namespace="training", images=prod_images,
                                          dataset="workspace/wiki"))
    config = parse_config(trainer)
    assert (config.data, config.eval_data) == (f"{output}/train", f"{output}/eval")
    spec = job["spec"]["template"]["spec"]
    assert_namespace_fsx(spec["volumes"], spec["containers"][0]["volumeMounts"])
    validate_k8s_objects([job], kubernetes_versions=("1.31", "1.35"))


@pytest.mark.parametrize("kind", ["pytorch-job", "mpijob", "neuron-job"])
def test_health_check_runs_first_on_every_training_node(prod, prod_images, kind):
    rendered = render_job(prod.config, kind, namespace="training", images=prod_images, dataset="wiki", health_check=True)
    specs = [spec for obj in rendered for spec in _pod_specs(obj)
             if any("/" in name for c in spec["containers"] for name in c.get("resources", {}).get("limits", {}))]
    assert specs
    for spec in specs:
        assert spec["initContainers"][0]["name"] == "node-health-check"
    plain = render_job(prod.config, kind, namespace="training", images=prod_images, dataset="wiki")
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


@pytest.mark.parametrize(("data_input", "tokenizer"), [
    ("/fsx/corpus", "s3://corpus-bucket/tokenizer.json"),  # /fsx itself is not mounted, only its data and workspace
    ("/home/me/corpus", "s3://corpus-bucket/tokenizer.json"),
    ("s3://corpus-bucket/raw/", "/fsx/data/../etc/tokenizer.json"),
    ("s3://corpus-bucket/raw/", "/fsx/data/"),
])
def test_data_prep_refuses_inputs_its_pod_cannot_read(prod, prod_images, data_input, tokenizer):
    with pytest.raises(ValueError) as raised:
        render_job(prod.config, "data-prep", namespace="training", images=prod_images, dataset="wiki", data_input=data_input,
                   tokenizer=tokenizer)
    field, value = ("input", data_input) if not data_input.startswith("s3://") else ("tokenizer", tokenizer)
    assert str(raised.value) == (f"{field}={value!r} is not allowed: use s3://bucket/prefix or a path the pod mounts: "
                                 "under /fsx/data/ or /fsx/workspace/")


def test_data_prep_paths_it_accepts_are_mounted_and_its_split_flags_reach_the_command(prod, prod_images):
    job, = render_job(prod.config, "data-prep", namespace="training", images=prod_images, dataset="wiki",
                      data_input="/fsx/data/raw/books",
                      tokenizer="/fsx/workspace/tokenizers/tokenizer.json", eval_fraction=0.2, txt_document="line")
    container = job["spec"]["template"]["spec"]["containers"][0]
    command = container["command"]
    for flag in ("--input", "--tokenizer"):
        path = command[command.index(flag) + 1]
        assert any(path.startswith(mount["mountPath"] + "/") for mount in container["volumeMounts"]), path
    # The command is data prep's own: its parser reads the split flags as given.
    from eks_training.training.data_prep import _Parser, add_arguments, options_from_args

    parser = _Parser()
    add_arguments(parser)
    options = options_from_args(parser.parse_args(command[command.index("eks_training.training.data_prep") + 1:]))
    assert (options.eval_fraction, options.txt_document) == (0.2, "line")
    with pytest.raises(ValueError, match="^eval_fraction=1.5 is not allowed: use a number >= 0 and < 1"):
        render_job(prod.config, "data-prep", namespace="training", images=prod_images, dataset="wiki",
                   data_input="s3://corpus-bucket/raw/",
                   tokenizer="s3://corpus-bucket/t.json", eval_fraction=1.5)


def _emf_labels(stdout: str) -> set[tuple[str, str]]:
    records = [json.loads(line) for line in stdout.splitlines() if line.startswith('{"_aws"')]
    assert records, stdout[-2000:]
    return {(record["Namespace"], record["Job"]) for record in records}


def _fsx_with_a_dataset(root, dataset: str):
    from eks_training.training.data import synthetic_tokens, write_token_dir

    for split, seed in (("train", 1), ("eval", 2)):
        write_token_dir(root / "data" / dataset / split, [synthetic_tokens(3000, 256, seed=seed)], 256)
    (root / "workspace").mkdir()
    return root


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# What sshd (an MPI rank's parent) or a bare login hands a process: a fixed environment, none of the launcher's.
def _bare_env(tmp_path, **extra: str) -> dict[str, str]:
    import sys
    from pathlib import Path

    return {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8",
            "OMP_NUM_THREADS": "1", "PYTHONWARNINGS": "ignore", "CUDA_VISIBLE_DEVICES": "", **extra}


_LABELLED_RUN = ("--model tiny --seq-len 32 --micro-batch-size 2 --max-steps 1 --precision fp32 --emf true "
                 "--eval-batches 1")


@pytest.mark.slow
def test_metrics_carry_the_job_labels_through_mpirun(tmp_path):
    import subprocess

    from eks_training.workloads.job_mpi import mpi_job
    from eks_training.workloads.job_pods import TrainingJob

    job = TrainingJob(name="llm-mpi", namespace="ai-research", instance_type="g5.xlarge", nodes=1,
                      image="registry.example/trainer:1", dataset="wiki", train_args=tuple(_LABELLED_RUN.split()))
    obj = mpi_job(job)
    launcher = obj["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]
    command = launcher["command"]
    # The launcher's environment as the kubelet sets it (the downward API gives the object's namespace).
    launcher_env = {item["name"]: item.get("value", obj["metadata"]["namespace"]) for item in launcher.get("env", [])}
    index = command.index("mpirun")
    forwarded, index = {}, index + 1
    while command[index] != "python":  # Open MPI's options, up to the program it starts on every node
        if command[index] == "-x":
            name, _, value = command[index + 1].partition("=")
            if value or name in launcher_env:  # -x NAME forwards the launcher's value, when it has one
                forwarded[name] = value or launcher_env[name]
            index += 2
        else:
            index += 1 if command[index] == "--allow-run-as-root" else 2
    fsx, port = _fsx_with_a_dataset(tmp_path / "fsx", "wiki"), _free_port()
    argv = [re.sub(r"^--rdzv_endpoint=.*", f"--rdzv_endpoint=127.0.0.1:{port}", arg) for arg in command[index:]]
    argv = [str(fsx) + arg[4:] if arg.startswith("/fsx/") else arg for arg in argv]
    done = subprocess.run(argv, capture_output=True, text=True, env=_bare_env(tmp_path, **forwarded), timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    assert _emf_labels(done.stdout) == {("ai-research", "llm-mpi")}


@pytest.mark.slow
def test_metrics_carry_the_job_labels_through_the_sbatch_script(tmp_path):
    import subprocess

    from eks_training.workloads.job_pods import RENDEZVOUS_PORT, TrainingJob
    from eks_training.workloads.sbatch import sbatch_script

    job = TrainingJob(name="llm-slurm", namespace="slurm", instance_type="g5.xlarge", nodes=1,
                      image="registry.example/trainer:1", dataset="wiki", train_args=tuple(_LABELLED_RUN.split()))
    fsx, port = _fsx_with_a_dataset(tmp_path / "fsx", "wiki"), _free_port()
    script = sbatch_script(job, partition="gpu").replace("/fsx/", f"{fsx}/").replace(f":{RENDEZVOUS_PORT}", f":{port}")
    # Stand-ins for the two Slurm commands the script calls: srun starts its command with the script's environment
    # (Slurm's default --export=ALL), on the one node of this allocation.
    shims = tmp_path / "bin"
    shims.mkdir()
    (shims / "srun").write_text('#!/bin/sh\nexec "$@"\n')
    (shims / "scontrol").write_text("#!/bin/sh\necho 127.0.0.1\n")
    for shim in shims.iterdir():
        shim.chmod(0o755)
    env = _bare_env(tmp_path, SLURM_JOB_NODELIST="node-1", SLURM_NNODES="1", SLURM_JOB_ID="7")
    env["PATH"] = f"{shims}:{env['PATH']}"
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    assert _emf_labels(done.stdout) == {("slurm", "llm-slurm")}


def test_trainjob_runs_on_its_types_runtime_with_the_environments_gpu_image(prod, prod_images, prod_runtimes):
    trainjob, _budget = render_job(prod.config, "trainjob", namespace="training", images=prod_images, dataset="wiki", nodes=4)
    runtime = prod_runtimes[trainjob["spec"]["runtimeRef"]["name"]]
    pod = trainjob_pod_spec(trainjob, runtime)["spec"]
    # The runtime's own containers (the health gate) run the stack's GPU image: the tag is its inputs' hash.
    assert {c["image"].rsplit(":", 1)[1] for c in pod["initContainers"]} == {prod_images["gpu"].rsplit(":", 1)[1]}
    (node,) = pod["containers"]
    assert node["image"] == prod_images["gpu"] and node["command"][:4] == ["python", "-m", LAUNCH_MODULE, "torchrun"]
    assert node["resources"]["limits"]["nvidia.com/gpu"] == "8" and node["resources"]["limits"]["vpc.amazonaws.com/efa"] == "32"
    assert pod["serviceAccountName"] == "training" and pod["nodeSelector"] == {"node.kubernetes.io/instance-type": "p5.48xlarge"}
    # torchrun's static rendezvous comes from the PET_* variables Trainer sets; the TrainJob must not set them.
    assert not any(e["name"].startswith("PET_") for e in node["env"])
    assert trainjob["spec"]["trainer"]["numNodes"] == 4 and "--nnodes=4" in node["command"]
    validate_k8s_objects([trainjob, runtime], kubernetes_versions=("1.31", "1.35"))
