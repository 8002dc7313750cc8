"""What a stopped training job needs from the objects that run it: the exit code that means "resume", how long
Kubernetes must wait for the checkpoint (the grace period), and the protection from voluntary disruption.

Grace period, in seconds (documented in the README, "Stopped jobs keep their work"):

    grace = STOP_MARGIN_S + ceil(checkpoint bytes per node / CHECKPOINT_WRITE_BYTES_PER_S)
    checkpoint bytes per node = parameters x CHECKPOINT_BYTES_PER_PARAMETER / nodes

STOP_MARGIN_S covers the step in flight when SIGTERM lands, the ranks' agreement, the barriers around the save and
the process exits; the write rate is the rate one node sustains to FSx for Lustre. Measured on CPU (2 gloo ranks,
benchmarks/preemption.py): SIGTERM to exit is a few seconds for the tiny and small models, i.e. the margin, not
the write, dominates there; the write term is what grows with the model.
"""

from __future__ import annotations

import math

#: The trainer stopped on request after saving its checkpoint: start it again and it resumes (sysexits' EX_TEMPFAIL).
EXIT_RESUME = 75
#: Karpenter leaves a node alone (no consolidation, drift or expiry) while a pod with this annotation runs there.
DO_NOT_DISRUPT_ANNOTATION = "karpenter.sh/do-not-disrupt"
#: torchrun waits this long for its workers after SIGTERM, then SIGKILLs them (its default is 30 s).
TORCHRUN_SHUTDOWN_ENV = "TORCH_ELASTIC_SHUTDOWN_TIMEOUT"
#: fp32 weights and AdamW's two fp32 moments: what one parameter costs in a DCP checkpoint.
CHECKPOINT_BYTES_PER_PARAMETER = 12
#: A conservative rate for one node writing to FSx for Lustre (a client sustains more on large file systems).
CHECKPOINT_WRITE_BYTES_PER_S = 1.0e9
#: One step in flight, the ranks' agreement, the save's barriers, the exits.
STOP_MARGIN_S = 90
#: torchrun's own wait ends this long before the kubelet's SIGKILL, so torchrun reports before it is killed.
KILL_MARGIN_S = 10
#: A Ray cluster's stop folder on the shared file system, and how long its pods hold Ray for the trainers' save
#: (training/ray_stop.py, training/ray_node.py).
STOP_DIR_ENV = "EKS_TRAINING_STOP_DIR"
STOP_WAIT_ENV = "EKS_TRAINING_STOP_WAIT_S"
#: When the model's size is not known (a checkpoint folder given as --model): the trainer's --exit-timeout default.
UNKNOWN_MODEL_GRACE_S = 600


def checkpoint_write_seconds(parameters: int, nodes: int) -> float:
    """Seconds one node takes to write its share of a checkpoint of ``parameters`` across ``nodes`` nodes."""
    return parameters * CHECKPOINT_BYTES_PER_PARAMETER / max(1, nodes) / CHECKPOINT_WRITE_BYTES_PER_S


def grace_period_seconds(parameters: int | None, nodes: int) -> int:
    """``terminationGracePeriodSeconds`` for a job of ``nodes`` nodes training ``parameters`` weights."""
    if parameters is None:
        return UNKNOWN_MODEL_GRACE_S
    return STOP_MARGIN_S + math.ceil(checkpoint_write_seconds(parameters, nodes))


def torchrun_shutdown_seconds(grace_period_s: int) -> int:
    """How long torchrun waits for its saving workers: the grace period less the margin before SIGKILL."""
    return max(1, grace_period_s - KILL_MARGIN_S)
