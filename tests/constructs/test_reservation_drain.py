"""Reservation end: the rule, the function and its rights in the synthesized app; the handler's AWS side against moto
(instances tagged with the reservation -> nodes), its Kubernetes side over HTTP against the API's documented
request and response shapes (k8s_drain/exchanges.json): cordon, evict with the pod's grace period, delete past a
disruption budget, leave DaemonSet, mirror and finished pods alone."""

from __future__ import annotations

import base64
import copy
import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import boto3
import pytest
import yaml
from moto import mock_aws

from eks_training.constructs import reservation_drain as construct
from eks_training.constructs.handlers import reservation_drain as handler
from eks_training.core import names
from eks_training.infra.config import ENVIRONMENTS_DIR, parse_config
from support.synth import synthesize

RESERVATION = "cr-0a1b2c3d4e5f60718"
EXCHANGES = json.loads((Path(__file__).parent / "k8s_drain" / "exchanges.json").read_text())


def test_the_handler_and_the_platform_name_the_same_tag_label_and_events():
    # The handler ships alone (standard library and boto3): its copies of the names must match the platform's.
    assert handler.RESERVATION_TAG == names.RESERVATION_TAG
    assert handler.KARPENTER_RESERVATION_LABEL == names.KARPENTER_RESERVATION_LABEL
    assert (handler.CAPACITY_BLOCK_WARNINGS, handler.INTERRUPTION_WARNING) == (
        construct.CAPACITY_BLOCK_WARNINGS, construct.INTERRUPTION_WARNING)


# --- the synthesized app -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def reserved(tmp_path_factory):
    data = yaml.safe_load((ENVIRONMENTS_DIR / "prod.yaml").read_text())
    group = data["capacity"]["gpu_node_groups"][0]
    group.update(capacity_type="capacity-block", capacity_reservation_id=RESERVATION)
    return synthesize(parse_config(data, source="prod.yaml"), outdir=tmp_path_factory.mktemp("reserved"))


def _one(synth, type_: str, where=lambda r: True) -> dict:
    (found,) = [r for r in synth.resources(type_).values() if where(r)]
    return found["Properties"]


def test_the_rule_sends_the_reservations_ending_to_the_drain_function(reserved):
    assert reserved.error is None, reserved.error
    rules = [r["Properties"] for lid, r in reserved.resources("AWS::Events::Rule").items()
             if lid.startswith("ReservationDrain")]
    patterns = sorted((r["EventPattern"] for r in rules), key=lambda p: p["detail-type"][0])
    assert patterns == [
        {"source": ["aws.ec2"], "detail-type": ["Capacity Block Expiration Warning",
                                                "Capacity Block Reservation Expiration Warning"],
         "detail": {"capacity-reservation-id": [RESERVATION]}},
        {"source": ["aws.ec2"], "detail-type": ["EC2 Capacity Reservation Instance Interruption Warning"]}]
    function = _one(reserved, "AWS::Lambda::Function", lambda r: r["Properties"].get("Handler") ==
                    "reservation_drain.main")
    assert function["Runtime"] == "python3.14" and function["VpcConfig"]["SubnetIds"]
    assert function["DeadLetterConfig"]["TargetArn"]["Fn::GetAtt"][1] == "Arn"
    assert json.loads(function["Environment"]["Variables"]["RESERVATION_IDS"]) == [RESERVATION]
    # The node group's instances carry the reservation's id, what the handler finds them by.
    template = _one(reserved, "AWS::EC2::LaunchTemplate", lambda r: any(
        t["Key"] == names.RESERVATION_TAG for spec in r["Properties"]["LaunchTemplateData"].get("TagSpecifications", [])
        for t in spec["Tags"]))
    tags = template["LaunchTemplateData"]["TagSpecifications"][0]["Tags"]
    assert {"Key": names.RESERVATION_TAG, "Value": RESERVATION} in tags


def test_the_function_has_only_what_a_drain_needs(reserved):
    entry = _one(reserved, "AWS::EKS::AccessEntry", lambda r: r["Properties"].get("KubernetesGroups") ==
                 [construct.DRAIN_GROUP])
    assert "AccessPolicies" not in entry and entry["Type"] == "STANDARD"
    role_ref = entry["PrincipalArn"]["Fn::GetAtt"][0]
    statements = [s for p in reserved.resources("AWS::IAM::Policy").values()
                  if {"Ref": role_ref} in p["Properties"]["Roles"]
                  for s in p["Properties"]["PolicyDocument"]["Statement"]]
    actions = {(a, json.dumps(s["Resource"])) for s in statements
               for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])}
    assert {a for a, _ in actions} >= {"ec2:DescribeInstances", "logs:CreateLogStream", "logs:PutLogEvents",
                                       "sqs:SendMessage"}
    # Nothing else but its own key: no EKS, no other EC2 action, no wildcard but DescribeInstances'.
    key_id = next(lid for lid in reserved.resources("AWS::KMS::Key") if lid.startswith("ReservationDrainKey"))
    for action, resource in actions:
        if action.startswith("kms:"):
            assert key_id in resource, (action, resource)
        else:
            assert action.split(":")[0] in {"ec2", "logs", "sqs"} and (resource != '"*"' or action ==
                                                                      "ec2:DescribeInstances"), (action, resource)
    objects = [obj for objs in reserved.kubernetes_manifests.values() for obj in objs
               if obj["metadata"].get("name") == "eks-training-reservation-drain"]
    role = next(o for o in objects if o["kind"] == "ClusterRole")
    binding = next(o for o in objects if o["kind"] == "ClusterRoleBinding")
    assert role["rules"] == [dict(r) for r in construct.DRAIN_RULES]
    assert not any("*" in r["verbs"] or "*" in r["resources"] for r in role["rules"])
    assert binding["subjects"] == [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group",
                                    "name": construct.DRAIN_GROUP}]


def test_reservation_ids_are_checked_in_one_line():
    from aws_cdk import App, Stack

    class _Cluster:  # only reached after the ids are checked
        pass

    with pytest.raises(ValueError) as raised:
        construct.ReservationDrain(Stack(App(), "S"), "Drain", cluster=_Cluster(), reservation_ids=["cb-123"])
    assert str(raised.value).startswith("S/Drain: reservation_ids[0]='cb-123' is not allowed")


# --- the handler: AWS side ------------------------------------------------------------------------------------------


@pytest.fixture
def ec2():
    with mock_aws():
        client = boto3.client("ec2", region_name="us-east-1")

        def launch(count: int, tags: dict[str, str]) -> list[str]:
            spec = [{"ResourceType": "instance", "Tags": [{"Key": k, "Value": v} for k, v in tags.items()]}] \
                if tags else []
            found = client.run_instances(ImageId="ami-12c6146b", MinCount=count, MaxCount=count,
                                         InstanceType="p5.48xlarge", TagSpecifications=spec)
            return [i["InstanceId"] for i in found["Instances"]]

        client.launch = launch
        yield client


def test_the_reservations_instances_are_found_by_its_tag(ec2):
    ours = ec2.launch(2, {names.RESERVATION_TAG: RESERVATION, "eks-training/node-group": "NodeGroup-p5-nodes"})
    ec2.launch(1, {names.RESERVATION_TAG: "cr-0ffffffffffffffff"})
    ec2.launch(1, {})
    stopped = ec2.launch(1, {names.RESERVATION_TAG: RESERVATION})
    ec2.terminate_instances(InstanceIds=stopped)
    found = handler.reservation_instances(ec2, RESERVATION)
    assert sorted(found) == sorted(ours)
    assert all(name.endswith(".ec2.internal") for name in found.values())


# --- the handler: Kubernetes side ----------------------------------------------------------------------------------


class _RecordedApi:
    """An HTTP server answering the drain's calls with the recorded responses, and recording each call."""

    def __init__(self, substitutions: dict[str, str], refuse: set[str] = frozenset()):
        self.calls: list[tuple[str, str, str | None, object]] = []
        self.authorizations: set[str] = set()
        self.subs, self.refuse = substitutions, refuse
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                server.authorizations.add(self.headers.get("Authorization"))
                server.calls.append((self.command, self.path, self.headers.get("Content-Type"), body))
                status, payload = server.respond(self.command, self.path)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_PATCH = do_POST = do_DELETE = _answer

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.endpoint = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def _fill(self, value, **more):
        text = json.dumps(value)
        for key, sub in {**self.subs, **more}.items():
            text = text.replace("{" + key + "}", sub)
        return json.loads(text)

    def respond(self, method: str, path: str):
        url = urllib.parse.urlsplit(path)
        parts = url.path.strip("/").split("/")
        if method == "GET" and url.path == "/api/v1/nodes":
            return 200, self._fill(EXCHANGES["nodes"])
        if method == "PATCH" and parts[:3] == ["api", "v1", "nodes"]:
            return 200, self._fill(EXCHANGES["cordoned_node"], node=parts[3])
        if method == "GET" and url.path == "/api/v1/pods":
            node = urllib.parse.parse_qs(url.query)["fieldSelector"][0].removeprefix("spec.nodeName=")
            return 200, EXCHANGES["pods"].get(node, {"kind": "PodList", "apiVersion": "v1", "items": []})
        if method == "POST" and parts[-1] == "eviction":
            if parts[5] in self.refuse:
                return 429, EXCHANGES["eviction_refused"]
            return 201, EXCHANGES["eviction_created"]
        if method == "DELETE":
            return 200, self._fill(EXCHANGES["deleted_pod"], pod=parts[5], namespace=parts[3])
        return 404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404}

    def close(self):
        self.httpd.shutdown()


def _warning(reservation: str) -> dict:
    """A Capacity Block's end warning as the EC2 guide shows it ("Monitor Capacity Blocks using EventBridge")."""
    return {"version": "0", "id": "6a7e8feb-b491-4cf7-a9f1-bf3703467718",
            "detail-type": "Capacity Block Expiration Warning", "source": "aws.ec2", "account": "123456789012",
            "time": "2026-12-06T17:40:00Z", "region": "us-east-1",
            "resources": [f"arn:aws:ec2:us-east-1:123456789012:capacity-reservation/{reservation}"],
            "detail": {"capacity-reservation-id": reservation, "end-date": "2026-12-06T18:20:00Z"}}


def test_a_capacity_block_ending_cordons_and_evicts_its_nodes_pods(ec2):
    (instance_a,) = ec2.launch(1, {names.RESERVATION_TAG: RESERVATION})
    (other,) = ec2.launch(1, {})
    api = _RecordedApi({"instance_a": instance_a, "other_instance": other, "reservation": RESERVATION},
                       refuse={"rayjob-worker-2"})
    try:
        result = handler.handle(_warning(RESERVATION), ec2=ec2, reservation_ids={RESERVATION},
                                api=handler.KubeApi(api.endpoint, lambda: "k8s-aws-v1.token"))
    finally:
        api.close()
    merge = "application/merge-patch+json"
    eviction = lambda ns, pod: {"apiVersion": "policy/v1", "kind": "Eviction",  # noqa: E731
                                "metadata": {"name": pod, "namespace": ns}}
    assert api.calls == [
        ("GET", "/api/v1/nodes", None, None),
        # The node group's node (its instance carries the tag), cordoned first, then its one training pod evicted.
        ("PATCH", "/api/v1/nodes/ip-10-0-32-17.ec2.internal", merge, {"spec": {"unschedulable": True}}),
        ("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dip-10-0-32-17.ec2.internal", None, None),
        ("POST", "/api/v1/namespaces/training/pods/llama-node-0-0-x7k2p/eviction", "application/json",
         eviction("training", "llama-node-0-0-x7k2p")),
        # Karpenter's node (labelled with the reservation): its pod's budget refuses, so it is deleted.
        ("PATCH", "/api/v1/nodes/ip-10-0-33-90.ec2.internal", merge, {"spec": {"unschedulable": True}}),
        ("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dip-10-0-33-90.ec2.internal", None, None),
        ("POST", "/api/v1/namespaces/ai-research/pods/rayjob-worker-2/eviction", "application/json",
         eviction("ai-research", "rayjob-worker-2")),
        ("DELETE", "/api/v1/namespaces/ai-research/pods/rayjob-worker-2", None, None),
    ]
    assert api.authorizations == {"Bearer k8s-aws-v1.token"}
    assert result == {"reservation": RESERVATION, "nodes": {
        "ip-10-0-32-17.ec2.internal": {"evicted": ["training/llama-node-0-0-x7k2p"], "deleted": []},
        "ip-10-0-33-90.ec2.internal": {"evicted": [], "deleted": ["ai-research/rayjob-worker-2"]}}}


def test_other_reservations_and_other_events_touch_nothing(ec2):
    api = _RecordedApi({"instance_a": "i-0", "other_instance": "i-1", "reservation": RESERVATION})
    try:
        kube = handler.KubeApi(api.endpoint, lambda: "t")
        assert handler.handle(_warning("cr-0ffffffffffffffff"), ec2=ec2, api=kube, reservation_ids={RESERVATION})[
            "ignored"] == "not a reservation of this cluster"
        state_change = {**_warning(RESERVATION), "detail-type": "EC2 Capacity Reservation Expired"}
        assert handler.handle(state_change, ec2=ec2, api=kube, reservation_ids={RESERVATION})["nodes"] == {}
        # An interruptible reservation's reclaim names the instance: only its node is drained.
        interruption = {"detail-type": handler.INTERRUPTION_WARNING, "source": "aws.ec2",
                        "detail": {"instance-id": "i-1", "instance-action": "terminate"}}
        assert list(handler.handle(interruption, ec2=ec2, api=kube, reservation_ids={RESERVATION})["nodes"]) == [
            "ip-10-0-40-5.ec2.internal"]
    finally:
        api.close()
    assert [c[:2] for c in api.calls if c[0] != "GET"] == [("PATCH", "/api/v1/nodes/ip-10-0-40-5.ec2.internal")]


def test_an_unexpected_answer_stops_the_drain_with_its_status(ec2):
    api = _RecordedApi({})
    try:
        with pytest.raises(handler.KubeError, match=r"PATCH /api/v1/nodes/gone: 404"):
            api.respond = lambda method, path: (404, {"kind": "Status", "message": 'nodes "gone" not found'}) \
                if method == "PATCH" else (200, {"items": []})
            handler.drain_node(handler.KubeApi(api.endpoint, lambda: "t"), "gone")
    finally:
        api.close()


def test_the_token_is_a_presigned_get_caller_identity_naming_the_cluster(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    token = handler.eks_token("prod-training", "us-east-1")
    assert token.startswith("k8s-aws-v1.") and not token.endswith("=")
    encoded = token.removeprefix("k8s-aws-v1.")
    url = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode()
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
    assert url.startswith("https://sts.us-east-1.amazonaws.com/?")
    assert query["Action"] == ["GetCallerIdentity"] and query["X-Amz-Expires"] == ["60"]
    assert query["X-Amz-SignedHeaders"] == ["host;x-k8s-aws-id"]
    assert copy.deepcopy(query["X-Amz-Credential"][0]).startswith("AKIAIOSFODNN7EXAMPLE/")
