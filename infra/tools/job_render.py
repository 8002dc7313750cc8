"""Render one job kind for one environment: the platform's names, capacity and images filled in.

`eks-training render` prints what this returns, and `eks-training check` places every kind it returns on the
environment's node sources. Every bad argument raises :class:`RenderError` with one line naming the option.
"""

from __future__ import annotations

import secrets
import shlex
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from eks_training.core.catalog import INSTANCE_TYPES, node_capacity
from eks_training.core.names import DATA_PATH, FSX_MOUNT_PATH, WORKSPACE_DATASET_PREFIX, checkpoint_key_prefix
from eks_training.infra.config import PlatformConfig
from eks_training.training.model_sizes import DEFAULT_MODEL


#: Kinds that run no training (so take no dataset or model).
_NO_DATASET = ("health-check", "bionemo", "raycluster")


def derived_job_name(kind: str) -> str:
    """A job name no other render shares: the kind, the time and four random hex digits (a job's name is its
    checkpoint folder, so a shared default made jobs resume each other's checkpoints)."""
    return f"{kind}-{time.strftime('%m%d-%H%M%S')}-{secrets.token_hex(2)}"


class RenderError(ValueError):
    """A job argument the environment cannot serve; the message is one line naming the option."""


@dataclass(frozen=True)
class TeamFacts:
    """What `render` needs of one team: its namespace's LocalQueue (None: not queued), the most accelerators of each
    kind its namespace quota allows and the setting that says so, and per instance type the most accelerators its
    Kueue queue admits on one flavor (absent: no Kueue limit known)."""

    namespace: str
    local_queue: str | None = None
    quota: Mapping[str, int] = field(default_factory=dict)
    quota_setting: Mapping[str, str] = field(default_factory=dict)
    admitted: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class RenderTarget:
    """The platform a job is rendered for: one of our environments (:meth:`of_config`) or any CDK app built of our
    constructs (:func:`eks_training.infra.tools.app_target.target_of_app`)."""

    #: "environment" or "app", and its name: how messages name it.
    what: str
    name: str
    teams: tuple[TeamFacts, ...]
    #: The `services` switches that are on (the operators a kind may need).
    services: frozenset[str]
    #: The team CPU nodes' instance type (where data preparation runs).
    cpu_instance_type: str
    #: Most nodes of each instance type the platform can provide.
    instance_limits: Mapping[str, int]
    kueue: bool = False
    #: (instance type, network layers its topology-aware flavor places by; 0: quota only) of every Kueue flavor.
    flavors: tuple[tuple[str, int], ...] = ()
    #: (partition, instance type, most nodes) of each Slurm partition.
    slurm_partitions: tuple[tuple[str, str, int], ...] = ()
    checkpoint_bucket: str | None = None
    volcano_queue: str | None = None
    max_restarts: int = 3
    #: Variant -> image, or how to get them (called only once the arguments are known good).
    images: Mapping[str, str] | Callable[[], Mapping[str, str]] | None = None

    @classmethod
    def of_config(cls, config: PlatformConfig) -> "RenderTarget":
        services = {name for name, value in config.services if value is True}
        teams = []
        for index, team in enumerate(config.training_namespaces):
            quota = config.namespace_quota(team.name)
            queue = config.kueue_queue(team.name) if config.services.kueue else None
            admitted: dict[str, int] = {}
            if queue is not None:
                for flavor, amounts in config.queue_flavor_limits(queue).items():
                    admitted[flavor.instance_type] = max(admitted.get(flavor.instance_type, 0), amounts["accelerators"])
            teams.append(TeamFacts(
                team.name, queue.name if queue else None,
                quota={"nvidia": quota["max_gpus"], "neuron": quota["max_neuron_devices"]},
                quota_setting={"nvidia": f"training_namespaces[{index}].max_gpus",
                               "neuron": f"training_namespaces[{index}].max_neuron_devices"},
                admitted=admitted))
        return cls("environment", config.name, tuple(teams), frozenset(services), config.team_nodes.instance_type,
                   instance_type_limits(config), kueue=config.services.kueue,
                   flavors=tuple((f.instance_type, f.topology_layers) for f in config.kueue_flavors()),
                   slurm_partitions=tuple((p.name, p.instance_type, p.max_nodes)
                                          for p in config.services.slurm_partitions),
                   checkpoint_bucket=config.storage.buckets.checkpoint_bucket_name,
                   volcano_queue=config.services.volcano_queues[0].name if config.services.volcano_queues else None,
                   max_restarts=config.services.job_max_restarts, images=lambda: _environment_images(config))

    @property
    def described(self) -> str:
        return f"{self.what} {self.name!r}"

    def team(self, namespace: str) -> TeamFacts:
        return next(t for t in self.teams if t.namespace == namespace)


def _environment_images(config: PlatformConfig) -> Mapping[str, str]:
    from eks_training.infra.tools.images import environment_images  # reads cdk.out: only once the job is known good

    return environment_images(config)


def instance_type_limits(config: PlatformConfig) -> dict[str, int]:
    """Most nodes of each instance type the environment can provide (node groups, Karpenter pools, Slurm partitions)."""
    limits: dict[str, int] = {}

    def allow(instance_type: str, nodes: int) -> None:
        limits[instance_type] = max(limits.get(instance_type, 0), nodes)

    for group in config.accelerated_node_groups:
        allow(group.instance_type, group.max_size)
    for pool in config.capacity.karpenter_pools:
        for instance_type in pool.instance_types:
            allow(instance_type, pool.max_accelerators // INSTANCE_TYPES[instance_type].accelerators)
    for partition in config.services.slurm_partitions:
        allow(partition.instance_type, partition.max_nodes)
    return limits


def render_job(config: PlatformConfig | RenderTarget, kind_name: str, *, nodes: int | None = None,
               instance_type: str | None = None,
               image: str | None = None, images: Mapping[str, str] | Callable[[], Mapping[str, str]] | None = None,
               name: str | None = None,
               namespace: str | None = None, train_args: str | None = None, dataset: str | None = None,
               model: str | None = DEFAULT_MODEL, checkpoint_sidecar: bool = False, checkpoint_s3_uri: str | None = None,
               data_input: str | None = None, tokenizer: str | None = None, eval_fraction: float | None = None,
               txt_document: str | None = None, health_check: bool = False, priority: str | None = None,
               topology: str = "auto", topology_layer: int | None = None) -> list[dict] | str:
    """The objects (or, for slurm-batch, the sbatch script) of one job of ``kind_name`` on ``config``'s platform
    (an environment's config, or any app's :class:`RenderTarget`).

    ``images`` maps a variant (gpu, neuron, ray) to the environment's image (:func:`eks_training.infra.tools.images.
    environment_images`), or is a function returning that map, called only once the arguments are known good;
    ``image`` overrides it. Training kinds read ``dataset`` (prepared under the FSx data path)
    and train ``model``; ``data-prep`` tokenizes ``data_input`` with ``tokenizer`` into ``dataset`` (``eval_fraction``
    and ``txt_document`` as data prep's flags; default: its defaults). ``name`` is the
    job's name and so its checkpoint folder; default: the kind's name, so two kinds never share one (the command
    line derives a unique name per render instead, :func:`derived_job_name`).

    With Kueue on, a kind Kueue integrates is submitted to its namespace's LocalQueue with ``priority`` (a training
    priority; default training-default) and, for a multi-node kind, the topology request
    :func:`topology_request` makes of ``topology`` and ``topology_layer``.
    """
    from eks_training.workloads.job_data_prep import DataPrepJob
    from eks_training.workloads.job_pods import TrainingJob
    from eks_training.workloads.jobs import PlacementNames, job_kind

    kind = job_kind(kind_name)
    target = config if isinstance(config, RenderTarget) else RenderTarget.of_config(config)
    if images is None:
        images = target.images
    if kind.service is not None and kind.service not in target.services:
        raise RenderError(f"kind: {kind.name} needs services.{kind.service}, which {target.described} leaves off")
    name = name or kind.name
    teams = [t.namespace for t in target.teams]
    if not teams:
        raise RenderError(f"--namespace: {target.described} has no team (a namespace with the `training` "
                          "ServiceAccount: add a TrainingTeam)")
    if namespace is None and len(teams) > 1:
        raise RenderError(f"--namespace: {target.described} has {len(teams)} teams ({', '.join(teams)}): "
                          "name the one the job runs for")
    namespace = namespace or teams[0]
    if namespace not in teams:
        raise RenderError(f"--namespace: {namespace!r} is not a training namespace of {target.name!r}"
                          f" (allowed: {', '.join(teams)})")
    if kind.accelerator == "none":
        _need_dataset(kind.name, dataset)
        for option, value in (("--data-input", data_input), ("--tokenizer", tokenizer)):
            if not value:
                raise RenderError(f"{option}: data-prep needs it (s3://bucket/prefix or a path under {FSX_MOUNT_PATH})")
        # Tokenizing runs on a team CPU node: take at most half of one, leaving the rest to the team's other CPU pods
        # (MPI launchers, Ray heads).
        cpu_node = node_capacity(target.cpu_instance_type)
        workers = max(1, int(cpu_node.allocatable_cpu) // 2)
        memory = f"{max(1, int(cpu_node.allocatable_memory / 2**30) // 2)}Gi"
        extra = {key: value for key, value in (("eval_fraction", eval_fraction), ("txt_document", txt_document))
                 if value is not None}
        job = DataPrepJob(name=name, namespace=namespace, image=image or _image(target, images, "gpu"),
                          input=data_input, tokenizer=tokenizer, dataset=dataset, workers=workers, memory=memory,
                          **extra)
        request = topology_request(target, kind, "", topology, topology_layer)  # one pod: a request is refused
        return kind.render(job, PlacementNames(kueue=_kueue_submission(target, kind, namespace, priority, request)))
    limits = target.instance_limits
    wanted = kind.accelerator
    if instance_type is None:
        candidates = [t for t in limits if wanted == "any" or INSTANCE_TYPES[t].accelerator == wanted]
        if kind.name == "slurm-batch":
            candidates = [p[1] for p in target.slurm_partitions]
        if not candidates:
            raise RenderError(f"--instance-type: {target.described} has no {wanted} capacity for {kind.name}")
        instance_type = candidates[0]
    if instance_type not in limits:
        raise RenderError(f"--instance-type: {instance_type!r} is not in {target.described} (allowed: {', '.join(limits)})")
    facts = INSTANCE_TYPES[instance_type]
    if wanted != "any" and facts.accelerator != wanted:
        label = "GPU" if wanted == "nvidia" else "Trainium"
        raise RenderError(f"--instance-type: {instance_type!r} is a {facts.accelerator_name} type; {kind.name} needs a {label} type")
    nodes = nodes if nodes is not None else (2 if kind.multi_node else 1)
    partition = None
    if kind.name == "slurm-batch":
        partitions = [p for p in target.slurm_partitions if p[1] == instance_type]
        if not partitions:
            raise RenderError(f"--instance-type: {instance_type!r} has no Slurm partition in {target.described}")
        partition, allowed = partitions[0][0], partitions[0][2]
    else:
        allowed = limits[instance_type]
    if nodes < 1 or nodes > allowed:
        raise RenderError(f"--nodes: {nodes} is not allowed: {instance_type} in {target.name!r} allows 1 to {allowed} nodes")
    if not kind.is_script:  # an sbatch script runs in the Slurm cluster's namespace, under Slurm's limits
        _check_team_quota(target, namespace, instance_type, nodes)
    if kind.name not in _NO_DATASET:
        _need_dataset(kind.name, dataset)
    if kind.image is None and not image:
        raise RenderError(f"--image: {kind.name} needs its own image (e.g. nvcr.io/nvidia/clara/bionemo-framework:TAG)")
    if image is None and kind.is_script:
        image = "slurmd"  # runs in the Slinky NodeSets' image, which the stack sets: the script names no image
    elif image is None:
        variant = "neuron" if facts.accelerator == "neuron" and kind.image == "gpu" else kind.image
        image = _image(target, images, variant)
    s3_uri = None
    if checkpoint_sidecar:
        bucket = target.checkpoint_bucket
        if checkpoint_s3_uri is None and bucket is None:
            raise RenderError(f"--checkpoint-s3-uri: {target.described} generates its checkpoint bucket name at "
                              "deploy time; give s3://BUCKET/PREFIX")
        s3_uri = checkpoint_s3_uri or f"s3://{bucket}/{checkpoint_key_prefix(namespace, name)}"
    model = model if kind.name not in _NO_DATASET else None
    job = TrainingJob(name=name, namespace=namespace, instance_type=instance_type, nodes=nodes, image=image,
                      train_args=tuple(shlex.split(train_args or "")), checkpoint_s3_uri=s3_uri, dataset=dataset,
                      model=model, health_check=health_check, grace_period_s=job_grace_period(model, nodes))
    if kind.name not in _NO_DATASET:
        check_trainer_layout(job)
    request = topology_request(target, kind, instance_type, topology, topology_layer)
    names = PlacementNames(queue=target.volcano_queue, partition=partition,
                           kueue=_kueue_submission(target, kind, namespace, priority, request),
                           max_restarts=target.max_restarts)
    return kind.render(job, names)


def job_grace_period(model: str | None, nodes: int) -> int:
    """The pods' grace period for training ``model`` (a named size) on ``nodes`` nodes: room for the save on stop
    (:func:`eks_training.core.preemption.grace_period_seconds`); a model folder's size is not known here."""
    from eks_training.core.preemption import grace_period_seconds
    from eks_training.training.model_sizes import MODEL_SIZES

    size = MODEL_SIZES.get(model) if model else None
    return grace_period_seconds(size.parameters if size is not None else None, nodes)


def check_trainer_layout(job) -> None:
    """The parallel layout ``job``'s trainer flags ask for, checked as the trainer will check it on the job's ranks
    (nodes x ranks per node), each tensor-parallel group inside one node; a RenderError naming --train-args."""
    from eks_training.training.config import ConfigError
    from eks_training.training.layout import check_launch
    from eks_training.workloads.job_pods import train_args as trainer_argv

    try:
        check_launch(trainer_argv(job), job.nodes, job.procs_per_node, job.instance_type,
                     data_parallel_only=job.facts.accelerator == "neuron")
    except ConfigError as error:
        raise RenderError(f"--train-args: {error} ({job.nodes} x {job.instance_type}, {job.procs_per_node} ranks "
                          "per node)") from None


#: How `render` asks Kueue to place a multi-node job: ``auto`` asks for the lowest network layer, preferred, where
#: only topology-aware flavors serve the instance type (a Karpenter pool serving it too is taken instead, without a
#: request: Kueue places by topology only on nodes that already exist); ``preferred`` and ``required`` ask for a
#: topology-aware flavor; ``none`` asks for none.
TOPOLOGY_CHOICES = ("auto", "preferred", "required", "none")


def topology_request(config: PlatformConfig | RenderTarget, kind, instance_type: str, topology: str = "auto",
                     layer: int | None = None):
    """The Kueue topology request of a ``kind`` job on ``instance_type`` nodes (None: none), or a one-line
    RenderError for a request the environment cannot serve."""
    from eks_training.core.catalog import network_layer_label
    from eks_training.workloads.job_queueing import TopologyRequest

    target = config if isinstance(config, RenderTarget) else RenderTarget.of_config(config)
    if topology not in TOPOLOGY_CHOICES:
        raise RenderError(f"--topology: {topology!r} is not allowed: use one of {', '.join(TOPOLOGY_CHOICES)}")
    explicit = topology in ("preferred", "required")
    if layer is not None and not explicit:
        raise RenderError(f"--topology-layer: {layer} is not allowed without --topology preferred or required")
    if not explicit and topology == "none":
        return None
    if explicit and not target.kueue:
        raise RenderError(f"--topology: {topology} needs Kueue, which {target.described} does not install "
                          "(services.kueue)")
    if not target.kueue or kind.kueue is None or not kind.multi_node:
        if explicit:
            raise RenderError(f"--topology: {kind.name} is not a multi-node job Kueue places (use none)")
        return None
    flavors = [layers for flavor_type, layers in target.flavors if flavor_type == instance_type]
    aware = [layers for layers in flavors if layers]
    if not explicit:
        if not aware or len(aware) < len(flavors):
            return None
        layer, required = aware[0], False
    else:
        if not aware:
            raise RenderError(f"--topology: {instance_type} has no topology-aware flavor in {target.name!r} (node groups "
                              "of types that carry EC2 network labels have one; Karpenter pools place no job by topology)")
        layers = min(aware)
        layer = layers if layer is None else layer
        if not 1 <= layer <= layers:
            raise RenderError(f"--topology-layer: {layer} is not allowed: {instance_type} nodes carry network layers "
                              f"1 to {layers} (1 is the top of the hierarchy, {layers} the nodes' own)")
        required = topology == "required"
    return TopologyRequest(network_layer_label(layer), required=required)


def _kueue_submission(target: RenderTarget, kind, namespace: str, priority: str | None, request):
    """Where ``kind``'s job queues in ``namespace``: its LocalQueue (None: no Kueue, or a kind Kueue does not admit)."""
    from eks_training.workloads.job_queueing import KueueSubmission
    from eks_training.workloads.priorities import DEFAULT_PRIORITY, TRAINING_PRIORITIES

    if priority is not None and priority not in [p.name for p in TRAINING_PRIORITIES]:
        raise RenderError(f"--priority: {priority!r} is not allowed: use one of "
                          f"{', '.join(p.name for p in TRAINING_PRIORITIES)}")
    queue = target.team(namespace).local_queue if target.kueue else None
    if queue is None or kind.kueue is None:
        if priority is not None:
            why = "does not queue in Kueue (it has its own queue)" if target.kueue else \
                f"queues in Kueue, which {target.described} does not install (services.kueue)"
            raise RenderError(f"--priority: {kind.name} {why}")
        return None
    return KueueSubmission(local_queue=queue, priority=priority or DEFAULT_PRIORITY, topology=request)


def _check_team_quota(target: RenderTarget, namespace: str, instance_type: str, nodes: int) -> None:
    """A job of ``nodes`` whole ``instance_type`` nodes fits its team's namespace quota (the API server refuses its
    pods beyond it) and what its Kueue queue admits on that type (Kueue would keep it waiting for ever)."""
    facts = INSTANCE_TYPES[instance_type]
    team = target.team(namespace)
    wanted = nodes * facts.accelerators
    unit = "GPUs" if facts.accelerator == "nvidia" else "Neuron devices"
    where = f"{nodes} {instance_type} node{'s' if nodes > 1 else ''} ({wanted} {unit})"
    quota = team.quota.get(facts.accelerator)
    if quota is not None and wanted > quota:
        raise RenderError(f"--nodes: {where} is beyond the quota of team {namespace!r}, {quota} {unit} "
                          f"({team.quota_setting.get(facts.accelerator)}): at most {quota // facts.accelerators} such "
                          "nodes")
    if team.local_queue is None or not target.kueue:
        return
    admitted = team.admitted.get(instance_type, 0)
    if wanted > admitted:
        raise RenderError(f"--nodes: {where} is beyond what Kueue queue {team.local_queue!r} of team {namespace!r} "
                          f"admits on {instance_type} ({admitted} {unit} on one flavor, borrowing included): at most "
                          f"{admitted // facts.accelerators} such nodes")


def _need_dataset(kind: str, dataset: str | None) -> None:
    if dataset is None:
        if kind == "data-prep":
            raise RenderError(f"--dataset: data-prep writes a dataset: give its name (it lands in the namespace's "
                              f"workspace, and jobs read it as --dataset {WORKSPACE_DATASET_PREFIX}NAME)")
        raise RenderError(f"--dataset: {kind} trains on a prepared dataset: give its name (the folder under {DATA_PATH} "
                          f"that `eks-training data prepare` writes) or {WORKSPACE_DATASET_PREFIX}NAME (one the "
                          "data-prep kind wrote in the namespace's workspace)")


def _image(target: RenderTarget, images, variant: str) -> str:
    if callable(images):
        images = images()
    if images is None or variant not in images:
        raise RenderError(f"--image: {target.described} has no {variant} image (it builds or names none): "
                          "give --image")
    return images[variant]
