"""An MPIJob worker's first process keeps the pod up while the trainers that mpirun started below it save.

Real processes: the "sshd" is a shell that starts, as the launcher's SSH session would, the real launcher module
around a trainer that takes a while to save on SIGTERM."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from eks_training.training.ssh_worker import training_below

TRAINER = textwrap.dedent("""
    import os, signal, sys, time
    from pathlib import Path
    out = Path(sys.argv[1])
    def stop(number, frame):
        time.sleep(1.0)  # the checkpoint write
        (out / "saved").write_text(str(time.time()))
        Path(os.environ["EKS_TRAINING_STOP_FILE"]).write_text("step 7")
        sys.exit(0)
    signal.signal(signal.SIGTERM, stop)
    (out / "ready").write_text("")
    while True:
        time.sleep(0.05)
""")


def _wait_for(path: Path, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def _start(tmp_path: Path) -> subprocess.Popen:
    # Named like torchrun's console script: the process the worker waits for below the launcher.
    torchrun = tmp_path / "torchrun"
    torchrun.write_text(f"#!{sys.executable}\n{TRAINER}")
    torchrun.chmod(0o755)
    session = (f"( {sys.executable} -m eks_training.training.launch {torchrun} "
               f"{tmp_path}; echo $? > {tmp_path / 'launch-status'} ) & wait")
    worker = subprocess.Popen([sys.executable, "-m", "eks_training.training.ssh_worker", "sh", "-c", session],
                              stderr=subprocess.PIPE, text=True)
    _wait_for(tmp_path / "ready")
    return worker


def test_sigterm_reaches_the_trainers_below_sshd_and_the_pod_waits_for_their_save(tmp_path):
    worker = _start(tmp_path)
    to_signal, to_wait = training_below(worker.pid)
    assert len(to_signal) == 1 and to_signal < to_wait  # the launcher; and its trainer to wait for
    signalled = time.time()
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(timeout=30) == 0
    exited = time.time()
    saved = float((tmp_path / "saved").read_text())
    assert signalled < saved < exited  # the save happened, and before the pod's first process left
    # The launcher saw the saved stop and exited 75 (resume).
    _wait_for(tmp_path / "launch-status")
    assert (tmp_path / "launch-status").read_text().strip() == "75"
    assert "passed to the trainers' launcher" in worker.stderr.read()


def test_without_a_signal_it_exits_with_its_commands_status(tmp_path):
    assert subprocess.run([sys.executable, "-m", "eks_training.training.ssh_worker", "sh", "-c", "exit 3"],
                          timeout=30).returncode == 3
    assert subprocess.run([sys.executable, "-m", "eks_training.training.ssh_worker"], capture_output=True, text=True,
                          timeout=30).stderr.startswith("error: command:")


def test_a_launcher_not_below_it_is_left_alone(tmp_path):
    # Another pod's (or another test's) launcher is not this worker's: it is neither found nor signalled.
    outsider = subprocess.Popen([sys.executable, "-m", "eks_training.training.launch", "sleep", "60"])
    worker = _start(tmp_path)
    try:
        assert outsider.pid not in set.union(*training_below(worker.pid))
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=30) == 0
        assert outsider.poll() is None
    finally:
        outsider.terminate()
        outsider.wait(timeout=30)


HELD = textwrap.dedent("""
    import signal, sys, time
    from pathlib import Path
    out = Path(sys.argv[1])
    signal.signal(signal.SIGTERM, lambda n, f: (out / "signalled").write_text(""))
    (out / "ready").write_text("")
    while not (out / "done").exists():
        time.sleep(0.05)
    sys.exit(75)  # as mpirun does when a node's launcher exited 75
""")


def test_the_mpijob_launcher_holds_sigterm_from_mpirun_and_passes_its_status_on(tmp_path):
    (tmp_path / "mpirun.py").write_text(HELD)
    launcher = subprocess.Popen([sys.executable, "-m", "eks_training.training.launch", "--hold", sys.executable,
                                 str(tmp_path / "mpirun.py"), str(tmp_path)], stderr=subprocess.PIPE, text=True)
    _wait_for(tmp_path / "ready")
    launcher.send_signal(signal.SIGTERM)
    time.sleep(1.0)
    assert launcher.poll() is None and not (tmp_path / "signalled").exists()
    (tmp_path / "done").write_text("")
    assert launcher.wait(timeout=30) == 75
    assert "SIGTERM held" in launcher.stderr.read()
