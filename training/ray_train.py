"""The same training loop under Ray Train's ``TorchTrainer`` (for RayJob / RayCluster).

Ray owns the process group and checkpoint storage here: every worker reports each logged record with
``ray.train.report(metrics, checkpoint=Checkpoint.from_directory(step_folder))`` at checkpoint steps, and
``ray.train.get_checkpoint()`` is used only to load the newest one when a run restarts. ``ray`` is imported
lazily; it is not part of the training image by default (``pip install "ray[train]"``).

    python -m eks_training.training.ray_train --num-workers 4 [--use-gpu] [--storage-path s3://...] -- TRAINER FLAGS
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

from eks_training.training.checkpoint import COMPLETE_MARKER, step_folder_name
from eks_training.training.config import ConfigError, invalid, parse_config
from eks_training.training.device import select_runtime
from eks_training.training.train import train


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
    if config.checkpoint_dir is None:
        config = replace(config, checkpoint_dir=tempfile.mkdtemp(prefix="ray-train-ckpt-"))
    context = ray_train.get_context()
    runtime = select_runtime(config.device, env={
        "RANK": str(context.get_world_rank()),
        "LOCAL_RANK": str(context.get_local_rank()),
        "WORLD_SIZE": str(context.get_world_size()),
    })
    runtime.init_process_group()  # a no-op: Ray has already joined the workers
    Path(config.checkpoint_dir).mkdir(parents=True, exist_ok=True)
    if runtime.local_rank == 0:
        _restore_ray_checkpoint(ray_train, Path(config.checkpoint_dir))
    runtime.barrier()
    train(config, runtime, reporter=RayReporter(ray_train))


def build_trainer(trainer_argv: Sequence[str], num_workers: int, use_gpu: bool = False,
                  storage_path: str | None = None) -> Any:
    """A ``TorchTrainer`` running :func:`train_loop_per_worker`, keeping ``--keep-last`` checkpoints."""
    from ray.train import CheckpointConfig, RunConfig, ScalingConfig
    from ray.train.torch import TorchTrainer

    config = parse_config(trainer_argv)  # fail fast on the driver, with the one-line error
    return TorchTrainer(
        train_loop_per_worker,
        train_loop_config={"argv": list(trainer_argv)},
        scaling_config=ScalingConfig(num_workers=num_workers, use_gpu=use_gpu),
        run_config=RunConfig(storage_path=storage_path,
                             checkpoint_config=CheckpointConfig(num_to_keep=config.keep_last)),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Driver entry point: parse Ray options, then run ``fit()``."""
    parser = argparse.ArgumentParser(prog="python -m eks_training.training.ray_train")
    parser.add_argument("--num-workers", type=int, default=1)
    parser.add_argument("--use-gpu", action="store_true")
    parser.add_argument("--storage-path")
    args, trainer_argv = parser.parse_known_args(argv)
    if args.num_workers < 1:
        print(f"error: {invalid('--num-workers', args.num_workers, 'an integer >= 1')}", file=sys.stderr)
        return 2
    try:
        trainer = build_trainer([a for a in trainer_argv if a != "--"], args.num_workers, args.use_gpu,
                                args.storage_path)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    trainer.fit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
