"""The slurm.conf we render, run by real Slurm (Debian's slurm-wlm, with munge): root's jobs are refused, a user's
job runs as that user and its files are theirs.

The Slinky operator writes slurm.conf from its own settings and appends the Controller's ``extraConf``, ours
(``SLURM_CONF_SETTINGS``). Here the operator's part is a one-node local cluster (munge instead of Slinky's
auth/slurm, which Debian's Slurm 22.05 predates); the part we render is taken from the synthesized prod Controller
as it stands. slurmctld, slurmd and munged run as this test's children on loopback ports and are stopped after it.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

NOBODY = 65534
_BINARIES = ("slurmctld", "slurmd", "munged", "sbatch", "sinfo", "scontrol")
pytestmark = pytest.mark.skipif(
    any(shutil.which(b) is None and not Path(f"/usr/sbin/{b}").exists() for b in _BINARIES) or os.geteuid() != 0,
    reason="real Slurm needs Debian's slurm-wlm and munge (apt-get install slurm-wlm munge) and root")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _binary(name: str) -> str:
    return shutil.which(name) or f"/usr/sbin/{name}"


@pytest.fixture(scope="module")
def slurm_cluster(prod):
    (controller,) = [o for _, o in prod.kubernetes_objects() if o.get("kind") == "Controller"]
    rendered = controller["spec"]["extraConf"]
    # Not under pytest's root-only temporary folder: munged runs as munge, the job as nobody.
    root = Path(tempfile.mkdtemp(prefix="eks-training-slurm-", dir="/tmp"))
    os.chmod(root, 0o755)
    for sub in ("state", "spool", "munge", "work"):
        (root / sub).mkdir()
    os.chmod(root / "work", 0o1777)  # like a workspace: anyone writes, nobody deletes another's files
    shutil.chown(root / "munge", "munge", "munge")
    os.chmod(root / "munge", 0o711)  # clients (nobody too) reach the socket; the key stays 0400
    key = root / "munge" / "munge.key"
    key.write_bytes(os.urandom(1024))
    shutil.chown(key, "munge", "munge")
    os.chmod(key, 0o400)
    munge_socket = root / "munge" / "munge.socket"
    host = socket.gethostname()
    conf = root / "slurm.conf"
    conf.write_text(f"""\
ClusterName=tenancy
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={munge_socket}
StateSaveLocation={root / "state"}
SlurmdSpoolDir={root / "spool"}
SlurmctldPidFile={root / "slurmctld.pid"}
SlurmdPidFile={root / "slurmd.pid"}
SlurmctldLogFile={root / "slurmctld.log"}
SlurmdLogFile={root / "slurmd.log"}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
NodeName={host} NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN
PartitionName=gpu Nodes={host} Default=YES MaxTime=INFINITE State=UP
#
### EXTRA CONFIG ###
{rendered}
""")
    env = {**os.environ, "SLURM_CONF": str(conf)}
    started = []
    try:
        started.append(subprocess.Popen([_binary("munged"), "--foreground", "--force", f"--socket={munge_socket}",
                                         f"--key-file={key}", f"--pid-file={root / 'munge' / 'munged.pid'}",
                                         f"--log-file={root / 'munge' / 'munged.log'}",
                                         f"--seed-file={root / 'munge' / 'munged.seed'}"],
                                        user="munge", group="munge", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for _ in range(50):
            if munge_socket.exists():
                break
            time.sleep(0.1)
        started.append(subprocess.Popen([_binary("slurmctld"), "-D", "-i", "-f", str(conf)], env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        started.append(subprocess.Popen([_binary("slurmd"), "-D", "-f", str(conf)], env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            state = subprocess.run([_binary("sinfo"), "-h", "-o", "%T"], env=env, capture_output=True, text=True)
            if state.stdout.strip() == "idle":
                break
            time.sleep(0.5)
        else:
            logs = "\n".join((root / f).read_text()[-2000:] for f in ("slurmctld.log", "slurmd.log") if (root / f).exists())
            pytest.fail(f"the local Slurm cluster never became idle: {state.stdout} {state.stderr}\n{logs}")
        yield env, root, rendered
    finally:
        for process in reversed(started):
            process.send_signal(signal.SIGTERM)
        for process in reversed(started):
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(root, ignore_errors=True)


def _sbatch(env: dict, work: Path, user: int | None, script: str) -> subprocess.CompletedProcess:
    extra = {"user": user, "group": user, "extra_groups": []} if user is not None else {}
    return subprocess.run([_binary("sbatch"), "--parsable", f"--chdir={work}", f"--output={work}/%j.out",
                           "--wrap", script], env=env, capture_output=True, text=True, timeout=30, **extra)


def test_root_jobs_are_refused_under_the_slurm_conf_we_render(slurm_cluster) -> None:
    env, root, rendered = slurm_cluster
    assert "DisableRootJobs=YES" in rendered.splitlines()
    refused = _sbatch(env, root / "work", None, "id -u > root-ran")
    assert refused.returncode != 0, refused.stdout
    # Slurm's answer to a root job under DisableRootJobs (ESLURM_USER_ID_MISSING), and slurmctld's reason.
    assert "Invalid user id" in refused.stderr, refused.stderr
    assert "root disabled" in (root / "slurmctld.log").read_text(), (root / "slurmctld.log").read_text()[-1500:]
    assert not (root / "work" / "root-ran").exists()


def test_a_users_job_runs_as_that_user_and_its_files_are_theirs(slurm_cluster) -> None:
    env, root, _ = slurm_cluster
    work = root / "work"
    submitted = _sbatch(env, work, NOBODY, f"id -u > {work}/whoami; echo data > {work}/result")
    assert submitted.returncode == 0, submitted.stderr
    job = submitted.stdout.strip().split(";")[0]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        state = subprocess.run([_binary("scontrol"), "show", "job", job], env=env, capture_output=True, text=True).stdout
        if "JobState=COMPLETED" in state or "JobState=FAILED" in state:
            break
        time.sleep(0.5)
    assert "JobState=COMPLETED" in state, state
    assert (work / "whoami").read_text().strip() == str(NOBODY)
    assert (work / "result").stat().st_uid == NOBODY and (work / f"{job}.out").stat().st_uid == NOBODY


def test_a_user_submits_through_the_auth_daemon_and_cannot_read_its_key(slurm_cluster) -> None:
    """The login pods' model: users' commands get credentials from a local daemon (sackd there, munged here) over
    its socket; the key stays the daemon user's, mode 0600 or tighter, and a user's job that reads it gets nothing."""
    env, root, _ = slurm_cluster
    key, work = root / "munge" / "munge.key", root / "work"
    assert key.stat().st_mode & 0o077 == 0 and key.stat().st_uid != NOBODY
    submitted = _sbatch(env, work, NOBODY, f"cat {key} > {work}/stolen 2> {work}/refused; echo done > {work}/ran")
    assert submitted.returncode == 0, submitted.stderr
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (work / "ran").exists():
        time.sleep(0.5)
    assert (work / "ran").read_text().strip() == "done"
    assert (work / "stolen").read_bytes() == b"" and "Permission denied" in (work / "refused").read_text()
