"""`eks-training status`: EKS and S3 from moto, the Kubernetes API from a fake server on 127.0.0.1; the token is
the one `aws eks get-token` makes; each failure is one line."""

from __future__ import annotations

import base64
import json
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import boto3
import pytest
from moto import mock_aws

from eks_training.core import training_metrics as tm
from eks_training.infra.tools import status
from eks_training.infra.tools.cli import main

REGION = "us-west-2"  # prod's region
CLUSTER = "eks-training-prod"
BUCKET = "prod-checkpoints"
NAMESPACE = "training"  # prod's first training namespace is checked below


class FakeKubeApi(BaseHTTPRequestHandler):
    """Serves the pods of job `llm` (MPI Operator labels) and their nodes; records what it was asked."""

    pods: list[dict] = []
    nodes: dict[str, dict] = {}
    requests: list[tuple[str, str | None]] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        type(self).requests.append((self.path, self.headers.get("Authorization")))
        if not (self.headers.get("Authorization") or "").startswith("Bearer k8s-aws-v1."):
            return self._send(401, {"kind": "Status", "code": 401})
        if url.path == f"/api/v1/namespaces/{NAMESPACE}/pods":
            key, _, value = query.get("labelSelector", "").partition("=")
            items = [p for p in self.pods if p["metadata"]["labels"].get(key) == value]
            return self._send(200, {"kind": "PodList", "items": items})
        if url.path.startswith("/api/v1/nodes/") and url.path.rsplit("/", 1)[1] in self.nodes:
            return self._send(200, self.nodes[url.path.rsplit("/", 1)[1]])
        return self._send(404, {"kind": "Status", "code": 404})

    def _send(self, code: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:  # keep test output clean
        pass


def _pod(name: str, node: str, phase: str = "Running") -> dict:
    return {"metadata": {"name": name, "labels": {"training.kubeflow.org/job-name": "llm",
                                                  "app.kubernetes.io/part-of": "eks-training"}},
            "spec": {"nodeName": node},
            "status": {"phase": phase, "containerStatuses": [{"restartCount": 1, "state": {"running": {}}}]}}


def _node(name: str, accelerated_ready: str = "True") -> dict:
    return {"metadata": {"name": name, "labels": {"node.kubernetes.io/instance-type": "p5.48xlarge"}},
            "spec": {},
            "status": {"conditions": [{"type": "Ready", "status": "True"},
                                      {"type": "AcceleratedHardwareReady", "status": accelerated_ready}]}}


@pytest.fixture()
def kube_api() -> Iterator[str]:
    FakeKubeApi.pods = [_pod("llm-worker-0", "ip-10-0-1-1"), _pod("llm-worker-1", "ip-10-0-1-2"),
                        _pod("llm-launcher", "ip-10-0-0-9")]
    FakeKubeApi.nodes = {"ip-10-0-1-1": _node("ip-10-0-1-1"), "ip-10-0-1-2": _node("ip-10-0-1-2", "False"),
                         "ip-10-0-0-9": _node("ip-10-0-0-9")}
    FakeKubeApi.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeKubeApi)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    thread.join(5)


@pytest.fixture()
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for key, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                       "AWS_DEFAULT_REGION": REGION, "AWS_EC2_METADATA_DISABLED": "true"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    with mock_aws():
        yield


def _create_cluster() -> None:
    eks = boto3.client("eks", region_name=REGION)
    eks.create_cluster(name=CLUSTER, roleArn="arn:aws:iam::123456789012:role/eks", version="1.35",
                       resourcesVpcConfig={"subnetIds": ["subnet-1", "subnet-2"]})


def _write_metrics(lines: list[dict | str]) -> None:
    s3 = boto3.client("s3", region_name=REGION)
    s3.create_bucket(Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": REGION})
    body = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n"
    s3.put_object(Bucket=BUCKET, Key=tm.metrics_object_key(NAMESPACE, "llm"), Body=body.encode())


def _status(capsys, *extra: str) -> tuple[int, str, str]:
    code = main(["status", "--env", "prod", *extra])
    out, err = capsys.readouterr()
    return code, out, err


def test_prod_first_namespace_is_the_one_tested() -> None:
    from eks_training.infra.config import load_environment

    assert load_environment("prod").training_namespaces[0].name == NAMESPACE


def test_status_prints_pods_nodes_and_progress(aws, kube_api, capsys) -> None:
    _create_cluster()
    _write_metrics([
        {"step": 90, "loss": 2.1, "tokens_per_second": 1000.0},
        {"step": 100, "loss": 2.0, "tokens_per_second": 1234.5, "checkpoint": "step-100"},
        {"step": 110, "loss": 1.9, "tokens_per_second": 1250.5},
        '{"step": 120, "loss": 1.',  # a line the trainer is still writing
    ])
    code, out, err = _status(capsys, "llm", "--api-url", kube_api, "--checkpoint-bucket", BUCKET)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].split() == ["WHAT", "NAME", "STATE", "DETAIL"]
    table = {(line.split()[0], line.split()[1]): line for line in lines[1:]}
    assert "ACTIVE" in table[("cluster", CLUSTER)] and "Kubernetes 1.35" in table[("cluster", CLUSTER)]
    assert "Running" in table[("pod", "llm-worker-1")] and "node ip-10-0-1-2, restarts 1" in table[("pod", "llm-worker-1")]
    assert table[("node", "ip-10-0-1-2")].endswith("p5.48xlarge, unhealthy: AcceleratedHardwareReady")
    assert table[("node", "ip-10-0-1-1")].endswith("p5.48xlarge")
    assert table[("step", "110")].endswith(f"s3://{BUCKET}/{tm.metrics_object_key(NAMESPACE, 'llm')}")
    assert ("tokens/s", "1,250.5") in table
    assert ("checkpoint", "step-100") in table
    # The first selector (MPI Operator's job label) matched; every request carried the EKS token.
    selectors = [dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(path).query)).get("labelSelector")
                 for path, _ in FakeKubeApi.requests if "/pods" in path]
    assert selectors == ["training.kubeflow.org/job-name=llm"]
    assert all(auth.startswith("Bearer k8s-aws-v1.") for _, auth in FakeKubeApi.requests)


def test_the_token_is_a_presigned_get_caller_identity_for_the_cluster(aws) -> None:
    token = status.eks_token(boto3.session.Session(region_name=REGION), CLUSTER)
    assert token.startswith("k8s-aws-v1.") and "=" not in token
    url = base64.urlsafe_b64decode(token.removeprefix("k8s-aws-v1.") + "==").decode()
    parts = urllib.parse.urlsplit(url)
    query = dict(urllib.parse.parse_qsl(parts.query))
    assert parts.scheme == "https" and parts.netloc.startswith("sts.")
    assert query["Action"] == "GetCallerIdentity" and query["X-Amz-Expires"] == "60"
    assert "x-k8s-aws-id" in query["X-Amz-SignedHeaders"].split(";")


def test_without_a_job_lists_the_namespace_platform_pods(aws, kube_api, capsys) -> None:
    _create_cluster()
    code, out, _ = _status(capsys, "--api-url", kube_api)
    assert code == 0
    assert [line.split()[1] for line in out.splitlines() if line.startswith("pod")] == [
        "llm-launcher", "llm-worker-0", "llm-worker-1"]
    assert not any(line.startswith(("step", "metrics")) for line in out.splitlines())


def test_no_metrics_file_yet_is_a_row_not_an_error(aws, kube_api, capsys) -> None:
    _create_cluster()
    boto3.client("s3", region_name=REGION).create_bucket(
        Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": REGION})
    code, out, _ = _status(capsys, "llm", "--api-url", kube_api, "--checkpoint-bucket", BUCKET)
    assert code == 0
    assert any(line.startswith("metrics") and "none yet" in line for line in out.splitlines())


def test_metrics_location_is_the_documented_contract() -> None:
    # Next to the job's checkpoints in its namespace's workspace export (the prefix the namespace's role may read).
    assert status.METRICS_OBJECT_KEY == "{namespace}/checkpoints/{job}/metrics.jsonl"
    assert tm.metrics_object_key("team-a", "llm") == "team-a/checkpoints/llm/metrics.jsonl"
    assert status.last_metrics(['{"step": 5, "tokens_per_second": 10}', "garbage", '{"step": 7}']) == {
        "step": 7, "tokens_per_second": 10}


def test_no_such_cluster_is_one_line(aws, kube_api, capsys) -> None:
    code, out, err = _status(capsys, "llm", "--api-url", kube_api)
    assert (code, out) == (2, "")
    assert err == (f"error: EKS cluster '{CLUSTER}' does not exist in {REGION}: deploy the environment first, "
                   "or give --cluster-name\n")


def test_no_pods_for_the_job_is_one_line(aws, kube_api, capsys) -> None:
    _create_cluster()
    code, _, err = _status(capsys, "nope", "--api-url", kube_api)
    assert code == 2
    assert err.startswith("error: job 'nope': no pods in namespace 'training' (looked for labels "
                          "training.kubeflow.org/job-name, batch.kubernetes.io/job-name") and err.count("\n") == 1
    # Every known job label was tried before giving up.
    assert len([path for path, _ in FakeKubeApi.requests if "/pods" in path]) == len(status.JOB_LABELS)


def test_no_credentials_is_one_line(monkeypatch, tmp_path, capsys) -> None:
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.delenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", raising=False)
    monkeypatch.delenv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", raising=False)
    monkeypatch.delenv("AWS_WEB_IDENTITY_TOKEN_FILE", raising=False)
    code, out, err = _status(capsys, "llm")
    assert (code, out) == (2, "")
    assert err == ("error: no AWS credentials: set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, "
                   "or run `aws sso login`\n")


def test_a_refused_token_is_one_line(aws, kube_api, capsys, monkeypatch) -> None:
    _create_cluster()
    monkeypatch.setattr(status, "TOKEN_PREFIX", "not-a-token.")
    code, _, err = _status(capsys, "llm", "--api-url", kube_api)
    assert code == 2
    assert err.startswith("error: Kubernetes API GET /api/v1/namespaces/training/pods: HTTP 401 Unauthorized: "
                          "the token was refused")


def test_unknown_namespace_is_one_line(aws, capsys) -> None:
    code, _, err = _status(capsys, "llm", "--namespace", "nope")
    assert code == 2 and err.startswith("error: --namespace: 'nope' is not a training namespace of 'prod'")


def test_an_environment_file_of_your_own_is_read_by_config(aws, tmp_path, capsys) -> None:
    from eks_training.infra.config import ENVIRONMENTS_DIR

    own = tmp_path / "team-repo" / "acme.yaml"
    own.parent.mkdir()
    own.write_text((ENVIRONMENTS_DIR / "prod.yaml").read_text().replace("name: prod", "name: acme", 1))
    assert main(["status", "llm", "--config", str(own), "--namespace", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --namespace: 'nope' is not a training namespace of 'acme' (allowed: "), err


def test_status_shows_the_jobs_goodput_and_cost_across_its_runs(aws, kube_api, capsys) -> None:
    _create_cluster()
    _write_metrics([
        {"step": 100, "loss": 2.0, "tokens_per_second": 1234.5, "checkpoint": "step-100"},
        # What the trainer writes at the end of its third run (training/goodput.py).
        {"event": "goodput", "step": 100, "productive_s": 3000.0, "startup_s": 300.0, "checkpoint_s": 200.0,
         "evaluation_s": 0.0, "lost_s": 400.0, "waiting_s": 100.0, "total_s": 4000.0, "goodput": 0.75,
         "lost_steps": 12, "runs": 3, "nodes": 2, "instance_type": "p5.48xlarge", "usd_per_node_hour": 98.32,
         "cost_usd": 218.49},
        {"step": 110, "loss": 1.9, "tokens_per_second": 1250.5},
    ])
    code, out, err = _status(capsys, "llm", "--api-url", kube_api, "--checkpoint-bucket", BUCKET)
    assert (code, err) == (0, "")
    table = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert table["goodput"].split()[1:4] == ["75.0%", "3", "runs"]
    assert table["goodput"].endswith("of 4,000 s: productive 3,000, start-up 300, checkpoints 200, lost 400 "
                                     "(12 steps redone), waiting 100")
    assert table["cost"].split()[1:3] == ["218.49", "USD"]
    assert table["cost"].endswith("2 x p5.48xlarge at 98.32 USD/h list price")
    assert ("step", "110") in {(line.split()[0], line.split()[1]) for line in out.splitlines()[1:]}


def test_no_goodput_record_yet_is_a_row():
    assert status.goodput_rows(None) == [
        ["goodput", "-", "none yet", "reported when a run of the job ends (finished, stopped or failed)"]]
