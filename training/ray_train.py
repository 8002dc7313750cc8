"""The same training loop under Ray Train's ``TorchTrainer`` (for RayJob / RayCluster).

Ray owns the process group and checkpoint storage here: every worker reports each logged record with
``ray.train.report(metrics, checkpoint=Checkpoint.from_directory(step_folder))`` at checkpoint steps, and
``ray.train.get_checkpoint()`` is used only to load the newest one when a run restarts. ``ray`` is imported
lazily; it is not part of the training image by default (``pip install "ray[train]"``).

Stops keep their work: a stopping pod asks for a save through the cluster's stop folder (training/ray_stop.py); the
workers agree at a logged step, save and report that checkpoint, and end their loop with a last report that names
the step. The driver then fits again from that checkpoint, once the stopping pod has had time to leave, without
counting the stop as one of Ray's failures. A driver started afresh (a RayJob resubmitted after its cluster was
suspended or its head lost) resumes from the newest complete checkpoint under ``--storage-path``/``--run-name``.

    python -m eks_training.training.ray_train --num-workers 4 [--use-gpu] [--storage-path DIR] [--run-name NAME]
        -- TRAINER FLAGS
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Sequence

from eks_training.training.checkpoint import COMPLETE_MARKER, step_folder_name
from eks_training.training.config import ConfigError, invalid, parse_config
from eks_training.training.device import select_runtime
from eks_training.training.preemption import StopRequest
from eks_training.training.ray_stop import StopFolder
from eks_training.training.train import train

#: The workers' last report after a saved stop: the step saved. The driver fits again from that checkpoint.
STOPPED_METRIC = "stopped_after_saving_step"
#: The run's folder under the storage path: fixed, so a resubmitted driver finds the checkpoints of earlier fits.
DEFAULT_RUN_NAME = "eks-training"
#: Ray's own restarts (a worker lost without a saved stop): each starts again from the newest reported checkpoint.
MAX_FAILURES = 3
#: After a saved stop the stopping pod lets Ray go at once; the next fit waits this long so as not to place a worker
#: on the leaving node (were one placed there, Ray's own restart from the same checkpoint covers it).
RESUME_DELAY_S = 15.0


class RayReporter:
    """Turns the loop's reports into ``ray.train.report`` calls."""

    def __init__(self, ray_train: Any) -> None:
        self._ray_train = ray_train

    def report(self, metrics: dict[str, Any], checkpoint_folder: Path | None) -> None:
        checkpoint = None
        if checkpoint_folder is not None:
            checkpoint = self._ray_train.Checkpoint.from_directory(str(checkpoint_folder))
        self._ray_train.report(metrics, checkpoint=checkpoint)


def _restore_ray_checkpoint(ray_train: Any, checkpoint_dir: Path) -> None:
    """Copy Ray's newest checkpoint (the contents of a ``step-N`` folder) back to ``checkpoint_dir/step-N``."""
    checkpoint = ray_train.get_checkpoint()
    if checkpoint is None:
        return
    with checkpoint.as_directory() as source:
        source = Path(source)
        step = int((source / COMPLETE_MARKER).read_text().strip())
        target = checkpoint_dir / step_folder_name(step)
        if not target.exists():
            shutil.copytree(source, target)


def train_loop_per_worker(loop_config: dict[str, Any]) -> None:
    """Ray Train's per-worker function; ``loop_config["argv"]`` holds the trainer's flags."""
    from ray import train as ray_train

    config = parse_config(loop_config["argv"])
    if config.checkpoint_dir is None:  # every rank writes the same step folders: one folder, the driver's choice
        config = replace(config, checkpoint_dir=loop_config["checkpoint_dir"])
    context = ray_train.get_context()
    runtime = select_runtime(config.device, env={
        "RANK": str(context.get_world_rank()),
        "LOCAL_RANK": str(context.get_local_rank()),
        "WORLD_SIZE": str(context.get_world_size()),
    })
    runtime.init_process_group()  # a no-op: Ray has already joined the workers
    Path(config.checkpoint_dir).mkdir(parents=True, exist_ok=True)
    if runtime.rank == 0:  # the folder is shared by every rank (FSx on a cluster)
        _restore_ray_checkpoint(ray_train, Path(config.checkpoint_dir))
    runtime.barrier()
    folder = StopFolder(Path(loop_config["stop_dir"])) if loop_config.get("stop_dir") else None
    stop = StopRequest(runtime.rank, request_file=folder.requested if folder else None)
    if folder is not None and runtime.rank == 0:
        folder.start_training()
    try:
        result = train(config, runtime, reporter=RayReporter(ray_train), stop=stop)
        if result.stopped and folder is not None and runtime.rank == 0:
            folder.mark_saved(result.final_step)  # its checkpoint is reported (persisted) already
    finally:
        if folder is not None and runtime.rank == 0:
            folder.end_training()
    if result.stopped:
        ray_train.report({STOPPED_METRIC: result.final_step})  # every worker: Ray's reports go in lockstep


def build_trainer(trainer_argv: Sequence[str], num_workers: int, use_gpu: bool = False,
                  storage_path: str | None = None, *, run_name: str = DEFAULT_RUN_NAME,
                  stop_folder: StopFolder | None = None, resume_from: Any = None) -> Any:
    """A ``TorchTrainer`` running :func:`train_loop_per_worker`, keeping ``--keep-last`` checkpoints, resuming from
    ``resume_from`` (a ``ray.train.Checkpoint``) when given."""
    from ray.train import CheckpointConfig, FailureConfig, RunConfig, ScalingConfig
    from ray.train.torch import TorchTrainer

    config = parse_config(trainer_argv)  # fail fast on the driver, with the one-line error
    return TorchTrainer(
        train_loop_per_worker,
        train_loop_config={"argv": list(trainer_argv), "stop_dir": str(stop_folder.path) if stop_folder else None,
                           # Without --checkpoint-dir: one folder for all ranks, which must share it (one machine).
                           "checkpoint_dir": None if config.checkpoint_dir else tempfile.mkdtemp(prefix="ray-train-")},
        scaling_config=ScalingConfig(num_workers=num_workers, use_gpu=use_gpu),
        run_config=RunConfig(name=run_name, storage_path=storage_path,
                             checkpoint_config=CheckpointConfig(num_to_keep=config.keep_last),
                             failure_config=FailureConfig(max_failures=MAX_FAILURES)),
        resume_from_checkpoint=resume_from,
    )


def newest_checkpoint_folder(run_folder: Path) -> Path | None:
    """The complete checkpoint of the highest step among every fit of the run (Ray's ``checkpoint_*`` folders hold a
    ``step-N`` folder's contents, its marker naming the step)."""
    found: list[tuple[int, Path]] = []
    for marker in run_folder.rglob(COMPLETE_MARKER) if run_folder.is_dir() else ():
        if marker.parent.name.startswith("checkpoint_"):
            try:
                found.append((int(marker.read_text().strip()), marker.parent))
            except ValueError:
                continue
    return max(found)[1] if found else None


def fit_until_done(make_trainer: Callable[[Any], Any], *, resume_from: Any = None,
                   stop_folder: StopFolder | None = None, resume_delay_s: float = RESUME_DELAY_S) -> Any:
    """Fit, and fit again from the saved checkpoint after every saved stop; returns the finished fit's result."""
    stops = 0
    while True:
        if stop_folder is not None:
            stop_folder.clear()
        result = make_trainer(resume_from).fit()
        step = (result.metrics or {}).get(STOPPED_METRIC)
        if step is None:
            return result
        stops += 1
        resume_from = result.checkpoint
        print(f"ray_train: stopped after saving step {step} (stop {stops}); fitting again from it in "
              f"{resume_delay_s:g} s", file=sys.stderr, flush=True)
        time.sleep(resume_delay_s)


def main(argv: Sequence[str] | None = None) -> int:
    """Driver entry point: parse Ray options, then run ``fit()``."""
    parser = argparse.ArgumentParser(prog="python -m eks_training.training.ray_train")
    parser.add_argument("--num-workers", type=int, default=1)
    parser.add_argument("--use-gpu", action="store_true")
    parser.add_argument("--storage-path")
    parser.add_argument("--run-name", default=DEFAULT_RUN_NAME)
    parser.add_argument("--resume-delay", type=float, default=RESUME_DELAY_S)
    args, trainer_argv = parser.parse_known_args(argv)
    if args.num_workers < 1:
        print(f"error: {invalid('--num-workers', args.num_workers, 'an integer >= 1')}", file=sys.stderr)
        return 2
    if not args.run_name or "/" in args.run_name or args.run_name in (".", ".."):
        print(f"error: {invalid('--run-name', args.run_name, 'a folder name (no /)')}", file=sys.stderr)
        return 2
    if args.resume_delay < 0:
        print(f"error: {invalid('--resume-delay', args.resume_delay, 'seconds >= 0')}", file=sys.stderr)
        return 2
    trainer_argv = [a for a in trainer_argv if a != "--"]
    stop_folder = StopFolder.from_env()
    try:
        if parse_config(trainer_argv).checkpoint_dir is None:  # one folder for every fit of this driver
            trainer_argv += ["--checkpoint-dir", tempfile.mkdtemp(prefix="ray-train-")]
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    from ray.train import Checkpoint

    resume_from = None
    if args.storage_path is None or "://" not in args.storage_path:
        run_folder = Path(args.storage_path or Path.home() / "ray_results") / args.run_name
        newest = newest_checkpoint_folder(run_folder)
        if newest is not None:
            print(f"ray_train: resuming from {newest}", file=sys.stderr, flush=True)
            resume_from = Checkpoint.from_directory(str(newest))

    def make_trainer(checkpoint: Any) -> Any:
        return build_trainer(trainer_argv, args.num_workers, args.use_gpu, args.storage_path, run_name=args.run_name,
                             stop_folder=stop_folder, resume_from=checkpoint)

    from ray.train.base_trainer import TrainingFailedError

    try:
        fit_until_done(make_trainer, resume_from=resume_from, stop_folder=stop_folder,
                       resume_delay_s=args.resume_delay)
    except TrainingFailedError as error:
        # Ray has printed the workers' tracebacks; the job's log ends with the one line that says what ended it.
        print(f"error: training failed after {MAX_FAILURES} restarts from the newest checkpoint: "
              f"{str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
