"""Ray Train entry point against a small fake `ray.train`: what the loop reports and restores, one worker, in
process (real Ray runs the stop and resume in test_training_ray_stop.py)."""

from __future__ import annotations

import contextlib
import shutil
import sys
import types
from pathlib import Path

import pytest

from training_helpers import TINY_FLAGS


class FakeRayTrain:
    """Records report() calls; Checkpoint.from_directory copies the folder away, as Ray's storage does."""

    def __init__(self, storage: Path) -> None:
        self.storage, self.reports, self.latest = storage, [], None
        fake = self

        class Checkpoint:
            def __init__(self, path: Path) -> None:
                self.path = path

            @classmethod
            def from_directory(cls, path: str) -> "Checkpoint":
                kept = fake.storage / f"checkpoint_{len(list(fake.storage.iterdir())):06d}"
                shutil.copytree(path, kept)
                return cls(kept)

            @contextlib.contextmanager
            def as_directory(self):
                yield str(self.path)

        self.Checkpoint = Checkpoint

    def report(self, metrics: dict, checkpoint=None) -> None:
        self.reports.append((metrics, checkpoint))
        if checkpoint is not None:
            self.latest = checkpoint

    def get_checkpoint(self):
        return self.latest

    def get_context(self):
        return types.SimpleNamespace(get_world_rank=lambda: 0, get_local_rank=lambda: 0, get_world_size=lambda: 1)


def test_loop_reports_the_ray_way_and_resumes_from_get_checkpoint(
        token_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "storage").mkdir()
    fake = FakeRayTrain(tmp_path / "storage")
    ray = types.ModuleType("ray")
    ray.train = fake
    monkeypatch.setitem(sys.modules, "ray", ray)
    monkeypatch.setitem(sys.modules, "ray.train", fake)
    from eks_training.training.ray_train import train_loop_per_worker

    argv = ["--data", str(token_data), *TINY_FLAGS, "--log-every", "2", "--checkpoint-every", "3"]
    train_loop_per_worker({"argv": [*argv, "--max-steps", "6", "--checkpoint-dir", str(tmp_path / "w1")]})
    steps = [(m["step"], c is not None) for m, c in fake.reports]
    assert steps == [(2, False), (3, True), (4, False), (6, True)]
    assert {"loss", "lr", "grad_norm", "tokens_per_s"} <= set(fake.reports[-1][0])

    # A restarted worker on a fresh node: its only source is ray.train.get_checkpoint().
    fake.reports.clear()
    train_loop_per_worker({"argv": [*argv, "--max-steps", "8", "--checkpoint-dir", str(tmp_path / "w2")]})
    assert [m["step"] for m, _ in fake.reports] == [8]
    assert (tmp_path / "w2" / "step-6" / "COMPLETE").exists()


@pytest.mark.parametrize("workers", ["0", "-2"])
def test_the_driver_refuses_fewer_than_one_worker_in_one_line(workers: str, capsys: pytest.CaptureFixture[str]) -> None:
    from eks_training.training.ray_train import main

    assert main(["--num-workers", workers, "--", "--data", "/d"]) == 2
    assert capsys.readouterr().err == f"error: --num-workers={int(workers)} is not allowed: an integer >= 1\n"
