"""An MPIJob worker pod's first process: ``python -m eks_training.training.ssh_worker /usr/sbin/sshd -De``.

mpirun reaches a worker over SSH, so the trainers there are descendants of sshd, not of the pod's first process,
and sshd exits on SIGTERM at once: the container ends and its trainers are killed mid-step, however long the grace
period. This process runs the command (sshd) as its child and, on SIGTERM or SIGINT, passes the signal to every
launcher (``eks_training.training.launch``) below it, so this node's trainers join the save, waits until every
launcher, torchrun and trainer below it has exited (the kubelet's SIGKILL bounds the wait), and only then stops the
command.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Sequence

#: The module every node's trainers run under (workloads.job_pods.LAUNCH_MODULE; training/ does not import workloads/).
LAUNCH_MODULE = "eks_training.training.launch"
TRAIN_MODULE = "eks_training.training.train"
POLL_S = 0.2
#: How long the command (sshd) gets to exit after SIGTERM before SIGKILL.
COMMAND_STOP_S = 5


def _processes() -> dict[int, tuple[int, list[str]]]:
    """pid -> (parent pid, argv) of every process this one can see (its container's, in a pod)."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # it exited while we looked
            continue
        # The command name (field 2) may hold spaces and parentheses: the parent pid follows the last ')'.
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        table[int(entry.name)] = (parent, [a.decode(errors="replace") for a in argv if a])
    return table


def _runs_module(argv: list[str], module: str) -> bool:
    return any(a == "-m" and b == module for a, b in zip(argv, argv[1:]))


def _is_torchrun(argv: list[str]) -> bool:
    return any(Path(a).name == "torchrun" for a in argv[:2])


def training_below(root: int) -> tuple[set[int], set[int]]:
    """(the processes to signal, the processes to wait for) among ``root``'s descendants: the launchers, and a
    torchrun whose launcher is gone (mpirun's daemon may kill a launcher first; its torchrun then belongs to us,
    the container's init); and every launcher, torchrun and trainer."""
    table = _processes()
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in table.items():
        children.setdefault(parent, []).append(pid)
    to_signal, to_wait, stack = set(), set(), list(children.get(root, []))
    while stack:
        pid = stack.pop()
        parent, argv = table[pid]
        launcher = _runs_module(argv, LAUNCH_MODULE)
        if launcher or (_is_torchrun(argv) and not _runs_module(table.get(parent, (0, []))[1], LAUNCH_MODULE)):
            to_signal.add(pid)
        if launcher or _is_torchrun(argv) or _runs_module(argv, TRAIN_MODULE):
            to_wait.add(pid)
        stack += children.get(pid, [])
    return to_signal, to_wait


def main(argv: Sequence[str] | None = None) -> int:
    command = list(sys.argv[1:] if argv is None else argv)
    if not command:
        print("error: command: give the command that serves the launcher's connections, e.g. /usr/sbin/sshd -De",
              file=sys.stderr)
        return 2
    child = subprocess.Popen(command)
    stops: list[int] = []
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda n, frame: stops.append(n))
    while not stops:
        status = child.poll()
        if status is not None:
            return status if status >= 0 else 128 - status
        time.sleep(POLL_S)
    signalled: set[int] = set()
    while True:
        # Below this process, not only below sshd: a process whose parent died is re-parented to the container's
        # init, this one.
        to_signal, to_wait = training_below(os.getpid())
        if not to_wait:
            break
        for pid in to_signal - signalled:
            try:
                os.kill(pid, stops[0])
            except ProcessLookupError:
                pass
        if to_signal - signalled:
            print(f"ssh_worker: {signal.Signals(stops[0]).name} passed to the trainers' launcher(s) "
                  f"{sorted(to_signal - signalled)}; waiting for their save", file=sys.stderr, flush=True)
        signalled |= to_signal
        time.sleep(POLL_S)
    child.terminate()
    try:
        child.wait(timeout=COMMAND_STOP_S)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
