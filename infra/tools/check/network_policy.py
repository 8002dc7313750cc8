"""Would a flow pass the cluster's NetworkPolicies? Kubernetes' semantics, evaluated offline.

The rules (networking.k8s.io/v1):

* A pod is isolated for ingress (egress) only if some NetworkPolicy in its namespace selects it
  (``spec.podSelector``) and has that type in ``policyTypes``. ``policyTypes`` left out means Ingress, plus
  Egress when the policy has an ``egress`` section. A pod no policy isolates accepts (sends) everything.
* An isolated pod accepts (sends) a flow if ANY rule of ANY policy that selects it for that direction allows it.
* A rule allows a flow when a peer matches (``from``/``to`` missing or empty: every peer) and a port matches
  (``ports`` missing or empty: every port). A port entry matches the protocol (default TCP) and the port, or the
  range ``port``-``endPort``; an entry without ``port`` matches every port of its protocol.
* A peer is ``ipBlock`` (the address in ``cidr`` and in no ``except``), or ``podSelector`` alone (pods of the
  policy's own namespace), ``namespaceSelector`` alone (every pod of the selected namespaces), or both in one
  peer (pods with those labels in those namespaces: AND). Selectors use ``matchLabels`` and ``matchExpressions``
  (In, NotIn, Exists, DoesNotExist); an empty selector selects everything.
* A flow between two pods needs egress allowed at the source and ingress allowed at the destination.

A named port (``port: notebook-port``) matches a flow only when the flow names the destination's port so
(``Flow.port_name``): the pod's container ports are not part of the model. What this model leaves out: ipBlock
matching pod addresses (it is implementation-defined whether ipBlock applies to pod IPs; a pod endpoint here has
no address, so ipBlocks never match it). With the VPC CNI pods do have VPC addresses, and an enforcer may let an
ipBlock such as 0.0.0.0/0:443 match them: the egress side of a pod-to-pod flow can be more open than modelled,
but every workload namespace isolates its own ingress, so the verdicts on flows into them hold either way. Namespace labels are the Namespace objects' labels plus ``kubernetes.io/metadata.name``, which the API
server sets on every namespace (namespaces absent from the objects have only that one).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from eks_training.core.names import POD_SECURITY_LABEL
from eks_training.core.validation import invalid
from eks_training.core.versions import JUPYTERHUB
from eks_training.workloads.network_policies import (
    EFS_PORT,
    HTTPS_PORT,
    JUPYTERHUB_HUB,
    JUPYTERHUB_HUB_PORT,
    JUPYTERHUB_NOTEBOOK,
    JUPYTERHUB_NOTEBOOK_PORT,
    JUPYTERHUB_PROXY,
    JUPYTERHUB_PROXY_API_PORT,
    JUPYTERHUB_PROXY_HTTP_PORT,
    KUBE_DNS,
    KUBERAY_OPERATOR_POD_LABELS,
    LUSTRE_LNET_PORTS,
    LUSTRE_PORT,
    NAMESPACE_NAME_LABEL,
    POD_IDENTITY_AGENT,
    RAY_DASHBOARD_PORT,
    SLURMRESTD_PORT,
    SSH_PORT,
    WorkloadEgress,
    WorkloadNamespaces,
    kubernetes_service_ip,
)

_PROTOCOLS = ("TCP", "UDP", "SCTP")
#: The default service CIDR of EKS (172.20.0.0/16 when the VPC is in 10.0.0.0/8): the `kubernetes` Service's VIP.
KUBERNETES_SERVICE_IP = "172.20.0.1"
#: An address in S3's public ranges (us-west-2), where the S3 gateway endpoint's traffic goes.
S3_ADDRESS = "52.218.128.10"
IMDS_ADDRESS = "169.254.169.254"
#: An address on the internet (TEST-NET-3), for plain HTTP out.
INTERNET_ADDRESS = "203.0.113.10"


@dataclass(frozen=True)
class Pod:
    """A pod, as policies see it: its namespace and labels."""

    namespace: str
    labels: Mapping[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        labels = ",".join(f"{k}={v}" for k, v in sorted(self.labels.items()))
        return f"pod {self.namespace}/{{{labels}}}"


@dataclass(frozen=True)
class Address:
    """An address outside the pod network (the API endpoint, a file system, the internet)."""

    ip: str

    def __post_init__(self) -> None:
        try:
            ipaddress.ip_address(self.ip)
        except ValueError:
            raise invalid("address ip", self.ip, "use an IP address, e.g. '10.0.0.10'") from None

    def __str__(self) -> str:
        return self.ip


@dataclass(frozen=True)
class Flow:
    """Traffic from ``source`` to ``destination`` on ``protocol``/``port``, and whether the platform needs it
    to pass (``expected=True``) or to be blocked (``expected=False``)."""

    name: str
    source: Pod | Address
    destination: Pod | Address
    port: int
    protocol: str = "TCP"
    expected: bool = True
    #: The destination container port's name, for policies that name ports (z2jh's "notebook-port").
    port_name: str | None = None

    def __post_init__(self) -> None:
        if self.protocol not in _PROTOCOLS:
            raise invalid(f"flow {self.name!r} protocol", self.protocol, f"use one of {', '.join(_PROTOCOLS)}")
        if isinstance(self.port, bool) or not isinstance(self.port, int) or not 1 <= self.port <= 65535:
            raise invalid(f"flow {self.name!r} port", self.port, "use an integer from 1 to 65535")
        if isinstance(self.source, Address) and isinstance(self.destination, Address):
            raise ValueError(f"flow {self.name!r} has no pod at either end: NetworkPolicy governs only pods' traffic")

    def __str__(self) -> str:
        return f"{self.source} -> {self.destination} {self.protocol}/{self.port}"


# --- selectors ------------------------------------------------------------------------------------------------


def selector_matches(selector: Mapping[str, Any] | None, labels: Mapping[str, str], *, where: str = "selector") -> bool:
    """Whether a LabelSelector selects ``labels`` (every matchLabels pair and every matchExpression hold)."""
    selector = selector or {}
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions") or []:
        key, operator, values = expression.get("key"), expression.get("operator"), expression.get("values") or []
        if operator == "In":
            ok = key in labels and labels[key] in values
        elif operator == "NotIn":
            ok = key not in labels or labels[key] not in values
        elif operator == "Exists":
            ok = key in labels
        elif operator == "DoesNotExist":
            ok = key not in labels
        else:
            raise invalid(f"{where} matchExpressions operator", operator, "use In, NotIn, Exists or DoesNotExist")
        if not ok:
            return False
    return True


# --- the policy set ---------------------------------------------------------------------------------------------


class PolicySet:
    """The NetworkPolicies and the namespaces' labels of a list of Kubernetes objects."""

    def __init__(self, objects: Iterable[Mapping[str, Any]]) -> None:
        self.policies: list[Mapping[str, Any]] = []
        self.namespace_labels: dict[str, dict[str, str]] = {}
        for obj in objects:
            kind, metadata = obj.get("kind"), obj.get("metadata") or {}
            if kind == "NetworkPolicy":
                if not metadata.get("namespace"):
                    raise ValueError(f"NetworkPolicy {metadata.get('name')!r} metadata.namespace is missing: a policy "
                                     "applies only to pods of its namespace, name it")
                self.policies.append(obj)
            elif kind == "Namespace":
                self.namespace_labels.setdefault(metadata["name"], {}).update(metadata.get("labels") or {})

    def labels_of_namespace(self, namespace: str) -> dict[str, str]:
        return {**self.namespace_labels.get(namespace, {}), NAMESPACE_NAME_LABEL: namespace}

    def selecting(self, pod: Pod, direction: str) -> list[Mapping[str, Any]]:
        """Policies that isolate ``pod`` for ``direction`` ("Ingress" or "Egress")."""
        return [p for p in self.policies if p["metadata"]["namespace"] == pod.namespace
                and direction in _policy_types(p)
                and selector_matches(p["spec"].get("podSelector"), pod.labels, where=_name(p) + " spec.podSelector")]

    def allows(self, pod: Pod, direction: str, peer: Pod | Address, protocol: str, port: int,
               port_name: str | None = None) -> bool:
        """Whether ``pod`` accepts (Ingress) from / sends (Egress) to ``peer`` on ``protocol``/``port``
        (``port_name``: the destination's name for that port, if it has one)."""
        selecting = self.selecting(pod, direction)
        if not selecting:
            return True  # not isolated for this direction
        rules_key, peers_key = ("ingress", "from") if direction == "Ingress" else ("egress", "to")
        for policy in selecting:
            for index, rule in enumerate(policy["spec"].get(rules_key) or []):
                where = f"{_name(policy)} spec.{rules_key}[{index}]"
                if _port_matches(rule.get("ports"), protocol, port, port_name, where) and \
                        _peer_matches(rule.get(peers_key), peer, policy["metadata"]["namespace"], self, where):
                    return True
        return False

    def flow_allowed(self, flow: Flow) -> bool:
        """Egress at the source (when a pod) and ingress at the destination (when a pod)."""
        egress = not isinstance(flow.source, Pod) or self.allows(
            flow.source, "Egress", flow.destination, flow.protocol, flow.port, flow.port_name)
        ingress = not isinstance(flow.destination, Pod) or self.allows(
            flow.destination, "Ingress", flow.source, flow.protocol, flow.port, flow.port_name)
        return egress and ingress


def _name(policy: Mapping[str, Any]) -> str:
    return f"NetworkPolicy {policy['metadata']['namespace']}/{policy['metadata'].get('name')}"


def _policy_types(policy: Mapping[str, Any]) -> list[str]:
    spec = policy.get("spec") or {}
    if spec.get("policyTypes"):
        return list(spec["policyTypes"])
    # The API server's default: Ingress always, Egress only when the policy has egress rules.
    return ["Ingress", "Egress"] if "egress" in spec else ["Ingress"]


def _port_matches(ports: Sequence[Mapping[str, Any]] | None, protocol: str, port: int, port_name: str | None,
                  where: str) -> bool:
    if not ports:
        return True
    for entry in ports:
        if entry.get("protocol", "TCP") != protocol:
            continue
        first = entry.get("port")
        if first is None:
            return True  # every port of the protocol
        if isinstance(first, str) and not first.isdigit():
            # A named port is the destination container's port of that name: only the flow can say which it is.
            if first == port_name:
                return True
            continue
        if not isinstance(first, int):
            raise invalid(f"{where} ports port", first, "use a port number or a port name")
        if first <= port <= entry.get("endPort", first):
            return True
    return False


def _peer_matches(peers: Sequence[Mapping[str, Any]] | None, other: Pod | Address, policy_namespace: str,
                  policy_set: PolicySet, where: str) -> bool:
    if not peers:
        return True
    for peer in peers:
        if "ipBlock" in peer:
            if isinstance(other, Address) and _in_block(other.ip, peer["ipBlock"]):
                return True
            continue
        if isinstance(other, Address):
            continue  # selectors select pods only
        if "namespaceSelector" in peer:
            namespace_ok = selector_matches(peer["namespaceSelector"], policy_set.labels_of_namespace(other.namespace),
                                            where=f"{where} namespaceSelector")
        elif "podSelector" in peer:
            namespace_ok = other.namespace == policy_namespace  # podSelector alone: the policy's namespace
        else:
            raise invalid(f"{where} peer", dict(peer), "name an ipBlock, a podSelector or a namespaceSelector")
        if namespace_ok and ("podSelector" not in peer or selector_matches(
                peer["podSelector"], other.labels, where=f"{where} podSelector")):
            return True
    return False


def _in_block(ip: str, block: Mapping[str, Any]) -> bool:
    address = ipaddress.ip_address(ip)
    if address not in ipaddress.ip_network(block["cidr"], strict=False):
        return False
    return not any(address in ipaddress.ip_network(cidr, strict=False) for cidr in block.get("except") or [])


# --- what the platform needs -----------------------------------------------------------------------------------


def required_flows(namespaces: WorkloadNamespaces, *, vpc_cidr: str,
                   egress: WorkloadEgress = WorkloadEgress()) -> list[Flow]:
    """The flows the platform's workloads need (expected True) and those that must stay closed (expected False),
    with workload pods' egress as ``egress`` says (default: restricted to the VPC's endpoints and the API)."""
    vpc = ipaddress.ip_network(vpc_cidr)
    # An interface endpoint / EKS API ENI, an FSx ENI: any address in the VPC.
    in_vpc = Address(str(vpc.network_address + 10))
    dns = Pod(KUBE_DNS["namespace"], KUBE_DNS["pod_labels"])
    outsider = Pod("default", {"app": "anything"})
    # A pod of kube-system other than CoreDNS (Karpenter's webhook and metrics, a CSI controller).
    system_pod = Pod("kube-system", {"app.kubernetes.io/name": "karpenter"})
    flows: list[Flow] = []

    def common(who: str, pod: Pod) -> None:
        flows.extend([
            Flow(f"{who} resolves names (UDP)", pod, dns, 53, "UDP"),
            Flow(f"{who} resolves names (TCP)", pod, dns, 53, "TCP"),
            Flow(f"{who} reaches the Kubernetes API (private endpoint in the VPC)", pod, in_vpc, HTTPS_PORT),
            Flow(f"{who} reaches the Kubernetes API (kubernetes Service VIP)", pod,
                 Address(kubernetes_service_ip(vpc_cidr)), HTTPS_PORT),
            # Restricted, S3 is its interface endpoint in the VPC (private DNS for every resolver of the VPC).
            Flow(f"{who} reaches S3 (checkpoints, data), ECR, STS and CloudWatch Logs", pod,
                 in_vpc if egress.restricted else Address(S3_ADDRESS), HTTPS_PORT),
            Flow(f"{who} gets credentials from the Pod Identity agent", pod,
                 Address(POD_IDENTITY_AGENT.split("/")[0]), 80),
            Flow(f"{who} reaches FSx for Lustre", pod, in_vpc, LUSTRE_PORT),
            Flow(f"{who} reaches FSx for Lustre LNet", pod, in_vpc, LUSTRE_LNET_PORTS[1]),
            Flow(f"{who} reaches EFS", pod, in_vpc, EFS_PORT),
            Flow(f"{who} must not reach instance metadata (the node's role)", pod, Address(IMDS_ADDRESS), 80, expected=False),
            Flow(f"{who} must not send plain HTTP to the internet", pod, Address(INTERNET_ADDRESS), 80, expected=False),
            Flow(f"{who} must not reach kube-system's pods (but DNS)", pod, system_pod, 8443, expected=False),
            Flow(f"{who} must not reach CoreDNS but on 53", pod, dns, 9153, expected=False),
        ])
        if egress.restricted:
            flows.append(Flow(f"{who} must not reach the internet over HTTPS (only the VPC's endpoints)", pod,
                              Address(INTERNET_ADDRESS), HTTPS_PORT, expected=False))
        for allowance in egress.allowances:
            network = ipaddress.ip_network(allowance.cidr)
            for port in allowance.ports:
                flows.append(Flow(f"{who} reaches {allowance.name} (network.egress_allowed)", pod,
                                  Address(str(network.network_address)), port.port, port.protocol))

    for name in namespaces.training:
        worker = Pod(name, {"training.kubeflow.org/job-role": "worker"})
        peer = Pod(name, {"training.kubeflow.org/job-role": "worker", "rank": "1"})
        head = Pod(name, {"ray.io/node-type": "head"})
        ray_worker = Pod(name, {"ray.io/node-type": "worker"})
        launcher = Pod(name, {"training.kubeflow.org/job-role": "launcher"})
        common(f"training pod in {name}", worker)
        flows.extend([
            Flow(f"torchrun c10d rendezvous in {name}", peer, worker, 29500),
            Flow(f"NCCL bootstrap / TCP fallback on an ephemeral port in {name}", peer, worker, 43817),
            Flow(f"MPI launcher ssh to a worker in {name}", launcher, worker, 22),
            Flow(f"Ray worker to GCS in {name}", ray_worker, head, 6379),
            Flow(f"Ray worker to the head's object manager (ephemeral port) in {name}", ray_worker, head, 40123),
            Flow(f"Ray client in {name}", worker, head, 10001),
            Flow(f"Ray job submitter to the dashboard in {name}", worker, head, RAY_DASHBOARD_PORT),
            Flow(f"a pod of another namespace must not reach the Ray dashboard in {name}", outsider, head,
                 RAY_DASHBOARD_PORT, expected=False),
            Flow(f"a pod of another namespace must not reach training pods in {name}", outsider, worker, 29500,
                 expected=False),
        ])
        if namespaces.kuberay_operator:
            operator = Pod(namespaces.kuberay_operator, KUBERAY_OPERATOR_POD_LABELS)
            flows.extend([
                Flow(f"KubeRay operator submits and follows RayJobs in {name}", operator, head, RAY_DASHBOARD_PORT),
                Flow(f"KubeRay operator needs nothing but the dashboard in {name}", operator, head, 6379, expected=False),
                Flow(f"another pod of the operator's namespace must not reach the Ray dashboard in {name}",
                     Pod(namespaces.kuberay_operator, {"app": "other"}), head, RAY_DASHBOARD_PORT, expected=False),
            ])
        for other in namespaces.training:
            if other != name:
                flows.append(Flow(f"training namespaces are isolated from each other ({other} -> {name})",
                                  Pod(other, {"training.kubeflow.org/job-role": "worker"}), worker, 29500, expected=False))

    if namespaces.slurm:
        ns = namespaces.slurm
        ctld, slurmd = Pod(ns, {"app.kubernetes.io/name": "slurmctld"}), Pod(ns, {"app.kubernetes.io/name": "slurmd"})
        login, restd = Pod(ns, {"app.kubernetes.io/name": "login"}), Pod(ns, {"app.kubernetes.io/name": "slurmrestd"})
        dbd = Pod(ns, {"app.kubernetes.io/name": "slurmdbd"})
        common("Slurm pod", slurmd)
        flows.extend([
            Flow("slurmd registers with slurmctld", slurmd, ctld, 6817),
            Flow("slurmctld launches on slurmd", ctld, slurmd, 6818),
            Flow("slurmctld records accounting in slurmdbd", ctld, dbd, 6819),
            Flow("login submits to slurmctld", login, ctld, 6817),
            Flow("slurmrestd talks to slurmctld", restd, ctld, 6817),
            Flow("srun steps talk among slurmd (ephemeral)", slurmd, Pod(ns, {"app.kubernetes.io/name": "slurmd", "n": "2"}), 41234),
            Flow("a pod of another namespace must not ssh to the login pods", outsider, login, 22, expected=False),
            Flow("a pod of another namespace must not reach slurmctld", outsider, ctld, 6817, expected=False),
        ])
        if namespaces.login_clients:
            client = _client_address(namespaces.login_clients[0])
            flows.extend([
                Flow("a Slurm user logs in over SSH through the login load balancer", client, login, SSH_PORT),
                Flow("the login load balancer's clients reach nothing but SSH on the login pods", client, ctld, 6817,
                     expected=False),
                Flow("the login load balancer's clients must not reach slurmd", client, slurmd, SSH_PORT,
                     expected=False),
                Flow("an address outside the login load balancer's clients must not reach the login pods",
                     Address(INTERNET_ADDRESS), login, SSH_PORT, expected=False),
            ])
        if namespaces.slinky_operator:
            operator = Pod(namespaces.slinky_operator, {"app.kubernetes.io/name": "slurm-operator"})
            flows.extend([
                Flow("Slinky operator reaches slurmrestd", operator, restd, SLURMRESTD_PORT),
                Flow("Slinky webhook reaches slurmrestd", Pod(namespaces.slinky_operator,
                     {"app.kubernetes.io/name": "slurm-operator-webhook"}), restd, SLURMRESTD_PORT),
                Flow("Slinky operator needs nothing but slurmrestd", operator, ctld, 6817, expected=False),
            ])

    if namespaces.jupyterhub:
        ns = namespaces.jupyterhub
        # The labels z2jh gives its pods (its own NetworkPolicies select on app/release/component; ours on component).
        z2jh = {"app": "jupyterhub", "release": JUPYTERHUB.release}
        hub = Pod(ns, {**z2jh, **JUPYTERHUB_HUB, "hub.jupyter.org/network-access-proxy-api": "true",
                       "hub.jupyter.org/network-access-singleuser": "true"})
        proxy = Pod(ns, {**z2jh, **JUPYTERHUB_PROXY, "hub.jupyter.org/network-access-hub": "true",
                         "hub.jupyter.org/network-access-singleuser": "true"})
        notebook = Pod(ns, {**z2jh, **JUPYTERHUB_NOTEBOOK, "hub.jupyter.org/network-access-hub": "true",
                            "hub.jupyter.org/network-access-proxy-http": "true", "hub.jupyter.org/username": "alice"})
        other_notebook = Pod(ns, {**notebook.labels, "hub.jupyter.org/username": "someone-else"})
        common("notebook", notebook)
        flows.extend([
            Flow("hub resolves names", hub, dns, 53, "UDP"),
            Flow("hub spawns notebooks through the Kubernetes API", hub, Address(kubernetes_service_ip(vpc_cidr)),
                 HTTPS_PORT),
            Flow("hub reaches the sign-in provider's token endpoint", hub, Address(INTERNET_ADDRESS), HTTPS_PORT),
            # The hub and the proxy hold the hub's API token and every session: no node role, no plain HTTP out.
            Flow("the hub must not reach instance metadata (the node's role)", hub, Address(IMDS_ADDRESS), 80,
                 expected=False),
            Flow("the proxy must not reach instance metadata (the node's role)", proxy, Address(IMDS_ADDRESS), 80,
                 expected=False),
            Flow("the hub must not send plain HTTP to the internet", hub, Address(INTERNET_ADDRESS), 80, expected=False),
        ])
        flows.extend([
            Flow("proxy forwards to the hub", proxy, hub, JUPYTERHUB_HUB_PORT),
            Flow("notebook reports to the hub", notebook, hub, JUPYTERHUB_HUB_PORT),
            Flow("hub configures the proxy", hub, proxy, JUPYTERHUB_PROXY_API_PORT),
            Flow("proxy forwards to a notebook", proxy, notebook, JUPYTERHUB_NOTEBOOK_PORT, port_name="notebook-port"),
            Flow("hub checks a notebook", hub, notebook, JUPYTERHUB_NOTEBOOK_PORT, port_name="notebook-port"),
            Flow("a notebook must not reach another user's notebook", other_notebook, notebook,
                 JUPYTERHUB_NOTEBOOK_PORT, expected=False, port_name="notebook-port"),
            Flow("a notebook must not reconfigure the proxy", notebook, proxy, JUPYTERHUB_PROXY_API_PORT, expected=False),
            Flow("a pod of another namespace must not reach the hub", outsider, hub, JUPYTERHUB_HUB_PORT, expected=False),
        ])
        if namespaces.hub_clients:
            client = _client_address(namespaces.hub_clients[0])
            flows.extend([
                Flow("a notebook user reaches the proxy through the hub's load balancer", client, proxy,
                     JUPYTERHUB_PROXY_HTTP_PORT),
                Flow("the hub load balancer's clients must not reach the hub but through the proxy", client, hub,
                     JUPYTERHUB_HUB_PORT, expected=False),
                Flow("the hub load balancer's clients must not reconfigure the proxy", client, proxy,
                     JUPYTERHUB_PROXY_API_PORT, expected=False),
                Flow("the hub load balancer's clients must not reach a notebook directly", client, notebook,
                     JUPYTERHUB_NOTEBOOK_PORT, expected=False, port_name="notebook-port"),
                Flow("an address outside the hub load balancer's clients must not reach the proxy",
                     Address(INTERNET_ADDRESS), proxy, JUPYTERHUB_PROXY_HTTP_PORT, expected=False),
            ])
    return flows


def _client_address(network: str) -> Address:
    """An address of a load balancer's client network (the NLB keeps the client's address on instance targets)."""
    return Address(str(next(ipaddress.ip_network(network).hosts())))


def check_flows(objects: Iterable[Mapping[str, Any]], flows: Iterable[Flow]) -> list[tuple[Flow, bool, bool]]:
    """(flow, expected, actual) of every flow whose outcome under ``objects``' policies is not the expected one."""
    policy_set = PolicySet(objects)
    out = []
    for flow in flows:
        actual = policy_set.flow_allowed(flow)
        if actual != flow.expected:
            out.append((flow, flow.expected, actual))
    return out


def network_policy_findings(objects: list[dict], *, namespaces: WorkloadNamespaces, vpc_cidr: str,
                            egress: WorkloadEgress = WorkloadEgress()) -> list[tuple[str, str, str]]:
    """(subject, field, message) for each needed flow the policies block and each forbidden flow they let through.

    Also one finding per workload namespace that no NetworkPolicy isolates (a namespace left wide open).
    """
    findings = []
    policy_set = PolicySet(objects)
    for namespace in namespaces.workload():
        probe = Pod(namespace, {})
        for direction in ("Ingress", "Egress"):
            if not policy_set.selecting(probe, direction):
                findings.append((f"namespace {namespace}", f"NetworkPolicy {direction.lower()}",
                                 f"no policy isolates its pods for {direction.lower()}: add the default-deny policy"))
    for flow, expected, _ in check_flows(objects, required_flows(namespaces, vpc_cidr=vpc_cidr, egress=egress)):
        verdict = ("is blocked, but the platform needs it" if expected else "is allowed, but must be blocked")
        findings.append((f"flow {flow.name!r}", str(flow), verdict))
    return findings


# --- before a pod's policies are programmed: the VPC CNI's enforcing mode ------------------------------------------

#: The VPC CNI's modes (its ``NETWORK_POLICY_ENFORCING_MODE``): what a pod may do before its policies are programmed.
STANDARD_MODE, STRICT_MODE = "standard", "strict"


def enforcing_mode(addon_configuration: str | Mapping[str, Any] | None) -> str | None:
    """The network policy mode the ``vpc-cni`` add-on's configuration values set: None when its network policy
    agent is off (NetworkPolicies are inert), else "standard" (the default) or "strict"."""
    import json

    values = json.loads(addon_configuration) if isinstance(addon_configuration, str) else dict(addon_configuration or {})
    if str(values.get("enableNetworkPolicy", "false")).lower() != "true":
        return None
    return str((values.get("env") or {}).get("NETWORK_POLICY_ENFORCING_MODE") or STANDARD_MODE)


def before_policies_findings(mode: str | None, namespaces: WorkloadNamespaces, *,
                             vpc_cidr: str) -> list[tuple[str, str, str]]:
    """(subject, field, message) for what a new workload pod reaches between its start and the moment its policies
    are programmed: everything in standard mode (the CNI's default allow), nothing in strict mode."""
    if mode == STRICT_MODE:
        return []
    findings = []
    for namespace in namespaces.workload():
        pod = Pod(namespace, {})
        for flow in (Flow(f"a new pod in {namespace} before its policies apply reaches the internet", pod,
                          Address(INTERNET_ADDRESS), HTTPS_PORT, expected=False),
                     Flow(f"a new pod in {namespace} before its policies apply reaches kube-system", pod,
                          Pod("kube-system", {"app.kubernetes.io/name": "karpenter"}), 8443, expected=False)):
            why = ("the VPC CNI's network policy agent is off: NetworkPolicies are never enforced" if mode is None else
                   "the VPC CNI runs in standard mode, which allows a pod everything until its policies are "
                   "programmed: set the vpc-cni add-on's env NETWORK_POLICY_ENFORCING_MODE=strict")
            findings.append((f"flow {flow.name!r}", str(flow), f"is allowed, but must be blocked: {why}"))
    return findings


def strict_mode_findings(objects: Iterable[Mapping[str, Any]],
                         pod_namespaces: Mapping[str, str]) -> list[tuple[str, str, str]]:
    """Under strict mode a pod that no NetworkPolicy selects is denied everything: (subject, field, message) for
    each namespace where the app runs pods (``pod_namespaces``: namespace -> one pod there, to name) that no policy
    selects for ingress or egress."""
    policy_set = PolicySet(objects)
    findings = []
    for namespace, owner in sorted(pod_namespaces.items()):
        for direction in ("Ingress", "Egress"):
            if not policy_set.selecting(Pod(namespace, {}), direction):
                findings.append((f"namespace {namespace} ({owner})", f"NetworkPolicy {direction.lower()}",
                                 f"no policy selects its pods for {direction.lower()}: under the VPC CNI's strict mode "
                                 "they get no network at all (give the namespace its allowances, or an open policy "
                                 "with TrainingCluster.open_namespace)"))
    return findings


# --- every namespace the app creates is isolated and labelled ---------------------------------------------------

PSA_ENFORCE = f"{POD_SECURITY_LABEL}/enforce"


def namespace_findings(created: Mapping[str, str], labels: Mapping[str, Mapping[str, str]],
                       objects: Iterable[Mapping[str, Any]], *, policies: bool = True) -> list[tuple[str, str, str]]:
    """(subject, field, message) for each namespace the app creates without a Pod Security level, or (with
    ``policies``) without NetworkPolicies that isolate its pods both ways.

    ``created``: namespace -> what creates it (one of our manifests, a chart's own Namespace object, a release's
    create_namespace); ``labels``: namespace -> its labels (its Namespace object's, and any patch's).
    """
    policy_set = PolicySet(objects)
    findings = []
    for namespace, creator in sorted(created.items()):
        subject = f"namespace {namespace} (created by {creator})"
        if PSA_ENFORCE not in (labels.get(namespace) or {}):
            findings.append((subject, f"metadata.labels {PSA_ENFORCE}",
                             "no Pod Security level: the API server admits any pod there, privileged ones too; make "
                             "it with the platform's namespace chart (or an add-on's), or label it"))
        if policies:
            for direction in ("Ingress", "Egress"):
                if not policy_set.selecting(Pod(namespace, {}), direction):
                    findings.append((subject, f"NetworkPolicy {direction.lower()}",
                                     f"no policy isolates its pods for {direction.lower()}: every pod of the cluster "
                                     "reaches them (or they reach everything); add a default-deny policy and the "
                                     "allowances its pods need"))
    return findings


def webhook_flows(objects: Iterable[Mapping[str, Any]], *, vpc_cidr: str) -> tuple[list[Flow], list[str]]:
    """The API server's calls to every admission webhook served in the cluster (Validating/Mutating webhook
    configurations -> their Service -> its target port on the pods it selects), as flows from the VPC (where the
    control plane's interfaces are) that must pass; and the webhooks that could not be resolved (a note each)."""
    objects = list(objects)
    services = {((o.get("metadata") or {}).get("namespace"), (o.get("metadata") or {}).get("name")): o
                for o in objects if o.get("kind") == "Service"}
    source = Address(str(ipaddress.ip_network(vpc_cidr).network_address + 10))
    flows, unresolved = [], []
    for config in objects:
        if config.get("kind") not in ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"):
            continue
        for webhook in config.get("webhooks") or []:
            target = (webhook.get("clientConfig") or {}).get("service")
            if not target:
                continue  # a URL webhook: outside the cluster's pods
            name = f"{config['kind']} {config['metadata'].get('name')} webhook {webhook.get('name')}"
            service = services.get((target.get("namespace"), target.get("name")))
            if service is None:
                unresolved.append(f"{name}: its Service {target.get('namespace')}/{target.get('name')} is not among "
                                  "the app's objects")
                continue
            port = target.get("port", 443)
            entry = next((p for p in (service.get("spec") or {}).get("ports") or [] if p.get("port") == port), None)
            target_port = (entry or {}).get("targetPort", port)
            selector = (service.get("spec") or {}).get("selector") or {}
            number = target_port if isinstance(target_port, int) else _named_port(objects, target["namespace"],
                                                                                 selector, target_port)
            if number is None:
                unresolved.append(f"{name}: target port {target_port!r} of {target['namespace']}/{target['name']} "
                                  "names no container port of the pods it selects")
                continue
            flow = Flow(f"the API server calls {name}", source, Pod(target["namespace"], selector), number)
            if not any(str(f) == str(flow) for f in flows):  # one flow per pod and port, however many webhooks
                flows.append(flow)
    return flows, unresolved


def _named_port(objects: Iterable[Mapping[str, Any]], namespace: str, selector: Mapping[str, str],
                name: str) -> int | None:
    for obj in objects:
        if (obj.get("metadata") or {}).get("namespace") != namespace:
            continue
        template = ((obj.get("spec") or {}).get("template") or {})
        pod_labels = (template.get("metadata") or {}).get("labels") or {}
        if not selector or any(pod_labels.get(k) != v for k, v in selector.items()):
            continue
        for container in (template.get("spec") or {}).get("containers") or []:
            for port in container.get("ports") or []:
                if port.get("name") == name:
                    return port.get("containerPort")
    return None


def operator_flows(namespaces: Iterable[str]) -> list[Flow]:
    """What an isolated operator namespace must and must not let through (its pods as a pod without labels sees)."""
    flows = []
    for namespace in namespaces:
        pod = Pod(namespace, {})
        flows += [
            Flow(f"pods of {namespace} reach the Kubernetes API", pod, Address(KUBERNETES_SERVICE_IP), HTTPS_PORT),
            Flow(f"pods of {namespace} resolve names", pod, Pod(KUBE_DNS["namespace"], KUBE_DNS["pod_labels"]), 53, "UDP"),
            Flow(f"pods of {namespace} must not reach instance metadata", pod, Address(IMDS_ADDRESS), 80, expected=False),
            Flow(f"a pod of another namespace must not reach the pods of {namespace}",
                 Pod("default", {"app": "anything"}), pod, 8443, expected=False),
        ]
    return flows
