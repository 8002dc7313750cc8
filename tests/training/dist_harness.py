"""Run by torchrun in the distributed tests: trains through the public API, then writes this rank's
losses and a digest of its full (gathered) parameters to OUT_DIR/rank-R.json."""

from __future__ import annotations

import hashlib
import json
import os
import sys

from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

from eks_training.training.config import parse_config
from eks_training.training.device import running, select_runtime
from eks_training.training.train import train

if __name__ == "__main__":
    out_dir, argv = sys.argv[1], sys.argv[2:]
    config = parse_config(argv)
    with running(select_runtime(config.device)) as runtime:
        result = train(config, runtime)
        full = get_model_state_dict(result.model, options=StateDictOptions(full_state_dict=True))
        digest = hashlib.sha256()
        for name in sorted(full):
            digest.update(name.encode())
            digest.update(full[name].detach().float().contiguous().numpy().tobytes())
        with open(os.path.join(out_dir, f"rank-{runtime.rank}.json"), "w") as handle:
            json.dump({"losses": result.losses, "params": digest.hexdigest()}, handle)
