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
saving trainers run in. Held, mpirun lives on until the nodes' saved stops end it (with their 75). The launcher pod
may also be stopped alone (its node drained) or before its workers: with ``EKS_TRAINING_STOP_DIR`` set (the job's
stop folder on FSx, forwarded to the trainers by ``mpirun -x``), the held SIGTERM writes the folder's request, which
the trainers read at their next step as they would a SIGTERM: they save and exit 75, and so does the launcher. The
folder is cleared before every run of the command, so an answered request does not stop the next one.

``--hold --workers-port PORT``: a saved stop (the command's 75) that this launcher was not told about is a worker
pod stopped on its own (its node drained, a Spot interruption, the pod deleted); MPI Operator 0.8 creates a deleted
worker pod again under the same name. The launcher then waits until every host of MPI's hostfile accepts
connections on PORT (sshd; the headless Service resolves a worker's name only while its pod is Ready) and runs the
command again, and the trainers resume from their checkpoint: the container does not exit, so the stop does not
count against the launcher Job's backoff limit (MPI Operator 0.8 has no exit-code rule). It waits for them before
its first run too: a launcher restarted in place, or started again when Kueue resumes the job, would otherwise run
mpirun before the workers are Ready and fail. Told to stop itself (the whole job is suspended or deleted), or after
:data:`WORKERS_WAIT_S` without the workers, it exits 75 as before; any other status ends it as before.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Sequence

from eks_training.training.preemption import EXIT_RESUME, FINISHED, STOP_FILE_ENV
from eks_training.training.ray_stop import STOP_DIR_ENV, StopFolder


#: Keep SIGTERM and SIGINT from the command; the first argument when given.
HOLD_FLAG = "--hold"
#: With ``--hold``: run the command again after a saved stop of the workers alone, once they listen on this port.
WORKERS_PORT_FLAG = "--workers-port"
#: Where MPI reads its hosts (the operator sets the first for Open MPI, the others for Intel MPI and MPICH).
HOSTFILE_ENVS = ("OMPI_MCA_orte_default_hostfile", "I_MPI_HYDRA_HOST_FILE", "HYDRA_HOST_FILE")
#: After a saved stop, before the first look at the workers: the stopped pod's sshd ends a moment after its trainers
#: (training/ssh_worker.py) and its DNS record lives out its TTL (CoreDNS answers with 5 s).
SETTLE_S = 10.0
#: How long the workers may take to come back (a new node and an image pull); Kueue's recovery timeout (15 min by
#: default, services.kueue_gang_admission) requeues a queued job sooner. Past it the launcher exits 75 (its restart
#: in place waits again, and counts against the backoff limit).
WORKERS_WAIT_S = 1800.0
POLL_S = 2.0
CONNECT_TIMEOUT_S = 2.0


def hostfile_hosts() -> list[str]:
    """The hosts, in order, of the MPI hostfile that MPI Operator names in the launcher's environment."""
    name = next((n for n in HOSTFILE_ENVS if os.environ.get(n)), None)
    if name is None:
        raise ValueError(f"{WORKERS_PORT_FLAG}: none of {', '.join(HOSTFILE_ENVS)} is set: the workers to wait for "
                         "are the hosts of MPI's hostfile, which MPI Operator mounts in the launcher")
    path = os.environ[name]
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as error:
        raise ValueError(f"{name}: {path!r} cannot be read ({error.strerror})") from None
    # "host slots=N" (the operator's format) or a bare host; '#' starts a comment.
    hosts = [line.split("#", 1)[0].split()[0] for line in lines if line.split("#", 1)[0].strip()]
    if not hosts:
        raise ValueError(f"{name}: {path!r} lists no host")
    return hosts


def listening(host: str, port: int) -> bool:
    """Whether ``host`` resolves and accepts a TCP connection on ``port``."""
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S):
            return True
    except OSError:  # unresolvable (a worker pod not Ready yet), refused, unreachable, timed out
        return False


def wait_for_workers(hosts: Sequence[str], port: int, stopped: Callable[[], bool], *, settle_s: float = SETTLE_S,
                     limit_s: float = WORKERS_WAIT_S, poll_s: float = POLL_S) -> bool:
    """True once every host listens on ``port`` (looked at first after ``settle_s``); False when ``stopped()``
    becomes true or ``limit_s`` passes first."""
    start = time.monotonic()
    next_look = start + settle_s
    while not stopped():
        now = time.monotonic()
        if now - start > limit_s:
            return False
        if now >= next_look:
            if all(listening(host, port) for host in hosts):
                return True
            next_look = time.monotonic() + poll_s
        time.sleep(0.1)
    return False


def _workers_back(hosts: Sequence[str], port: int, runs: int, told: list[int]) -> bool:
    """Whether every worker listens before run ``runs + 1``: at once for the first (a launcher restarted or
    resumed after a suspension starts before its workers may be Ready: MPI Operator waits for them only when it
    creates the launcher Job), after :data:`SETTLE_S` for a run after a saved stop."""
    if not runs and all(listening(host, port) for host in hosts):
        return True
    print(f"launch: waiting for {len(hosts)} worker(s) to listen on port {port}", file=sys.stderr, flush=True)
    if not wait_for_workers(hosts, port, lambda: bool(told), settle_s=SETTLE_S if runs else 0.0,
                            limit_s=WORKERS_WAIT_S, poll_s=POLL_S):
        return False
    print(f"launch: every worker listens; run {runs + 1}", file=sys.stderr, flush=True)
    return True


def _ask_to_save(folder: StopFolder | None) -> str:
    """Write the stop folder's request (when there is one); what the trainers will do, for the log."""
    if folder is None:
        return "the workers' own stop ends the command"
    try:
        folder.request()
    except OSError as error:
        return f"the stop request {str(folder.requested)!r} could not be written ({error.strerror}): only the " \
               "workers' own stop ends the command"
    return f"asked the trainers to save ({folder.requested}); their saved stop ends the command"


def _cleared(folder: StopFolder) -> bool:
    """Forget an answered request before a run; False (and one line) when the folder cannot be written."""
    try:
        folder.clear()
    except OSError as error:
        # A request left there would stop every run at its first step: fail (restarted in place) instead.
        print(f"error: {STOP_DIR_ENV}: the stop request {str(folder.requested)!r} cannot be removed "
              f"({error.strerror})", file=sys.stderr, flush=True)
        return False
    return True


def _parse(command: list[str]) -> tuple[bool, int | None, list[str]]:
    """(hold, workers port or None, the command) from the launcher's arguments."""
    hold = command[:1] == [HOLD_FLAG]
    command = command[1:] if hold else command
    port = None
    if hold and command[:1] == [WORKERS_PORT_FLAG]:
        value = command[1] if len(command) > 1 else ""
        if not (value.isdigit() and 1 <= int(value) <= 65535):
            raise ValueError(f"{WORKERS_PORT_FLAG}: {value!r} is not a TCP port: give 1 to 65535, e.g. "
                             f"{WORKERS_PORT_FLAG} 2222 (the workers' sshd)")
        port, command = int(value), command[2:]
    return hold, port, command


def main(argv: Sequence[str] | None = None) -> int:
    try:
        hold, port, command = _parse(list(sys.argv[1:] if argv is None else argv))
        hosts = hostfile_hosts() if port is not None else []
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if not command:
        print("error: command: give the command to run, e.g. torchrun --nproc_per_node 8 -m "
              "eks_training.training.train ...", file=sys.stderr)
        return 2
    told: list[int] = []  # the signals this process got
    folder = StopFolder.from_env() if hold else None

    def on_signal(number: int, frame: object) -> None:
        told.append(number)
        if hold:
            print(f"launch: {signal.Signals(number).name} held; {_ask_to_save(folder)}", file=sys.stderr, flush=True)
            return
        # Once: torchrun is then stopping its workers within its own bound, and a second signal would cut
        # that short (its handler raises again in the middle of the shutdown).
        if len(told) > 1:
            print(f"launch: {signal.Signals(number).name} again; the trainers are already saving", file=sys.stderr,
                  flush=True)
            return
        child.send_signal(number)

    def install() -> dict:
        return {number: signal.signal(number, on_signal) for number in (signal.SIGTERM, signal.SIGINT)}

    # Held, from the start: a signal during a wait for the workers ends the wait. Otherwise once the child exists,
    # which it is passed on to.
    previous = install() if hold else {}
    try:
        runs = 0
        while True:
            if folder is not None and not _cleared(folder):
                return 1
            if told or (port is not None and not _workers_back(hosts, port, runs, told)):
                reason = "told to stop" if told else f"the workers did not listen within {WORKERS_WAIT_S:.0f} s"
                print(f"launch: {reason}; exiting {EXIT_RESUME} (resume)", file=sys.stderr, flush=True)
                return EXIT_RESUME
            outcome = Path(tempfile.mkdtemp(prefix="eks-training-launch-")) / "outcome"
            child = subprocess.Popen(command, env={**os.environ, STOP_FILE_ENV: str(outcome)})
            previous = previous or install()
            status = child.wait()
            runs += 1
            record = outcome.read_text().strip() if outcome.exists() else None
            if record is not None and record.split(" ", 1)[0] == FINISHED:
                if status != 0 and told and not hold:
                    print(f"launch: the trainer {record} before {signal.Signals(told[0]).name} could stop it; its "
                          f"command exited {status} only because it was signalled: exiting 0 (done)",
                          file=sys.stderr, flush=True)
                    return 0
            elif record is not None:
                print(f"launch: the trainer {record} after saving; exiting {EXIT_RESUME} (resume)", file=sys.stderr,
                      flush=True)
                return EXIT_RESUME
            if status != EXIT_RESUME or told or port is None:
                # A child killed by a signal: the shell's convention, 128 + the signal's number.
                code = status if status >= 0 else 128 - status
                if told:
                    print(f"launch: told to stop; the command exited {code}; exiting {code}"
                          f"{' (resume)' if code == EXIT_RESUME else ''}", file=sys.stderr, flush=True)
                return code
            print(f"launch: run {runs} ended in a saved stop ({EXIT_RESUME}) this pod was not told of: a worker pod "
                  f"was stopped; the command runs again once every worker listens (the trainers resume)",
                  file=sys.stderr, flush=True)
    finally:  # (main may run inside another program: its own handlers come back)
        for number, handler in previous.items():
            signal.signal(number, handler)


if __name__ == "__main__":
    sys.exit(main())
