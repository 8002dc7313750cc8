"""Stopped jobs keep their work: every rendered job of a kind that saves on SIGTERM (``JobKind.saves_on_stop``) gives
its trainer the time to save, restarts it without counting the saved stop as a failure, and is shielded from
voluntary disruption.

Per training pod template: ``terminationGracePeriodSeconds`` at least the smallest grace period, the trainer under the
launcher (exit 75 on a saved stop; torchrun alone exits 1), torchrun's shutdown wait inside the grace period, and
Karpenter's do-not-disrupt. Per job: a PodDisruptionBudget that allows no eviction, and the restart rule of its
controller that treats exit 75 as "resume": a batch Job's podFailurePolicy (Ignore), a Volcano policy (RestartJob on
the exit code), a TrainJob's runtime (FailJob on 75 in the node Job, RestartJobSetAndIgnoreMaxRestarts in the JobSet),
an MPIJob's launcher that runs mpirun again after its workers' saved stop (``--workers-port``) and is restarted in
place otherwise (OnFailure; MPI Operator 0.8 has no exit-code rule, so those restarts, and a stop of the launcher pod
itself, count against runPolicy.backoffLimit, which must not be 0). An MPIJob's workers run sshd under the process
that passes SIGTERM on to the trainers mpirun started there. A Ray cluster's head and workers run `ray start` under
the process that holds it for the trainers' save (KubeRay keeps that command only with its overwrite annotation),
with the cluster's stop folder; a RayJob's driver is our Ray Train entry point (it fits again after a saved stop) with a
fixed run name and a backoffLimit, so a lost head resubmits and resumes.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from eks_training.core.preemption import (
    DO_NOT_DISRUPT_ANNOTATION,
    EXIT_RESUME,
    STOP_DIR_ENV,
    STOP_WAIT_ENV,
    TORCHRUN_SHUTDOWN_ENV,
)
from eks_training.workloads.job_mpi import HOLD_FLAG, LAUNCHER_RESTART_POLICY, SSH_WORKER_MODULE, WORKERS_PORT_FLAG
from eks_training.workloads.job_pods import DISRUPTION_BUDGET_MAX_UNAVAILABLE, LAUNCH_MODULE, MIN_GRACE_PERIOD_S
from eks_training.workloads.job_ray import RAY_TRAIN_MODULE
from eks_training.workloads.job_trainjob import trainjob_pod_spec
from eks_training.workloads.kuberay import OVERWRITE_COMMAND_ANNOTATION, RAY_NODE_MODULE
from eks_training.workloads.jobs import JOB_KINDS

Finding = tuple[str, str, str]  # (subject, field, message)


def stop_findings(jobs: Mapping[str, list[dict]], runtimes: Mapping[str, dict]) -> list[Finding]:
    """What keeps a stopped job of ``jobs`` (kind -> rendered objects) from saving and resuming; ``runtimes``: the
    app's ClusterTrainingRuntimes by name (a TrainJob's pods and restart rules are its runtime's)."""
    findings: list[Finding] = []
    for kind_name, objects in jobs.items():
        kind = JOB_KINDS.get(kind_name)
        if kind is None or not kind.saves_on_stop:
            continue
        trained = False
        for obj in objects:
            subject = f"job {kind_name}: {obj.get('kind')} {(obj.get('metadata') or {}).get('name')}"
            templates = list(_training_templates(obj, runtimes))
            for label, template in templates:
                pod = _served_pod_findings(template) if label == _MPI_WORKER else \
                    _ray_pod_findings(template) if label.startswith(_RAY_POD) else _pod_findings(template)
                findings += [(f"{subject}{label}", f, m) for f, m in pod]
            if templates:
                trained = True
                findings += [(subject, f, m) for f, m in _restart_findings(obj, runtimes)]
        budgets = [o for o in objects if o.get("kind") == "PodDisruptionBudget"
                   and (o.get("spec") or {}).get("maxUnavailable") == DISRUPTION_BUDGET_MAX_UNAVAILABLE]
        if trained and not budgets:
            findings.append((f"job {kind_name}", "PodDisruptionBudget",
                             f"none with maxUnavailable {DISRUPTION_BUDGET_MAX_UNAVAILABLE}: without one a drain evicts "
                             "all of the job's pods at once, before its ranks can agree to save; with 0 an EKS node "
                             "group update waits 15 minutes and fails"))
    return findings


#: An MPIJob's worker: its trainers are started over SSH by the launcher's mpirun, not by its own command.
_MPI_WORKER = " replica Worker"
#: A Ray cluster's pod: its trainers are Ray actors, started by the raylet of `ray start`.
_RAY_POD = " Ray "


def _training_templates(obj: Mapping[str, Any], runtimes: Mapping[str, dict]) -> Iterator[tuple[str, dict]]:
    kind, spec = obj.get("kind"), obj.get("spec") or {}
    if kind == "Job" and "tasks" in spec:  # Volcano
        for task in spec["tasks"]:
            yield f" task {task.get('name')}", task.get("template") or {}
    elif kind == "Job":
        yield "", spec.get("template") or {}
    elif kind == "TrainJob":
        runtime = runtimes.get((spec.get("runtimeRef") or {}).get("name"))
        if runtime is not None:  # a missing runtime is the queues check's finding
            yield " (its runtime's pod)", trainjob_pod_spec(obj, runtime)
    elif kind == "MPIJob":
        for role, replica in (spec.get("mpiReplicaSpecs") or {}).items():
            yield f" replica {role}", replica.get("template") or {}
    elif kind in ("RayCluster", "RayJob"):
        cluster = spec.get("rayClusterSpec") or {} if kind == "RayJob" else spec
        yield f"{_RAY_POD}head", (cluster.get("headGroupSpec") or {}).get("template") or {}
        for group in cluster.get("workerGroupSpecs") or []:
            yield f"{_RAY_POD}worker group {group.get('groupName')}", group.get("template") or {}


def _env(container: Mapping[str, Any]) -> dict:
    """A container's environment as its trainers see it: mpirun's ``-x NAME=VALUE`` sets it on the workers."""
    env = {e.get("name"): e.get("value") for e in container.get("env") or []}
    command = container.get("command") or []
    env.update(value.split("=", 1) for flag, value in zip(command, command[1:]) if flag == "-x" and "=" in value)
    return env


def _served_pod_findings(template: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """An MPIJob worker: the grace period and do-not-disrupt as any training pod, and sshd under the process that
    passes SIGTERM on to the trainers started below it."""
    yield from (f for f in _pod_findings(template) if f[0] in ("terminationGracePeriodSeconds", "metadata.annotations"))
    if not any(SSH_WORKER_MODULE in (c.get("command") or []) for c in (template.get("spec") or {}).get("containers") or []):
        yield ("containers.command", f"no container runs sshd under {SSH_WORKER_MODULE}: sshd exits on SIGTERM at "
               "once and the container's end kills the trainers mid-step")


def _ray_pod_findings(template: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """A Ray head or worker: the grace period and do-not-disrupt as any training pod, and `ray start` under the
    process that holds it until the trainers saved."""
    yield from (f for f in _pod_findings(template) if f[0] in ("terminationGracePeriodSeconds", "metadata.annotations"))
    grace = (template.get("spec") or {}).get("terminationGracePeriodSeconds")
    if ((template.get("metadata") or {}).get("annotations") or {}).get(OVERWRITE_COMMAND_ANNOTATION) != "true":
        yield ("metadata.annotations", f"no {OVERWRITE_COMMAND_ANNOTATION}: \"true\": KubeRay replaces the "
               "container's command with its own `ray start`, which ends every Ray process at once on SIGTERM")
    for container in (template.get("spec") or {}).get("containers") or []:
        env, name = _env(container), container.get("name")
        if (container.get("command") or [])[:3] != ["python", "-m", RAY_NODE_MODULE]:
            yield (f"containers[{name}].command", f"`ray start` not under {RAY_NODE_MODULE}: SIGTERM ends the "
                   "trainers mid-step, losing the work since the last periodic checkpoint")
        if not env.get(STOP_DIR_ENV):
            yield (f"containers[{name}].env", f"no {STOP_DIR_ENV}: the pod cannot ask the trainers to save")
        wait = env.get(STOP_WAIT_ENV)
        if isinstance(grace, int) and not (isinstance(wait, str) and wait.isdigit() and int(wait) < grace):
            yield (f"containers[{name}].env", f"{STOP_WAIT_ENV}={wait!r}: the pod must hold Ray for the save less "
                   f"than the grace period ({grace} s)")


def _pod_findings(template: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    spec, meta = template.get("spec") or {}, template.get("metadata") or {}
    grace = spec.get("terminationGracePeriodSeconds")
    if not isinstance(grace, int) or grace < MIN_GRACE_PERIOD_S:
        yield ("terminationGracePeriodSeconds", f"{grace!r}: the trainer's save on SIGTERM needs at least "
               f"{MIN_GRACE_PERIOD_S} s (Kubernetes' default 30 s SIGKILLs a larger model mid-save)")
    if (meta.get("annotations") or {}).get(DO_NOT_DISRUPT_ANNOTATION) != "true":
        yield ("metadata.annotations", f"no {DO_NOT_DISRUPT_ANNOTATION}: \"true\": Karpenter may consolidate or "
               "replace the node under a running job")
    trainers = [c for c in spec.get("containers") or [] if LAUNCH_MODULE in (c.get("command") or [])]
    if not trainers:
        yield ("containers.command", f"no container runs the trainer under {LAUNCH_MODULE}: torchrun alone exits 1 "
               f"after a saved stop, so the job cannot tell a stop ({EXIT_RESUME}) from a failure")
    for container in trainers if isinstance(grace, int) else ():  # (a missing grace period is its own finding)
        wait = _env(container).get(TORCHRUN_SHUTDOWN_ENV)
        if not (isinstance(wait, str) and wait.isdigit() and int(wait) < grace):
            yield (f"containers[{container.get('name')}].env", f"{TORCHRUN_SHUTDOWN_ENV}={wait!r}: torchrun must "
                   f"wait for its saving workers less than the grace period ({grace!r} s; its default is 30 s)")


def _exit_rule(rules: list, action: str) -> bool:
    return any(r.get("action") == action and (r.get("onExitCodes") or {}).get("operator") == "In"
               and EXIT_RESUME in ((r.get("onExitCodes") or {}).get("values") or []) for r in rules)


def _restart_findings(obj: Mapping[str, Any], runtimes: Mapping[str, dict]) -> Iterator[tuple[str, str]]:
    kind, spec = obj.get("kind"), obj.get("spec") or {}
    if kind == "Job" and "tasks" in spec:
        if not any(p.get("exitCode") == EXIT_RESUME and p.get("action") == "RestartJob"
                   for p in spec.get("policies") or []):
            yield ("spec.policies", f"no RestartJob on exitCode {EXIT_RESUME}: a saved stop ends the job instead "
                   "of resuming it")
    elif kind == "Job":
        if not _exit_rule((spec.get("podFailurePolicy") or {}).get("rules") or [], "Ignore"):
            yield ("spec.podFailurePolicy", f"no Ignore rule for exit code {EXIT_RESUME}: every saved stop uses up "
                   "the Job's backoff limit")
    elif kind == "TrainJob":
        runtime = runtimes.get((spec.get("runtimeRef") or {}).get("name")) or {}
        jobset = (runtime.get("spec") or {}).get("template", {}).get("spec") or {}
        rules = (jobset.get("failurePolicy") or {}).get("rules") or []
        if not any(r.get("action") == "RestartJobSetAndIgnoreMaxRestarts"
                   and "PodFailurePolicy" in (r.get("onJobFailureReasons") or []) for r in rules):
            yield ("runtime failurePolicy.rules", "no RestartJobSetAndIgnoreMaxRestarts on PodFailurePolicy: every "
                   "saved stop uses up maxRestarts")
        for replicated in jobset.get("replicatedJobs") or []:
            job_spec = (replicated.get("template") or {}).get("spec") or {}
            if not _exit_rule((job_spec.get("podFailurePolicy") or {}).get("rules") or [], "FailJob"):
                yield (f"runtime replicatedJobs[{replicated.get('name')}].podFailurePolicy",
                       f"no FailJob rule for exit code {EXIT_RESUME}: a saved stop is not told from a failure")
    elif kind == "MPIJob":
        launcher = (spec.get("mpiReplicaSpecs") or {}).get("Launcher") or {}
        if launcher.get("restartPolicy") != LAUNCHER_RESTART_POLICY:
            yield ("spec.mpiReplicaSpecs.Launcher.restartPolicy", f"{launcher.get('restartPolicy')!r}, not "
                   f"{LAUNCHER_RESTART_POLICY!r}: a launcher that exits {EXIT_RESUME} after a saved stop is not "
                   "started again")
        containers = ((launcher.get("template") or {}).get("spec") or {}).get("containers") or []
        held = ["python", "-m", LAUNCH_MODULE, HOLD_FLAG]
        if not any((c.get("command") or [])[:4] == held for c in containers):
            yield ("spec.mpiReplicaSpecs.Launcher.command", f"mpirun not under {LAUNCH_MODULE} {HOLD_FLAG}: told to "
                   "stop, mpirun tears down the SSH sessions its workers' trainers save in")
        elif not any((c.get("command") or [])[:5] == [*held, WORKERS_PORT_FLAG] for c in containers):
            yield ("spec.mpiReplicaSpecs.Launcher.command", f"no {WORKERS_PORT_FLAG} after {HOLD_FLAG}: a drained "
                   f"worker's saved stop ({EXIT_RESUME}) ends the launcher and uses up the MPIJob's backoff limit")
        if (spec.get("runPolicy") or {}).get("backoffLimit") == 0:
            yield ("spec.runPolicy.backoffLimit", "0: the first stop of the launcher pod (a Kueue preemption, its node "
                   "drained) fails the MPIJob (the Job counts a deleted pod as failed)")
    elif kind == "RayJob":
        entrypoint = str(spec.get("entrypoint") or "")
        if f"-m {RAY_TRAIN_MODULE}" not in entrypoint or "--run-name=" not in entrypoint:
            yield ("spec.entrypoint", f"not {RAY_TRAIN_MODULE} with --run-name: the driver must fit again after a "
                   "saved stop and find the run's checkpoints when it is submitted again")
        if not spec.get("backoffLimit"):
            yield ("spec.backoffLimit", f"{spec.get('backoffLimit')!r}: a lost head (the driver's pod) ends the job "
                   "instead of submitting it again to resume from its newest checkpoint")
