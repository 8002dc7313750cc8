#!/usr/bin/env bash
# Tokens/s and MFU of a 1B Llama in bf16, torch.compile off and on, on every GPU of this machine
# (FSDP2 over them when there are several); under 5 minutes on H100/H200. Needs the package installed
# (`pip install -e ".[training]"`). `--dry-run` runs the same script on CPU with the tiny model.
#
#   benchmarks/gpu_mfu.sh [--seq-len 2048] [--micro-batch-size 4] [--compile off,on] [--dry-run]
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
if [[ " $* " == *" --dry-run "* ]]; then
  NPROC=1
else
  NPROC=${NPROC:-$(nvidia-smi -L 2>/dev/null | wc -l || true)}
fi
if [[ "${NPROC:-0}" -lt 1 ]]; then
  echo "error: GPUs=0 is not allowed: run on a GPU machine (nvidia-smi -L lists none here), or pass --dry-run" >&2
  exit 2
fi
if [[ "$NPROC" -gt 1 ]]; then
  exec "$PYTHON" -m torch.distributed.run --standalone --nproc_per_node "$NPROC" benchmarks/gpu_mfu.py "$@"
fi
exec "$PYTHON" benchmarks/gpu_mfu.py "$@"
