"""The `eks-training` command: render job manifests, list job kinds, plan parallelism, run preflight checks.

Every mistake ends as one line `error: ...` on stderr with exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Callable, Sequence

import yaml

from eks_training.core.catalog import UnsupportedInstanceTypeError
from eks_training.core.upstream import UpstreamError
from eks_training.infra.config import ConfigError
from eks_training.infra.tools.environment_option import add_environment_arguments, environment_from_args
from eks_training.infra.tools.planner import deepspeed_json, plan_parallelism
from eks_training.training.model_sizes import DEFAULT_MODEL


class UsageError(Exception):
    """A bad argument; the message is one line."""


class _Parser(argparse.ArgumentParser):
    #: Adds a subcommand's arguments when it is the one that runs (see :func:`_lazy_command`).
    fill: Callable[[argparse.ArgumentParser], None] | None = None

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        if self.fill is not None:
            fill, self.fill = self.fill, None
            fill(self)
        return super().parse_known_args(args, namespace)


def _lazy_command(subparsers: argparse._SubParsersAction, name: str, help: str,
                  fill: Callable[[argparse.ArgumentParser], None]) -> None:
    """A subcommand whose module is imported only when it runs: `check` alone loads cdk8s and Node (~1 s),
    which `list`, `render` and `plan` must not pay for."""
    subparsers.add_parser(name, help=help).fill = fill


def _render(args: argparse.Namespace) -> int:
    from pathlib import Path

    from eks_training.infra.tools.images import environment_images
    from eks_training.core.names import checkpoint_path
    from eks_training.infra.tools.job_render import derived_job_name, render_job

    config = environment_from_args(args, "render", alternatives="--app APP")
    if (config is None) == (args.app is None):
        raise UsageError("render: give --env NAME or --config FILE (an environment) or --app APP (any CDK app with a "
                         "team), one of them")
    if args.app:
        config, images = _app_target(args.app, args.stack), None
    else:
        images = lambda: environment_images(config, cdk_out=Path(args.cdk_out), account=args.account)  # noqa: E731
    name = args.name or derived_job_name(args.kind)
    rendered = render_job(config, args.kind, nodes=args.nodes, instance_type=args.instance_type, image=args.image,
                          images=images, name=name, namespace=args.namespace, train_args=args.train_args,
                          dataset=args.dataset, model=args.model, checkpoint_sidecar=args.checkpoint_sidecar,
                          checkpoint_s3_uri=args.checkpoint_s3_uri, data_input=args.data_input, tokenizer=args.tokenizer,
                          eval_fraction=args.eval_fraction, txt_document=args.txt_document,
                          health_check=args.health_check, priority=args.priority, topology=args.topology,
                          topology_layer=args.topology_layer)
    if not args.name:
        # On stderr: stdout is the manifest, piped to kubectl.
        print(f"job name: {name} (derived; its checkpoints: {checkpoint_path(name)}; render again with --name {name} "
              "to resume it)", file=sys.stderr)
    if isinstance(rendered, str):
        sys.stdout.write(rendered)
    elif args.output == "json":
        sys.stdout.write(json.dumps(rendered, indent=2) + "\n")
    else:
        sys.stdout.write(yaml.safe_dump_all(rendered, sort_keys=False))
    return 0


def _app_target(app: str, stack_name: str | None):
    """The render target of a CDK app's stack (its cloud assembly folder, or the command that synthesizes it)."""
    from eks_training.core.validation import invalid
    from eks_training.infra.tools.app_target import target_of_app
    from eks_training.infra.tools.check.cloud_assembly import app_assembly, stacks
    from eks_training.infra.tools.check.snapshot import load_snapshot

    with app_assembly(app) as assembly:
        found = stacks(assembly)
    chosen = [s for s in found if (s.name == stack_name if stack_name else s.has_cluster)]
    if len(chosen) != 1:
        names = ", ".join(s.name for s in found) or "none"
        raise invalid("--stack", stack_name or None, f"one stack of the app with an EKS cluster (its stacks: {names})")
    return target_of_app(load_snapshot(chosen[0].template), chosen[0].name)


def _list(args: argparse.Namespace) -> int:
    from eks_training.workloads.jobs import JOB_KINDS

    for kind in JOB_KINDS.values():
        print(f"{kind.name:12} {kind.description}")
    return 0


def _plan(args: argparse.Namespace) -> int:
    if (args.params is None) == (args.model is None):
        raise UsageError("plan: give --params (a parameter count, e.g. 70e9) or --model (a named size, e.g. 70b)")
    instance_type, nodes = _plan_capacity(args)
    plan = plan_parallelism(params=args.params, model=args.model, instance_type=instance_type, nodes=nodes,
                            seq_len=args.seq_len, micro_batch=args.micro_batch, grad_accum=args.grad_accum,
                            lora_rank=args.lora_rank, tensor_parallel=args.tensor_parallel,
                            pipeline_parallel=args.pipeline_parallel)
    if args.flags_only:
        # For `eks-training render KIND --train-args "$(eks-training plan ... --flags-only)"`.
        print(shlex.join(plan.trainer_flags()))
        return 0
    print(plan.describe())
    if args.deepspeed_config:
        try:
            with open(args.deepspeed_config, "w", encoding="utf-8") as handle:
                handle.write(deepspeed_json(plan, hf_trainer=args.hf_trainer))
        except OSError as err:
            raise UsageError(f"--deepspeed-config: cannot write {args.deepspeed_config!r}: {err.strerror}") from None
        print(f"deepspeed config: {args.deepspeed_config}")
    return 0


def _plan_capacity(args: argparse.Namespace) -> tuple[str, int]:
    """The instance type and node count to plan for: as given, and with --env/--config ones that environment can
    provide (the instance type may then be left out where it has one accelerated type)."""
    config = environment_from_args(args, "plan", alternatives="--instance-type TYPE --nodes N")
    if config is None:
        for option, value in (("--instance-type", args.instance_type), ("--nodes", args.nodes)):
            if value is None:
                raise UsageError(f"plan: {option} is required (or --env NAME / --config FILE to plan on an "
                                 "environment's capacity)")
        return args.instance_type, args.nodes
    from eks_training.infra.tools.job_render import instance_type_limits

    limits = instance_type_limits(config)
    if not limits:
        raise UsageError(f"plan: environment {config.name!r} has no accelerated capacity to plan on")
    instance_type = args.instance_type
    if instance_type is None:
        if len(limits) > 1:
            raise UsageError(f"plan: --instance-type is required: environment {config.name!r} has "
                             f"{', '.join(limits)}")
        instance_type, = limits
    if instance_type not in limits:
        raise UsageError(f"--instance-type: {instance_type!r} is not in environment {config.name!r} (allowed: "
                         f"{', '.join(limits)})")
    nodes = args.nodes if args.nodes is not None else limits[instance_type]
    if nodes > limits[instance_type]:
        raise UsageError(f"--nodes: {nodes} is more {instance_type} nodes than environment {config.name!r} provides "
                         f"(at most {limits[instance_type]})")
    return instance_type, nodes


def _preflight(args: argparse.Namespace) -> int:
    from eks_training.infra.tools import preflight  # written separately; imported here so the CLI works without it

    return preflight.run(args)


def _fill_preflight(parser: argparse.ArgumentParser) -> None:
    parser.set_defaults(handler=_preflight)
    try:
        from eks_training.infra.tools import preflight
    except ImportError:
        parser.set_defaults(preflight_missing=True)
        return
    preflight.add_arguments(parser)


def _fill_data(data: argparse.ArgumentParser) -> None:
    """`data prepare`: tokenize a corpus into the trainer's --data folders (eks_training.training.data_prep)."""
    from eks_training.training import data_prep

    actions = data.add_subparsers(dest="data_command", metavar="{prepare}", required=True, parser_class=_Parser)
    prepare = actions.add_parser("prepare", help="tokenize text/JSON Lines/Parquet into token shards + meta.json")
    data_prep.add_arguments(prepare)
    prepare.set_defaults(handler=data_prep.run)


def _fill_check(parser: argparse.ArgumentParser) -> None:
    """`check`: would the synthesized platform run a job? (eks_training.infra.tools.check)."""
    from eks_training.infra.tools.check import deploy_check

    deploy_check.add_arguments(parser)
    parser.set_defaults(handler=deploy_check.run)


def _fill_fetch_upstream(parser: argparse.ArgumentParser) -> None:
    """`fetch-upstream`: the pinned upstream artifacts into the user cache, verified (eks_training.infra.tools.upstream_fetch)."""
    from eks_training.infra.tools import upstream_fetch

    upstream_fetch.add_arguments(parser)
    parser.set_defaults(handler=upstream_fetch.run)


def _fill_status(parser: argparse.ArgumentParser) -> None:
    """`status`: a job's pods, nodes, last step, tokens/s and checkpoint (eks_training.infra.tools.status, read-only)."""
    from eks_training.infra.tools import status

    status.add_arguments(parser)
    parser.set_defaults(handler=status.run)


def _fill_plot(parser: argparse.ArgumentParser) -> None:
    """`plot`: loss, eval loss, tokens/s and MFU curves from the trainer's metrics file (eks_training.training.plot);
    matplotlib is imported only when it draws."""
    from eks_training.training import plot

    plot.add_arguments(parser)
    parser.set_defaults(handler=plot.run)


def _fill_review_diff(parser: argparse.ArgumentParser) -> None:
    """`review-diff`: what changes in the cluster between two review folders (eks_training.infra.tools.review.diff)."""
    from eks_training.infra.tools.review import diff

    diff.add_arguments(parser)
    parser.set_defaults(handler=diff.run)


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number, e.g. 70e9") from None


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `eks-training`."""
    from eks_training.core.version import __version__

    parser = _Parser(prog="eks-training", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"eks-training {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    render = subparsers.add_parser("render", help="write a job manifest (or sbatch script) to stdout")
    render.add_argument("kind")
    add_environment_arguments(render)
    render.add_argument("--app", help="instead of --env/--config: any CDK app with a team (TrainingTeam), as its cloud assembly "
                        "folder (cdk.out) or the command that synthesizes it; the job's image is then --image")
    render.add_argument("--stack", help="with --app: the stack (default: the one with an EKS cluster)")
    render.add_argument("--nodes", type=int)
    render.add_argument("--instance-type")
    render.add_argument("--image", help="your own image (default: the environment's, from the synthesized app)")
    render.add_argument("--dataset", help="a prepared dataset: NAME under /fsx/data (shared, read-only) or "
                        "workspace/NAME (written by the data-prep kind in the namespace's workspace)")
    render.add_argument("--model", default=DEFAULT_MODEL, help=f"the trainer's --model: a named size (default "
                        f"{DEFAULT_MODEL}, the trainer's too) or a model folder the pod reads")
    render.add_argument("--account", help="the deploy account, when the environment file names none (image URIs)")
    render.add_argument("--cdk-out", default="cdk.out", help="the synthesized app to read image tags from")
    render.add_argument("--data-input", help="data-prep: the corpus, s3://bucket/prefix or a path under /fsx/data "
                        "or /fsx/workspace (the folders the pod mounts)")
    render.add_argument("--tokenizer", help="data-prep: tokenizer.json, s3:// or a path under /fsx/data or "
                        "/fsx/workspace")
    render.add_argument("--eval-fraction", type=float, help="data-prep: share of documents held out in eval/ "
                        "(default 0.01; at least one document whenever there are two; 0: none)")
    render.add_argument("--txt-document", choices=("file", "line"),
                        help="data-prep: a .txt file is one document (file, the default) or one per line")
    render.add_argument("--health-check", action="store_true",
                        help="check each node's accelerators (all-reduce on the node) before training starts")
    render.add_argument("--name", help="the job's name, and so its checkpoint folder (default: a unique name, "
                        "printed on stderr; give the same name again to resume a job)")
    render.add_argument("--namespace")
    render.add_argument("--train-args", help="extra trainer flags, one shell-quoted string")
    render.add_argument("--checkpoint-sidecar", action="store_true")
    render.add_argument("--checkpoint-s3-uri")
    render.add_argument("--priority", help="with Kueue: training-high, training-default (the default) or training-low")
    render.add_argument("--topology", default="auto", help="with Kueue, multi-node kinds: place the pods within one "
                        "network layer, preferred or required (auto: preferred where only topology-aware node groups "
                        "serve the type; none: no request)")
    render.add_argument("--topology-layer", type=int, help="with --topology preferred|required: the network layer "
                        "(default: the lowest, the nodes' own)")
    render.add_argument("-o", "--output", choices=("yaml", "json"), default="yaml")
    render.set_defaults(handler=_render)
    subparsers.add_parser("list", help="show the job kinds").set_defaults(handler=_list)
    plan = subparsers.add_parser("plan", help="pick the trainer's data/tensor/pipeline layout and print its flags")
    plan.add_argument("--params", type=_float, help="the model's parameter count, e.g. 70e9 (or --model)")
    plan.add_argument("--model", help="a named size of the trainer's, e.g. 8b, 70b, 405b (or --params)")
    plan.add_argument("--instance-type", help="the nodes' instance type (with --env/--config: one the environment has; "
                      "default: its only accelerated one)")
    plan.add_argument("--nodes", type=int, help="how many nodes (with --env/--config default: as many as the "
                      "environment provides)")
    add_environment_arguments(plan)
    plan.add_argument("--seq-len", type=int, default=4096)
    plan.add_argument("--micro-batch", type=int, default=1)
    plan.add_argument("--grad-accum", type=int, default=8)
    plan.add_argument("--lora-rank", type=int)
    plan.add_argument("--tensor-parallel", type=int)
    plan.add_argument("--pipeline-parallel", type=int)
    plan.add_argument("--flags-only", action="store_true", help="print only the trainer flags, for render's --train-args")
    plan.add_argument("--deepspeed-config", help="also write the plan as a DeepSpeed config, for a trainer of your own")
    plan.add_argument("--hf-trainer", action="store_true")
    plan.set_defaults(handler=_plan)
    _lazy_command(subparsers, "preflight", "check an environment before deploying", _fill_preflight)
    _lazy_command(subparsers, "data", "prepare training data", _fill_data)
    _lazy_command(subparsers, "check", "prove offline that the environment's pods land, reach and start", _fill_check)
    _lazy_command(subparsers, "fetch-upstream", "download and verify the pinned upstream charts, CRDs and policies the "
                  "check and tests read", _fill_fetch_upstream)
    _lazy_command(subparsers, "plot", "draw loss, eval loss, tokens/s and MFU curves from a metrics file", _fill_plot)
    _lazy_command(subparsers, "review-diff", "show what changes in the cluster between two review folders "
                  "(cdk.out/manifests/ENV of two synths), object by object", _fill_review_diff)
    _lazy_command(subparsers, "status", "show a job's pods, nodes and progress (read-only, needs credentials)", _fill_status)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run `eks-training`; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "preflight_missing", False):
            raise UsageError("preflight: eks_training.infra.tools.preflight is not installed in this build")
        return args.handler(args)
    except (UsageError, ConfigError, UnsupportedInstanceTypeError, ValueError, UpstreamError) as err:
        print(f"error: {str(err).splitlines()[0] if str(err) else type(err).__name__}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
