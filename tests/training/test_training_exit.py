"""A finished run always exits, within --exit-timeout, and non-zero when it could not leave cleanly."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from eks_training.training.s3_sync import BackgroundUploader
from eks_training.training.shutdown import EXIT_HUNG

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
