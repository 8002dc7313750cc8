"""MPIJob (`kubeflow.org/v2beta1`, MPI Operator 0.8): the source document's multi-node GPU job, done right.

The launcher runs `mpirun` with one process per node (`--map-by ppr:1:node`); each of those starts
`torchrun`, which spawns one trainer per GPU and meets the others by c10d rendezvous on worker 0. Workers run
sshd (the launcher reaches them over SSH with the keys the operator mounts), own their whole node, and
request every EFA interface of the instance type.
"""

from __future__ import annotations

from eks_training.workloads.job_pods import (
    TrainingJob,
    restricted,
    c10d_rendezvous,
    LAUNCH_MODULE,
    disruption_budget,
    fabric_env,
    job_identity_env,
    resumable,
    torchrun_command,
    training_container,
    training_pod_metadata,
    training_pod_spec,
)
from eks_training.workloads.k8s_objects import check_int
from eks_training.workloads.labels import common_labels
from eks_training.core.names import MPI_LAUNCHER_SERVICE_ACCOUNT
from eks_training.core.preemption import TORCHRUN_SHUTDOWN_ENV, torchrun_shutdown_seconds

COMPONENT = "mpi-operator"
MPIJOB_API = "kubeflow.org/v2beta1"
_FINISHED_JOB_TTL_SECONDS = 86400
#: The label the operator puts on the launcher's and the workers' pods (the job's name): the budget's selector.
JOB_NAME_LABEL = "training.kubeflow.org/job-name"
#: A worker's first process: passes SIGTERM to the trainers mpirun started below sshd and waits for their save.
SSH_WORKER_MODULE = "eks_training.training.ssh_worker"
#: The launcher's flag that keeps SIGTERM from mpirun (training.launch.HOLD_FLAG; workloads/ does not import training/).
HOLD_FLAG = "--hold"
#: The launcher's flag that runs mpirun again after a saved stop of the workers alone, once every worker listens on
#: the given port again (training.launch.WORKERS_PORT_FLAG).
WORKERS_PORT_FLAG = "--workers-port"


#: Restart the launcher's container in place when it exits non-zero (a failure; 75 after its workers stayed away).
LAUNCHER_RESTART_POLICY = "OnFailure"


def worker_host(job: TrainingJob, index: int) -> str:
    """DNS name the operator gives worker `index` (headless Service named after the job)."""
    return f"{job.name}-worker-{index}.{job.name}.{job.namespace}.svc"


#: The training image's user home and sshd port (training/Dockerfile.gpu: user trainer, uid 1000, sshd on 2222).
IMAGE_SSH_DIR = "/home/trainer/.ssh"
IMAGE_SSH_PORT = 2222


def mpi_job(job: TrainingJob, *, slots_per_worker: int | None = None) -> dict:
    """The MPIJob object for `job` on GPU nodes; `slots_per_worker` defaults to the GPUs per node."""
    facts = job.require_accelerator("mpijob", "nvidia")
    slots = facts.accelerators if slots_per_worker is None else check_int(
        "slots_per_worker", slots_per_worker, minimum=1, maximum=facts.accelerators
    )
    env_flags = [flag for item in fabric_env(job) for flag in ("-x", f"{item['name']}={item['value']}")]
    # Ranks started over SSH get only sshd's fixed environment: the metrics' job labels travel with -x, which
    # forwards the launcher's own values (its env below, the namespace from the downward API).
    identity = job_identity_env(job)
    env_flags += [flag for item in identity for flag in ("-x", item["name"])]
    # torchrun's wait for its saving workers must end inside the worker pod's grace period.
    shutdown = f"{TORCHRUN_SHUTDOWN_ENV}={torchrun_shutdown_seconds(job.grace_period_s)}"
    env_flags += ["-x", shutdown]
    # Held: the workers' pods are stopped with it and save; mpirun, signalled, would tear their sessions down. Every
    # run of mpirun waits for the workers' sshd, and a saved stop of workers alone (a drained node) runs mpirun again
    # once they are back, without leaving the container.
    launcher_command = [
        "python", "-m", LAUNCH_MODULE, HOLD_FLAG, WORKERS_PORT_FLAG, str(IMAGE_SSH_PORT),
        "mpirun", "--allow-run-as-root",
        "-np", str(job.nodes), "--map-by", "ppr:1:node", "--bind-to", "none",
        *env_flags,
        # Each node's torchrun under the launcher: a node whose trainers saved on SIGTERM exits 75 (resume).
        *resumable(torchrun_command(job, *c10d_rendezvous(job, worker_host(job, 0)))),
    ]
    launcher = {
        "name": "launcher",
        "image": job.image,
        "command": launcher_command,
        "env": identity,
        "resources": {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"cpu": "2", "memory": "4Gi"}},
    }
    # The launcher needs no accelerator and runs on any node; the operator's RBAC for it is in mpi_operator.py.
    # The launcher's restart policy is the replica spec's (the operator overrides the template's, with a warning).
    launcher_template = {
        "metadata": training_pod_metadata(common_labels(COMPONENT)),
        "spec": restricted({"serviceAccountName": MPI_LAUNCHER_SERVICE_ACCOUNT,
                            "terminationGracePeriodSeconds": job.grace_period_s, "containers": [launcher]}),
    }
    # The operator starts no process in workers: sshd in the foreground keeps them up for mpirun, under the process
    # that lets the trainers below it save on SIGTERM (sshd alone exits at once and takes them with it).
    worker = training_container(job, ["python", "-m", SSH_WORKER_MODULE, "/usr/sbin/sshd", "-De"], name="worker")
    # Ready once sshd listens: the launcher (WaitForWorkersReady) starts mpirun only then.
    worker["readinessProbe"] = {"tcpSocket": {"port": IMAGE_SSH_PORT}, "periodSeconds": 5}
    worker_template = {
        "metadata": training_pod_metadata(common_labels(COMPONENT)),
        "spec": training_pod_spec(job, [worker], restart_policy="Never"),
    }
    return {
        "apiVersion": MPIJOB_API,
        "kind": "MPIJob",
        "metadata": {"name": job.name, "namespace": job.namespace, "labels": common_labels(COMPONENT)},
        "spec": {
            "slotsPerWorker": slots,
            # The images run as uid 1000: the operator mounts the SSH keys where that user's sshd reads them
            # (its default, /root/.ssh, is unreadable to a non-root sshd).
            "sshAuthMountPath": IMAGE_SSH_DIR,
            "mpiImplementation": "OpenMPI",
            "launcherCreationPolicy": "WaitForWorkersReady",
            "runPolicy": {"cleanPodPolicy": "Running", "ttlSecondsAfterFinished": _FINISHED_JOB_TTL_SECONDS},
            "mpiReplicaSpecs": {
                # A saved stop of workers alone (their pods deleted: a drain, a Spot interruption; the operator
                # creates them again) never leaves the launcher's container: it runs mpirun again and the trainers
                # resume. MPI Operator 0.8 gives the launcher Job no podFailurePolicy ("ExitCode" only means Never),
                # so what does end it counts against runPolicy.backoffLimit, left unset (the Job's 6): a failure,
                # restarted in place, and a stop of the launcher pod itself (Kueue's suspension, its node drained),
                # which the Job counts as a failed pod.
                "Launcher": {"replicas": 1, "restartPolicy": LAUNCHER_RESTART_POLICY, "template": launcher_template},
                "Worker": {"replicas": job.nodes, "template": worker_template},
            },
        },
    }


def mpi_disruption_budget(job: TrainingJob) -> dict:
    """The PodDisruptionBudget of the MPIJob's launcher and workers (see :func:`disruption_budget`)."""
    return disruption_budget(job, {JOB_NAME_LABEL: job.name}, COMPONENT)
