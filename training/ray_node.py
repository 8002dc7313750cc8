"""A Ray pod's first process: runs KubeRay's `ray start ... --block` and holds it on SIGTERM until the trainers saved.

The pod template carries ``ray.io/overwrite-container-cmd: "true"``, so KubeRay leaves the container's command alone
and hands the `ray start` command it generated in ``KUBERAY_GEN_RAY_START_CMD``. This process runs that command as its
child. On SIGTERM it asks the cluster's trainers to save (training/ray_stop.py), and passes SIGTERM on to `ray start`
once rank 0 reports the save, once no trainer runs, or after ``EKS_TRAINING_STOP_WAIT_S`` seconds (the grace period
less a margin: the kubelet's SIGKILL comes at the grace period whatever happens). It exits with the child's status.

    python -m eks_training.training.ray_node
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from typing import Mapping

from eks_training.training.ray_stop import STOP_WAIT_ENV, StopFolder

#: KubeRay's generated `ray start` command (with --block), set on every Ray container.
RAY_START_ENV = "KUBERAY_GEN_RAY_START_CMD"
#: What KubeRay's own container command sets before `ray start` (Ray opens a socket per worker and object).
OPEN_FILES = 65536
DEFAULT_STOP_WAIT_S = 60.0
POLL_S = 0.2


def _raise_open_files_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = OPEN_FILES if hard == resource.RLIM_INFINITY else min(OPEN_FILES, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def _stop_wait(env: Mapping[str, str]) -> float | str:
    value = env.get(STOP_WAIT_ENV)
    if value is None:
        return DEFAULT_STOP_WAIT_S
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if seconds < 0:
        return f"{STOP_WAIT_ENV}={value!r} is not allowed: seconds >= 0 (the grace period less a margin)"
    return seconds


def _say(message: str) -> None:
    print(f"ray_node: {message}", file=sys.stderr, flush=True)


def main(env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    command = env.get(RAY_START_ENV, "").strip()
    if not command:
        print(f"error: {RAY_START_ENV} is not set: run this as the first process of a KubeRay pod whose template has "
              "ray.io/overwrite-container-cmd: \"true\" (KubeRay sets it then)", file=sys.stderr)
        return 2
    wait_s = _stop_wait(env)
    if isinstance(wait_s, str):
        print(f"error: {wait_s}", file=sys.stderr)
        return 2
    folder = StopFolder.from_env(env)
    _raise_open_files_limit()
    # bash: KubeRay's command quotes JSON arguments (--resources='{...}') for a shell.
    child = subprocess.Popen(["/bin/bash", "-c", command])
    asked: list[float] = []

    def on_signal(number: int, frame: object) -> None:
        if number == signal.SIGINT or asked:
            child.send_signal(number)  # by hand, or again: go now
            return
        asked.append(time.monotonic())
        if folder is not None and folder.is_training() and folder.saved_step() is None:
            folder.request()
            _say(f"SIGTERM: asked the trainers to save ({folder.requested}); holding Ray up to {wait_s:g} s")

    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, on_signal)
    forwarded = False
    while True:
        try:
            status = child.wait(timeout=POLL_S)
            break
        except subprocess.TimeoutExpired:
            pass
        if asked and not forwarded and _may_go(folder, asked[0], wait_s):
            forwarded = True
            child.send_signal(signal.SIGTERM)
    return status if status >= 0 else 128 - status


def _may_go(folder: StopFolder | None, asked_at: float, wait_s: float) -> bool:
    """Whether Ray may stop now: nothing trains here, the trainers saved, or the wait is over."""
    if folder is None:
        return True
    step = folder.saved_step()
    if step is not None:
        _say(f"the trainers saved step {step}; stopping Ray")
        return True
    if not folder.is_training():
        return True
    if time.monotonic() - asked_at >= wait_s:
        _say(f"no save within {wait_s:g} s; stopping Ray (the newest complete checkpoint stays the newest)")
        return True
    return False


if __name__ == "__main__":
    sys.exit(main())
