"""Stopped jobs keep their work, on the rendered objects: every kind whose trainers save on SIGTERM carries the grace
period, the launcher, the restart rule that treats exit 75 as "resume", do-not-disrupt and a PodDisruptionBudget;
Kueue preemption and Volcano reclaim stop such a job through SIGTERM and start it again; the deploy check names each
piece that is missing."""

from __future__ import annotations

import copy
import math

import pytest

from eks_training.infra.tools.check.deploy_check import render_all_jobs
from eks_training.infra.tools.check.queues import kueue_objects
from eks_training.infra.tools.check.snapshot import load_snapshot
from eks_training.infra.tools.check.stopping import stop_findings
from eks_training.infra.tools.job_render import render_job
from eks_training.training.model_sizes import MODEL_SIZES
from eks_training.workloads.job_trainjob import trainjob_pod_spec
from eks_training.workloads.jobs import JOB_KINDS

IMAGES = {"gpu": "registry.example/gpu:1", "neuron": "registry.example/neuron:1", "ray": "registry.example/ray:1"}
TORCHRUN_KINDS = {"pytorch-job", "neuron-job", "volcano-job", "trainjob", "mpijob"}
RAY_KINDS = {"raycluster", "rayjob"}
SAVING_KINDS = TORCHRUN_KINDS | RAY_KINDS
LAUNCH = ["python", "-m", "eks_training.training.launch"]


@pytest.fixture(scope="module")
def prod_jobs(prod):
    return render_all_jobs(prod.config)


@pytest.fixture(scope="module")
def runtimes(prod):
    return kueue_objects(load_snapshot(copy.deepcopy(prod.template))).runtimes


def _pods(obj, runtimes):
    spec = obj["spec"]
    if obj["kind"] == "TrainJob":
        return [trainjob_pod_spec(obj, runtimes[spec["runtimeRef"]["name"]])]
    if "tasks" in spec:
        return [task["template"] for task in spec["tasks"]]
    if obj["kind"] == "MPIJob":
        return [spec["mpiReplicaSpecs"]["Launcher"]["template"]]
    return [spec["template"]] if obj["kind"] == "Job" else []


def test_the_kinds_that_save_on_stop_are_every_multi_node_training_kind():
    assert {name for name, kind in JOB_KINDS.items() if kind.saves_on_stop} == SAVING_KINDS
    # The rest: one-node kinds, the health check (no trainer) and the sbatch script (Slurm's --requeue, not a pod).
    assert {name for name, kind in JOB_KINDS.items() if not kind.saves_on_stop} == {
        "slurm-batch", "bionemo", "data-prep", "health-check"}


def test_every_saving_kind_prod_renders_carries_all_of_it_and_the_check_passes(prod, prod_jobs, runtimes):
    assert SAVING_KINDS <= set(prod_jobs)
    assert stop_findings(prod_jobs, runtimes) == []
    for kind in TORCHRUN_KINDS:
        objects = prod_jobs[kind]
        pods = [pod for obj in objects for pod in _pods(obj, runtimes)]
        assert pods, kind
        for pod in pods:
            assert pod["metadata"]["annotations"]["karpenter.sh/do-not-disrupt"] == "true", kind
            grace = pod["spec"]["terminationGracePeriodSeconds"]
            (trainer,) = [c for c in pod["spec"]["containers"] if "eks_training.training.launch" in c["command"]]
            command = trainer["command"]
            if kind == "mpijob":  # mpirun starts the launcher on every node, with the shutdown wait in -x
                from eks_training.training.launch import HOLD_FLAG, WORKERS_PORT_FLAG

                # ... under a launcher that keeps SIGTERM from mpirun (the workers' pods are stopped and save) and
                # runs it again once a stopped worker's sshd (the image's port 2222) is back.
                assert command[:7] == [*LAUNCH, HOLD_FLAG, WORKERS_PORT_FLAG, "2222", "mpirun"], command[:7]
                start = command.index("python", 1)
                assert command[start:start + 3] == LAUNCH
                env = dict(v.split("=", 1) for f, v in zip(command, command[1:start]) if f == "-x" and "=" in v)
            else:
                assert command[:3] == LAUNCH, kind
                env = {e["name"]: e.get("value") for e in trainer["env"]}
            assert 0 < int(env["TORCH_ELASTIC_SHUTDOWN_TIMEOUT"]) < grace, kind
        (budget,) = [obj for obj in objects if obj["kind"] == "PodDisruptionBudget"]
        assert budget["spec"]["maxUnavailable"] == 1 and budget["metadata"]["namespace"] == objects[0]["metadata"]["namespace"]


def _ray_cluster_spec(obj):
    return obj["spec"]["rayClusterSpec"] if obj["kind"] == "RayJob" else obj["spec"]


def _ray_templates(obj):
    spec = _ray_cluster_spec(obj)
    return [spec["headGroupSpec"]["template"], *(g["template"] for g in spec["workerGroupSpecs"])]


@pytest.mark.parametrize("kind", sorted(RAY_KINDS))
def test_a_ray_clusters_pods_hold_ray_for_the_save_and_one_budget_covers_them(prod_jobs, kind):
    objects = prod_jobs[kind]
    (cluster,) = [obj for obj in objects if obj["kind"] in ("RayCluster", "RayJob")]
    (budget,) = [obj for obj in objects if obj["kind"] == "PodDisruptionBudget"]
    assert budget["spec"]["maxUnavailable"] == 1
    name = cluster["metadata"]["name"]
    stop_dirs = set()
    for template in _ray_templates(cluster):
        meta, spec = template["metadata"], template["spec"]
        # KubeRay's own command (`ray start --block`) would end the trainers at once; it keeps ours only so.
        assert meta["annotations"] == {"ray.io/overwrite-container-cmd": "true", "karpenter.sh/do-not-disrupt": "true"}
        assert budget["spec"]["selector"]["matchLabels"].items() <= meta["labels"].items()
        grace = spec["terminationGracePeriodSeconds"]
        (container,) = spec["containers"]
        assert container["command"] == ["python", "-m", "eks_training.training.ray_node"]
        env = {e["name"]: e["value"] for e in container["env"]}
        assert int(env["EKS_TRAINING_STOP_WAIT_S"]) == grace - 10
        stop_dirs.add(env["EKS_TRAINING_STOP_DIR"])
    # One folder for the whole cluster, on the shared file system, the job's own.
    assert stop_dirs == {f"/fsx/workspace/ray-results/{name}/stop"}
    if kind == "rayjob":
        entrypoint = cluster["spec"]["entrypoint"]
        assert f"-m eks_training.training.ray_train" in entrypoint and f"--run-name={name}" in entrypoint
        assert cluster["spec"]["backoffLimit"] >= 1


@pytest.mark.parametrize(("model", "nodes"), [("70b", 2), ("8b", 4), ("tiny", 2)])
def test_the_grace_period_is_the_documented_formula_of_the_models_checkpoint(prod, model, nodes):
    objects = render_job(prod.config, "pytorch-job", namespace="training", images=IMAGES, dataset="wiki",
                         instance_type="p5.48xlarge", nodes=nodes, model=model)
    (job,) = [obj for obj in objects if obj["kind"] == "Job"]
    # 90 s margin + the node's share of fp32 weights and two AdamW moments (12 bytes a parameter) at 1 GB/s.
    expected = 90 + math.ceil(MODEL_SIZES[model].parameters * 12 / nodes / 1e9)
    assert job["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == expected
    if model == "70b":
        assert expected == 514  # 70.6e9 x 12 / 2 nodes / 1 GB/s = 424 s to write, plus the margin


def test_preemption_and_reclaim_stop_through_sigterm_and_start_again(prod, prod_jobs, runtimes):
    # Kueue preempts by suspending the job: the Job controller deletes its pods (SIGTERM, the grace period), which
    # saved pods leave with 75; the Workload is requeued and, readmitted, unsuspends the Job, which resumes.
    queues = [obj for _, obj in load_snapshot(copy.deepcopy(prod.template)).objects() if obj["kind"] == "ClusterQueue"]
    assert queues and all(q["spec"]["preemption"]["withinClusterQueue"] == "LowerPriority" for q in queues)
    (job,) = [obj for obj in prod_jobs["pytorch-job"] if obj["kind"] == "Job"]
    assert job["spec"]["suspend"] is True  # queued: Kueue owns start and stop
    rules = job["spec"]["podFailurePolicy"]["rules"]
    assert {"action": "Ignore", "onExitCodes": {"containerName": "trainer", "operator": "In", "values": [75]}} in rules
    assert {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]} in rules
    # Volcano's reclaim evicts the pods of a reclaimable queue: evicted or saved, the whole job restarts.
    (volcano,) = [obj for obj in prod_jobs["volcano-job"] if obj["kind"] == "Job"]
    actions = {(p.get("event"), p.get("exitCode")): p["action"] for p in volcano["spec"]["policies"]}
    assert actions[(None, 75)] == actions[("PodEvicted", None)] == "RestartJob"
    # A TrainJob's saved stop fails its node Job by podFailurePolicy, which the JobSet restarts outside maxRestarts.
    (trainjob,) = [obj for obj in prod_jobs["trainjob"] if obj["kind"] == "TrainJob"]
    jobset = runtimes[trainjob["spec"]["runtimeRef"]["name"]]["spec"]["template"]["spec"]
    assert {"name": "resume", "action": "RestartJobSetAndIgnoreMaxRestarts",
            "onJobFailureReasons": ["PodFailurePolicy"]} in jobset["failurePolicy"]["rules"]


def test_an_mpijobs_workers_hold_their_pod_for_the_save_and_its_launcher_restarts_in_place(prod_jobs):
    (mpijob,) = [obj for obj in prod_jobs["mpijob"] if obj["kind"] == "MPIJob"]
    replicas = mpijob["spec"]["mpiReplicaSpecs"]
    worker = replicas["Worker"]["template"]
    assert worker["metadata"]["annotations"]["karpenter.sh/do-not-disrupt"] == "true"
    assert worker["spec"]["terminationGracePeriodSeconds"] >= 30
    (container,) = worker["spec"]["containers"]
    assert container["command"] == ["python", "-m", "eks_training.training.ssh_worker", "/usr/sbin/sshd", "-De"]
    # The launcher waits, after a worker's saved stop, for the port that makes a worker Ready (and so resolvable).
    launcher_command = replicas["Launcher"]["template"]["spec"]["containers"][0]["command"]
    port = launcher_command[launcher_command.index("--workers-port") + 1]
    assert int(port) == container["readinessProbe"]["tcpSocket"]["port"]
    # MPI Operator 0.8 sets the launcher pod's restartPolicy from the replica's (the template's is overridden).
    assert replicas["Launcher"]["restartPolicy"] == "OnFailure"
    assert "restartPolicy" not in replicas["Launcher"]["template"]["spec"]
    assert mpijob["spec"]["runPolicy"].get("backoffLimit") != 0
    # The operator labels the launcher's and the workers' pods with the job's name: the budget covers both.
    (budget,) = [obj for obj in prod_jobs["mpijob"] if obj["kind"] == "PodDisruptionBudget"]
    assert budget["spec"]["selector"]["matchLabels"] == {"training.kubeflow.org/job-name": mpijob["metadata"]["name"]}


def _mpi(objs, role):
    return next(o for o in objs if o["kind"] == "MPIJob")["spec"]["mpiReplicaSpecs"][role]


def _without(jobs, kind, change):
    changed = copy.deepcopy(jobs)
    change(changed[kind])
    return changed


def _pod_spec_of(objects):
    return next(o for o in objects if o["kind"] == "Job")["spec"]["template"]


@pytest.mark.parametrize(("kind", "change", "field"), [
    ("pytorch-job", lambda objs: _pod_spec_of(objs)["spec"].pop("terminationGracePeriodSeconds"),
     "terminationGracePeriodSeconds"),
    ("pytorch-job", lambda objs: _pod_spec_of(objs)["metadata"].pop("annotations"), "metadata.annotations"),
    ("pytorch-job", lambda objs: _pod_spec_of(objs)["spec"]["containers"][0].update(
        command=_pod_spec_of(objs)["spec"]["containers"][0]["command"][3:]), "containers.command"),
    ("pytorch-job", lambda objs: next(o for o in objs if o["kind"] == "Job")["spec"].pop("podFailurePolicy"),
     "spec.podFailurePolicy"),
    ("pytorch-job", lambda objs: objs.remove(next(o for o in objs if o["kind"] == "PodDisruptionBudget")),
     "PodDisruptionBudget"),
    ("mpijob", lambda objs: _mpi(objs, "Worker")["template"]["spec"]["containers"][0].update(
        command=["/usr/sbin/sshd", "-De"]), "containers.command"),
    ("mpijob", lambda objs: _mpi(objs, "Worker")["template"]["metadata"].pop("annotations"), "metadata.annotations"),
    ("mpijob", lambda objs: _mpi(objs, "Launcher")["template"]["spec"].pop("terminationGracePeriodSeconds"),
     "terminationGracePeriodSeconds"),
    ("mpijob", lambda objs: _mpi(objs, "Launcher").update(restartPolicy="Never"),
     "spec.mpiReplicaSpecs.Launcher.restartPolicy"),
    ("mpijob", lambda objs: _mpi(objs, "Launcher")["template"]["spec"]["containers"][0]["command"].remove("--hold"),
     "spec.mpiReplicaSpecs.Launcher.command"),
    ("mpijob", lambda objs: _mpi(objs, "Launcher")["template"]["spec"]["containers"][0].update(command=[
        a for a in _mpi(objs, "Launcher")["template"]["spec"]["containers"][0]["command"]
        if a not in ("--workers-port", "2222")]), "spec.mpiReplicaSpecs.Launcher.command"),
    ("mpijob", lambda objs: next(o for o in objs if o["kind"] == "MPIJob")["spec"]["runPolicy"].update(backoffLimit=0),
     "spec.runPolicy.backoffLimit"),
    ("mpijob", lambda objs: _mpi(objs, "Launcher")["template"]["spec"]["containers"][0].update(command=[
        a for a in _mpi(objs, "Launcher")["template"]["spec"]["containers"][0]["command"]
        if not a.startswith("TORCH_ELASTIC_SHUTDOWN_TIMEOUT=")]), "containers[launcher].env"),
    ("mpijob", lambda objs: objs.remove(next(o for o in objs if o["kind"] == "PodDisruptionBudget")),
     "PodDisruptionBudget"),
    ("volcano-job", lambda objs: objs[0]["spec"].update(
        policies=[p for p in objs[0]["spec"]["policies"] if "exitCode" not in p]), "spec.policies"),
    ("rayjob", lambda objs: _ray_templates(objs[0])[1]["metadata"]["annotations"].pop(
        "ray.io/overwrite-container-cmd"), "metadata.annotations"),
    ("rayjob", lambda objs: _ray_templates(objs[0])[0]["metadata"]["annotations"].pop("karpenter.sh/do-not-disrupt"),
     "metadata.annotations"),
    ("rayjob", lambda objs: _ray_templates(objs[0])[1]["spec"].pop("terminationGracePeriodSeconds"),
     "terminationGracePeriodSeconds"),
    ("rayjob", lambda objs: _ray_templates(objs[0])[1]["spec"]["containers"][0].pop("command"),
     "containers[ray-worker].command"),
    ("rayjob", lambda objs: _ray_templates(objs[0])[0]["spec"]["containers"][0].update(env=[
        e for e in _ray_templates(objs[0])[0]["spec"]["containers"][0]["env"] if e["name"] != "EKS_TRAINING_STOP_DIR"]),
     "containers[ray-head].env"),
    ("raycluster", lambda objs: _ray_templates(objs[0])[1]["spec"]["containers"][0]["env"][-1].update(value="600"),
     "containers[ray-worker].env"),
    ("rayjob", lambda objs: objs[0]["spec"].update(backoffLimit=0), "spec.backoffLimit"),
    ("rayjob", lambda objs: objs[0]["spec"].update(entrypoint="python train.py"), "spec.entrypoint"),
    ("rayjob", lambda objs: objs.remove(next(o for o in objs if o["kind"] == "PodDisruptionBudget")),
     "PodDisruptionBudget"),
    ("raycluster", lambda objs: _ray_templates(objs[0])[0]["spec"]["containers"][0].update(
        command=["/bin/bash", "-lc", "--"]), "containers[ray-head].command"),
])
def test_each_missing_piece_is_a_finding_naming_its_field(prod_jobs, runtimes, kind, change, field):
    findings = stop_findings(_without(prod_jobs, kind, change), runtimes)
    assert [f for _, f, _ in findings] == [field], findings
    assert all(subject.startswith(f"job {kind}") for subject, _, _ in findings)


def test_a_runtime_that_counts_saved_stops_is_a_finding(prod_jobs, runtimes):
    changed = copy.deepcopy(runtimes)
    for runtime in changed.values():
        runtime["spec"]["template"]["spec"]["failurePolicy"].pop("rules")
    findings = stop_findings({"trainjob": prod_jobs["trainjob"]}, changed)
    assert [(f, m.split(":")[0]) for _, f, m in findings] == [
        ("runtime failurePolicy.rules", "no RestartJobSetAndIgnoreMaxRestarts on PodFailurePolicy")]
