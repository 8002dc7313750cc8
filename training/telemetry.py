"""Trainer telemetry beyond the JSON lines: CloudWatch embedded metric format (EMF) and TensorBoard scalars.

EMF. :func:`emf_document` turns one metrics record of the trainer into the document that CloudWatch turns into
the metrics of the platform's dashboard and alarms (the contract in :mod:`eks_training.core.training_metrics`:
namespace ``EksTraining``, dimensions ``Namespace`` and ``Job``)::

    {"_aws": {"Timestamp": 1764551400123,
              "CloudWatchMetrics": [{"Namespace": "EksTraining", "Dimensions": [["Namespace", "Job"]],
                                     "Metrics": [{"Name": "loss", "Unit": "None"}, ...]}]},
     "Namespace": "team-a", "Job": "llama-8b", "step": 100,
     "loss": 2.31, "grad_norm": 0.8, "tokens_per_second": 51234.5, "mfu": 0.41, "nonfinite_loss": 0}

:class:`EmfSink` writes these documents to one or both of two places, and the platform must route each:

* ``--emf-endpoint tcp://cloudwatch-agent.amazon-cloudwatch:25888`` (or ``udp://``): the CloudWatch agent's
  EMF listener, which the observability add-on opens (``logs.metrics_collected.emf``). The agent sends the
  records flagged as EMF, so CloudWatch extracts the metrics; set ``CLUSTER_NAME`` in the pod so the record's
  ``_aws.LogGroupName`` names the platform's encrypted metrics group (``/eks-training/<cluster>/training-metrics``),
  otherwise the agent picks its default group.
* ``--emf``: one line per record on stdout. Fluent Bit ships container stdout to the application log group
  wrapped in its own JSON (``log`` plus Kubernetes metadata), and CloudWatch extracts EMF only from bare EMF
  events sent with the ``x-amzn-logs-format: json/emf`` header. So the platform must route these lines itself:
  a Fluent Bit output that matches the trainer containers, keeps only lines whose ``log`` parses as JSON with an
  ``_aws`` key, lifts that JSON to the event, and sends it with ``cloudwatch_logs`` ``log_format json/emf`` to
  the metrics log group. Without that route the lines are ordinary log lines (readable, no metrics).

A non-finite value (the loss of a diverged run) is not a number CloudWatch accepts, so it is dropped and
counted in ``nonfinite_loss`` instead, which the platform alarms on.

TensorBoard. :class:`TensorBoardSink` writes loss, learning rate, gradient norm, tokens/s, MFU and eval loss as
scalars with ``torch.utils.tensorboard`` (which needs the ``tensorboard`` package).

Every sink is rank 0's only: :class:`~eks_training.training.metrics.MetricsLogger` calls them after its own
rank check. A sink never stops training: an unreachable agent costs a warning and the record.
"""

from __future__ import annotations

import json
import math
import os
import socket
import sys
import time
from pathlib import Path
from typing import IO, Any, Mapping, Protocol

from eks_training.core import training_metrics as tm
from eks_training.core.validation import invalid
from eks_training.training.goodput import CATEGORIES

#: The trainer's record keys and the contract's metric name for each (the JSON lines spell ``tokens_per_s``).
RECORD_METRICS = {
    "loss": tm.LOSS,
    "eval_loss": tm.EVAL_LOSS,
    "tokens_per_s": tm.TOKENS_PER_SECOND,
    "mfu": tm.MFU,
    "grad_norm": tm.GRAD_NORM,
}
#: The goodput record's keys (event "goodput", training/goodput.py) and their metric names.
#: A ledger category without a metric name in the contract fails here, at import, not on the dashboard.
GOODPUT_RECORD_METRICS = {
    "goodput": tm.GOODPUT,
    "total_s": tm.JOB_SECONDS,
    **{f"{category}_s": tm.TIME_SPLIT_METRICS[category] for category in CATEGORIES},
    "cost_usd": tm.JOB_COST_USD,
}
#: CloudWatch units (the names CloudWatch's StandardUnit allows); MFU is a fraction of peak, not a percent.
UNITS = {
    tm.LOSS: "None",
    tm.EVAL_LOSS: "None",
    tm.TOKENS_PER_SECOND: "Count/Second",
    tm.MFU: "None",
    tm.GRAD_NORM: "None",
    tm.NONFINITE_LOSS: "Count",
    tm.GOODPUT: "None",
    tm.JOB_SECONDS: "Seconds",
    **dict.fromkeys(tm.TIME_SPLIT_METRICS.values(), "Seconds"),
    tm.JOB_COST_USD: "None",
}
# A NaN or infinite loss or gradient norm is what diverges a run (guard.py), so each counts as a non-finite step;
# a non-finite throughput is only dropped.
_DIVERGENCE_KEYS = ("loss", "eval_loss", "grad_norm")
# Records that carry the step's metrics: the training step record (no `event` key) and the evaluation.
# `loss_spike` repeats the step's loss and `resumed`/`diverged` carry none, so they are not metric points.
_METRIC_EVENTS = (None, "eval")

SERVICE_ACCOUNT_NAMESPACE_FILE = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
#: Dimension value when the pod does not say its namespace or job: visible on the dashboard, never a crash.
UNKNOWN = "unknown"


def job_identity(job_name: str | None = None, env: Mapping[str, str] | None = None,
                 namespace_file: Path = SERVICE_ACCOUNT_NAMESPACE_FILE) -> tuple[str, str]:
    """The (Kubernetes namespace, job name) dimension values.

    Namespace: ``POD_NAMESPACE`` (a downward-API variable), else the service account's namespace file that every
    pod with a mounted token has. Job: ``job_name`` (``--job-name``), else ``JOB_NAME``. Missing ones are
    :data:`UNKNOWN`.
    """
    env = os.environ if env is None else env
    namespace = env.get("POD_NAMESPACE", "").strip()
    if not namespace:
        try:
            namespace = namespace_file.read_text().strip()
        except OSError:
            namespace = ""
    job = (job_name or env.get("JOB_NAME", "")).strip()
    return namespace or UNKNOWN, job or UNKNOWN


def _number(value: Any) -> float | int | None:
    """A metric value, or None for what is not a number (bool is an int in Python, not a metric)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


def emf_document(record: Mapping[str, Any], namespace: str, job: str, log_group: str | None = None,
                 now: float | None = None) -> dict[str, Any] | None:
    """One trainer record as a CloudWatch EMF document, or None when the record carries no metric.

    The timestamp is the record's ``time`` (seconds) when it has one, else ``now`` or the clock. Non-finite
    values are left out of the metrics; ``nonfinite_loss`` is 1 when the loss, eval loss or gradient norm was
    one, else 0, so the alarm's SUM counts diverged steps.
    """
    goodput = record.get("event") == "goodput"
    if record.get("event") not in _METRIC_EVENTS and not goodput:
        return None
    metrics: dict[str, float | int] = {}
    nonfinite = 0
    for key, name in (GOODPUT_RECORD_METRICS if goodput else RECORD_METRICS).items():
        value = _number(record.get(key))
        if value is None:
            continue
        if not math.isfinite(value):
            nonfinite |= key in _DIVERGENCE_KEYS
            continue
        metrics[name] = value
    if not metrics and not nonfinite:
        return None
    if not goodput:
        metrics[tm.NONFINITE_LOSS] = int(nonfinite)
    seconds = _number(record.get(tm.TIME_KEY))
    seconds = seconds if seconds is not None and math.isfinite(seconds) else (time.time() if now is None else now)
    aws: dict[str, Any] = {
        "Timestamp": int(seconds * 1000),
        "CloudWatchMetrics": [{
            "Namespace": tm.METRICS_NAMESPACE,
            "Dimensions": [list(tm.DIMENSIONS)],
            "Metrics": [{"Name": name, "Unit": UNITS[name]} for name in metrics],
        }],
    }
    if log_group:
        aws["LogGroupName"] = log_group
    document: dict[str, Any] = {"_aws": aws, tm.DIMENSION_NAMESPACE: namespace, tm.DIMENSION_JOB: job}
    step = _number(record.get(tm.STEP_KEY))
    if step is not None:
        document[tm.STEP_KEY] = step  # not a metric: a property to find the record by in Logs Insights
    document.update(metrics)
    return document


def split_endpoint(endpoint: str) -> tuple[str, str, int]:
    """``tcp://HOST:PORT`` or ``udp://HOST:PORT`` as (scheme, host, port); ValueError (one line) otherwise."""
    scheme, sep, address = endpoint.strip().partition("://")
    host, _, port = address.rpartition(":")
    if scheme not in ("tcp", "udp") or not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise invalid("--emf-endpoint", endpoint, f"tcp://HOST:PORT or udp://HOST:PORT, e.g. {tm.EMF_AGENT_ENDPOINT}")
    return scheme, host.strip("[]"), int(port)


class _AgentConnection:
    """Newline-delimited EMF to the CloudWatch agent's listener, as the agent expects.

    TCP keeps one connection and reconnects once when a send fails (the agent restarted). When the agent cannot
    be reached, sends pause for ``retry_seconds`` so that a missing agent costs the loop one connect timeout
    per pause, not one per logged step.
    """

    def __init__(self, endpoint: str, warnings: IO[str], timeout: float = 1.0, retry_seconds: float = 30.0) -> None:
        self.endpoint = endpoint
        self.scheme, host, port = split_endpoint(endpoint)
        self.address = (host, port)
        self.timeout, self.retry_seconds, self.warnings = timeout, retry_seconds, warnings
        self._socket: socket.socket | None = None
        self._paused_until = 0.0
        self.failures = 0

    def _connect(self) -> socket.socket:
        if self.scheme == "udp":
            family = socket.getaddrinfo(*self.address, type=socket.SOCK_DGRAM)[0][0]
            return socket.socket(family, socket.SOCK_DGRAM)
        return socket.create_connection(self.address, timeout=self.timeout)

    def _send_once(self, data: bytes) -> None:
        if self._socket is None:
            self._socket = self._connect()
        if self.scheme == "udp":
            self._socket.sendto(data, self.address)
        else:
            self._socket.sendall(data)

    def send(self, line: str) -> bool:
        """Send one document; False (after a warning on stderr) when it was dropped."""
        if time.monotonic() < self._paused_until:
            return False
        data = (line + "\n").encode()
        try:
            try:
                self._send_once(data)
            except OSError:
                self.close()  # a stale connection: the agent restarted; one fresh try
                self._send_once(data)
        except OSError as error:
            self.close()
            self.failures += 1
            self._paused_until = time.monotonic() + self.retry_seconds
            print(f"warning: EMF endpoint {self.endpoint} unreachable ({error}); metrics are not sent for "
                  f"{self.retry_seconds:g} s (training continues)", file=self.warnings, flush=True)
            return False
        return True

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None


class Sink(Protocol):
    """What :class:`~eks_training.training.metrics.MetricsLogger` calls for every record it writes."""

    def write(self, record: Mapping[str, Any]) -> None: ...

    def close(self) -> None: ...


class EmfSink:
    """Writes each metric record as EMF: one line to ``stream`` and/or one to the agent at ``endpoint``."""

    def __init__(self, namespace: str, job: str, stream: IO[str] | None = None, endpoint: str | None = None,
                 log_group: str | None = None, warnings: IO[str] | None = None) -> None:
        self.namespace, self.job, self.stream, self.log_group = namespace, job, stream, log_group
        self.agent = _AgentConnection(endpoint, warnings or sys.stderr) if endpoint else None

    def write(self, record: Mapping[str, Any]) -> None:
        document = emf_document(record, self.namespace, self.job, self.log_group)
        if document is None:
            return
        line = json.dumps(document, separators=(",", ":"), allow_nan=False)
        if self.stream is not None:
            self.stream.write(line + "\n")
            self.stream.flush()
        if self.agent is not None:
            self.agent.send(line)

    def close(self) -> None:
        if self.agent is not None:
            self.agent.close()


#: Trainer record keys and their TensorBoard tags (train/ and eval/ become two sections in TensorBoard).
TENSORBOARD_TAGS = {
    "loss": "train/loss",
    "lr": "train/lr",
    "grad_norm": "train/grad_norm",
    "tokens_per_s": "train/tokens_per_second",
    "mfu": "train/mfu",
    "eval_loss": "eval/loss",
}


class TensorBoardSink:
    """Scalars of each metric record in a TensorBoard event file under ``folder``, at the record's step."""

    def __init__(self, folder: str | Path) -> None:
        try:
            from torch.utils.tensorboard import SummaryWriter
        except ImportError:
            raise invalid("--tensorboard-dir", str(folder), "a folder path, with the tensorboard package installed "
                                                            "(pip install tensorboard==2.21.0)") from None
        self.writer = SummaryWriter(log_dir=str(folder))

    def write(self, record: Mapping[str, Any]) -> None:
        step = _number(record.get(tm.STEP_KEY))
        if record.get("event") not in _METRIC_EVENTS or step is None:
            return
        wrote = False
        for key, tag in TENSORBOARD_TAGS.items():
            value = _number(record.get(key))
            if value is not None and math.isfinite(value):  # a NaN point would hide the curve's scale
                self.writer.add_scalar(tag, value, int(step))
                wrote = True
        if wrote:
            self.writer.flush()  # per logged step: a pod killed mid-run keeps its curves up to that step

    def close(self) -> None:
        self.writer.close()


class TelemetrySettings(Protocol):
    """The trainer flags that choose the sinks (a TrainConfig has them; config.py imports this module)."""

    emf: bool
    emf_endpoint: str | None
    tensorboard_dir: str | None
    job_name: str | None


def open_sinks(settings: TelemetrySettings, *, stdout: IO[str] | None = None,
               env: Mapping[str, str] | None = None) -> list[Sink]:
    """The sinks ``--emf``, ``--emf-endpoint`` and ``--tensorboard-dir`` ask for (``--job-name`` names the job);
    an empty list when none. Call on rank 0 only: TensorBoard's writer creates its file when it opens."""
    env = os.environ if env is None else env
    sinks: list[Sink] = []
    if settings.emf or settings.emf_endpoint:
        namespace, job = job_identity(settings.job_name, env)
        cluster = env.get("CLUSTER_NAME", "").strip()
        sinks.append(EmfSink(namespace, job, stream=(stdout or sys.stdout) if settings.emf else None,
                             endpoint=settings.emf_endpoint,
                             log_group=tm.metrics_log_group_name(cluster) if cluster else None))
    if settings.tensorboard_dir:
        sinks.append(TensorBoardSink(settings.tensorboard_dir))
    return sinks
