"""The metrics contract between the trainer and the platform's dashboard, alarms and `eks-training status`.

The trainer publishes these through CloudWatch embedded metric format (EMF); the observability construct graphs
and alarms on exactly these names, and `eks-training status` reads the same names from the JSON-lines copy the
trainer writes next to its checkpoints. Plain constants only, no CDK import. The layer rule lets `training/` import
only `core/`, so the trainer spells these names itself (a test there should compare them with this module), until
this module moves to `core/`.
"""

from __future__ import annotations

from eks_training.core.names import checkpoint_key_prefix

#: CloudWatch namespace of every trainer metric.
METRICS_NAMESPACE = "EksTraining"

#: Dimensions of every trainer metric, in this order: the Kubernetes namespace and the job name.
DIMENSION_NAMESPACE = "Namespace"
DIMENSION_JOB = "Job"
DIMENSIONS = (DIMENSION_NAMESPACE, DIMENSION_JOB)

#: Metric names (EMF keys) the trainer emits once per logged step.
LOSS = "loss"
EVAL_LOSS = "eval_loss"
TOKENS_PER_SECOND = "tokens_per_second"
MFU = "mfu"
GRAD_NORM = "grad_norm"
#: Count of steps whose loss was NaN or infinite since the last emitted point (0 when training is healthy).
NONFINITE_LOSS = "nonfinite_loss"

TRAINER_METRICS = (LOSS, EVAL_LOSS, TOKENS_PER_SECOND, MFU, GRAD_NORM, NONFINITE_LOSS)

#: Metric names of the trainer's goodput record (training/goodput.py), emitted at the end of every run: the job's
#: productive share of its wall time, its seconds so far, the seconds of steps redone after restarts, and its cost.
GOODPUT = "goodput"
JOB_SECONDS = "job_seconds"
LOST_SECONDS = "lost_seconds"
JOB_COST_USD = "job_cost_usd"
#: Where the job's seconds went, one metric per category of the trainer's ledger (its ``<category>_s`` keys).
PRODUCTIVE_SECONDS = "productive_seconds"
STARTUP_SECONDS = "startup_seconds"
CHECKPOINT_SECONDS = "checkpoint_seconds"
EVALUATION_SECONDS = "evaluation_seconds"
WAITING_SECONDS = "waiting_seconds"
TIME_SPLIT_METRICS = {"productive": PRODUCTIVE_SECONDS, "startup": STARTUP_SECONDS, "checkpoint": CHECKPOINT_SECONDS,
                      "evaluation": EVALUATION_SECONDS, "lost": LOST_SECONDS, "waiting": WAITING_SECONDS}
GOODPUT_METRICS = (GOODPUT, JOB_SECONDS, *TIME_SPLIT_METRICS.values(), JOB_COST_USD)

#: Keys of one line of the trainer's metrics JSON-lines file besides the metric names above.
STEP_KEY = "step"
TIME_KEY = "time"
CHECKPOINT_KEY = "checkpoint"

#: The trainer's metrics JSON-lines file: one JSON object per logged step, appended to and uploaded with the
#: checkpoints. Relative to the checkpoint bucket: ``s3://<checkpoint bucket>/<namespace>/checkpoints/<job>/metrics.jsonl``
#: (the workspace export of the job's checkpoint folder, :func:`eks_training.core.names.checkpoint_key_prefix`).
METRICS_FILE_NAME = "metrics.jsonl"
METRICS_OBJECT_KEY = checkpoint_key_prefix("{namespace}", "{job}") + "/" + METRICS_FILE_NAME


#: Where the trainer can send EMF records: the CloudWatch agent's EMF listener, which the add-on's agent Service
#: exposes when its config has ``logs.metrics_collected.emf``. The record's ``_aws.LogGroupName`` should name
#: :func:`metrics_log_group_name` so the records land in the encrypted, retained group the platform creates.
EMF_AGENT_ENDPOINT = "tcp://cloudwatch-agent.amazon-cloudwatch:25888"


def metrics_object_key(namespace: str, job: str) -> str:
    """The S3 key of one job's metrics JSON-lines file in the checkpoint bucket."""
    return METRICS_OBJECT_KEY.format(namespace=namespace, job=job)


def application_log_group_name(cluster_name: str) -> str:
    """Where the CloudWatch Observability add-on's Fluent Bit sends every container's stdout/stderr."""
    return f"/aws/containerinsights/{cluster_name}/application"


def container_insights_log_group_name(cluster_name: str, kind: str) -> str:
    """The add-on's other log groups: ``dataplane`` and ``host`` (Fluent Bit), ``performance`` (the agent's EMF)."""
    return f"/aws/containerinsights/{cluster_name}/{kind}"


def metrics_log_group_name(cluster_name: str) -> str:
    """Where the trainer's EMF records go (CloudWatch extracts the metrics above from this log group)."""
    return f"/eks-training/{cluster_name}/training-metrics"
