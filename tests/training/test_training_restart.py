"""A TrainJob that loses a rank restarts as a whole and ends exactly where an uninterrupted run ends.

The job is the one `eks-training render trainjob` writes for dev, run as Trainer runs it: its runtime's trainer pod
with the TrainJob's torchrun command, two CPU processes (gloo) standing in for the two nodes, the `/fsx` paths mapped
to a folder. Mid-run one rank is killed (a lost node: SIGKILL, no shutdown path). The restart is the runtime's
JobSet failure policy, emulated as JobSet applies it: the failed group is gone and every rank starts again with the
same command (restartStrategy Recreate), at most `maxRestarts` times. The restarted job resumes from the newest
complete checkpoint, and its last loss equals the uninterrupted run's, bit for bit.

What a cluster adds and this does not: JobSet and Trainer themselves, node replacement, NCCL.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from eks_training.core.names import FSX_MOUNT_PATH
from eks_training.infra.config import load_environment
from eks_training.infra.tools.job_render import render_job
from eks_training.workloads.job_trainjob import cluster_training_runtime, trainjob_pod_spec

from training_helpers import VENV_BIN, quiet_env

JOB, DATASET = "restart", "restart-corpus"
MAX_STEPS, EVERY, KILL_AFTER = 12, 3, 6
TRAIN_ARGS = (f"--max-steps {MAX_STEPS} --checkpoint-every {EVERY} --seq-len 32 --micro-batch-size 4 --lr 3e-3 "
              "--warmup-steps 2 --precision fp32 --log-every 1")


def _rendered() -> tuple[list[str], int, int]:
    """The trainer pod's command (as Trainer runs the TrainJob), its world size, and the runtime's restart budget."""
    config = load_environment("dev")
    image = "registry.example/eks-training-gpu:1"
    trainjob, _budget = render_job(config, "trainjob", images={"gpu": image}, name=JOB, nodes=2, instance_type="g5.xlarge",
                             dataset=DATASET, model="tiny", train_args=TRAIN_ARGS)
    # The runtime the platform installs for the type, built as the Kubeflow Trainer add-on builds it for dev.
    runtime = cluster_training_runtime(instance_type="g5.xlarge", image=image,
                                       max_restarts=config.services.job_max_restarts)
    (node,) = trainjob_pod_spec(trainjob, runtime)["spec"]["containers"]
    trainer = trainjob["spec"]["trainer"]
    return node["command"], trainer["numNodes"] * trainer["numProcPerNode"], \
        runtime["spec"]["template"]["spec"]["failurePolicy"]["maxRestarts"]


def _torchrun(command: list[str], world_size: int, fsx: Path) -> list[str]:
    """One machine for the whole group: torchrun's standalone rendezvous with ``world_size`` processes, the trainer's
    argv exactly as rendered (only the /fsx prefix moved)."""
    module = len(command) - 1 - command[::-1].index("-m")  # the trainer's -m (the launcher's comes first)
    argv = [str(fsx) + a[len(FSX_MOUNT_PATH):] if a.startswith(FSX_MOUNT_PATH + "/") else a for a in command[module:]]
    return [str(VENV_BIN / "torchrun"), "--standalone", f"--nproc_per_node={world_size}", *argv]


def _fsx(root: Path, tokens: Path) -> Path:
    """The FSx layout the pod sees: the prepared dataset under data/, an empty workspace."""
    dataset = root / "data" / DATASET
    dataset.mkdir(parents=True)
    for split in ("train", "eval"):
        (dataset / split).symlink_to(tokens, target_is_directory=True)
    (root / "workspace").mkdir()
    return root


def _losses(stdout: str) -> dict[int, float]:
    records = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    return {r["step"]: r["loss"] for r in records if "loss" in r}


def _rank_pid(parent: int, rank: int) -> int | None:
    """The process of ``rank`` among torchrun's workers (its RANK variable)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            environ = (entry / "environ").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if ppid == parent and f"RANK={rank}".encode() in environ:
            return int(entry.name)
    return None


@pytest.mark.slow
def test_a_job_that_loses_a_rank_restarts_whole_and_ends_like_an_uninterrupted_one(token_data: Path,
                                                                                    tmp_path: Path) -> None:
    command, world_size, max_restarts = _rendered()
    assert world_size == 2 and max_restarts >= 1
    env = quiet_env(CUDA_VISIBLE_DEVICES="")

    reference = subprocess.run(_torchrun(command, world_size, _fsx(tmp_path / "reference", token_data)),
                               capture_output=True, text=True, env=env, timeout=240)
    assert reference.returncode == 0, (reference.stdout + reference.stderr)[-4000:]
    expected = _losses(reference.stdout)
    assert sorted(expected) == list(range(1, MAX_STEPS + 1))

    fsx = _fsx(tmp_path / "restarted", token_data)
    checkpoints = fsx / "workspace" / "checkpoints" / JOB
    group = _torchrun(command, world_size, fsx)
    runs = []
    # The first run of the group: rank 1's process dies once a checkpoint is complete, the run still going.
    first = subprocess.Popen(group, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 180
    while not (checkpoints / f"step-{KILL_AFTER}" / "COMPLETE").exists():
        assert first.poll() is None and time.monotonic() < deadline, "the run ended before a rank could be killed"
        time.sleep(0.02)
    victim = _rank_pid(first.pid, 1)
    assert victim is not None, "rank 1's process not found under torchrun"
    os.kill(victim, signal.SIGKILL)
    stdout, stderr = first.communicate(timeout=120)
    runs.append((first.returncode, stdout, stderr))
    killed_at = max(_losses(stdout), default=0)
    assert first.returncode != 0 and killed_at < MAX_STEPS, "the group must fail when it loses a rank"

    # JobSet's failure policy: recreate the whole group with the same command, while restarts are left.
    while runs[-1][0] != 0 and len(runs) <= max_restarts:
        again = subprocess.run(group, capture_output=True, text=True, env=env, timeout=240)
        runs.append((again.returncode, again.stdout, again.stderr))
    code, stdout, stderr = runs[-1]
    assert code == 0, (stdout + stderr)[-4000:]
    assert len(runs) == 2, "one restart is enough after one lost rank"

    # The restart resumed from the newest complete checkpoint at or after the kill point, and finished the run...
    resumed = int(stderr.split("resumed from step ", 1)[1].split()[0])
    assert KILL_AFTER <= resumed <= killed_at
    got = _losses(stdout)
    assert sorted(got) == list(range(resumed + 1, MAX_STEPS + 1))
    # ... exactly as the uninterrupted run did: every step after the resume, the last one included.
    assert {step: got[step] for step in got} == {step: expected[step] for step in got}
    assert got[MAX_STEPS] == expected[MAX_STEPS]
