"""`eks-training status --env ENV [JOB]`: where a training job stands, read-only, in one table.

With the caller's AWS credentials it describes the environment's EKS cluster (endpoint, CA), lists the job's pods
and their nodes through the Kubernetes API (plain HTTPS with the bearer token `aws eks get-token` would print: a
presigned STS GetCallerIdentity URL, no Kubernetes client library), and reads the trainer's metrics file
``s3://<checkpoint bucket>/<namespace>/checkpoints/<job>/metrics.jsonl`` (:data:`METRICS_OBJECT_KEY`) for the last step,
tokens/s and last checkpoint. Without JOB it lists every platform pod of the namespace, grouped by job.

Nothing is changed anywhere. Every failure is one line (:class:`StatusError`).
"""

from __future__ import annotations

import argparse
import base64
import json
import ssl
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from eks_training.core.training_metrics import (
    CHECKPOINT_KEY,
    METRICS_OBJECT_KEY,
    STEP_KEY,
    TOKENS_PER_SECOND,
    metrics_object_key,
)
from eks_training.infra.tools.environment_option import add_environment_arguments, environment_from_args

#: The platform stack names its cluster this way (infra/platform_stack.py).
CLUSTER_NAME_FORMAT = "eks-training-{env}"
#: How the job kinds label their pods, tried in this order: MPI Operator, indexed batch Job, Volcano, KubeRay.
JOB_LABELS = ("training.kubeflow.org/job-name", "batch.kubernetes.io/job-name", "volcano.sh/job-name", "ray.io/cluster")
PLATFORM_SELECTOR = "app.kubernetes.io/part-of=eks-training"
#: The presigned STS URL's lifetime; EKS accepts tokens for 15 minutes at most and this command needs seconds.
TOKEN_EXPIRES_S = 60
TOKEN_PREFIX = "k8s-aws-v1."
#: How much of the metrics file's end to read: many lines, and never the whole file of a long run.
METRICS_TAIL_BYTES = 256 * 1024
_NODE_CONDITIONS = ("Ready", "AcceleratedHardwareReady", "NetworkingReady", "StorageReady", "KernelReady")
_INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"

__all__ = ["METRICS_OBJECT_KEY", "StatusError", "add_arguments", "eks_token", "run", "status_rows"]


class StatusError(ValueError):
    """A status failure; the message is one line."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("job", nargs="?", help="the job's name (default: every platform pod of the namespace)")
    add_environment_arguments(parser)
    parser.add_argument("--namespace", help="training namespace (default: the environment's first)")
    parser.add_argument("--checkpoint-bucket", help="the checkpoint bucket (default: the environment's, if named)")
    parser.add_argument("--cluster-name", help="EKS cluster name (default: eks-training-ENV)")
    # Tests point this at a local fake API server; a user can reach the API through a proxy or tunnel with it.
    parser.add_argument("--api-url", help=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    config = environment_from_args(args, "status")
    namespaces = [n.name for n in config.training_namespaces]
    namespace = args.namespace or namespaces[0]
    if namespace not in namespaces:
        raise StatusError(f"--namespace: {namespace!r} is not a training namespace of {config.name!r} "
                          f"(allowed: {', '.join(namespaces)})")
    rows = status_rows(
        region=config.region, cluster_name=args.cluster_name or CLUSTER_NAME_FORMAT.format(env=config.name),
        namespace=namespace, job=args.job,
        checkpoint_bucket=args.checkpoint_bucket or config.storage.buckets.checkpoint_bucket_name,
        api_url=args.api_url)
    sys.stdout.write(format_table(rows))
    return 0


# --- AWS --------------------------------------------------------------------------------------------------------


def _session(region: str):
    import boto3

    return boto3.session.Session(region_name=region)


def _aws_call(what: str, call: Callable[[], object]) -> object:
    """Run one AWS call, turning missing credentials and client errors into one line."""
    from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError

    try:
        return call()
    except NoCredentialsError:
        raise StatusError(f"{what}: no AWS credentials: set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, "
                          "or run `aws sso login`") from None
    except ClientError as err:
        error = err.response.get("Error", {})
        raise StatusError(f"{what}: {error.get('Code', 'error')}: {str(error.get('Message', err)).splitlines()[0]}") from None
    except BotoCoreError as err:
        raise StatusError(f"{what}: {str(err).splitlines()[0]}") from None


def describe_cluster(session, cluster_name: str) -> dict:
    """EKS's description of the cluster (endpoint, CA, status, version), or a one-line error."""
    from botocore.exceptions import ClientError

    eks = session.client("eks")
    try:
        return _aws_call(f"EKS cluster {cluster_name!r}", lambda: _not_found_passes(
            ClientError, lambda: eks.describe_cluster(name=cluster_name)["cluster"]))
    except _NotFound:
        raise StatusError(f"EKS cluster {cluster_name!r} does not exist in {session.region_name}: deploy the "
                          "environment first, or give --cluster-name") from None


class _NotFound(Exception):
    """The resource asked for does not exist (raised past _aws_call, which would word it generically)."""


def _not_found_passes(client_error: type, call: Callable[[], object]) -> object:
    try:
        return call()
    except client_error as err:
        if err.response.get("Error", {}).get("Code") in ("ResourceNotFoundException", "NoSuchKey", "404"):
            raise _NotFound() from None
        raise


def eks_token(session, cluster_name: str) -> str:
    """The bearer token `aws eks get-token` prints: ``k8s-aws-v1.`` + base64url(presigned GetCallerIdentity URL).

    The URL is signed with the header ``x-k8s-aws-id: <cluster>``, so the token is only good for this cluster;
    EKS's authenticator calls the URL and maps the returned identity to Kubernetes through access entries.
    """
    sts = session.client("sts")

    def add_cluster_header(request, **_ignored) -> None:
        request.headers["x-k8s-aws-id"] = cluster_name

    sts.meta.events.register("before-sign.sts.GetCallerIdentity", add_cluster_header)
    url = _aws_call("STS", lambda: sts.generate_presigned_url(
        "get_caller_identity", Params={}, ExpiresIn=TOKEN_EXPIRES_S, HttpMethod="GET"))
    return TOKEN_PREFIX + base64.urlsafe_b64encode(url.encode()).decode().rstrip("=")


def _get_credentials_or_fail(session) -> None:
    # Presigning works offline and would sign with nothing: check first so the error names the real cause.
    if session.get_credentials() is None:
        raise StatusError("no AWS credentials: set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, "
                          "or run `aws sso login`")


def read_metrics(session, bucket: str, namespace: str, job: str) -> dict[str, object] | None:
    """The last step, tokens/s and checkpoint in the job's metrics file, or None when there is no file yet."""
    from botocore.exceptions import ClientError

    s3 = session.client("s3")
    key = metrics_object_key(namespace, job)

    def tail() -> bytes:
        try:
            return s3.get_object(Bucket=bucket, Key=key, Range=f"bytes=-{METRICS_TAIL_BYTES}")["Body"].read()
        except ClientError as err:
            if err.response.get("Error", {}).get("Code") == "InvalidRange":  # an empty file has no last bytes
                return b""
            raise

    try:
        body = _aws_call(f"s3://{bucket}/{key}", lambda: _not_found_passes(ClientError, tail))
    except _NotFound:
        return None
    return last_metrics(body.decode("utf-8", errors="replace").splitlines())


#: Where :func:`last_metrics` puts the newest goodput record (the trainer's `"event": "goodput"` line).
GOODPUT_RECORD = "goodput_record"


def last_metrics(lines: Sequence[str]) -> dict[str, object]:
    """The newest value of the step, tokens/s and checkpoint among JSON lines (a torn first line is skipped), and
    the newest goodput record (training/goodput.py) under :data:`GOODPUT_RECORD`."""
    found: dict[str, object] = {}
    for line in reversed(lines):
        try:
            record = json.loads(line)
        except ValueError:
            continue  # the ranged read may start mid-line; a line being written may be incomplete
        if not isinstance(record, dict):
            continue
        if record.get("event") == "goodput":
            found.setdefault(GOODPUT_RECORD, record)
            continue
        for key in (STEP_KEY, TOKENS_PER_SECOND, CHECKPOINT_KEY):
            if key not in found and record.get(key) is not None:
                found[key] = record[key]
        if len(found) == 4:
            break
    return found


def goodput_rows(record: dict | None) -> list[list[str]]:
    """The job's goodput and cost across its runs, as the trainer last reported them (none before a run ended)."""
    if not record:
        return [["goodput", "-", "none yet", "reported when a run of the job ends (finished, stopped or failed)"]]
    share = record.get("goodput")
    seconds = {name: record.get(f"{name}_s") or 0 for name in ("productive", "startup", "checkpoint", "lost",
                                                                "waiting")}
    cost, price = record.get("cost_usd"), record.get("usd_per_node_hour")
    return [
        ["goodput", f"{share:.1%}" if isinstance(share, (int, float)) else "-", f"{record.get('runs', '-')} runs",
         f"of {record.get('total_s', 0):,.0f} s: productive {seconds['productive']:,.0f}, start-up "
         f"{seconds['startup']:,.0f}, checkpoints {seconds['checkpoint']:,.0f}, lost {seconds['lost']:,.0f} "
         f"({record.get('lost_steps', 0)} steps redone), waiting {seconds['waiting']:,.0f}"],
        ["cost", f"{cost:,.2f} USD" if isinstance(cost, (int, float)) else "-", "",
         f"{record.get('nodes', '-')} x {record.get('instance_type') or 'unknown type'} at "
         + (f"{price} USD/h list price" if price is not None else "no list price in the catalog")],
    ]


# --- Kubernetes ------------------------------------------------------------------------------------------------


@dataclass
class KubeApi:
    """GET-only access to the Kubernetes API with a bearer token."""

    base_url: str
    token: str
    context: ssl.SSLContext | None = None

    def get(self, path: str, **query: str) -> dict:
        url = self.base_url.rstrip("/") + path + (f"?{urllib.parse.urlencode(query)}" if query else "")
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {self.token}",
                                                       "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=20, context=self.context) as response:
                return json.load(response)
        except urllib.error.HTTPError as err:
            hint = {401: ": the token was refused (is the cluster name right?)",
                    403: ": your IAM principal has no EKS access entry or policy for this"}.get(err.code, "")
            raise StatusError(f"Kubernetes API GET {path}: HTTP {err.code} {err.reason}{hint}") from None
        except (urllib.error.URLError, OSError) as err:
            reason = getattr(err, "reason", err)
            raise StatusError(f"Kubernetes API {self.base_url}: unreachable ({reason}); a private endpoint needs "
                              "a VPN or bastion") from None


def _ssl_context(cluster: dict) -> ssl.SSLContext:
    authority = cluster.get("certificateAuthority", {}).get("data")
    if not authority:
        raise StatusError(f"EKS cluster {cluster.get('name')!r} reports no certificate authority: is it still creating?")
    try:
        return ssl.create_default_context(cadata=base64.b64decode(authority).decode())
    except (ValueError, ssl.SSLError) as err:
        raise StatusError(f"EKS cluster {cluster.get('name')!r}: its certificate authority does not load ({err})") from None


def job_pods(api: KubeApi, namespace: str, job: str | None) -> tuple[str, list[dict]]:
    """(the selector that matched, the pods) of ``job``, or every platform pod of the namespace without one."""
    path = f"/api/v1/namespaces/{urllib.parse.quote(namespace)}/pods"
    if job is None:
        return PLATFORM_SELECTOR, api.get(path, labelSelector=PLATFORM_SELECTOR).get("items", [])
    for label in JOB_LABELS:
        selector = f"{label}={job}"
        pods = api.get(path, labelSelector=selector).get("items", [])
        if pods:
            return selector, pods
    raise StatusError(f"job {job!r}: no pods in namespace {namespace!r} (looked for labels "
                      f"{', '.join(JOB_LABELS)}): not started yet, finished and cleaned up, or another namespace?")


def _job_of(pod: dict) -> str:
    labels = pod.get("metadata", {}).get("labels", {})
    return next((labels[label] for label in JOB_LABELS if label in labels), "-")


def _pod_row(pod: dict) -> list[str]:
    status = pod.get("status", {})
    restarts = sum(c.get("restartCount", 0) for c in status.get("containerStatuses", []) or [])
    waiting = [c["state"]["waiting"].get("reason", "") for c in status.get("containerStatuses", []) or []
               if c.get("state", {}).get("waiting")]
    detail = f"job {_job_of(pod)}, node {pod.get('spec', {}).get('nodeName') or '-'}, restarts {restarts}"
    if waiting:
        detail += f", waiting: {', '.join(sorted(set(waiting)))}"
    return ["pod", pod["metadata"]["name"], status.get("phase", "Unknown"), detail]


def _node_row(node: dict) -> list[str]:
    labels = node.get("metadata", {}).get("labels", {})
    conditions = {c["type"]: c.get("status", "Unknown") for c in node.get("status", {}).get("conditions", [])}
    state = "Ready" if conditions.get("Ready") == "True" else "NotReady"
    unhealthy = [name for name in _NODE_CONDITIONS[1:] if conditions.get(name) not in (None, "True")]
    detail = labels.get(_INSTANCE_TYPE_LABEL, "-")
    if node.get("spec", {}).get("unschedulable"):
        detail += ", cordoned"
    detail += f", unhealthy: {', '.join(unhealthy)}" if unhealthy else ""
    return ["node", node["metadata"]["name"], state, detail]


# --- the table -------------------------------------------------------------------------------------------------


def status_rows(*, region: str, cluster_name: str, namespace: str, job: str | None, checkpoint_bucket: str | None,
                api_url: str | None = None, session=None) -> list[list[str]]:
    """The rows of the status table: the cluster, the pods, their nodes, then the job's metrics."""
    session = session or _session(region)
    _get_credentials_or_fail(session)
    cluster = describe_cluster(session, cluster_name)
    api = KubeApi(api_url or cluster.get("endpoint") or "", eks_token(session, cluster_name),
                  None if api_url else _ssl_context(cluster))
    if not api.base_url:
        raise StatusError(f"EKS cluster {cluster_name!r} has no endpoint yet (status {cluster.get('status')})")
    rows = [["cluster", cluster_name, str(cluster.get("status", "?")),
             f"Kubernetes {cluster.get('version', '?')}, {region}"]]
    _selector, pods = job_pods(api, namespace, job)
    rows += [_pod_row(p) for p in sorted(pods, key=lambda p: p["metadata"]["name"])]
    for node_name in sorted({p.get("spec", {}).get("nodeName") for p in pods} - {None, ""}):
        rows.append(_node_row(api.get(f"/api/v1/nodes/{urllib.parse.quote(node_name)}")))
    if job is not None:
        rows += _metrics_rows(session, checkpoint_bucket, namespace, job)
    return rows


def _metrics_rows(session, bucket: str | None, namespace: str, job: str) -> list[list[str]]:
    if bucket is None:
        return [["metrics", "-", "unknown", "the checkpoint bucket's name is generated at deploy: give --checkpoint-bucket"]]
    where = f"s3://{bucket}/{metrics_object_key(namespace, job)}"
    metrics = read_metrics(session, bucket, namespace, job)
    if not metrics:
        return [["metrics", where, "none yet", "the trainer has not written its metrics file"]]
    tokens = metrics.get(TOKENS_PER_SECOND)
    return [
        ["step", str(metrics.get(STEP_KEY, "-")), "", where],
        ["tokens/s", f"{tokens:,.1f}" if isinstance(tokens, (int, float)) else "-", "", "last logged"],
        ["checkpoint", str(metrics.get(CHECKPOINT_KEY, "-")), "", "last saved"],
        *goodput_rows(metrics.get(GOODPUT_RECORD)),
    ]


def format_table(rows: list[list[str]]) -> str:
    """Rows under the header WHAT / NAME / STATE / DETAIL, columns padded to their widest cell."""
    table = [["WHAT", "NAME", "STATE", "DETAIL"], *rows]
    widths = [max(len(row[i]) for row in table) for i in range(3)]
    return "".join("  ".join([*(cell.ljust(w) for cell, w in zip(row[:3], widths)), row[3]]).rstrip() + "\n"
                   for row in table)
