"""Run by torchrun in the memory test: builds the trainer's model (meta device, sharding, initialisation) and
writes this rank's peak resident memory growth during the build, in MiB, to OUT_DIR/memory-rank-R.json."""

from __future__ import annotations

import json
import os
import resource
import sys

from eks_training.training.config import parse_config
from eks_training.training.device import running, select_runtime
from eks_training.training.parallel import build_for_training


def _resident_mib() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


if __name__ == "__main__":
    out_dir, argv = sys.argv[1], sys.argv[2:]
    config = parse_config(argv)
    with running(select_runtime(config.device)) as runtime:
        before = _resident_mib()
        built = build_for_training(config, runtime, "fp32", 128)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
        local = sum(p.to_local().numel() if hasattr(p, "to_local") else p.numel() for p in built.model.parameters())
        with open(os.path.join(out_dir, f"memory-rank-{runtime.rank}.json"), "w") as handle:
            json.dump({"peak_growth_mib": peak - before, "local_parameters": local}, handle)
