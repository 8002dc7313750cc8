"""Job builders rendered for the prod environment: schema-valid, and the facts that make multi-node training work."""

from __future__ import annotations

import cdk8s
import pytest

from eks_training.core.catalog import INSTANCE_TYPES
from eks_training.workloads.job_pods import TrainingJob
from eks_training.workloads.job_charts import JobChart
from eks_training.workloads.jobs import JOB_KINDS, PlacementNames
from eks_training.workloads.sbatch import sbatch_script
from support.k8s_schemas import chart_objects, validate_k8s_objects

NAMES = PlacementNames(queue="ml-training-queue", partition="gpu-a100")
K8S_KINDS = [k for k, kind in JOB_KINDS.items() if not kind.is_script and kind.accelerator != "none"]


def _job(kind: str, **overrides) -> TrainingJob:
    spec = JOB_KINDS[kind]
    options = dict(name="llm", namespace="training", image="repo/trainer:1",
                   instance_type="trn1.32xlarge" if spec.accelerator == "neuron" else "p4d.24xlarge",
                   nodes=4 if spec.multi_node else 1,
                   checkpoint_s3_uri=None if kind.startswith("ray") or kind == "trainjob" else "s3://ckpt-bucket/llm")
    return TrainingJob(**{**options, **overrides})


def _render(kind: str, **overrides) -> list[dict]:
    return chart_objects(JobChart(cdk8s.App(), "j", kind=kind, job=_job(kind, **overrides), names=NAMES))


def _pod_specs(obj: dict) -> list[dict]:
    spec = obj["spec"]
    if obj["kind"] == "MPIJob":
        return [r["template"]["spec"] for r in spec["mpiReplicaSpecs"].values()]
    if obj["kind"] == "Job" and "tasks" in spec:
        return [t["template"]["spec"] for t in spec["tasks"]]
    if obj["kind"] == "Job":
        return [spec["template"]["spec"]]
    return []


@pytest.mark.parametrize("kind", K8S_KINDS)
def test_every_kind_validates_and_is_labelled(kind: str) -> None:
    objs = validate_k8s_objects(_render(kind), kubernetes_versions=("1.31", "1.35"))
    for obj in objs:
        assert obj["metadata"]["labels"]["app.kubernetes.io/part-of"] == "eks-training"
        assert obj["metadata"]["labels"]["app.kubernetes.io/component"]


@pytest.mark.parametrize("kind", ["mpijob", "volcano-job", "pytorch-job", "neuron-job"])
def test_workers_request_every_efa_interface_and_accelerator_of_the_catalog(kind: str) -> None:
    job = _job(kind)
    facts = INSTANCE_TYPES[job.instance_type]
    workers = [s for obj in _render(kind) for s in _pod_specs(obj) if "nodeSelector" in s]
    assert workers
    for spec in workers:
        limits = spec["containers"][0]["resources"]["limits"]
        assert limits["vpc.amazonaws.com/efa"] == str(facts.efa_interfaces)
        assert limits[facts.resource_name] == str(facts.accelerators)
        env = {e["name"]: e.get("value") for e in spec["containers"][0]["env"]}
        assert env["FI_PROVIDER"] == "efa" and env["FI_EFA_USE_DEVICE_RDMA"] == "1" and env["RDMAV_FORK_SAFE"] == "1"
        assert {"name": "dshm", "emptyDir": {"medium": "Memory"}} in spec["volumes"]
        assert spec["tolerations"][0]["key"] == ("aws.amazon.com/neuron" if facts.accelerator == "neuron" else "nvidia.com/gpu")


def test_p4d_has_4_efa_and_trn1_has_8_per_catalog_and_design() -> None:
    # DESIGN.md facts: p4d 4 EFA, trn1 8; the workers above take what the catalog says.
    assert (INSTANCE_TYPES["p4d.24xlarge"].efa_interfaces, INSTANCE_TYPES["trn1.32xlarge"].efa_interfaces) == (4, 8)


def test_volcano_job_gangs_all_replicas_and_restarts_on_eviction() -> None:
    obj, budget = _render("volcano-job", nodes=6)
    spec = obj["spec"]
    assert spec["minAvailable"] == 6 == spec["tasks"][0]["replicas"]
    assert spec["queue"] == "ml-training-queue" and "svc" in spec["plugins"]
    assert [(p.get("event"), p.get("exitCode"), p["action"]) for p in spec["policies"]] == [
        (None, 75, "RestartJob"), ("PodEvicted", None, "RestartJob"), ("PodFailed", None, "RestartJob")]
    assert budget["kind"] == "PodDisruptionBudget" and budget["spec"]["selector"]["matchLabels"] == {
        "volcano.sh/job-name": obj["metadata"]["name"]}
    command = spec["tasks"][0]["template"]["spec"]["containers"][0]["command"]
    assert "--nnodes=6" in command and "--nproc_per_node=8" in command
    assert "--rdzv_endpoint=llm-worker-0.llm:29500" in command


def test_neuron_job_is_indexed_with_rank0_dns_and_completion_index_rank() -> None:
    service, job, _budget = _render("neuron-job", nodes=4)
    assert service["spec"]["clusterIP"] == "None"
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed" and spec["completions"] == spec["parallelism"] == 4
    pod = spec["template"]["spec"]
    assert pod["subdomain"] == service["metadata"]["name"] == "llm"
    trainer = pod["containers"][0]
    assert "--master_addr=llm-0.llm" in trainer["command"] and "--node_rank=$(NODE_RANK)" in trainer["command"]
    assert "--nproc_per_node=32" in trainer["command"]
    rank = next(e for e in trainer["env"] if e["name"] == "NODE_RANK")
    assert "job-completion-index" in rank["valueFrom"]["fieldRef"]["fieldPath"]
    assert not any("status.podIP" in str(e) for e in trainer["env"])
    precompile = next(c for c in pod["initContainers"] if c["name"] == "neuron-precompile")
    # The trainer runs under the launcher (exit 75 on a saved stop); the precompile pass runs torchrun bare.
    assert precompile["command"][:2] == ["neuron_parallel_compile", "torchrun"]
    assert trainer["command"][:4] == ["python", "-m", "eks_training.training.launch", "torchrun"]
    (cache,) = [m for m in trainer["volumeMounts"] if m["mountPath"] == "/var/tmp/neuron-compile-cache"]
    (volume,) = [v for v in pod["volumes"] if v["name"] == cache["name"]]
    assert volume["persistentVolumeClaim"]["claimName"] == "fsx-workspace"  # the namespace's writable workspace


def test_checkpoint_sidecar_is_a_native_sidecar() -> None:
    obj = next(o for o in _render("mpijob") if o["kind"] == "MPIJob")
    worker = obj["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]
    sidecar = worker["initContainers"][0]
    assert sidecar["restartPolicy"] == "Always"
    assert sidecar["command"][:3] == ["python", "-m", "eks_training.training.checkpoint_sync"]
    assert sidecar["command"][sidecar["command"].index("--s3-uri") + 1] == "s3://ckpt-bucket/llm"


def test_sbatch_runs_one_torchrun_per_node() -> None:
    script = sbatch_script(_job("slurm-batch", nodes=3), partition="gpu-a100")
    lines = script.splitlines()
    assert "#SBATCH --ntasks-per-node=1" in lines and "#SBATCH --nodes=3" in lines
    (srun,) = [line for line in lines if line.startswith("srun ")]
    assert "--nnodes=$SLURM_NNODES" in srun and "--nproc_per_node=8" in srun and "--ntasks" not in srun
    assert "--rdzv_endpoint=$head_node:29500" in srun
    assert any(line.startswith("#SBATCH --output=/fsx/") for line in lines)
    assert "#SBATCH --requeue" in lines and "#SBATCH --signal=TERM@600" in lines  # the default grace period


@pytest.mark.parametrize(("srun_exit", "script_exit", "requeued"), [(75, 0, True), (1, 1, False), (0, 0, False)])
def test_sbatch_requeues_a_saved_stop_and_passes_a_failure_on(tmp_path, srun_exit, script_exit, requeued) -> None:
    import subprocess

    script = sbatch_script(_job("slurm-batch", nodes=2, checkpoint_s3_uri=None), partition="gpu-a100").replace(
        "/fsx/", f"{tmp_path}/")
    shims = tmp_path / "bin"
    shims.mkdir()
    # srun: the launcher's exit status (75: the trainers saved on SIGTERM); scontrol: records what it is asked.
    (shims / "srun").write_text(f"#!/bin/sh\nexit {srun_exit}\n")
    (shims / "scontrol").write_text(f'#!/bin/sh\necho "$@" >> {tmp_path}/scontrol.log\necho node-1\n')
    for shim in shims.iterdir():
        shim.chmod(0o755)
    env = {"PATH": f"{shims}:/usr/bin:/bin", "SLURM_JOB_NODELIST": "node-[1-2]", "SLURM_NNODES": "2", "SLURM_JOB_ID": "42"}
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=30)
    assert done.returncode == script_exit, done.stderr
    calls = (tmp_path / "scontrol.log").read_text().splitlines()
    assert ("requeue 42" in calls) is requeued, calls


def test_bionemo_takes_8_gpus_configmap_and_models_claim() -> None:
    (obj,) = _render("bionemo", image="nvcr.io/nvidia/clara/bionemo-framework:2.0")
    pod = obj["spec"]["template"]["spec"]
    assert pod["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "8"
    assert pod["containers"][0]["image"] == "nvcr.io/nvidia/clara/bionemo-framework:2.0"
    assert {"name": "configs", "configMap": {"name": "llm-config"}} in pod["volumes"]
    assert {"name": "model-cache", "persistentVolumeClaim": {"claimName": "models"}} in pod["volumes"]


@pytest.mark.parametrize(("overrides", "message"), [
    ({"name": "Bad_Name"}, "name='Bad_Name'"),
    ({"instance_type": "m5.large"}, "instance_type='m5.large' is not allowed: use a supported accelerated instance type"),
    ({"nodes": 0}, "nodes=0"),
    ({"image": "not an image"}, "image='not an image'"),
    ({"checkpoint_s3_uri": "http://x"}, "checkpoint_s3_uri='http://x'"),
    # A dataset is "<name>" (shared data) or "workspace/<name>" (the namespace's own); the error shows what was given.
    ({"dataset": "workspace/Bad_Name"}, "dataset='workspace/Bad_Name' is not allowed: use a dataset name"),
    ({"dataset": "workspace/"}, "dataset='workspace/' is not allowed: use a dataset name"),
    ({"dataset": "team/wiki"}, "dataset='team/wiki' is not allowed: .*workspace/<name>"),
])
def test_bad_job_inputs_give_one_line_errors(overrides: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message) as err:
        _job("mpijob", **overrides)
    assert "\n" not in str(err.value)


def test_gpu_kind_refuses_a_trainium_type() -> None:
    with pytest.raises(ValueError, match="mpijob needs a GPU"):
        _render("mpijob", instance_type="trn1.32xlarge")


@pytest.mark.parametrize("field", ["input", "tokenizer"])
@pytest.mark.parametrize("value", ["relative/corpus", "http://example.com/corpus", "s3://B/x", None,
                                   "/fsx/tokenizers/llama", "/fsx/data", "/fsx/workspace/../../etc"])
def test_data_prep_refuses_a_source_its_pod_cannot_read(field: str, value: object) -> None:
    from eks_training.core.validation import InvalidValue
    from eks_training.workloads.job_data_prep import DataPrepJob

    sources = {"input": "s3://corpus-bucket/raw/", "tokenizer": "/fsx/data/tokenizers/llama", field: value}
    with pytest.raises(InvalidValue) as caught:
        DataPrepJob(name="prep", namespace="ml", image="repo/trainer:1", dataset="wiki", **sources)
    assert (caught.value.field, caught.value.value) == (field, value)
    assert caught.value.allowed == "use s3://bucket/prefix or a path the pod mounts: under /fsx/data/ or /fsx/workspace/"
    DataPrepJob(name="prep", namespace="ml", image="repo/trainer:1", dataset="wiki",
                **{**sources, field: "s3://corpus-bucket/raw/" if field == "input" else "/fsx/workspace/tokenizers/x"})


@pytest.mark.parametrize(("chart_name", "kind", "options"), [
    ("PyTorchJobChart", "pytorch-job", {}),
    ("NeuronJobChart", "neuron-job", {"precompile_steps": 10}),  # the kind precompiles 10 steps
    ("MpiJobChart", "mpijob", {}),
    ("VolcanoJobChart", "volcano-job", {"queue": NAMES.queue}),
    ("BioNemoJobChart", "bionemo", {}),
    ("HealthCheckChart", "health-check", {}),
])
def test_each_kinds_own_chart_writes_what_the_kind_renders(chart_name, kind, options) -> None:
    # The per-kind charts take the builder's own options; with none given they write exactly what JobChart does.
    import eks_training.workloads.job_charts as job_charts

    chart = getattr(job_charts, chart_name)(cdk8s.App(), "j", job=_job(kind), **options)
    assert validate_k8s_objects(chart_objects(chart)) == _render(kind)


@pytest.mark.parametrize("kind", ["mpijob", "volcano-job", "pytorch-job", "neuron-job"])
def test_gpu_trainers_with_efa_log_nccls_network_where_the_trainer_checks_it(kind: str) -> None:
    """EFA or nothing (training/fabric.py): the trainer reads NCCL's INFO lines of INIT and NET from the file
    NCCL_DEBUG_FILE names, and refuses TCP only where EKS_TRAINING_REQUIRE_EFA is 1. Neuron runs no NCCL."""
    from eks_training.training.fabric import debug_file_path

    gpu = JOB_KINDS[kind].accelerator == "nvidia"
    trainers = [c for obj in _render(kind) for s in _pod_specs(obj) if "nodeSelector" in s for c in s["containers"]]
    assert trainers
    for container in trainers:
        env = {e["name"]: e.get("value") for e in container["env"]}
        if not gpu:
            assert "EKS_TRAINING_REQUIRE_EFA" not in env and "NCCL_DEBUG_FILE" not in env and env["NCCL_DEBUG"] == "WARN"
            continue
        assert (env["NCCL_DEBUG"], env["NCCL_DEBUG_SUBSYS"], env["EKS_TRAINING_REQUIRE_EFA"]) == ("INFO", "INIT,NET", "1")
        assert debug_file_path(env["NCCL_DEBUG_FILE"], host="llm-worker-0", pid=7).name == "nccl-llm-worker-0-7.log"
    if kind == "mpijob":
        # mpirun hands the launcher's -x variables to every rank.
        obj = next(o for o in _render(kind) if o["kind"] == "MPIJob")
        launcher = obj["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]
        assert "EKS_TRAINING_REQUIRE_EFA=1" in " ".join(launcher.get("command", []) + launcher.get("args", []))
    # A level the user raised stays theirs, with every subsystem.
    if gpu:
        env = {e["name"]: e.get("value") for obj in _render(kind, nccl_debug="TRACE") for s in _pod_specs(obj)
               if "nodeSelector" in s for e in s["containers"][0]["env"]}
        assert env["NCCL_DEBUG"] == "TRACE" and "NCCL_DEBUG_SUBSYS" not in env


def test_slurm_batch_exports_the_same_nccl_and_efa_environment() -> None:
    script = sbatch_script(_job("slurm-batch", instance_type="p4d.24xlarge"), partition="gpu-a100")
    for line in ("export NCCL_DEBUG=INFO", "export NCCL_DEBUG_SUBSYS=INIT,NET",
                 "export NCCL_DEBUG_FILE=/tmp/nccl-%h-%p.log", "export EKS_TRAINING_REQUIRE_EFA=1",
                 "export FI_PROVIDER=efa"):
        assert line in script.splitlines(), line
