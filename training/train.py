"""The trainer: ``torchrun --nproc_per_node N -m eks_training.training.train --data DIR [flags]``.

One loop for CPU (gloo), CUDA (nccl) and Neuron (xla): DDP, FSDP2 or HSDP, with tensor and pipeline parallelism
(not on Neuron; training/layout.py). It resumes from the newest
complete checkpoint in ``--checkpoint-dir`` (restored from ``--s3-uri`` first when that folder is empty) and
logs ``resumed from step N``; the data position is the number of samples the job has consumed, so a resume
on another world size or micro-batch size continues the same sample order. Metrics are strict JSON lines on
stdout (or ``--metrics-file``) from rank 0. Exit codes: 0 done, 1 a checkpoint upload failed, 2 a bad
flag, 3 training diverged (NaN/inf, or too many loss spikes), 4 the run could not exit cleanly in time, 5 a
collective or barrier failed or timed out (``--collective-timeout``: a peer died or stopped answering), 6 the job
requested EFA interfaces but NCCL is not using them (``--allow-tcp true`` trains on; training/fabric.py), 75 stopped
by SIGTERM (or a request in ``$EKS_TRAINING_STOP_DIR``) after saving a checkpoint: start it again and it resumes
(training/preemption.py).
Run with ``--help`` for the flags; ``--config FILE`` reads the source document's ``training:`` block.
This module is the command line; the loop itself is :class:`eks_training.training.trainer.Trainer`.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
from typing import Any, Sequence

from eks_training.training.config import ConfigError, TrainConfig, parse_config
from eks_training.training.device import (Runtime, ShutdownError, first_line, is_peer_failure, running,
                                           select_runtime)
from eks_training.training.fabric import EXIT_NO_EFA, EfaNotInUse, require_efa
from eks_training.training.guard import TrainingDiverged
from eks_training.training.preemption import EXIT_RESUME, StopRequest, record_finished, record_stop
from eks_training.training.ray_stop import StopFolder
from eks_training.training.shutdown import EXIT_DIVERGED, EXIT_HUNG, EXIT_PEER_LOST, ExitWatchdog, exit_now
from eks_training.training.trainer import Reporter, Trainer, TrainResult, resolve_precision

__all__ = ["Reporter", "TrainResult", "Trainer", "main", "resolve_precision", "train"]

# The finished run (model, optimizer, DDP's reducer and the process-group handles they hold), kept referenced
# until exit_now's os._exit: their native destructors, which run when the last reference drops, joined gloo's
# threads under the GIL and never returned in a finished run. Nothing is left for them to release.
_KEPT_UNTIL_EXIT: list[Any] = []


def train(config: TrainConfig, runtime: Runtime, reporter: Reporter | None = None,
          watchdog: ExitWatchdog | None = None, compile_backend: str = "inductor",
          stop: StopRequest | None = None) -> TrainResult:
    """Run (or resume) training to ``config.max_steps``; the process group must already be joined.

    ``watchdog`` (the command line's) is armed after the last step, bounding the final writes and uploads;
    ``stop`` (the command line's SIGTERM handler) ends the run at a step boundary after a checkpoint.
    """
    return Trainer(config, runtime, reporter, watchdog=watchdog, compile_backend=compile_backend, stop=stop).fit()


def check_network(config: TrainConfig, runtime: Runtime) -> None:
    """EFA or nothing (training/fabric.py): NCCL's network is known once a communicator exists, so a CUDA job of
    several ranks first runs a barrier, then reads NCCL's log. A single process uses no network."""
    if runtime.kind == "cuda" and runtime.distributed:
        runtime.barrier()
        require_efa(allow_tcp=config.allow_tcp, rank=runtime.rank)


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; user errors print one line and exit 2 (see the module docstring for the others)."""
    try:
        config = parse_config(argv)
        rank = int(os.environ.get("RANK", "0"))
        watchdog = ExitWatchdog(config.exit_timeout, rank=rank)
        # An MPIJob's launcher, stopped itself, cannot signal trainers it started over SSH: it writes the request in
        # the job's stop folder (training/launch.py) instead. Unset (every torchrun kind): SIGTERM only.
        folder = StopFolder.from_env()
        stop = StopRequest(rank, request_file=folder.requested if folder else None).install()
        with running(select_runtime(config.device), watchdog, config.collective_timeout) as runtime:
            check_network(config, runtime)
            result = train(config, runtime, watchdog=watchdog, stop=stop)
            _KEPT_UNTIL_EXIT.append(result)
    except EfaNotInUse as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_NO_EFA
    except (ConfigError, TrainingDiverged, ShutdownError, RuntimeError) as error:
        peer_lost = not isinstance(error, ShutdownError) and is_peer_failure(error)
        if not isinstance(error, (ConfigError, TrainingDiverged, ShutdownError)) and not peer_lost:
            raise  # a bug, with its traceback
        _KEPT_UNTIL_EXIT.append(error)  # its traceback holds the run's objects: their destructors wait for exit too
        if peer_lost:
            print(f"error: rank {os.environ.get('RANK', '0')}: a collective failed or timed out (--collective-timeout "
                  f"{config.collective_timeout:g} s; a peer died or stopped answering): {first_line(error)}",
                  file=sys.stderr)
            return EXIT_PEER_LOST
        print(f"error: {error}", file=sys.stderr)
        return 2 if isinstance(error, ConfigError) else EXIT_DIVERGED if isinstance(error, TrainingDiverged) \
            else EXIT_HUNG
    if result.upload_failures:
        names = ", ".join(name for name, _ in result.upload_failures)
        print(f"error: checkpoint upload to S3 failed for {names}: {result.upload_failures[0][1]}", file=sys.stderr)
        if not result.stopped:
            return 1
        # A stopped run's checkpoint is on the shared folder all the same: the restart resumes from it.
    if result.stopped:
        record_stop(result.final_step)
        return EXIT_RESUME
    record_finished(result.final_step)
    return 0


if __name__ == "__main__":
    if hasattr(faulthandler, "register"):
        # `kill -USR1 <pid>` prints every thread's stack (benchmarks/soak_exit.py uses it on a hung rank).
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    exit_now(main())
