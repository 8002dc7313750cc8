"""Lambda handler of ReservationDrain: cordon and drain the nodes of a capacity reservation that is about to end.

EC2 sends, through EventBridge (source ``aws.ec2``):
* ``Capacity Block Expiration Warning`` (the EC2 guide's current name; ``Capacity Block Reservation Expiration
  Warning`` in other editions of the same page), 40 minutes before a Capacity Block ends: its instances begin to
  terminate 10 minutes later. ``detail``: ``capacity-reservation-id``, ``end-date``.
* ``EC2 Capacity Reservation Instance Interruption Warning``, 2 minutes before an interruptible reservation's
  instance is reclaimed. ``detail``: ``instance-id``.
(An ordinary capacity reservation that expires leaves its instances running as On-Demand: nothing to drain.)

For each affected node (the instances tagged with the reservation's id by our node groups, and the nodes Karpenter
labels with it), the handler marks it unschedulable (PATCH ``spec.unschedulable``), then evicts every pod on it
but DaemonSet and mirror pods through the Eviction subresource, which gives each pod its own grace period: the
trainer saves a checkpoint on SIGTERM and its job controller puts the pod back elsewhere, or Kueue requeues the job.
An eviction a PodDisruptionBudget refuses (429) becomes a delete with the pod's grace period: the node is going away
whatever the budget says.

It runs in the cluster's VPC with its own IAM role, which an EKS access entry maps to the Kubernetes group the
platform's ClusterRole for it is bound to (nodes get/list/patch, pods list/delete, pods/eviction create). Standard
library and boto3 only: the Lambda runtime's.
"""

from __future__ import annotations

import base64
import json
import os
import ssl
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable

#: EventBridge detail-types of the events this handler acts on (see the module docstring for their sources).
CAPACITY_BLOCK_WARNINGS = ("Capacity Block Expiration Warning", "Capacity Block Reservation Expiration Warning")
INTERRUPTION_WARNING = "EC2 Capacity Reservation Instance Interruption Warning"
RESERVATION_TAG = "eks-training/capacity-reservation-id"
KARPENTER_RESERVATION_LABEL = "karpenter.k8s.aws/capacity-reservation-id"
TOKEN_PREFIX = "k8s-aws-v1."


class KubeError(RuntimeError):
    """A Kubernetes API call answered with an unexpected status."""


@dataclass
class KubeApi:
    """The few Kubernetes API calls a drain makes, over HTTPS with a bearer token (``token`` is called per request,
    so a long drain never sends an expired one)."""

    endpoint: str
    token: Callable[[], str]
    ca_file: str | None = None

    def call(self, method: str, path: str, body: Any = None, *, content_type: str = "application/json",
             allowed: tuple[int, ...] = (200, 201)) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.endpoint.rstrip("/") + path, data=data, method=method, headers={
            "Authorization": f"Bearer {self.token()}", "Accept": "application/json",
            **({"Content-Type": content_type} if data is not None else {})})
        context = ssl.create_default_context(cafile=self.ca_file) if self.endpoint.startswith("https:") else None
        try:
            with urllib.request.urlopen(request, context=context, timeout=20) as response:
                status, payload = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, payload = error.code, error.read()
        decoded = json.loads(payload) if payload else None
        if status not in allowed:
            message = decoded.get("message") if isinstance(decoded, dict) else payload[:200]
            raise KubeError(f"{method} {path}: {status} {message}")
        return status, decoded


def _pod_is_drainable(pod: dict) -> bool:
    meta = pod["metadata"]
    if any(owner.get("kind") == "DaemonSet" for owner in meta.get("ownerReferences", [])):
        return False  # it belongs to the node, and the DaemonSet would put it back
    if "kubernetes.io/config.mirror" in meta.get("annotations", {}):
        return False  # a static pod: the kubelet's, not the API's
    if meta.get("deletionTimestamp"):
        return False  # already leaving
    return pod.get("status", {}).get("phase") not in ("Succeeded", "Failed")


def drain_node(api: KubeApi, node: str) -> dict[str, list[str]]:
    """Cordon ``node``, then evict (or, past a disruption budget, delete) each of its pods with the pod's own grace
    period. Returns the pods by outcome ("evicted", "deleted")."""
    api.call("PATCH", f"/api/v1/nodes/{node}", {"spec": {"unschedulable": True}},
             content_type="application/merge-patch+json")
    selector = urllib.parse.quote(f"spec.nodeName={node}")
    _, pods = api.call("GET", f"/api/v1/pods?fieldSelector={selector}")
    done: dict[str, list[str]] = {"evicted": [], "deleted": []}
    for pod in pods["items"]:
        if not _pod_is_drainable(pod):
            continue
        namespace, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
        eviction = {"apiVersion": "policy/v1", "kind": "Eviction",
                    "metadata": {"name": name, "namespace": namespace}}
        status, _ = api.call("POST", f"/api/v1/namespaces/{namespace}/pods/{name}/eviction", eviction,
                             allowed=(200, 201, 404, 429))
        if status == 429:
            # A disruption budget holds it; the node ends regardless, so it goes with its grace period.
            api.call("DELETE", f"/api/v1/namespaces/{namespace}/pods/{name}", allowed=(200, 202, 404))
            done["deleted"].append(f"{namespace}/{name}")
        elif status != 404:
            done["evicted"].append(f"{namespace}/{name}")
    return done


def reservation_instances(ec2: Any, reservation_id: str) -> dict[str, str]:
    """Instance id -> private DNS name of the live instances tagged with ``reservation_id`` (only those that are
    nodes of this cluster are then drained)."""
    found = {}
    pages = ec2.get_paginator("describe_instances").paginate(Filters=[
        {"Name": f"tag:{RESERVATION_TAG}", "Values": [reservation_id]},
        {"Name": "instance-state-name", "Values": ["pending", "running"]}])
    for page in pages:
        for reservation in page["Reservations"]:
            for instance in reservation["Instances"]:
                found[instance["InstanceId"]] = instance.get("PrivateDnsName", "")
    return found


def affected_nodes(api: KubeApi, *, instance_ids: set[str], reservation_id: str | None) -> list[str]:
    """The cluster's nodes on those instances (their ``spec.providerID`` ends with the instance id) or labelled by
    Karpenter with the reservation's id."""
    _, nodes = api.call("GET", "/api/v1/nodes")
    names = []
    for node in nodes["items"]:
        instance = node.get("spec", {}).get("providerID", "").rsplit("/", 1)[-1]
        label = node["metadata"].get("labels", {}).get(KARPENTER_RESERVATION_LABEL)
        if instance in instance_ids or (reservation_id is not None and label == reservation_id):
            names.append(node["metadata"]["name"])
    return names


def handle(event: dict, *, ec2: Any, api: KubeApi, reservation_ids: set[str]) -> dict:
    """Drain what ``event`` says is ending; ignore events of other reservations or instances outside the cluster."""
    detail_type, detail = event.get("detail-type"), event.get("detail") or {}
    if detail_type in CAPACITY_BLOCK_WARNINGS:
        reservation_id = detail.get("capacity-reservation-id")
        if reservation_id not in reservation_ids:
            return {"reservation": reservation_id, "ignored": "not a reservation of this cluster", "nodes": {}}
        instances = set(reservation_instances(ec2, reservation_id))
    elif detail_type == INTERRUPTION_WARNING:
        reservation_id, instances = None, {detail.get("instance-id")}
    else:
        return {"ignored": f"detail-type {detail_type!r}", "nodes": {}}
    nodes = affected_nodes(api, instance_ids=instances, reservation_id=reservation_id)
    return {"reservation": reservation_id, "nodes": {node: drain_node(api, node) for node in nodes}}


def eks_token(cluster_name: str, region: str) -> str:
    """A bearer token EKS accepts for this Lambda's role: a presigned STS GetCallerIdentity URL that names the
    cluster in its signed ``x-k8s-aws-id`` header (what ``aws eks get-token`` prints)."""
    import boto3
    from botocore.signers import RequestSigner

    session = boto3.session.Session()
    sts = session.client("sts", region_name=region)
    signer = RequestSigner(sts.meta.service_model.service_id, region, "sts", "v4", session.get_credentials(),
                           session.events)
    url = signer.generate_presigned_url({
        "method": "GET", "url": f"https://sts.{region}.amazonaws.com/?Action=GetCallerIdentity&Version=2011-06-15",
        "body": {}, "headers": {"x-k8s-aws-id": cluster_name}, "context": {}},
        region_name=region, expires_in=60, operation_name="")
    return TOKEN_PREFIX + base64.urlsafe_b64encode(url.encode()).decode().rstrip("=")


def main(event: dict, context: Any = None) -> dict:
    """The Lambda entry point: the cluster's name, endpoint and CA and the reservations come from the environment."""
    import boto3

    cluster_name, region = os.environ["CLUSTER_NAME"], os.environ["AWS_REGION"]
    with tempfile.NamedTemporaryFile("wb", suffix=".pem", delete=False) as ca:
        ca.write(base64.b64decode(os.environ["CLUSTER_CA"]))
    api = KubeApi(os.environ["CLUSTER_ENDPOINT"], lambda: eks_token(cluster_name, region), ca.name)
    result = handle(event, ec2=boto3.client("ec2", region_name=region), api=api,
                    reservation_ids=set(json.loads(os.environ["RESERVATION_IDS"])))
    print(json.dumps(result))
    return result
