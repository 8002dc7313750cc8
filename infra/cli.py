"""The `eks-training` command: render job manifests, list job kinds, plan parallelism, run preflight checks.

Every mistake ends as one line `error: ...` on stderr with exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Sequence

import yaml

from eks_training.constructs.instance_types import INSTANCE_TYPES, UnsupportedInstanceTypeError
from eks_training.infra.config import ConfigError, PlatformConfig, load_environment
from eks_training.infra.planner import deepspeed_json, plan_parallelism


class UsageError(Exception):
    """A bad argument; the message is one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


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


def _render(args: argparse.Namespace) -> int:
    from eks_training.workloads.job_pods import TrainingJob
    from eks_training.workloads.jobs import PlacementNames, job_kind

    kind = job_kind(args.kind)
    config = load_environment(args.env)
    limits = instance_type_limits(config)
    wanted = kind.accelerator
    if args.instance_type is None:
        candidates = [t for t in limits if wanted == "any" or INSTANCE_TYPES[t].accelerator == wanted]
        if kind.name == "slurm-batch":
            candidates = [p.instance_type for p in config.services.slurm_partitions]
        if not candidates:
            raise UsageError(f"--instance-type: environment {config.name!r} has no {wanted} capacity for {kind.name}")
        instance_type = candidates[0]
    else:
        instance_type = args.instance_type
    if instance_type not in limits:
        raise UsageError(f"--instance-type: {instance_type!r} is not in environment {config.name!r} (allowed: {', '.join(limits)})")
    facts = INSTANCE_TYPES[instance_type]
    if wanted != "any" and facts.accelerator != wanted:
        label = "GPU" if wanted == "nvidia" else "Trainium"
        raise UsageError(f"--instance-type: {instance_type!r} is a {facts.accelerator_name} type; {kind.name} needs a {label} type")
    nodes = args.nodes if args.nodes is not None else (2 if kind.multi_node else 1)
    partition = None
    if kind.name == "slurm-batch":
        partitions = [p for p in config.services.slurm_partitions if p.instance_type == instance_type]
        if not partitions:
            raise UsageError(f"--instance-type: {instance_type!r} has no Slurm partition in environment {config.name!r}")
        partition, allowed = partitions[0].name, partitions[0].max_nodes
    else:
        allowed = limits[instance_type]
    if nodes < 1 or nodes > allowed:
        raise UsageError(f"--nodes: {nodes} is not allowed: {instance_type} in {config.name!r} allows 1 to {allowed} nodes")
    namespace = args.namespace or config.training_namespaces[0].name
    if namespace not in [n.name for n in config.training_namespaces]:
        raise UsageError(f"--namespace: {namespace!r} is not a training namespace of {config.name!r}"
                         f" (allowed: {', '.join(n.name for n in config.training_namespaces)})")
    image = args.image or (config.images.neuron_image if facts.accelerator == "neuron" else config.images.gpu_image)
    if kind.name == "bionemo" and not args.image:
        raise UsageError("--image: bionemo needs its BioNeMo image, e.g. nvcr.io/nvidia/clara/bionemo-framework:TAG")
    s3_uri = None
    if args.checkpoint_sidecar:
        s3_uri = args.checkpoint_s3_uri
        bucket = config.storage.buckets.checkpoint_bucket_name
        if s3_uri is None and bucket is None:
            raise UsageError(f"--checkpoint-s3-uri: environment {config.name!r} generates its checkpoint bucket name at deploy"
                             " time; give s3://BUCKET/PREFIX")
        s3_uri = s3_uri or f"s3://{bucket}/{args.name}"
    job = TrainingJob(name=args.name, namespace=namespace, instance_type=instance_type, nodes=nodes, image=image,
                      train_args=tuple(shlex.split(args.train_args or "")), checkpoint_s3_uri=s3_uri)
    queues = config.services.volcano_queues
    rendered = kind.build(job, PlacementNames(queue=queues[0].name if queues else None, partition=partition))
    if isinstance(rendered, str):
        sys.stdout.write(rendered)
    elif args.output == "json":
        sys.stdout.write(json.dumps(rendered, indent=2) + "\n")
    else:
        sys.stdout.write(yaml.safe_dump_all(rendered, sort_keys=False))
    return 0


def _list(args: argparse.Namespace) -> int:
    from eks_training.workloads.jobs import JOB_KINDS

    for kind in JOB_KINDS.values():
        print(f"{kind.name:12} {kind.description}")
    return 0


def _plan(args: argparse.Namespace) -> int:
    plan = plan_parallelism(params=args.params, instance_type=args.instance_type, nodes=args.nodes, seq_len=args.seq_len,
                            micro_batch=args.micro_batch, grad_accum=args.grad_accum, lora_rank=args.lora_rank,
                            tensor_parallel=args.tensor_parallel, pipeline_parallel=args.pipeline_parallel)
    print(plan.describe())
    if args.deepspeed_config:
        try:
            with open(args.deepspeed_config, "w", encoding="utf-8") as handle:
                handle.write(deepspeed_json(plan, hf_trainer=args.hf_trainer))
        except OSError as err:
            raise UsageError(f"--deepspeed-config: cannot write {args.deepspeed_config!r}: {err.strerror}") from None
        print(f"deepspeed config: {args.deepspeed_config}")
    return 0


def _preflight(args: argparse.Namespace) -> int:
    from eks_training.infra import preflight  # written separately; imported here so the CLI works without it

    return preflight.run(args)


def _add_preflight(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("preflight", help="check an environment before deploying")
    parser.set_defaults(handler=_preflight)
    try:
        from eks_training.infra import preflight
    except ImportError:
        parser.set_defaults(preflight_missing=True)
        return
    preflight.add_arguments(parser)


def _add_data(subparsers: argparse._SubParsersAction) -> None:
    """`data prepare`: tokenize a corpus into the trainer's --data folders (eks_training.training.data_prep)."""
    # data_prep imports its heavy packages (tokenizers, pyarrow, boto3) only when it runs, so this is cheap.
    from eks_training.training import data_prep

    data = subparsers.add_parser("data", help="prepare training data")
    actions = data.add_subparsers(dest="data_command", metavar="{prepare}", required=True, parser_class=_Parser)
    prepare = actions.add_parser("prepare", help="tokenize text/JSON Lines/Parquet into token shards + meta.json")
    data_prep.add_arguments(prepare)
    prepare.set_defaults(handler=data_prep.run)


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number, e.g. 70e9") from None


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `eks-training`."""
    parser = _Parser(prog="eks-training", description=__doc__.splitlines()[0])
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    render = subparsers.add_parser("render", help="write a job manifest (or sbatch script) to stdout")
    render.add_argument("kind")
    render.add_argument("--env", required=True)
    render.add_argument("--nodes", type=int)
    render.add_argument("--instance-type")
    render.add_argument("--image")
    render.add_argument("--name", default="train")
    render.add_argument("--namespace")
    render.add_argument("--train-args", help="extra trainer flags, one shell-quoted string")
    render.add_argument("--checkpoint-sidecar", action="store_true")
    render.add_argument("--checkpoint-s3-uri")
    render.add_argument("-o", "--output", choices=("yaml", "json"), default="yaml")
    render.set_defaults(handler=_render)
    subparsers.add_parser("list", help="show the job kinds").set_defaults(handler=_list)
    plan = subparsers.add_parser("plan", help="pick data/tensor/pipeline parallelism and ZeRO stage")
    plan.add_argument("--params", type=_float, required=True)
    plan.add_argument("--instance-type", required=True)
    plan.add_argument("--nodes", type=int, required=True)
    plan.add_argument("--seq-len", type=int, default=4096)
    plan.add_argument("--micro-batch", type=int, default=1)
    plan.add_argument("--grad-accum", type=int, default=8)
    plan.add_argument("--lora-rank", type=int)
    plan.add_argument("--tensor-parallel", type=int)
    plan.add_argument("--pipeline-parallel", type=int)
    plan.add_argument("--deepspeed-config")
    plan.add_argument("--hf-trainer", action="store_true")
    plan.set_defaults(handler=_plan)
    _add_preflight(subparsers)
    _add_data(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run `eks-training`; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "preflight_missing", False):
            raise UsageError("preflight: eks_training.infra.preflight is not installed in this build")
        return args.handler(args)
    except (UsageError, ConfigError, UnsupportedInstanceTypeError, ValueError) as err:
        print(f"error: {str(err).splitlines()[0] if str(err) else type(err).__name__}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
