"""Run by torchrun in the preemption tests: the trainer's command line, with every checkpoint written after a stop
request (and the one of folder ``SLOW_SAVE_FOLDER``, when set) held for ``SLOW_SAVE_S`` seconds inside DCP's write,
so a test can reach a rank in the middle of that save.

While held, the rank writes OUT_DIR/saving-rank-R (its pid); OUT_DIR/pid-rank-R holds its pid from the start.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import torch.distributed.checkpoint as dcp

from eks_training.training.shutdown import exit_now
from eks_training.training.train import main

if __name__ == "__main__":
    out_dir, argv = Path(sys.argv[1]), sys.argv[2:]
    rank = os.environ.get("RANK", "0")
    (out_dir / f"pid-rank-{rank}").write_text(str(os.getpid()))
    real_save = dcp.save

    def held_save(state, checkpoint_id, **kwargs):
        handler = signal.getsignal(signal.SIGTERM)
        stop_requested = getattr(getattr(handler, "__self__", None), "requested", False)  # the trainer's StopRequest
        if stop_requested or Path(checkpoint_id).name == os.environ.get("SLOW_SAVE_FOLDER"):
            (out_dir / f"saving-rank-{rank}").write_text(str(os.getpid()))
            time.sleep(float(os.environ["SLOW_SAVE_S"]))
        return real_save(state, checkpoint_id=checkpoint_id, **kwargs)

    dcp.save = held_save
    exit_now(main(argv))
