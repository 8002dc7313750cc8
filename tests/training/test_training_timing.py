"""Throughput is measured after the device has finished the work it was given, not when it was queued."""

from __future__ import annotations

import time
from pathlib import Path

from eks_training.training.config import parse_config
from eks_training.training.device import Runtime, select_runtime
from eks_training.training.train import train

from training_helpers import TINY_FLAGS

DEVICE_BACKLOG_S = 0.4


class QueuedDeviceRuntime(Runtime):
    """A CPU runtime whose 'device' still has DEVICE_BACKLOG_S of queued work when the step returns, as a
    GPU does after an asynchronous launch: only synchronize() waits for it."""

    def __init__(self) -> None:
        base = select_runtime("cpu", env={})
        super().__init__(base.kind, base.device)
        self.synchronized = 0

    def synchronize(self) -> None:
        self.synchronized += 1
        time.sleep(DEVICE_BACKLOG_S)


def test_tokens_per_second_includes_the_device_backlog(token_data: Path) -> None:
    runtime = QueuedDeviceRuntime()
    config = parse_config(["--data", str(token_data), *TINY_FLAGS, "--max-steps", "3", "--log-every", "3"])
    reports: list[dict] = []

    class Keep:
        def report(self, metrics: dict, checkpoint_folder) -> None:
            reports.append(metrics)

    train(config, runtime, reporter=Keep())
    tokens = 3 * config.micro_batch_size * config.seq_len
    assert runtime.synchronized >= 1
    # The window ends after the wait: at most `tokens` per backlog time, however fast the CPU steps were.
    assert reports[-1]["tokens_per_s"] <= tokens / DEVICE_BACKLOG_S
