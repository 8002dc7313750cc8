"""Goodput and cost of one job, across its runs: where its wall time went, and what the nodes cost meanwhile.

Every second of a job between its first start and its last exit falls in one category:

* ``startup``: a run's process start to its first step (imports, process group, model build, restore);
* ``productive``: steps that advanced the job past the furthest step any run had reached;
* ``lost``: steps redone after a restart (their first result died with the run that was not saved);
* ``checkpoint``: checkpoint writes; ``evaluation``: held-out evaluations;
* ``waiting``: between runs (the stopped pods' replacement queued, scheduled, pulled), up to the next run's start.

goodput = productive / total; cost = the instance type's list price (core/catalog.py) x nodes x total. Rank 0 keeps
the ledger in ``<checkpoint-dir>/goodput.json``, rewritten (write, then rename) after every logged step, checkpoint
and at the end, so a run killed without warning loses at most its last step's accounting: the time after the last
write lands in the next run's ``waiting``.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from eks_training.core.catalog import hourly_price

LEDGER_NAME = "goodput.json"
CATEGORIES = ("productive", "startup", "checkpoint", "evaluation", "lost", "waiting")


def process_started_at() -> float:
    """This process's start as epoch seconds (Linux: from /proc; elsewhere: now)."""
    try:
        ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        boot = next(int(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                    if line.startswith("btime "))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return time.time()


@dataclass
class Ledger:
    """The job's accumulated seconds per category, the furthest step reached, and the runs so far."""

    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(CATEGORIES, 0.0))
    lost_steps: int = 0
    furthest_step: int = 0
    runs: int = 0
    updated: float | None = None  # epoch seconds of the last write


class GoodputMeter:
    """Accounts one run's time into the job's ledger (``folder``: the checkpoint folder; None keeps it in memory)."""

    def __init__(self, folder: str | Path | None, *, instance_type: str | None, nodes: int,
                 started_at: float | None = None, write: bool = True) -> None:
        self.path = Path(folder) / LEDGER_NAME if folder else None
        self.instance_type, self.nodes, self.write = instance_type, nodes, write
        self.started_at = process_started_at() if started_at is None else started_at
        self.ledger = self._read()
        if self.ledger.updated is not None:
            self.ledger.seconds["waiting"] += max(0.0, self.started_at - self.ledger.updated)
        self.ledger.runs += 1
        self._resumed_below = self.ledger.furthest_step  # steps up to here are redone by this run
        self._mark = self.started_at
        self._training = False

    def _read(self) -> Ledger:
        if self.path is None or not self.path.is_file():
            return Ledger()
        saved = json.loads(self.path.read_text())
        return Ledger(seconds={**dict.fromkeys(CATEGORIES, 0.0), **saved["seconds"]}, lost_steps=saved["lost_steps"],
                      furthest_step=saved["furthest_step"], runs=saved["runs"], updated=saved["updated"])

    def _since_mark(self) -> float:
        now = time.time()
        elapsed, self._mark = max(0.0, now - self._mark), now
        return elapsed

    def training_starts(self) -> None:
        """The first step begins: everything since the process started was start-up."""
        self.ledger.seconds["startup"] += self._since_mark()
        self._training = True

    def step_done(self, step: int) -> None:
        """Step ``step`` finished (time since the last mark): productive, or lost when an earlier run had got there."""
        seconds = self._since_mark()
        if step <= self._resumed_below:
            self.ledger.seconds["lost"] += seconds
            self.ledger.lost_steps += 1
        else:
            self.ledger.seconds["productive"] += seconds
        self.ledger.furthest_step = max(self.ledger.furthest_step, step)

    def paused(self, category: str) -> None:
        """A checkpoint write or an evaluation just ended (time since the last mark)."""
        self.ledger.seconds[category] += self._since_mark()

    def record(self) -> dict[str, Any]:
        """The job's goodput record so far: seconds per category, total, goodput, lost steps, cost."""
        seconds = self.ledger.seconds
        total = sum(seconds.values())
        price = hourly_price(self.instance_type) if self.instance_type else None
        record: dict[str, Any] = {f"{name}_s": round(value, 3) for name, value in seconds.items()}
        record.update(total_s=round(total, 3), goodput=seconds["productive"] / total if total else None,
                      lost_steps=self.ledger.lost_steps, runs=self.ledger.runs, nodes=self.nodes,
                      instance_type=self.instance_type, usd_per_node_hour=price,
                      cost_usd=price * self.nodes * total / 3600 if price is not None else None)
        return record

    def save(self) -> None:
        """Rewrite the ledger (rank 0): a reader never sees half a file."""
        if self.path is None or not self.write:
            return
        self.ledger.updated = time.time()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(f".{LEDGER_NAME}.tmp")
        partial.write_text(json.dumps(asdict(self.ledger)))
        os.replace(partial, self.path)
