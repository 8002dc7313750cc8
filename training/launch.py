"""The pod's first process: ``python -m eks_training.training.launch torchrun [torchrun flags] -m ...train ...``.

Kubernetes sends SIGTERM to a container's first process only. torchrun passes it on to its workers, waits for
them (``TORCH_ELASTIC_SHUTDOWN_TIMEOUT`` seconds, then SIGKILL) and exits 1 whatever they did, so a pod running
torchrun directly cannot tell Kubernetes that the trainer saved a checkpoint and wants to be started again. This
launcher runs the command as its child, hands SIGTERM and SIGINT on to it, and exits :data:`EXIT_RESUME` when a
trainer of this node reported a completed stop (it writes the file named by ``EKS_TRAINING_STOP_FILE`` once its
checkpoint is saved). A signal that came during the last step or after it stops nothing (the run finishes and saves
its last step); the trainers then report a finished run and the launcher exits 0, not torchrun's 1: the job is done,
and a failure would count against its restart budget. Otherwise it exits with the child's own status.

``--hold`` (an MPIJob's launcher pod, around mpirun): SIGTERM is not passed on. Whatever stops an MPIJob (Kueue's
suspension, a deletion) stops its worker pods too, whose first process hands SIGTERM to the trainers there
(training/ssh_worker.py); mpirun, told to stop, would instead tear down its remote daemons and the SSH sessions the
saving trainers run in. Held, mpirun lives on until the nodes' saved stops end it (with their 75).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Sequence

from eks_training.training.preemption import EXIT_RESUME, FINISHED, STOP_FILE_ENV


#: Keep SIGTERM and SIGINT from the command; the first argument when given.
HOLD_FLAG = "--hold"


def main(argv: Sequence[str] | None = None) -> int:
    command = list(sys.argv[1:] if argv is None else argv)
    hold = command[:1] == [HOLD_FLAG]
    command = command[1:] if hold else command
    if not command:
        print("error: command: give the command to run, e.g. torchrun --nproc_per_node 8 -m "
              "eks_training.training.train ...", file=sys.stderr)
        return 2
    outcome = Path(tempfile.mkdtemp(prefix="eks-training-launch-")) / "outcome"
    child = subprocess.Popen(command, env={**os.environ, STOP_FILE_ENV: str(outcome)})

    def forward(number: int, frame: object) -> None:
        if hold:
            print(f"launch: {signal.Signals(number).name} held; the workers' own stop ends the command", file=sys.stderr,
                  flush=True)
            return
        # Once: torchrun is then stopping its workers within its own bound, and a second signal would cut
        # that short (its handler raises again in the middle of the shutdown).
        if forwarded:
            print(f"launch: {signal.Signals(number).name} again; the trainers are already saving", file=sys.stderr,
                  flush=True)
            return
        forwarded.append(number)
        child.send_signal(number)

    forwarded: list[int] = []

    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, forward)
    status = child.wait()
    record = outcome.read_text().strip() if outcome.exists() else None
    if record is not None and record.split(" ", 1)[0] == FINISHED:
        if status != 0 and forwarded:
            print(f"launch: the trainer {record} before {signal.Signals(forwarded[0]).name} could stop it; its "
                  f"command exited {status} only because it was signalled: exiting 0 (done)", file=sys.stderr,
                  flush=True)
            return 0
    elif record is not None:
        print(f"launch: the trainer {record} after saving; exiting {EXIT_RESUME} (resume)", file=sys.stderr,
              flush=True)
        return EXIT_RESUME
    # A child killed by a signal: the shell's convention, 128 + the signal's number.
    return status if status >= 0 else 128 - status


if __name__ == "__main__":
    sys.exit(main())
