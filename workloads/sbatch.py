"""sbatch scripts for the Slinky login pods: one Slurm task per node, each running torchrun.

The source document's `srun --ntasks=WORLD_SIZE ... torchrun --nproc_per_node=N` starts N*N trainers per
node; here `--ntasks-per-node=1` makes srun start one torchrun per node, and torchrun starts one trainer per
accelerator, meeting on the first host of the allocation by c10d rendezvous. Logs go to the slurm namespace's FSx
workspace (mounted in the login and compute pods), so they survive the pods.

A stopped job keeps its work: Slurm's preemption, `scancel --signal=TERM` and the end of the time limit
(`--signal`, the grace period before it) send SIGTERM to torchrun's launcher; the trainers save and exit 75, and the
script requeues the job (`--requeue`), which resumes from that checkpoint.
"""

from __future__ import annotations

import shlex

from eks_training.core.names import LOGS_PATH
from eks_training.core.preemption import EXIT_RESUME, TORCHRUN_SHUTDOWN_ENV, torchrun_shutdown_seconds
from eks_training.workloads.job_pods import (
    CHECKPOINT_SYNC_MODULE,
    LAUNCH_MODULE,
    RENDEZVOUS_PORT,
    TRAIN_MODULE,
    TrainingJob,
    fabric_env,
    train_args,
)
from eks_training.workloads.k8s_objects import check_dns_label

LOG_DIR = LOGS_PATH


def sbatch_script(job: TrainingJob, *, partition: str) -> str:
    """The batch script for `job` in Slurm `partition` (submit with `sbatch` from a login pod)."""
    check_dns_label("partition", partition)
    facts = job.facts
    checkpoint_dir = job.checkpoint_dir
    gres = [f"#SBATCH --gpus-per-node={facts.accelerators}"] if facts.accelerator == "nvidia" else []
    train = shlex.join(["-m", TRAIN_MODULE, *train_args(job)])
    lines = [
        "#!/bin/bash",
        f"#SBATCH --job-name={job.name}",
        f"#SBATCH --partition={partition}",
        f"#SBATCH --nodes={job.nodes}",
        "#SBATCH --ntasks-per-node=1",
        *gres,
        "#SBATCH --exclusive",
        f"#SBATCH --output={LOG_DIR}/%x-%j.out",
        # Requeue after a saved stop (below) or a preemption; SIGTERM the grace period before the time limit ends.
        "#SBATCH --requeue",
        f"#SBATCH --signal=TERM@{job.grace_period_s}",
        "set -euo pipefail",
        f"mkdir -p {LOG_DIR}",
        'head_node=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)',
        # NCCL and EFA: what the pods of the other kinds get (srun hands the script's environment to every task).
        *(f"export {item['name']}={shlex.quote(item['value'])}" for item in fabric_env(job)),
        # The metrics' job labels (training.telemetry): srun hands the script's environment to every task.
        f"export JOB_NAME={shlex.quote(job.name)}",
        f"export POD_NAMESPACE={shlex.quote(job.namespace)}",
        f"export {TORCHRUN_SHUTDOWN_ENV}={torchrun_shutdown_seconds(job.grace_period_s)}",
        f"export INSTANCE_TYPE={job.instance_type}",
    ]
    if job.checkpoint_s3_uri is not None:
        sync = shlex.join(["python", "-m", CHECKPOINT_SYNC_MODULE, "--watch", checkpoint_dir, "--s3-uri", job.checkpoint_s3_uri])
        # SIGTERM makes the sync do one last upload; wait lets it finish before the allocation ends.
        lines += [f"{sync} &", "sync_pid=$!", 'trap \'kill -TERM "$sync_pid"; wait "$sync_pid"\' EXIT']
    lines += [
        "status=0",
        f"srun python -m {LAUNCH_MODULE} torchrun --nnodes=$SLURM_NNODES --nproc_per_node={job.procs_per_node}"
        f" --rdzv_backend=c10d --rdzv_endpoint=$head_node:{RENDEZVOUS_PORT} --rdzv_id=$SLURM_JOB_ID {train}"
        " || status=$?",
        # The trainers saved and stopped: back in the queue, to resume from that checkpoint.
        f'if [ "$status" -eq {EXIT_RESUME} ]; then scontrol requeue "$SLURM_JOB_ID"; exit 0; fi',
        'exit "$status"',
    ]
    return "\n".join(lines) + "\n"
