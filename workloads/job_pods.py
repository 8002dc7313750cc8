"""The pieces every training job kind shares: the validated job description and the training pod it runs.

MPIJob, Volcano Job, indexed Job and BioNeMo builders all place one pod per node of one accelerated
instance type; this module decides, once, what such a pod requests (every accelerator and every EFA interface of
the node, or NCCL silently falls back to TCP), which taint it tolerates, which volumes it mounts (FSx, a RAM
`/dev/shm`) and how the optional checkpoint-sync sidecar is attached.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from eks_training.core.catalog import (
    EFA_RESOURCE,
    InstanceFacts,
    accelerator_tolerations,
    instance_facts,
    whole_node_requests,
)
from eks_training.core.names import (
    LABEL_INSTANCE_TYPE,
    NCCL_DEBUG_FILE_ENV,
    NCCL_DEBUG_FILE_PATTERN,
    REQUIRE_EFA_ENV,
    TRAINING_SERVICE_ACCOUNT,
    WORKSPACE_DATASET_PREFIX,
    checkpoint_path,
    dataset_paths,
)
from eks_training.core.preemption import (
    DO_NOT_DISRUPT_ANNOTATION,
    EXIT_RESUME,
    TORCHRUN_SHUTDOWN_ENV,
    UNKNOWN_MODEL_GRACE_S,
    torchrun_shutdown_seconds,
)
from eks_training.core.validation import invalid
from eks_training.workloads.fsx_volumes import fsx_mounts, fsx_pod_volumes
from eks_training.workloads.k8s_objects import check_dns_label, check_dns_subdomain, check_int
from eks_training.workloads.labels import common_labels

TRAIN_MODULE = "eks_training.training.train"
#: The pod's first process around torchrun: passes SIGTERM on, exits 75 when the trainers saved and stopped.
LAUNCH_MODULE = "eks_training.training.launch"
#: The smallest grace period a job may ask for: below it not even the tiny model's stop fits.
MIN_GRACE_PERIOD_S = 30
CHECKPOINT_SYNC_MODULE = "eks_training.training.checkpoint_sync"
RENDEZVOUS_PORT = 29500
# Job names become prefixes of pod host names (`<name>-worker-12`, `<name>-3`), which must stay DNS labels.
MAX_JOB_NAME_LENGTH = 40
_IMAGE = re.compile(r"^[a-z0-9][\w.-]*(:\d+)?(/[\w.-]+)*(:[\w.-]+)?(@sha256:[0-9a-f]{64})?$")
_S3_URI = re.compile(r"^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/.*)?$")
_NCCL_DEBUG_LEVELS = ("VERSION", "WARN", "INFO", "TRACE")
_MODEL = re.compile(r"^([a-z0-9]+|/[\w./-]+)$")


@dataclass(frozen=True)
class TrainingJob:
    """One multi-node training run: where it runs, what it runs, and what it mounts.

    ``nodes`` whole nodes of ``instance_type`` each run one pod; ``train_args`` are extra flags for
    ``python -m eks_training.training.train``. ``checkpoint_s3_uri`` (``s3://bucket/prefix``) adds the
    checkpoint-sync sidecar that mirrors ``checkpoint_dir`` to S3.
    """

    name: str
    namespace: str
    instance_type: str
    nodes: int
    image: str
    train_args: tuple[str, ...] = ()
    service_account_name: str = TRAINING_SERVICE_ACCOUNT
    checkpoint_s3_uri: str | None = None
    nccl_debug: str = "WARN"
    #: A prepared dataset (``--data``/``--eval-data`` of the trainer): "<name>" under the shared data path, or
    #: "workspace/<name>" in the namespace's workspace (:func:`eks_training.core.names.dataset_paths`); None: give
    #: them in ``train_args``.
    dataset: str | None = None
    #: The trainer's ``--model`` size; None: give it in ``train_args``.
    model: str | None = None
    #: Run the single-node all-reduce check (job_healthcheck) before training on every node: a broken GPU, Neuron
    #: device or NVLink fails the pod fast, naming the node, instead of hanging the job.
    health_check: bool = False
    #: Seconds Kubernetes waits after SIGTERM before SIGKILL: the trainer's save on stop must fit
    #: (:func:`eks_training.core.preemption.grace_period_seconds` from the model's size and the node count).
    grace_period_s: int = UNKNOWN_MODEL_GRACE_S

    def __post_init__(self) -> None:
        check_dns_label("name", self.name)
        if len(self.name) > MAX_JOB_NAME_LENGTH:
            raise invalid("name", self.name, f"use at most {MAX_JOB_NAME_LENGTH} characters, not {len(self.name)} "
                          "(pod host names append a suffix)")
        check_dns_label("namespace", self.namespace)
        instance_facts(self.instance_type)
        check_int("nodes", self.nodes, minimum=1, maximum=1024)
        if not isinstance(self.image, str) or not _IMAGE.match(self.image):
            raise invalid("image", self.image, "use a container image reference such as 'registry/repo:tag'")
        if not isinstance(self.train_args, tuple) or not all(isinstance(a, str) for a in self.train_args):
            raise invalid("train_args", self.train_args, "use a tuple of strings, e.g. ('--max-steps', '100')")
        check_dns_subdomain("service_account_name", self.service_account_name)
        if self.checkpoint_s3_uri is not None and not _S3_URI.match(str(self.checkpoint_s3_uri)):
            raise invalid("checkpoint_s3_uri", self.checkpoint_s3_uri, "use an S3 URI, s3://bucket/prefix")
        if self.dataset is not None:
            check_dataset("dataset", self.dataset)
        if self.model is not None and not _MODEL.match(str(self.model)):
            raise invalid("model", self.model, "use a model size such as 1b or 8b, or a folder path")
        check_int("grace_period_s", self.grace_period_s, minimum=MIN_GRACE_PERIOD_S, maximum=86400)
        if self.nccl_debug not in _NCCL_DEBUG_LEVELS:
            raise invalid("nccl_debug", self.nccl_debug, f"use one of {', '.join(_NCCL_DEBUG_LEVELS)}")

    @property
    def facts(self) -> InstanceFacts:
        return instance_facts(self.instance_type)

    @property
    def procs_per_node(self) -> int:
        """Training processes per node: one per GPU, or one per NeuronCore on Trainium."""
        facts = self.facts
        return facts.neuron_cores if facts.accelerator == "neuron" else facts.accelerators

    @property
    def checkpoint_dir(self) -> str:
        """Where the trainer writes `step-N` folders (the namespace's FSx workspace, per job, so restarts resume)."""
        return checkpoint_path(self.name)

    def require_accelerator(self, kind: str, accelerator: str) -> InstanceFacts:
        """The instance facts, or a one-line error when `kind` cannot run on this accelerator."""
        facts = self.facts
        if facts.accelerator != accelerator:
            wanted = "a GPU (nvidia)" if accelerator == "nvidia" else "a Trainium/Neuron"
            raise invalid("instance_type", self.instance_type, f"{kind} needs {wanted} instance type (this one is a "
                          f"{facts.accelerator_name}, {facts.accelerator})")
        return facts


def check_dataset(field: str, value: object) -> str:
    """A dataset name: "<name>" (shared) or "workspace/<name>" (the namespace's own), name a DNS subdomain."""
    name = value.removeprefix(WORKSPACE_DATASET_PREFIX) if isinstance(value, str) else value
    try:
        check_dns_subdomain(field, name)
    except ValueError:
        raise invalid(field, value, f"use a dataset name (lowercase letters, digits, '-' and '.'), or "
                      f"{WORKSPACE_DATASET_PREFIX}<name> for one the namespace prepared in the cluster") from None
    return value  # type: ignore[return-value]


def train_args(job: TrainingJob) -> list[str]:
    """Arguments of the trainer module: data, model and the job's checkpoint folder, then the user's flags."""
    args = []
    if job.dataset:
        train, held_out = dataset_paths(job.dataset)
        args += ["--data", train, "--eval-data", held_out]
    if job.model:
        args += ["--model", job.model]
    return [*args, "--checkpoint-dir", job.checkpoint_dir, *job.train_args]


def torchrun_command(job: TrainingJob, *rendezvous: str) -> list[str]:
    """`torchrun` over `job.nodes` nodes, one process per accelerator, running the trainer module."""
    return [
        "torchrun",
        f"--nnodes={job.nodes}",
        f"--nproc_per_node={job.procs_per_node}",
        *rendezvous,
        "-m",
        TRAIN_MODULE,
        *train_args(job),
    ]


def resumable(command: list[str]) -> list[str]:
    """``command`` under the launcher, so the pod exits 75 ("resume") when its trainers saved on SIGTERM."""
    return ["python", "-m", LAUNCH_MODULE, *command]


def c10d_rendezvous(job: TrainingJob, endpoint_host: str) -> tuple[str, ...]:
    """torchrun flags for c10d rendezvous at `endpoint_host` (no node rank needed: the store assigns them)."""
    return ("--rdzv_backend=c10d", f"--rdzv_endpoint={endpoint_host}:{RENDEZVOUS_PORT}", f"--rdzv_id={job.name}")


def node_resources(facts: InstanceFacts, *, with_efa: bool = True) -> dict[str, str]:
    """Requests (== limits) of a pod that owns a whole node: every accelerator and EFA interface, most CPU/RAM."""
    cpu, memory = whole_node_requests(facts.instance_type)
    resources = {"cpu": cpu, "memory": memory, facts.resource_name: str(facts.accelerators)}
    if with_efa and facts.efa_interfaces:
        resources[EFA_RESOURCE] = str(facts.efa_interfaces)
    return resources


def fabric_env(job: TrainingJob, *, with_efa: bool = True, for_trainer: bool = True) -> list[dict[str, str]]:
    """Environment for NCCL / Neuron collectives over EFA (nothing EFA-specific on a type without EFA).

    A GPU job with EFA also gets what the trainer's EFA-or-nothing check reads (training/fabric.py): NCCL's log of
    each process in a file of its own, at INFO for the INIT and NET subsystems at least, and the switch that makes
    the trainer refuse a run whose NCCL fell back to TCP sockets (``for_trainer``; the health check's all-reduce
    judges the fabric by its bandwidth instead)."""
    efa = with_efa and job.facts.efa_supported
    check_efa = efa and for_trainer and job.facts.accelerator == "nvidia"
    verbose = _NCCL_DEBUG_LEVELS.index(job.nccl_debug) >= _NCCL_DEBUG_LEVELS.index("INFO")
    env = [{"name": "NCCL_DEBUG", "value": job.nccl_debug if verbose or not check_efa else "INFO"}]
    if check_efa:
        if not verbose:
            # NCCL's network choice only: the level the user asked for elsewhere is WARN, which INFO includes.
            env.append({"name": "NCCL_DEBUG_SUBSYS", "value": "INIT,NET"})
        env += [{"name": NCCL_DEBUG_FILE_ENV, "value": NCCL_DEBUG_FILE_PATTERN}, {"name": REQUIRE_EFA_ENV, "value": "1"}]
    if efa:
        env += [
            {"name": "FI_PROVIDER", "value": "efa"},
            {"name": "FI_EFA_USE_DEVICE_RDMA", "value": "1"},
            # libfabric registers memory that a fork() would otherwise corrupt (dataloader workers fork).
            {"name": "RDMAV_FORK_SAFE", "value": "1"},
        ]
    return env


def training_volumes() -> list[dict]:
    # The container default /dev/shm is 64 MiB: too small for NCCL buffers and dataloader workers.
    return [*fsx_pod_volumes(), {"name": "dshm", "emptyDir": {"medium": "Memory"}}]


def training_mounts() -> list[dict]:
    """Shared data (read-only), the namespace's workspace and a RAM /dev/shm."""
    return [*fsx_mounts(), {"name": "dshm", "mountPath": "/dev/shm"}]


def checkpoint_sidecar(job: TrainingJob) -> dict:
    """The checkpoint-sync sidecar as a native sidecar (init container, restartPolicy Always; k8s >= 1.29).

    Native, so it starts before the trainer (and restores the newest checkpoint first) and does not keep a
    finished Job's pod alive.
    """
    if job.checkpoint_s3_uri is None:
        raise invalid("checkpoint_s3_uri", None, "give s3://bucket/prefix to attach the checkpoint sidecar")
    return {
        "name": "checkpoint-sync",
        "image": job.image,
        "restartPolicy": "Always",
        "command": [
            "python", "-m", CHECKPOINT_SYNC_MODULE,
            "--watch", job.checkpoint_dir,
            "--s3-uri", job.checkpoint_s3_uri,
        ],
        "resources": {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"cpu": "2", "memory": "4Gi"}},
        "volumeMounts": fsx_mounts(),
    }


def job_identity_env(job: TrainingJob) -> list[dict]:
    """JOB_NAME and POD_NAMESPACE: the dimensions the trainer's CloudWatch metrics carry (training.telemetry)."""
    return [{"name": "JOB_NAME", "value": job.name},
            {"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}}]


def training_container(job: TrainingJob, command: list[str], *, name: str = "trainer", extra_env: list[dict] = (),
                       extra_mounts: list[dict] = (), with_efa: bool = True, runs_trainer: bool = True) -> dict:
    """The container that runs `command` with the whole node's accelerators, EFA (unless `with_efa` is
    False: single-node jobs), FSx and /dev/shm; `runs_trainer` False leaves out what only the trainer reads."""
    resources = node_resources(job.facts, with_efa=with_efa)
    # torchrun waits for its saving workers until just before the kubelet's SIGKILL (its own default is 30 s).
    shutdown = {"name": TORCHRUN_SHUTDOWN_ENV, "value": str(torchrun_shutdown_seconds(job.grace_period_s))}
    # The trainer prices the job's time by it (goodput record: list price x nodes x time).
    instance = {"name": "INSTANCE_TYPE", "value": job.instance_type}
    return {
        "name": name,
        "image": job.image,
        "command": command,
        "env": [*fabric_env(job, with_efa=with_efa, for_trainer=runs_trainer), *job_identity_env(job), shutdown,
                instance, *extra_env],
        # Extended resources need requests == limits; equal CPU/memory also make the pod Guaranteed.
        "resources": {"requests": resources, "limits": dict(resources)},
        "volumeMounts": [*training_mounts(), *extra_mounts],
    }


#: Every container of a training pod: no privilege escalation (no setuid binary makes it root), no Linux capability.
#: None is needed: our images run as uid 1000 (Dockerfile.gpu/.neuron, USER 1000:1000; their sshd listens on 2222
#: without PAM), for which capabilities are never effective; EFA's devices come from the device plugin, and the
#: memory libfabric/NCCL register is bounded by the node's memlock limit, which IPC_LOCK would only lift for a
#: root process. NET_RAW (raw sockets, ARP/ICMP spoofing on the node's network) goes with the rest.
RESTRICTED_CONTAINER = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}


def restricted(spec: dict) -> dict:
    """``spec`` (a PodSpec) with the container runtime's default seccomp profile and :data:`RESTRICTED_CONTAINER` on
    every container and init container (a security context a container already states is kept, merged under)."""
    spec["securityContext"] = {**spec.get("securityContext", {}), "seccompProfile": {"type": "RuntimeDefault"}}
    for key in ("initContainers", "containers"):
        for container in spec.get(key) or []:
            container["securityContext"] = {**RESTRICTED_CONTAINER, **container.get("securityContext", {})}
    return spec


def training_pod_spec(job: TrainingJob, containers: list[dict], *, restart_policy: str, init_containers: list[dict] = (),
                      extra_volumes: list[dict] = (), **extra: object) -> dict:
    """A pod spec pinned to the job's instance type, tolerating its taint, with the sidecar when asked for, and
    :func:`restricted`."""
    inits = list(init_containers)
    if job.health_check:
        from eks_training.workloads.job_healthcheck import health_check_init_container  # it builds on this module

        inits.insert(0, health_check_init_container(job))
    if job.checkpoint_s3_uri is not None:
        inits.insert(0, checkpoint_sidecar(job))
    spec: dict = {
        "serviceAccountName": job.service_account_name,
        "restartPolicy": restart_policy,
        "terminationGracePeriodSeconds": job.grace_period_s,
        "nodeSelector": {LABEL_INSTANCE_TYPE: job.instance_type},
        "tolerations": accelerator_tolerations(job.facts.accelerator),
        **extra,
        "containers": containers,
        "volumes": [*training_volumes(), *extra_volumes],
    }
    if inits:
        spec["initContainers"] = inits
    return restricted(spec)



def training_pod_metadata(labels: dict[str, str]) -> dict:
    """A training pod template's metadata: ``labels`` and Karpenter's do-not-disrupt (no consolidation, drift or
    expiry under a running job: those stops cost a checkpoint interval and a restart for no gain)."""
    return {"labels": dict(labels), "annotations": {DO_NOT_DISRUPT_ANNOTATION: "true"}}


#: Evictions a job's budget allows at a time. One: a drain takes the job's pods one by one, and the first eviction's
#: SIGTERM stops every rank at a step boundary with a checkpoint (the ranks agree on it) while the others are still
#: there to take part; the job then requeues. None (0) would hold an EKS managed node group update for its 15 minutes
#: and then fail it, rolling back a stack whose control plane cannot go back a version.
DISRUPTION_BUDGET_MAX_UNAVAILABLE = 1


def disruption_budget(job: TrainingJob, selector: dict[str, str], component: str) -> dict:
    """A PodDisruptionBudget that lets a drain evict the job's pods only one at a time
    (:data:`DISRUPTION_BUDGET_MAX_UNAVAILABLE`); Kueue's preemption and a deletion stop the job through SIGTERM, not
    an eviction."""
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": job.name, "namespace": job.namespace, "labels": common_labels(component)},
        "spec": {"maxUnavailable": DISRUPTION_BUDGET_MAX_UNAVAILABLE, "selector": {"matchLabels": dict(selector)}},
    }


def resume_failure_policy(container: str) -> dict:
    """A batch Job's podFailurePolicy: a pod whose ``container`` exited 75 (saved and stopped) does not count
    against the Job's backoff limits, so a stopped job is started again however often it is stopped."""
    return {"rules": [{"action": "Ignore", "onExitCodes": {"containerName": container, "operator": "In",
                                                            "values": [EXIT_RESUME]}},
                      # A pod deleted or evicted by the cluster (preemption, drain) is not the job's failure either.
                      {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}]}
