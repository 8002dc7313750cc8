"""Run by torchrun (or plain python, one process) in the distributed tests: trains through the public API as
the command line does (with its exit watchdog), then writes this rank's losses and a digest of its full
(gathered) parameters to OUT_DIR/rank-R.json.

Test-only switches, in the environment: HARNESS_PARAMS=1 also writes this rank's full (gathered) parameters to
OUT_DIR/params-rank-R.pt (a pipeline rank: its stages' parameters); HARNESS_COMPILE_BACKEND names torch.compile's
backend for --compile true; HARNESS_TRACE=1 records the global sample indices this rank trained
on (OUT_DIR/trace-rank-R.json); HARNESS_HANG_RANK=R makes rank R stop before the final barrier, as a rank
stuck at exit would; HARNESS_VANISH_IN_TEARDOWN=1 makes rank 1 vanish (SIGKILL) when it tears its process group
down, and rank 0 block after its own teardown in a native call that holds the GIL, as gloo's destructor was seen
to (joining its threads at the last reference's drop), so only a watchdog that needs no GIL can end it.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import signal
import sys
import time

import torch
import torch.distributed as dist

from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

from eks_training.training.config import parse_config
from eks_training.training.data import TokenDataset
from eks_training.training.device import running, select_runtime
from eks_training.training.shutdown import ExitWatchdog, exit_now
from eks_training.training.train import train

TRACED: list[int] = []


def _traced_batch_at(original):
    def batch_at(self, consumed):
        if self.shuffle:  # the training set (held-out data is read in order and not traced)
            first = consumed + self.rank * self.micro_batch_size
            TRACED.extend(range(first, first + self.micro_batch_size))
        return original(self, consumed)
    return batch_at


def _vanish_in_teardown(rank: int) -> None:
    real_destroy = dist.destroy_process_group

    def destroy(group=None):
        if rank == 1:
            os.kill(os.getpid(), signal.SIGKILL)
        real_destroy(group)
        ctypes.PyDLL(None).sleep(3600)  # PyDLL keeps the GIL during the call

    dist.destroy_process_group = destroy


if __name__ == "__main__":
    out_dir, argv = sys.argv[1], sys.argv[2:]
    if os.environ.get("HARNESS_VANISH_IN_TEARDOWN"):
        _vanish_in_teardown(int(os.environ.get("RANK", "0")))
    if os.environ.get("HARNESS_TRACE"):
        TokenDataset.batch_at = _traced_batch_at(TokenDataset.batch_at)
    config = parse_config(argv)
    rank = int(os.environ.get("RANK", "0"))
    watchdog = ExitWatchdog(config.exit_timeout, rank=rank)
    with running(select_runtime(config.device), watchdog) as runtime:
        result = train(config, runtime, watchdog=watchdog,
                       compile_backend=os.environ.get("HARNESS_COMPILE_BACKEND", "inductor"))
        full = get_model_state_dict(result.model, options=StateDictOptions(full_state_dict=True))
        if os.environ.get("HARNESS_PARAMS"):
            torch.save({name: tensor.detach().cpu() for name, tensor in full.items()},
                       os.path.join(out_dir, f"params-rank-{runtime.rank}.pt"))
        digest = hashlib.sha256()
        for name in sorted(full):
            digest.update(name.encode())
            digest.update(full[name].detach().float().contiguous().numpy().tobytes())
        with open(os.path.join(out_dir, f"rank-{runtime.rank}.json"), "w") as handle:
            json.dump({"losses": result.losses, "params": digest.hexdigest(), "evals": result.evals,
                       "samples_consumed": result.samples_consumed}, handle)
        if TRACED:
            with open(os.path.join(out_dir, f"trace-rank-{runtime.rank}.json"), "w") as handle:
                json.dump(TRACED, handle)
        if os.environ.get("HARNESS_HANG_RANK") == str(runtime.rank):
            time.sleep(3600)
    exit_now(0)
