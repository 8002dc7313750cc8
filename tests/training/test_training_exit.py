"""A finished run always exits, within --exit-timeout, and non-zero when it could not leave cleanly."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eks_training.training.s3_sync import BackgroundUploader
from eks_training.training.shutdown import BACKSTOP_GRACE_S, EXIT_HUNG, EXIT_PEER_LOST

from training_helpers import TINY_FLAGS, VENV_BIN, quiet_env

HARNESS = Path(__file__).with_name("dist_harness.py")
EXIT_TIMEOUT = 4


def test_watchdog_reports_the_phase_and_stacks_then_exits_4() -> None:
    code = ("import time, sys\n"
            "from eks_training.training.shutdown import ExitWatchdog\n"
            "dog = ExitWatchdog(0.5, rank=3)\n"
            "dog.arm('the final checkpoint write')\n"
            "dog.waiting_for('the S3 upload queue')\n"
            "time.sleep(30)\n")
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=quiet_env(), timeout=30)
    assert done.returncode == EXIT_HUNG and time.monotonic() - started < 15
    lines = done.stderr.splitlines()
    assert lines[0] == ("error: rank 3 did not exit within 0.5 s after its last step; waiting for: the S3 upload "
                        "queue; stacks follow, exiting 4")
    assert any("time.sleep" in line or 'File "<string>", line 6' in line for line in lines[1:])


def test_upload_queue_wait_is_bounded() -> None:
    class StuckStore:
        def upload(self, folder: Path) -> None:
            time.sleep(30)

    uploader = BackgroundUploader(StuckStore())  # type: ignore[arg-type]
    uploader.submit(Path("step-5"))
    started = time.monotonic()
    uploader.close(timeout=0.3)
    assert time.monotonic() - started < 5
    assert uploader.failed == [("upload queue", "uploads still running after 0.3 s")]


@pytest.mark.slow
def test_rank_missing_the_final_barrier_ends_the_run_non_zero_in_time(token_data: Path, tmp_path: Path) -> None:
    command = [str(VENV_BIN / "torchrun"), "--standalone", "--nproc_per_node", "2", str(HARNESS), str(tmp_path),
               "--data", str(token_data), *TINY_FLAGS, "--max-steps", "3", "--exit-timeout", str(EXIT_TIMEOUT)]
    started = time.monotonic()
    # Rank 1 finishes training, then never reaches the final barrier.
    done = subprocess.run(command, capture_output=True, text=True, env=quiet_env(HARNESS_HANG_RANK="1"), timeout=120)
    elapsed = time.monotonic() - started
    output = done.stdout + done.stderr
    assert done.returncode != 0, output[-3000:]
    assert (tmp_path / "rank-0.json").exists() and (tmp_path / "rank-1.json").exists()  # both finished training
    # Start-up and 3 steps take seconds; the hang itself is cut at EXIT_TIMEOUT, far below the 3600 s sleep.
    assert elapsed < 60, elapsed
    assert ("the final barrier failed within" in output and "Rank 1" in output) or \
        f"rank 1 did not exit within {EXIT_TIMEOUT} s" in output, output[-3000:]


def _rank_env(rank: int, port: int, **extra: str) -> dict[str, str]:
    return quiet_env(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE="2", LOCAL_WORLD_SIZE="2",
                     MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), CUDA_VISIBLE_DEVICES="", **extra)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow
def test_peer_vanishing_during_teardown_cannot_hold_a_rank_past_the_bound(token_data: Path, tmp_path: Path) -> None:
    # The ranks are started by hand, not by torchrun, which would kill rank 0 itself once rank 1 died.
    port = _free_port()
    command = [sys.executable, str(HARNESS), str(tmp_path), "--data", str(token_data), *TINY_FLAGS, "--max-steps", "3",
               "--exit-timeout", str(EXIT_TIMEOUT)]
    ranks = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=_rank_env(rank, port, HARNESS_VANISH_IN_TEARDOWN="1")) for rank in (0, 1)]
    try:
        _, stderr = ranks[0].communicate(timeout=120)
        finished_at = time.monotonic()
        ranks[1].wait(timeout=30)
    finally:
        for process in ranks:
            process.kill()
    # Both ranks trained; rank 1 died in its teardown, rank 0 was blocked with the GIL held (no Python thread ran).
    assert (tmp_path / "rank-0.json").exists() and (tmp_path / "rank-1.json").exists()
    assert ranks[1].returncode == -9
    # faulthandler's C timer ended rank 0 (exit 1) with every thread's stack, the blocked call on top of its own.
    assert ranks[0].returncode == 1, stderr[-3000:]
    assert f"Timeout (0:00:{EXIT_TIMEOUT + BACKSTOP_GRACE_S:02.0f})!" in stderr, stderr[-3000:]
    assert "in destroy" in stderr and "dist_harness.py" in stderr
    # Within the bound: the watchdog was armed after the last step, so rank 0 left at most
    # EXIT_TIMEOUT + BACKSTOP_GRACE_S after training, not the 3600 s the blocked call would have taken.
    trained_at = (tmp_path / "rank-0.json").stat().st_mtime
    assert finished_at - time.monotonic() + time.time() - trained_at < EXIT_TIMEOUT + BACKSTOP_GRACE_S + 10


@pytest.mark.slow
def test_a_peer_that_stops_answering_ends_the_run_with_one_line(token_data: Path, tmp_path: Path) -> None:
    port = _free_port()
    # Rank 1 joins the process group, then never takes part in a collective (a stopped or wedged peer).
    silent_peer = subprocess.Popen(
        [sys.executable, "-c", "import time, torch.distributed as dist\n"
                               "dist.init_process_group('gloo')\ntime.sleep(120)\n"],
        env=_rank_env(1, port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "eks_training.training.train", "--data", str(token_data),
                               *TINY_FLAGS, "--max-steps", "3", "--collective-timeout", "3"],
                              capture_output=True, text=True, env=_rank_env(0, port), timeout=120)
        elapsed = time.monotonic() - started
    finally:
        silent_peer.kill()
        silent_peer.wait()
    assert done.returncode == EXIT_PEER_LOST, done.stderr[-3000:]
    errors = [line for line in done.stderr.splitlines() if line.strip()]
    assert errors[-1].startswith("error: rank 0: a collective failed or timed out (--collective-timeout 3 s; "
                                 "a peer died or stopped answering): "), done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    assert elapsed < 60, elapsed
