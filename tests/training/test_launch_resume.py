"""An MPIJob's launcher (``launch --hold --workers-port PORT mpirun ...``) runs mpirun again after a saved stop of
its workers alone, so that stop does not count against the launcher Job's backoff limit; told to stop itself, or
without its workers for too long, it exits 75 as before; any other status ends it as before.

Real processes: the command is a stand-in whose exit codes the test sets (and, where Open MPI is installed, the real
mpirun around such stand-ins); the workers' sshd is a TCP listener the test opens and closes."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from eks_training.training import launch

#: Exits with the next code of the file argv[1] (one a line), recording each start (time and code) in argv[2].
STAND_IN = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    codes, runs = Path(sys.argv[1]), Path(sys.argv[2])
    done = len(runs.read_text().splitlines()) if runs.exists() else 0
    code = int(codes.read_text().split()[done])
    with runs.open("a") as out:
        out.write(f"{time.time()} {code}\\n")
    if len(sys.argv) > 3:  # wait for the test's go
        while not Path(sys.argv[3]).exists():
            time.sleep(0.05)
    sys.exit(code)
""")


def _listener() -> socket.socket:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    return server


def _free_port() -> int:
    with _listener() as server:  # closed again: nothing listens there
        return server.getsockname()[1]


@pytest.fixture
def job(tmp_path, monkeypatch):
    """The launcher's surroundings: MPI's hostfile naming one worker (this machine) and the stand-in's files."""
    hostfile = tmp_path / "hostfile"
    hostfile.write_text("# the operator's format\n127.0.0.1 slots=1\n")
    monkeypatch.setenv("OMPI_MCA_orte_default_hostfile", str(hostfile))
    (tmp_path / "stand_in.py").write_text(STAND_IN)
    return tmp_path


def _command(job: Path, codes: list[int], *extra: str) -> list[str]:
    (job / "codes").write_text("\n".join(map(str, codes)))
    return [sys.executable, str(job / "stand_in.py"), str(job / "codes"), str(job / "runs"), *extra]


def _runs(job: Path) -> list[tuple[float, int]]:
    lines = (job / "runs").read_text().splitlines() if (job / "runs").exists() else []
    return [(float(start), int(code)) for start, code in (line.split() for line in lines)]


def _fast(monkeypatch, *, limit_s: float = 30.0) -> None:
    monkeypatch.setattr(launch, "SETTLE_S", 0.3)
    monkeypatch.setattr(launch, "POLL_S", 0.1)
    monkeypatch.setattr(launch, "WORKERS_WAIT_S", limit_s)


def test_a_workers_saved_stop_runs_the_command_again_once_the_workers_listen(job, monkeypatch, capsys):
    _fast(monkeypatch)
    worker = _listener()
    port = worker.getsockname()[1]
    events: dict = {}

    def stop_and_recreate_the_worker() -> None:
        time.sleep(0.5)
        worker.close()  # the worker pod is stopped: its trainers save, mpirun exits 75
        (job / "go").write_text("")
        time.sleep(1.5)  # the operator creates the pod again; it is scheduled, pulls and starts sshd
        events["opened"] = time.time()
        events["server"] = socket.create_server(("127.0.0.1", port))

    thread = threading.Thread(target=stop_and_recreate_the_worker, daemon=True)
    thread.start()
    try:
        status = launch.main([launch.HOLD_FLAG, launch.WORKERS_PORT_FLAG, str(port),
                              *_command(job, [75, 75, 0], str(job / "go"))])
    finally:
        thread.join(timeout=30)
        events["server"].close()
    runs = _runs(job)
    # Two saved stops and the resumed run's success: one launcher, no exit in between, status 0.
    assert status == 0 and [code for _, code in runs] == [75, 75, 0]
    # The second run waited for the worker; the third, whose worker was already there, waited the settling time.
    assert runs[0][0] < events["opened"] < runs[1][0]
    assert runs[2][0] - runs[1][0] >= launch.SETTLE_S
    err = capsys.readouterr().err
    assert err.count("ended in a saved stop (75) this pod was not told of") == 2
    assert "waiting" not in err.split("run 1 ended")[0]  # the worker was there for the first run
    assert "every worker listens; run 2" in err and "every worker listens; run 3" in err


@pytest.mark.parametrize(("codes", "status"), [([75, 3], 3), ([1], 1), ([0], 0)])
def test_any_other_status_ends_the_launcher_with_it(job, monkeypatch, codes, status):
    _fast(monkeypatch)
    with _listener() as worker:
        port = worker.getsockname()[1]
        assert launch.main([launch.HOLD_FLAG, launch.WORKERS_PORT_FLAG, str(port), *_command(job, codes)]) == status
    assert [code for _, code in _runs(job)] == codes


@pytest.mark.parametrize("flags", [[launch.HOLD_FLAG], []])
def test_without_the_workers_port_a_saved_stop_ends_the_launcher_as_before(job, monkeypatch, flags):
    _fast(monkeypatch)
    assert launch.main([*flags, *_command(job, [75, 0])]) == 75
    assert len(_runs(job)) == 1


def test_workers_that_do_not_come_back_end_the_launcher_with_75(job, monkeypatch, capsys):
    _fast(monkeypatch, limit_s=1.0)
    worker = _listener()
    port = worker.getsockname()[1]

    def worker_gone(signum, frame):  # the worker pod is stopped (and not created again) while the command runs
        worker.close()
        (job / "go").write_text("")

    previous = signal.signal(signal.SIGALRM, worker_gone)
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        started = time.monotonic()
        status = launch.main([launch.HOLD_FLAG, launch.WORKERS_PORT_FLAG, str(port),
                              *_command(job, [75, 0], str(job / "go"))])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        worker.close()
    assert status == 75 and 1.0 <= time.monotonic() - started < 20
    assert len(_runs(job)) == 1
    assert "the workers did not listen within 1 s; exiting 75" in capsys.readouterr().err


def test_the_first_run_waits_for_the_workers_too(job, monkeypatch, capsys):
    # A launcher restarted in place, or started again when Kueue resumes the job, may start before its workers are
    # Ready: mpirun would fail to reach them, and that failure would count against the backoff limit.
    _fast(monkeypatch, limit_s=1.0)
    assert launch.main([launch.HOLD_FLAG, launch.WORKERS_PORT_FLAG, str(_free_port()), *_command(job, [0])]) == 75
    assert _runs(job) == []
    assert "waiting for 1 worker(s) to listen on port" in capsys.readouterr().err
    _fast(monkeypatch)
    port = _free_port()
    opened: list = []
    previous = signal.signal(signal.SIGALRM, lambda n, f: opened.append(socket.create_server(("127.0.0.1", port))))
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        assert launch.main([launch.HOLD_FLAG, launch.WORKERS_PORT_FLAG, str(port), *_command(job, [0])]) == 0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        for server in opened:
            server.close()
    assert len(_runs(job)) == 1 and "every worker listens; run 1" in capsys.readouterr().err


def _held_launcher(job: Path, codes: list[int], port: int, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "eks_training.training.launch", launch.HOLD_FLAG,
                             launch.WORKERS_PORT_FLAG, str(port), *_command(job, codes, *extra)],
                            stderr=subprocess.PIPE, text=True, env=os.environ.copy())


def _wait_for(condition, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.05)


def test_told_to_stop_itself_the_launcher_exits_75_and_does_not_run_again(job):
    # Kueue's suspension or a deletion: the launcher pod gets SIGTERM and its workers' saved stops end mpirun.
    with _listener() as worker:
        launcher = _held_launcher(job, [75, 0], worker.getsockname()[1], str(job / "go"))
        _wait_for(lambda: _runs(job))
        launcher.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        assert launcher.poll() is None  # held: mpirun is not told, the workers' stop ends it
        (job / "go").write_text("")
        assert launcher.wait(timeout=60) == 75
    assert len(_runs(job)) == 1
    assert "SIGTERM held" in launcher.stderr.read()


def test_told_to_stop_while_it_waits_for_the_workers_it_exits_75_at_once(job):
    # Kueue suspends the job while its launcher waits for a worker (the operator deletes the workers and suspends the
    # launcher's Job): the launcher's own SIGTERM ends the wait.
    launcher = _held_launcher(job, [0], _free_port())
    lines: list[str] = []
    _wait_for(lambda: lines.append(launcher.stderr.readline()) or "waiting for 1 worker(s)" in lines[-1])
    signalled = time.monotonic()
    launcher.send_signal(signal.SIGTERM)
    assert launcher.wait(timeout=30) == 75
    assert time.monotonic() - signalled < 10
    assert _runs(job) == []
    assert "told to stop; exiting 75" in launcher.stderr.read()


@pytest.mark.parametrize(("argv", "message"), [
    ([launch.HOLD_FLAG, launch.WORKERS_PORT_FLAG, "ssh", "mpirun"], "--workers-port: 'ssh' is not a TCP port"),
    ([launch.HOLD_FLAG, launch.WORKERS_PORT_FLAG, "70000", "mpirun"], "--workers-port: '70000' is not a TCP port"),
    ([launch.HOLD_FLAG, launch.WORKERS_PORT_FLAG, "2222"], "command: give the command"),
])
def test_a_wrong_launcher_argument_is_one_line_naming_it(job, capsys, argv, message):
    assert launch.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {message}") and err.count("\n") == 1


def test_the_workers_come_from_mpis_hostfile(job, monkeypatch, capsys):
    (job / "hostfile").write_text("job-worker-0.job.ns.svc slots=8\n\njob-worker-1.job.ns.svc slots=8  # b\n")
    assert launch.hostfile_hosts() == ["job-worker-0.job.ns.svc", "job-worker-1.job.ns.svc"]
    monkeypatch.delenv("OMPI_MCA_orte_default_hostfile")
    assert launch.main([launch.HOLD_FLAG, launch.WORKERS_PORT_FLAG, "2222", "mpirun"]) == 2
    assert "none of OMPI_MCA_orte_default_hostfile, I_MPI_HYDRA_HOST_FILE, HYDRA_HOST_FILE is set" in \
        capsys.readouterr().err
    monkeypatch.setenv("OMPI_MCA_orte_default_hostfile", str(job / "absent"))
    assert launch.main([launch.HOLD_FLAG, launch.WORKERS_PORT_FLAG, "2222", "mpirun"]) == 2
    assert "cannot be read (No such file or directory)" in capsys.readouterr().err


#: One MPI rank: records its start; on its first run, once both ranks run, exits 75 (rank 1 a moment later, as a
#: node finishing its checkpoint shard later would); on its second, 0.
RANK = textwrap.dedent("""
    import os, sys, time
    from pathlib import Path
    log, rank = Path(sys.argv[1]), os.environ["OMPI_COMM_WORLD_RANK"]
    with log.open("a") as out:
        out.write(f"{rank}\\n")
    mine = log.read_text().split().count(rank)
    while len(log.read_text().split()) < 2 * mine:
        time.sleep(0.05)
    time.sleep(0.2 * int(rank))
    sys.exit(75 if mine == 1 else 0)
""")


@pytest.mark.skipif(shutil.which("mpirun") is None, reason="needs Open MPI's mpirun (Debian: openmpi-bin)")
def test_real_mpirun_passes_the_ranks_75_on_and_the_launcher_runs_it_again(job, monkeypatch, capsys):
    _fast(monkeypatch)
    (job / "hostfile").write_text("localhost slots=2\n")  # mpirun starts both ranks here
    (job / "rank.py").write_text(RANK)
    with _listener() as worker:
        status = launch.main([launch.HOLD_FLAG, launch.WORKERS_PORT_FLAG, str(worker.getsockname()[1]),
                              "mpirun", "--allow-run-as-root", "-np", "2", "--bind-to", "none",
                              sys.executable, str(job / "rank.py"), str(job / "log")])
    # mpirun exited 75 after the first run (Open MPI returns the first non-zero exit status), the launcher ran it
    # again, and the second run's 0 is the launcher's.
    assert status == 0
    assert sorted((job / "log").read_text().split()) == ["0", "0", "1", "1"]
    assert "every worker listens; run 2" in capsys.readouterr().err


#: A node's trainers, under the node's launcher as mpirun starts them (named torchrun: the process the worker's first
#: process waits for). Like the real ones: on SIGTERM, or when a peer asks (the file "stop": the ranks' agreement),
#: they save (ckpt-RANK), wait for every rank's save, report the saved stop to their launcher and exit; started with a
#: checkpoint they resume from it and finish.
NODE_TRAINER = textwrap.dedent("""
    import os, signal, sys, time
    from pathlib import Path
    out, rank = Path(sys.argv[1]), os.environ["OMPI_COMM_WORLD_RANK"]
    mine = out / f"ckpt-{rank}"
    if mine.exists():
        (out / f"resumed-{rank}").write_text(mine.read_text())
        sys.exit(0)
    signal.signal(signal.SIGTERM, lambda n, f: (out / "stop").write_text(rank))
    (out / f"ready-{rank}").write_text(str(os.getpid()))
    step = 0
    while not (out / "stop").exists():
        step += 1
        time.sleep(0.02)
    mine.write_text(str(step))
    while len(list(out.glob("ckpt-*"))) < int(os.environ["OMPI_COMM_WORLD_SIZE"]):
        time.sleep(0.02)
    Path(os.environ["EKS_TRAINING_STOP_FILE"]).write_text(f"step {step}")
""")

_SSH_TOOLS = ("mpirun", "ssh", "ssh-keygen")


@pytest.mark.slow
@pytest.mark.skipif(any(shutil.which(t) is None for t in _SSH_TOOLS) or not Path("/usr/sbin/sshd").exists()
                    or os.geteuid() != 0,
                    reason="needs Open MPI (openmpi-bin), OpenSSH (openssh-server, openssh-client) and root")
def test_a_drained_worker_saves_and_the_job_resumes_without_the_launcher_exiting(job, monkeypatch, capfd):
    """The whole path with real software: mpirun reaches two workers (sshd on 127.0.0.2 and .3) over SSH, as the
    operator's launcher does; one worker's pod is stopped (SIGTERM to its first process, as a drain does), every rank
    saves, mpirun exits 75; the worker's pod comes back (a new sshd under a new first process, as the operator creates
    it again); the launcher runs mpirun again and the ranks resume, all in one launcher process."""
    monkeypatch.setattr(launch, "SETTLE_S", 1.0)
    monkeypatch.setattr(launch, "POLL_S", 0.2)
    for name in ("host_key", "user_key"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(job / name)], check=True)
    shutil.copy(job / "user_key.pub", job / "authorized_keys")
    Path("/run/sshd").mkdir(parents=True, exist_ok=True)
    port = _free_port()
    hosts = ["127.0.0.2", "127.0.0.3"]
    (job / "hostfile").write_text("".join(f"{host} slots=1\n" for host in hosts))
    monkeypatch.setenv("OMPI_MCA_plm_rsh_args", f"-p {port} -i {job / 'user_key'} -o StrictHostKeyChecking=no "
                                               "-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR")
    trainer = job / "torchrun"
    trainer.write_text(f"#!{sys.executable}\n{NODE_TRAINER}")
    trainer.chmod(0o755)
    out = job / "out"
    out.mkdir()

    def worker_pod(host: str) -> subprocess.Popen:
        config = job / f"sshd_config-{host}"
        config.write_text(f"Port {port}\nListenAddress {host}\nHostKey {job / 'host_key'}\n"
                          f"AuthorizedKeysFile {job / 'authorized_keys'}\nPermitRootLogin prohibit-password\n"
                          "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"
                          "PidFile none\n")
        return subprocess.Popen([sys.executable, "-m", "eks_training.training.ssh_worker", "/usr/sbin/sshd", "-De",
                                 "-f", str(config)], stderr=subprocess.DEVNULL)

    workers = [worker_pod(host) for host in hosts]
    events: dict[str, float] = {}

    def drain_and_recreate() -> None:
        _wait_for(lambda: all((out / f"ready-{rank}").exists() for rank in "01"))
        events["drained"] = time.time()
        workers[1].send_signal(signal.SIGTERM)  # the drain evicts worker 1's pod
        events["worker-1-status"] = workers[1].wait(timeout=120)
        events["worker-1-gone"] = time.time()
        time.sleep(2.0)  # the operator creates the pod again; it is scheduled and starts
        workers.append(worker_pod(hosts[1]))
        events["recreated"] = time.time()

    orchestration = threading.Thread(target=drain_and_recreate, daemon=True)
    try:
        _wait_for(lambda: all(launch.listening(host, port) for host in hosts), 30)
        orchestration.start()
        status = launch.main([launch.HOLD_FLAG, launch.WORKERS_PORT_FLAG, str(port), "mpirun", "--allow-run-as-root",
                              "-np", "2", "--map-by", "ppr:1:node", "--bind-to", "none",
                              sys.executable, "-m", "eks_training.training.launch", str(trainer), str(out)])
        orchestration.join(timeout=60)
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
                worker.wait(timeout=60)
    err = capfd.readouterr().err
    assert status == 0, err[-3000:]
    # The drained worker's first process held its pod until its trainer had saved, and left cleanly.
    assert events["worker-1-status"] == 0
    # Both ranks saved the same agreed step and resumed from it in the second mpirun of the same launcher.
    saved = {rank: (out / f"ckpt-{rank}").read_text() for rank in "01"}
    assert {rank: (out / f"resumed-{rank}").read_text() for rank in "01"} == saved
    assert (out / "stop").read_text() == "1"  # the stop came from the drained worker's rank
    assert "ended in a saved stop (75) this pod was not told of" in err and "every worker listens; run 2" in err
    # The second run started only once the recreated worker was there.
    assert (out / "resumed-1").stat().st_mtime > events["recreated"]


def _stop_env(folder: Path) -> dict[str, str]:
    return {**os.environ, "EKS_TRAINING_STOP_DIR": str(folder)}


def test_told_to_stop_itself_the_launcher_asks_the_trainers_to_save_through_the_stop_folder(job):
    # The launcher pod stopped alone (its node drained): no worker pod is signalled, so only the request written in
    # the job's stop folder ends the trainers' run (the stand-in waits for it as they do at their next step). A stale
    # request of an earlier stop is gone before the run starts, or it would stop the run at once.
    folder = job / "stop"
    folder.mkdir()
    (folder / "requested").write_text("an earlier stop\n")
    (folder / "saved").write_text("step 3\n")
    with _listener() as worker:
        launcher = subprocess.Popen([sys.executable, "-m", "eks_training.training.launch", launch.HOLD_FLAG,
                                     launch.WORKERS_PORT_FLAG, str(worker.getsockname()[1]),
                                     *_command(job, [75, 0], str(folder / "requested"))],
                                    stderr=subprocess.PIPE, text=True, env=_stop_env(folder))
        try:
            _wait_for(lambda: _runs(job))
            assert not (folder / "requested").exists() and not (folder / "saved").exists()
            time.sleep(0.5)
            assert launcher.poll() is None  # the stand-in waits for a request: none is there
            launcher.send_signal(signal.SIGTERM)
            assert launcher.wait(timeout=60) == 75  # the request ended the run: no rerun, the launcher's own 75
        finally:
            if launcher.poll() is None:
                launcher.kill()
                launcher.wait()
                (folder / "requested").write_text("")  # lets the orphaned stand-in go
    assert len(_runs(job)) == 1
    assert (folder / "requested").read_text().split()[0] == socket.gethostname()
    assert f"SIGTERM held; asked the trainers to save ({folder / 'requested'})" in launcher.stderr.read()


def test_a_stop_folder_that_cannot_be_written_is_one_line_and_no_run(job):
    blocker = job / "not-a-folder"
    blocker.write_text("")  # the folder's place is taken by a file: nothing below it can be removed or written
    with _listener() as worker:
        done = subprocess.run([sys.executable, "-m", "eks_training.training.launch", launch.HOLD_FLAG,
                               launch.WORKERS_PORT_FLAG, str(worker.getsockname()[1]), *_command(job, [0])],
                              capture_output=True, text=True, env=_stop_env(blocker / "stop"), timeout=60)
    assert done.returncode == 1 and _runs(job) == []
    assert done.stderr.startswith("error: EKS_TRAINING_STOP_DIR: the stop request") and done.stderr.count("\n") == 1


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mpirun") is None, reason="needs Open MPI's mpirun (Debian: openmpi-bin)")
def test_the_launcher_stopped_alone_ends_in_the_trainers_save_and_the_job_resumes_bit_for_bit(job, token_data):
    """Real mpirun, launcher, torchrun and 2 trainers of the tiny model, as the MPIJob renders them (the stop folder
    passed on with ``mpirun -x``): SIGTERM to the launcher pod's first process alone, as its node's drain sends it.
    The trainers save the step they agree on and the launcher exits 75; the launcher started again resumes them, and
    the run ends where an uninterrupted one ends, bit for bit."""
    from test_training_preemption import (EXIT_TIMEOUT, MAX_STEPS, assert_identical, final_state, logged_steps,
                                          run_command)
    from training_helpers import kill_all, quiet_env

    from eks_training.training.checkpoint import complete_steps

    (job / "hostfile").write_text("localhost slots=1\n")
    ckpt, folder = job / "ckpt", job / "stop"
    env = quiet_env(EKS_TRAINING_STOP_DIR=str(folder), OMPI_MCA_orte_default_hostfile=str(job / "hostfile"))

    def launcher(metrics: Path, worker_port: int) -> list[str]:
        node = run_command(token_data, ckpt, metrics)  # the node's launcher around torchrun, as the worker runs it
        return [sys.executable, "-m", "eks_training.training.launch", launch.HOLD_FLAG, launch.WORKERS_PORT_FLAG,
                str(worker_port), "mpirun", "--allow-run-as-root", "-np", "1", "--bind-to", "none",
                "-x", "EKS_TRAINING_STOP_DIR", *node]

    reference = job / "reference"
    done = subprocess.run(run_command(token_data, reference, job / "r.jsonl"), capture_output=True, text=True,
                          env=quiet_env(), timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    with _listener() as worker:
        stopped_run = subprocess.Popen(launcher(job / "a.jsonl", worker.getsockname()[1]), stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE, text=True, env=env)
        try:
            _wait_for(lambda: stopped_run.poll() is not None or any(s >= 4 for s in logged_steps(job / "a.jsonl")))
            signalled = time.monotonic()
            stopped_run.send_signal(signal.SIGTERM)  # the launcher alone: mpirun and the trainers get no signal
            _, stderr = stopped_run.communicate(timeout=120)
            seconds = time.monotonic() - signalled
        finally:
            if stopped_run.poll() is None:
                kill_all(stopped_run.pid)
        assert stopped_run.returncode == 75, stderr[-3000:]
        assert seconds < EXIT_TIMEOUT, seconds  # inside the trainers' exit bound, which the grace period covers
        print(f"launcher stopped alone: SIGTERM to exit {seconds:.2f} s")
        stopped = complete_steps(ckpt)[-1]
        assert 4 <= stopped < MAX_STEPS and max(logged_steps(job / "a.jsonl")) == stopped
        assert f"stopped on SIGTERM after step {stopped}" in stderr
        assert "told to stop; the command exited 75; exiting 75 (resume)" in stderr
        assert "this pod was not told of" not in stderr  # it was told: mpirun's 75 ends it, no rerun
        resumed = subprocess.run(launcher(job / "b.jsonl", worker.getsockname()[1]), capture_output=True, text=True,
                                 env=env, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert f"resumed from step {stopped}" in resumed.stderr  # the request was cleared: it trained to the end
    assert logged_steps(job / "b.jsonl") == list(range(stopped + 1, MAX_STEPS + 1))
    assert_identical(final_state(ckpt, MAX_STEPS, job), final_state(reference, MAX_STEPS, job))
