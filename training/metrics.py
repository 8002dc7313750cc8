"""Training metrics as JSON lines (tokens/s, loss, learning rate, grad norm, MFU) and a rank-0 progress bar."""

from __future__ import annotations

import json
import math
import os
import sys
import time
from typing import IO, TYPE_CHECKING, Any, Mapping, Sequence

if TYPE_CHECKING:
    from eks_training.training.telemetry import Sink

# Dense bf16 peak FLOP/s per device (vendor data sheets, without sparsity), most specific name first:
# the first key found in the device name wins. H100/H200 PCIe and NVL boards run at lower clocks and power
# than the SXM parts that plain "H100"/"H200" names (e.g. "NVIDIA H100 80GB HBM3") denote.
PEAK_BF16_FLOPS = {
    "H100 PCIe": 756e12,
    "H100 NVL": 835e12,
    "H200 NVL": 835e12,
    "H200": 989e12,
    "H100": 989e12,
    "A100": 312e12,
    "L40S": 362e12,
    "L4": 121e12,
    "trn1": 95e12,
    "trn2": 83.4e12,
}
# Neuron values above are per physical NeuronCore: trn1 190 TFLOPS/chip over 2 cores, trn2 667 over 8.
# One XLA process drives one logical core: on trn2, NEURON_LOGICAL_NC_CONFIG physical cores (default 2);
# trn1 has no logical-core setting (one physical core per process).
_DEFAULT_LOGICAL_CORES = {"trn2": 2}


def peak_flops_for(device_name: str, env: Mapping[str, str] | None = None) -> float | None:
    """Peak bf16 FLOP/s of what one process drives, for a device name such as ``NVIDIA H100 80GB HBM3`` or
    ``trn2``; None when unknown (e.g. CPU)."""
    env = os.environ if env is None else env
    lowered = device_name.lower()
    for key, flops in PEAK_BF16_FLOPS.items():
        if key.lower() in lowered:
            if key in _DEFAULT_LOGICAL_CORES:
                logical = env.get("NEURON_LOGICAL_NC_CONFIG", "")
                cores = int(logical) if logical.isdigit() and int(logical) > 0 else _DEFAULT_LOGICAL_CORES[key]
                return flops * cores
            return flops
    return None


def mfu(tokens_per_second: float, flops_per_token: float, peak_flops: float | None) -> float | None:
    """Model FLOPs utilization: achieved model FLOP/s over the device's peak (per device)."""
    if not peak_flops:
        return None
    return tokens_per_second * flops_per_token / peak_flops


def _json_number(value: Any) -> Any:
    """Round floats to keep lines short; non-finite ones become None (null)."""
    if isinstance(value, float):
        return round(value, 6) if math.isfinite(value) else None
    return value


class MetricsLogger:
    """Writes one JSON object per line; on rank 0 with a terminal, also redraws a progress bar."""

    def __init__(self, stream: IO[str] | None, total_steps: int, progress: IO[str] | None = None,
                 sinks: Sequence[Sink] = ()) -> None:
        self.stream, self.total_steps = stream, total_steps
        self.sinks = list(sinks)  # telemetry.open_sinks: EMF, TensorBoard
        self.progress = progress if progress is not None and progress.isatty() else None

    def event(self, **fields: Any) -> None:
        """Write one record (rounded floats keep lines short)."""
        if self.stream is None:
            return
        record = {"time": round(time.time(), 3)}
        record.update({k: _json_number(v) for k, v in fields.items()})
        # Strict JSON: NaN/Infinity are not JSON, so a diverged value is written as null.
        self.stream.write(json.dumps(record, allow_nan=False) + "\n")
        self.stream.flush()
        for sink in self.sinks:  # the raw values: EMF counts a NaN loss rather than reading null
            sink.write({"time": record["time"], **fields})
        if self.progress is not None and "step" in fields and isinstance(record.get("loss"), float):
            self._draw(fields["step"], fields["loss"], fields.get("tokens_per_s"))

    def _draw(self, step: int, loss: float, tokens_per_second: float | None) -> None:
        width = 30
        filled = int(width * step / max(1, self.total_steps))
        speed = f" {tokens_per_second:,.0f} tok/s" if tokens_per_second else ""
        self.progress.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {step}/{self.total_steps} "
                            f"loss {loss:.4f}{speed}")
        if step >= self.total_steps:
            self.progress.write("\n")
        self.progress.flush()

    def close(self) -> None:
        for sink in self.sinks:
            sink.close()
        if self.stream not in (None, sys.stdout, sys.stderr):
            self.stream.close()
