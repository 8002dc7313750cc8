"""Goodput and cost across a job's runs: a 2-rank run killed twice and resumed reports as lost exactly the steps it
redid, and a cost of list price x nodes x time; the ledger's arithmetic on a clock the test sets."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from eks_training.core.catalog import ON_DEMAND_USD_PER_HOUR
from eks_training.training import goodput as goodput_module
from eks_training.training.goodput import GoodputMeter
from eks_training.training.telemetry import emf_document

from training_helpers import TINY_FLAGS, VENV_BIN, kill_all, quiet_env, read_records

MAX_STEPS, EVERY = 120, 10


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now


def test_the_ledger_splits_time_into_its_categories_across_runs(tmp_path, monkeypatch):
    clock = Clock(1000.0)
    monkeypatch.setattr(goodput_module, "time", clock)
    first = GoodputMeter(tmp_path, instance_type="g5.12xlarge", nodes=2, started_at=990.0)
    first.training_starts()  # 10 s of start-up
    for step in range(1, 8):  # 7 steps of 2 s
        clock.now += 2
        first.step_done(step)
        if step == 5:
            clock.now += 3  # the checkpoint of step 5
            first.paused("checkpoint")
    first.save()  # at 1017; then the run dies without a word
    clock.now = 1047.0
    second = GoodputMeter(tmp_path, instance_type="g5.12xlarge", nodes=2, started_at=1040.0)  # 23 s waiting
    second.training_starts()  # 7 s of start-up
    for step in range(6, 10):  # resumed from step 5: 6 and 7 are redone
        clock.now += 2
        second.step_done(step)
    record = second.record()
    assert {k: record[k] for k in ("productive_s", "startup_s", "checkpoint_s", "lost_s", "waiting_s")} == {
        "productive_s": 18.0, "startup_s": 17.0, "checkpoint_s": 3.0, "lost_s": 4.0, "waiting_s": 23.0}
    assert record["total_s"] == 65.0 and record["lost_steps"] == 2 and record["runs"] == 2
    assert record["goodput"] == pytest.approx(18 / 65)
    assert record["cost_usd"] == pytest.approx(5.672 * 2 * 65 / 3600)


def test_a_type_without_a_list_price_reports_no_cost(tmp_path):
    assert "p5e.48xlarge" not in ON_DEMAND_USD_PER_HOUR
    assert GoodputMeter(None, instance_type="p5e.48xlarge", nodes=4).record()["cost_usd"] is None


def test_the_goodput_record_is_an_emf_document_with_the_jobs_labels():
    document = emf_document({"event": "goodput", "time": 1.5, "goodput": 0.8, "total_s": 100.0, "productive_s": 80.0,
                             "startup_s": 6.0, "checkpoint_s": 4.0, "evaluation_s": 2.0, "lost_s": 5.0,
                             "waiting_s": 3.0, "cost_usd": 2.5, "step": 40}, "team-a", "llm")
    assert document["Namespace"] == "team-a" and document["Job"] == "llm"
    seconds = ("productive_seconds", "startup_seconds", "checkpoint_seconds", "evaluation_seconds", "lost_seconds",
               "waiting_seconds")
    assert {m["Name"]: m["Unit"] for m in document["_aws"]["CloudWatchMetrics"][0]["Metrics"]} == {
        "goodput": "None", "job_seconds": "Seconds", **dict.fromkeys(seconds, "Seconds"), "job_cost_usd": "None"}
    assert [document[name] for name in ("goodput", "job_seconds", *seconds, "job_cost_usd")] == [
        0.8, 100.0, 80.0, 6.0, 4.0, 2.0, 5.0, 3.0, 2.5]


def test_every_ledger_category_is_a_metric_of_the_goodput_record():
    # The real meter's record, every category present: each becomes one EMF metric (a new category without a
    # metric name in core/training_metrics.py fails telemetry's import instead of vanishing from the dashboard).
    record = GoodputMeter(None, instance_type="g5.12xlarge", nodes=1, started_at=time.time() - 1).record()
    document = emf_document({"event": "goodput", **record}, "team-a", "llm")
    assert {f"{category}_seconds" for category in goodput_module.CATEGORIES} <= set(document)


def _command(data: Path, ckpt: Path, metrics: Path) -> list[str]:
    return [str(VENV_BIN / "torchrun"), "--standalone", "--nproc_per_node=2", "-m", "eks_training.training.train",
            "--data", str(data), *TINY_FLAGS, "--max-steps", str(MAX_STEPS), "--checkpoint-dir", str(ckpt),
            "--checkpoint-every", str(EVERY), "--metrics-file", str(metrics)]


def _steps(metrics: Path) -> list[int]:
    return [r["step"] for r in read_records(metrics) if "loss" in r] if metrics.exists() else []


@pytest.mark.slow
def test_a_run_killed_twice_reports_the_steps_it_redid_and_its_cost(token_data: Path, tmp_path: Path):
    ckpt, env = tmp_path / "ckpt", quiet_env(INSTANCE_TYPE="g5.12xlarge")
    runs = [tmp_path / f"run-{n}.jsonl" for n in range(3)]
    started = time.time()
    for metrics, kill_after in zip(runs, (23, 48)):
        # A lost node: every process of the pod SIGKILLed, no save.
        process = subprocess.Popen(_command(token_data, ckpt, metrics), stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, env=env)
        deadline = time.monotonic() + 120
        while not any(step >= kill_after for step in _steps(metrics)):
            assert process.poll() is None and time.monotonic() < deadline, "ended before it could be killed"
            time.sleep(0.005)
        kill_all(process.pid)
        process.wait(30)
    done = subprocess.run(_command(token_data, ckpt, runs[2]), capture_output=True, text=True, env=env, timeout=180)
    wall = time.time() - started
    assert done.returncode == 0, done.stderr[-3000:]
    # Counted from the step records alone: each step a run logged that an earlier run had logged already.
    seen: set[int] = set()
    redone = 0
    for metrics in runs:
        steps = _steps(metrics)
        redone += len(set(steps) & seen)
        seen |= set(steps)
    assert seen == set(range(1, MAX_STEPS + 1)) and redone >= 2
    (record,) = [r for r in read_records(runs[2]) if r.get("event") == "goodput"]
    assert record["lost_steps"] == redone and record["runs"] == 3
    assert record["lost_s"] > 0 and 0 < record["goodput"] < 1
    # 2 ranks on one machine: one node of the type the pod names.
    assert record["nodes"] == 1 and record["usd_per_node_hour"] == ON_DEMAND_USD_PER_HOUR["g5.12xlarge"]
    assert record["cost_usd"] == pytest.approx(5.672 * 1 * record["total_s"] / 3600, rel=1e-4)
    # The job's time is the span from the first run's start to the last run's report, less torchrun's own start.
    assert wall - 20 < record["total_s"] <= wall
    assert json.loads((ckpt / "goodput.json").read_text())["lost_steps"] == redone
