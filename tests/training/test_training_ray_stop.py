"""Ray kinds keep their work when stopped, on real Ray (the image's pin, 2.49.1) on this machine.

A local Ray cluster is started the way a KubeRay pod starts one: training/ray_node.py as the first process, running
the `ray start --head --block` command KubeRay hands it in KUBERAY_GEN_RAY_START_CMD. The driver is our Ray Train
entry point with two CPU workers (gloo) on the tiny model.

- One pod of the cluster stops (its first process writes the stop request, as a drained worker's does): the workers
  save at a logged step, the driver fits again from that checkpoint, and the run ends bit for bit where an
  uninterrupted run ends.
- The whole cluster stops (SIGTERM to the head pod's first process, as Kueue's suspension or a lost head does): Ray is
  held until the trainers saved, then stopped; a driver submitted again on a new cluster resumes from the run's
  newest checkpoint and ends bit for bit the same. A pod of an idle cluster is let go at once.
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from eks_training.training.checkpoint import complete_steps
from eks_training.training.ray_stop import StopFolder
from test_training_preemption import assert_identical, final_state, logged_steps
from training_helpers import TINY_FLAGS, VENV_BIN, kill_all, quiet_env, read_records

MAX_STEPS, EVERY = 10, 4
STOP_WAIT_S = 60
RUN = "ray-stop"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RayPod:
    """A head pod: ray_node around KubeRay-style `ray start --head --block`, on free ports."""

    def __init__(self, stop_dir: Path) -> None:
        self.port = _free_port()
        self.temp = tempfile.mkdtemp(prefix="r", dir="/tmp")  # Ray's socket paths must stay short
        start = (f"{VENV_BIN / 'ray'} start --head --block --port={self.port} --num-cpus=4 --include-dashboard=false "
                 f"--dashboard-agent-listen-port={_free_port()} --ray-client-server-port={_free_port()} "
                 f"--disable-usage-stats --temp-dir={self.temp}")
        env = quiet_env(KUBERAY_GEN_RAY_START_CMD=start, EKS_TRAINING_STOP_DIR=str(stop_dir),
                        EKS_TRAINING_STOP_WAIT_S=str(STOP_WAIT_S))
        self.process = subprocess.Popen([sys.executable, "-m", "eks_training.training.ray_node"], env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 90
        while not self._gcs_answers():
            assert self.process.poll() is None, f"ray start ended: {self.process.stderr.read()[-2000:]}"
            assert time.monotonic() < deadline, "the Ray head did not come up in 90 s"
            time.sleep(0.5)

    def _gcs_answers(self) -> bool:
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
            return True
        except OSError:
            return False

    def driver(self, data: Path, ckpt: Path, storage: Path, metrics: Path, stop_dir: Path) -> subprocess.Popen:
        command = [sys.executable, "-m", "eks_training.training.ray_train", "--num-workers", "2",
                   f"--storage-path={storage}", f"--run-name={RUN}", "--resume-delay", "0", "--",
                   "--data", str(data), *TINY_FLAGS, "--max-steps", str(MAX_STEPS), "--checkpoint-every", str(EVERY),
                   "--checkpoint-dir", str(ckpt), "--metrics-file", str(metrics)]
        env = quiet_env(RAY_ADDRESS=f"127.0.0.1:{self.port}", EKS_TRAINING_STOP_DIR=str(stop_dir),
                        RAY_TRAIN_ENABLE_V2_MIGRATION_WARNINGS="0")
        return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def remove(self) -> None:
        kill_all(self.process.pid)
        self.process.wait()


def _when_logged(metrics: Path, step: int, driver: subprocess.Popen) -> None:
    deadline = time.monotonic() + 180
    while not any(s >= step for s in logged_steps(metrics)):
        assert driver.poll() is None, f"the driver ended before step {step}: {driver.stderr.read()[-3000:]}"
        assert time.monotonic() < deadline, f"step {step} not logged in 180 s"
        time.sleep(0.02)


def _finished(driver: subprocess.Popen, timeout: float = 240) -> str:
    _, err = driver.communicate(timeout=timeout)
    assert driver.returncode == 0, err[-3000:]
    return err


@pytest.mark.slow
def test_a_stopped_ray_job_saves_fits_again_and_ends_bit_for_bit_like_an_uninterrupted_one(
        token_data: Path, tmp_path: Path) -> None:
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    runs = {name: (tmp_path / name / "ckpt", tmp_path / name / "storage", tmp_path / name / "metrics.jsonl",
                   StopFolder(tmp_path / name / "stop")) for name in ("whole", "stopped")}
    ckpt, storage, metrics, folder = runs["stopped"]
    pod = RayPod(folder.path)
    second = None
    try:
        # An uninterrupted run: the reference.
        whole_ckpt, whole_storage, whole_metrics, whole_folder = runs["whole"]
        _finished(pod.driver(token_data, whole_ckpt, whole_storage, whole_metrics, whole_folder.path))
        expected = final_state(whole_ckpt, MAX_STEPS, tmp_path)

        # One pod of the cluster stops: its first process asks for the save; the cluster stays, the driver fits again.
        driver = pod.driver(token_data, ckpt, storage, metrics, folder.path)
        pod_stop = rng.randint(2, 4)
        _when_logged(metrics, pod_stop, driver)
        folder.request()
        deadline = time.monotonic() + 180
        while not any(r.get("event") == "resumed" for r in read_records(metrics)):
            assert driver.poll() is None and time.monotonic() < deadline, driver.stderr.read()[-3000:]
            time.sleep(0.05)
        (stopped,) = [r["step"] for r in read_records(metrics) if r.get("event") == "stopped"]
        assert stopped >= pod_stop, seed
        assert [r["step"] for r in read_records(metrics) if r.get("event") == "resumed"] == [stopped]

        # Then the whole cluster stops: SIGTERM to the head pod's first process while the second fit trains.
        cluster_stop = rng.randint(stopped + 1, MAX_STEPS - 2)
        _when_logged(metrics, cluster_stop, driver)
        pod.process.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        _, node_err = pod.process.communicate(timeout=STOP_WAIT_S + 60)
        took = time.monotonic() - signalled
        saved = folder.saved_step()
        assert saved is not None and saved >= cluster_stop, (seed, node_err[-2000:])
        assert f"the trainers saved step {saved}; stopping Ray" in node_err
        assert took < STOP_WAIT_S, f"Ray held {took:.1f} s: the save was not seen ({node_err[-2000:]})"
        assert saved in complete_steps(ckpt)
        try:
            _, err = driver.communicate(timeout=60)  # its cluster is gone
        finally:
            kill_all(driver.pid)
        assert f"stopped after saving step {stopped} (stop 1)" in err

        # Submitted again on a new cluster: the driver resumes from the run's newest checkpoint.
        second = RayPod(folder.path)
        err = _finished(second.driver(token_data, ckpt, storage, metrics, folder.path))
        assert "ray_train: resuming from" in err
        assert [r["step"] for r in read_records(metrics) if r.get("event") == "resumed"] == [stopped, saved]
        # Nothing redone: every step logged once.
        assert sorted(logged_steps(metrics)) == list(range(1, MAX_STEPS + 1)), seed
        assert_identical(final_state(ckpt, MAX_STEPS, tmp_path), expected)

        # An idle cluster's pod is let go at once: nothing trains, nothing to wait for.
        second.process.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        _, node_err = second.process.communicate(timeout=STOP_WAIT_S)
        assert time.monotonic() - signalled < STOP_WAIT_S / 2, node_err[-2000:]
        assert "asked the trainers" not in node_err
        print(f"seed {seed}: a pod's stop saved step {stopped}, the cluster's stop saved step {saved} and Ray was "
              f"held {took:.1f} s")
    finally:
        for node in (pod, second):
            if node is not None:
                node.remove()


def _stand_in(tmp_path: Path, status: int = 0) -> str:
    """A `ray start` stand-in that records when SIGTERM reached it, then exits ``status``."""
    record = tmp_path / "signalled"
    script = (f"import signal, sys, time\n"
              f"def stop(n, f):\n    open({str(record)!r}, 'w').write(repr(time.monotonic()))\n    sys.exit({status})\n"
              f"signal.signal(signal.SIGTERM, stop)\nopen({str(tmp_path / 'up')!r}, 'w').close()\n"
              f"while True:\n    time.sleep(0.05)\n")
    (tmp_path / "stand_in.py").write_text(script)
    return f"exec {sys.executable} {tmp_path / 'stand_in.py'}"


def _node(tmp_path: Path, folder: StopFolder, wait: str) -> subprocess.Popen:
    env = quiet_env(KUBERAY_GEN_RAY_START_CMD=_stand_in(tmp_path, status=3), EKS_TRAINING_STOP_DIR=str(folder.path),
                    EKS_TRAINING_STOP_WAIT_S=wait)
    process = subprocess.Popen([sys.executable, "-m", "eks_training.training.ray_node"], env=env, text=True,
                               stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while not (tmp_path / "up").exists():
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    return process


def test_the_pod_holds_ray_until_the_save_and_no_longer_than_its_wait(tmp_path: Path) -> None:
    folder = StopFolder(tmp_path / "stop")
    folder.start_training()
    process = _node(tmp_path, folder, wait="30")
    process.send_signal(signal.SIGTERM)
    time.sleep(1.0)
    assert folder.is_requested() and not (tmp_path / "signalled").exists()  # held: the trainers have not saved
    folder.mark_saved(7)
    _, err = process.communicate(timeout=10)
    assert process.returncode == 3  # ray start's own status
    assert "the trainers saved step 7; stopping Ray" in err


def test_the_pod_lets_ray_go_after_its_wait_when_no_save_comes(tmp_path: Path) -> None:
    folder = StopFolder(tmp_path / "stop")
    folder.start_training()
    process = _node(tmp_path, folder, wait="1")
    process.send_signal(signal.SIGTERM)
    signalled = time.monotonic()
    _, err = process.communicate(timeout=15)
    assert 1.0 <= float((tmp_path / "signalled").read_text()) - signalled < 5
    assert "no save within 1 s" in err


@pytest.mark.parametrize(("env", "message"), [
    ({}, "error: KUBERAY_GEN_RAY_START_CMD is not set: run this as the first process of a KubeRay pod whose template "
         "has ray.io/overwrite-container-cmd: \"true\" (KubeRay sets it then)\n"),
    ({"KUBERAY_GEN_RAY_START_CMD": "ray start --block", "EKS_TRAINING_STOP_WAIT_S": "soon"},
     "error: EKS_TRAINING_STOP_WAIT_S='soon' is not allowed: seconds >= 0 (the grace period less a margin)\n"),
])
def test_a_pod_without_its_settings_fails_in_one_line(env: dict, message: str, capsys: pytest.CaptureFixture) -> None:
    from eks_training.training.ray_node import main

    assert main(env) == 2
    assert capsys.readouterr().err == message
