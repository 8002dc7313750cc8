"""EFA or nothing: the trainer reads NCCL's initialisation log and refuses a job that asked for EFA when NCCL runs
on TCP sockets. The logs under nccl_logs/ are real NCCL/aws-ofi-nccl output from public issues (each file's header
cites its source), of both outcomes."""

from __future__ import annotations

from pathlib import Path

import pytest

import eks_training.training.train as train_module
from eks_training.core.names import NCCL_DEBUG_FILE_ENV, REQUIRE_EFA_ENV
from eks_training.training.fabric import (EXIT_NO_EFA, EfaNotInUse, debug_file_path, efa_problem,
                                          read_nccl_networks, require_efa)

LOGS = Path(__file__).parent / "nccl_logs"
ON_EFA = ["efa_p5en_libfabric.log", "efa_p4d_channels_nccl_2_7.log"]
NOT_ON_EFA = {
    "socket_fallback_cloudwatch.log": ("NCCL network Socket; the EFA plugin (aws-ofi-nccl) failed to initialize "
                                       "(process ip-10-36-29-253:86"),
    "socket_fallback_mpijob.log": ("NCCL network Socket; the EFA plugin (aws-ofi-nccl) failed to initialize "
                                   "(process bert-mpi-training-worker-1:22"),
    "ofi_tcp_provider_nccl_2_4.log": "libfabric provider tcp;ofi_rxm (process ip-192-168-16-255:25604",
}


def _log(name: str) -> str:
    text = (LOGS / name).read_text()
    assert text.startswith("# ") and "https://github.com/" in text.splitlines()[1] + text.splitlines()[0]
    return text


@pytest.mark.parametrize("name", ON_EFA)
def test_logs_of_nccl_on_efa_pass(name):
    assert efa_problem(_log(name), name) is None


@pytest.mark.parametrize(("name", "found"), NOT_ON_EFA.items())
def test_logs_of_nccl_on_tcp_fail_naming_what_was_found(name, found):
    problem = efa_problem(_log(name), name)
    assert problem is not None and "\n" not in problem
    assert problem.startswith("this job requested EFA interfaces, but NCCL is not using the EFA network plugin: "
                              "found ")
    assert found in problem, problem


def test_each_process_is_read_on_its_own():
    networks = read_nccl_networks(_log("socket_fallback_mpijob.log"))
    # Rank 10's lines stop after its plugin failed: judged on that alone.
    assert {p: (n.network, n.plugin_failed) for p, n in networks.items()} == {
        "bert-mpi-training-worker-1:22": ("Socket", True), "bert-mpi-training-worker-1:21": ("Socket", False),
        "bert-mpi-training-worker-1:23": (None, True)}
    assert not any(n.on_efa for n in networks.values())
    efa = read_nccl_networks(_log("efa_p5en_libfabric.log"))
    assert (efa["8h200-2:6831"].network, efa["8h200-3:6310"].providers) == ("Libfabric", ("efa",))
    # One process on sockets among processes on EFA fails the whole log.
    mixed = _log("efa_p5en_libfabric.log") + _log("socket_fallback_cloudwatch.log")
    assert "process ip-10-36-29-253:86" in efa_problem(mixed, "both")


def test_a_log_without_network_lines_cannot_confirm_efa():
    problem = efa_problem("8h200-2:6831:6840 [0] NCCL INFO NET/OFI Creating one domain per process\n"
                          "NCCL version 2.21.5+cuda12.8\n", "the file")
    assert problem == ("this job requested EFA interfaces, but the file has no NCCL network line (NCCL_DEBUG=INFO "
                       "with NCCL_DEBUG_SUBSYS including INIT and NET prints them), so EFA cannot be confirmed")


def _pod_env(tmp_path: Path, log: str) -> dict[str, str]:
    """A pod's environment as rendered, with NCCL's file for this host and process holding ``log``."""
    pattern = str(tmp_path / "nccl-%h-%p.log")
    debug_file_path(pattern).write_text(_log(log))
    return {REQUIRE_EFA_ENV: "1", NCCL_DEBUG_FILE_ENV: pattern}


def test_require_efa_reads_this_process_file_and_refuses_sockets(tmp_path, capsys):
    with pytest.raises(EfaNotInUse) as refused:
        require_efa(allow_tcp=False, rank=3, env=_pod_env(tmp_path, "socket_fallback_mpijob.log"))
    message = str(refused.value)
    assert message.startswith("rank 3: this job requested EFA interfaces, but NCCL is not using the EFA network "
                              "plugin: found NCCL network Socket")
    assert message.endswith("; pass --allow-tcp true to train over TCP anyway") and "\n" not in message
    # --allow-tcp: the same finding, as one warning line.
    line = require_efa(allow_tcp=True, rank=3, env=_pod_env(tmp_path, "socket_fallback_mpijob.log"))
    assert line.startswith("warning: rank 3: this job requested EFA") and line.endswith("training on (--allow-tcp true)")
    assert capsys.readouterr().err == line + "\n"
    assert require_efa(allow_tcp=False, rank=0, env=_pod_env(tmp_path, "efa_p5en_libfabric.log")) is None


def test_require_efa_only_where_the_job_asked_and_never_blind(tmp_path):
    # No EFA asked for: nothing read, nothing refused.
    assert require_efa(allow_tcp=False, rank=0, env={NCCL_DEBUG_FILE_ENV: str(tmp_path / "absent")}) is None
    with pytest.raises(EfaNotInUse, match=r"NCCL's log .*absent-.* cannot be read .*: NCCL's network cannot be "
                                          "confirmed"):
        require_efa(allow_tcp=False, rank=0, env={REQUIRE_EFA_ENV: "1",
                                                  NCCL_DEBUG_FILE_ENV: str(tmp_path / "absent-%p")})
    with pytest.raises(EfaNotInUse, match="NCCL_DEBUG_FILE is not set"):
        require_efa(allow_tcp=False, rank=0, env={REQUIRE_EFA_ENV: "1"})


def test_nccls_file_name_expansion():
    # As NCCL's debug init expands NCCL_DEBUG_FILE: the host name up to its first dot, the pid, %% and unknown codes.
    assert debug_file_path("/tmp/nccl-%h-%p.log", host="worker-3", pid=41) == Path("/tmp/nccl-worker-3-41.log")
    assert debug_file_path("/tmp/%h/%%p-%x-%p", host="ip-10-0-32-17.ec2.internal", pid=7) == Path(
        "/tmp/ip-10-0-32-17/%p-%x-7")


@pytest.mark.parametrize(("flags", "code"), [((), EXIT_NO_EFA), (("--allow-tcp", "true"), 0)])
def test_the_trainer_exits_6_unless_tcp_is_allowed(token_data, tmp_path, monkeypatch, capsys, flags, code):
    """The command line's path: the check (here fed a socket-fallback log, as a CUDA rank's barrier would leave it)
    stops the run before the first step with one line and exit 6; --allow-tcp trains on."""
    env = _pod_env(tmp_path, "socket_fallback_cloudwatch.log")
    seen = []

    def check_network(config, runtime):
        seen.append(config.allow_tcp)
        require_efa(allow_tcp=config.allow_tcp, rank=runtime.rank, env=env)

    monkeypatch.setattr(train_module, "check_network", check_network)
    argv = ["--data", str(token_data), "--model", "tiny", "--max-steps", "2", "--device", "cpu",
            "--micro-batch-size", "2", "--seq-len", "32", "--checkpoint-dir", str(tmp_path / "ckpt"), *flags]
    assert train_module.main(argv) == code
    assert seen == [bool(flags)]
    err = capsys.readouterr().err
    if code:
        (line,) = [line for line in err.splitlines() if line.startswith("error:")]
        assert "found NCCL network Socket" in line and not (tmp_path / "ckpt").exists()
    else:
        assert "warning: rank 0:" in err
