"""Run by torchrun in the layout tests: one process group, several training runs in turn, each on its own layout
(the ranks start once; every run builds its own mesh over them).

    layouts_harness.py OUT_DIR SCENARIOS.json

Each scenario is ``{"name", "argv", "crash_after": step or null, "copy_checkpoint": [FOLDER, ROOT] or null,
"compile_backend": name or null}``. A run with ``crash_after`` raises right after that step is logged (no final save:
what a killed job leaves); ``copy_checkpoint`` copies a step folder into another checkpoint root first (rank 0), so
a second layout can resume the same checkpoint. Rank 0 writes OUT_DIR/NAME.json (logged losses, evaluations, the
measured peak memory); every rank that is tensor and data rank 0 writes NAME-params-rank-R.pt, the full parameters
of its pipeline stages.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time

import torch
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

from eks_training.training.config import parse_config
from eks_training.training.device import running, select_runtime
from eks_training.training.shutdown import exit_now
from eks_training.training.trainer import Trainer


class Crash(RuntimeError):
    pass


class _CrashAfter:
    def __init__(self, step: int | None) -> None:
        self.step = step

    def report(self, metrics, checkpoint_folder) -> None:
        if self.step is not None and metrics.get("step") == self.step and "loss" in metrics:
            raise Crash(f"crashed after step {self.step}")


def run_scenario(scenario: dict, runtime, out_dir: str) -> None:
    if scenario.get("copy_checkpoint") and runtime.rank == 0:
        folder, root = scenario["copy_checkpoint"]
        os.makedirs(root, exist_ok=True)
        shutil.copytree(folder, os.path.join(root, os.path.basename(folder)))
    runtime.barrier()
    config = parse_config(scenario["argv"])
    trainer = Trainer(config, runtime, _CrashAfter(scenario.get("crash_after")),
                      compile_backend=scenario.get("compile_backend") or "inductor")
    try:
        result = trainer.fit()
        losses, evals = result.losses, result.evals
    except Crash:
        losses, evals = {}, {}
    full = get_model_state_dict(trainer.model, options=StateDictOptions(full_state_dict=True))
    name = scenario["name"]
    # Expert-parallel ranks each hold their own experts: every one of them writes its share.
    if trainer.mesh.tensor_rank == 0 and (trainer.mesh.data_rank == 0 or config.expert_parallel > 1):
        torch.save({key: value.detach().cpu() for key, value in full.items()},
                   os.path.join(out_dir, f"{name}-params-rank-{runtime.rank}.pt"))
    if runtime.rank == 0:
        with open(os.path.join(out_dir, f"{name}.json"), "w") as handle:
            json.dump({"losses": losses, "evals": evals, "peak_memory_mib": trainer.memory.peak_mib}, handle)
    runtime.barrier()


if __name__ == "__main__":
    out, scenarios_file = sys.argv[1], sys.argv[2]
    with open(scenarios_file) as handle:
        scenarios = json.load(handle)
    with running(select_runtime("cpu")) as runtime:
        for scenario in scenarios:
            started = time.perf_counter()
            run_scenario(scenario, runtime, out)
            if runtime.rank == 0 and os.environ.get("HARNESS_TIMES"):
                print(f"{scenario['name']}: {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    exit_now(0)
