"""Default-deny NetworkPolicies for the workload namespaces, with the allowances the platform's workloads need.

Every workload namespace (training namespaces, Slurm, JupyterHub) gets a policy that isolates all its pods for
ingress and egress, then one policy per allowance. NetworkPolicies are additive (a flow passes if any policy
that selects the pod allows it), so each allowance is its own small, named policy that says why it exists.

What every workload pod may do:

* DNS to kube-dns in kube-system (UDP and TCP 53).
* HTTPS (TCP 443) to the VPC and to the ``kubernetes`` Service's address only (:class:`WorkloadEgress`, restricted,
  the default): in the VPC are its interface endpoints (S3, whose private DNS answers for every resolver of the VPC;
  ECR's API and registry, STS, CloudWatch Logs, EC2) and the API server's private endpoint; the Service address
  (172.20.0.1 in a VPC of 10.0.0.0/8, else 10.100.0.1) is outside the VPC CIDR, and whether the enforcer sees it or
  the endpoint's address after DNAT depends on the implementation, so both are open. Nothing else leaves the
  cluster from a workload pod: not the internet, whatever the NAT gateways would carry, but the destinations the
  user lists (``network.egress_allowed``, CIDR and ports; NetworkPolicy takes no DNS names) and, in ``jupyterhub``,
  the hub's HTTPS to the sign-in provider (its token and user-info endpoints). Unrestricted
  (``WorkloadEgress(restricted=False)``, an environment without VPC endpoints): HTTPS to any address. What a pod
  may do through the endpoints is then bounded by their endpoint policies and the buckets' policies
  (constructs.network, constructs.buckets).
* The EKS Pod Identity agent (169.254.170.23, TCP 80): the node-local endpoint through which the SDKs get the
  pod's credentials. The instance metadata service (169.254.169.254) stays closed: pods must not use the node role.
* FSx for Lustre (TCP 988 and 1018-1023) and EFS (TCP 2049) in the VPC CIDR. The CSI drivers mount both from the
  node (the kernel's Lustre client, the EFS mount helper on the host network), which NetworkPolicy does not
  govern; the allowance keeps a client run inside a pod (``lfs``/NFS tools in a debug pod) working and costs
  nothing, because only the file systems listen on those ports in the VPC.

Inside a namespace:

* Training namespaces and ``slurm``: all traffic among the namespace's pods. A distributed job uses the NCCL
  bootstrap and TCP fallback on ephemeral ports, torchrun's c10d rendezvous (29500), MPI's ssh (22), Ray's GCS
  (6379), dashboard (8265), client (10001) and object manager/worker ports (ephemeral), Slurm's 6817-6819 and
  login ssh (22); enumerating them would break the next version of any of these. The namespace is the team's
  trust boundary (quota, identity and RBAC are per namespace too), so pods of one team's jobs may reach each other.
* JupyterHub: only hub <-> proxy <-> notebooks, by component: notebooks belong to different users, so a notebook
  never reaches another one nor the proxy's API. The z2jh chart ships NetworkPolicies of its own (hub, proxy,
  singleuser); policies add up, and its defaults open every private and public address, on every port, and
  instance metadata to the hub: all three are turned off (``networkPolicy.enabled: false``), so these alone bound
  what the hub, the proxy and the notebooks reach.

From outside the cluster, only: the internal load balancers in front of the hub's proxy and the Slurm login pods
(:mod:`eks_training.workloads.internal_load_balancer`), from their client networks and the VPC (the NLB's health
checks, and kube-proxy's source address when a target node forwards to a pod on another node), to the proxy's
HTTP port and the login pods' SSH port only.

Across namespaces, only: the KubeRay operator to the Ray dashboard/job API (8265, to submit and follow RayJobs),
and the Slinky operator and webhook to slurmrestd (6820). Nothing else in another namespace reaches a workload
pod; in particular the Ray dashboard, which runs any job it is given, is closed to every other namespace.

The operators' own namespaces (Volcano, KubeRay, MPI Operator, Slinky, cert-manager, the NVIDIA device plugin) are
isolated the same way (:class:`OperatorNamespacePolicy`, made by each add-on with its namespace): default deny,
DNS, HTTPS to the API, their admission webhooks' ports from the API server, and the flows above on their side.

EFA traffic (NCCL over libfabric/SRD) is not IP: it bypasses the pod network and NetworkPolicy does not govern it;
the EFA security group (all traffic to and from itself) is what bounds it.

NetworkPolicies are enforced only when the VPC CNI's network policy agent is on (``enableNetworkPolicy: "true"``
in the ``vpc-cni`` add-on's configuration); without it these objects are inert. The cluster runs it in strict mode
(``NETWORK_POLICY_ENFORCING_MODE=strict``): a new pod starts denied everything until its policies are programmed,
where standard mode lets it through until then; and a pod no policy selects stays denied, CoreDNS's too. So the
namespaces whose pods the platform does not own (``kube-system``, the CloudWatch add-on's) get one policy that
allows all, before their pods start (``TrainingCluster.open_namespace``): they stay as open as they were, and every
namespace the platform makes stays default deny.

Every policy is a cdk8s-plus-28 ``kplus.NetworkPolicy`` built from its peers and ports API
(:func:`network_policy`, :func:`pods_peer`, :func:`allow_dns`, :func:`allow_egress_to_cidr`). What plus writes
differently from a hand-written policy, with the same meaning:

* ``policyTypes`` lists a direction when the policy isolates it (default deny) or when a rule for it is added, so
  an egress-only policy has ``["Egress"]`` and never isolates ingress; the default-deny policy lists
  ``["Egress", "Ingress"]`` (the order carries no meaning).
* a rule without ports has ``ports: []``: empty and missing both mean every port.
* a peer that is a whole namespace has ``podSelector: {}`` beside its ``namespaceSelector``: every pod of that
  namespace, as a namespaceSelector alone means.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import cdk8s
import cdk8s_plus_28 as kplus
import constructs

from eks_training.core.validation import check_one_of, invalid
from eks_training.workloads.k8s_objects import check_choice, check_dns_label, check_int, check_labels, check_unique
from eks_training.workloads.labels import common_labels
from eks_training.workloads.namespaces import PodSecurity, TrainingNamespace, add_namespace, api_objects_of

COMPONENT = "network-policies"
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"  # set by the API server on every namespace
PROTOCOLS = ("TCP", "UDP", "SCTP")

KUBE_DNS = {"namespace": "kube-system", "pod_labels": {"k8s-app": "kube-dns"}}
#: The EKS Pod Identity agent's link-local address (hostNetwork DaemonSet on every node).
POD_IDENTITY_AGENT = "169.254.170.23/32"
HTTPS_PORT = 443
LUSTRE_PORT, LUSTRE_LNET_PORTS, EFS_PORT = 988, (1018, 1023), 2049
RAY_DASHBOARD_PORT = 8265
SLURMRESTD_PORT = 6820
#: The KubeRay operator chart's pods carry app.kubernetes.io/name=<chart name>.
KUBERAY_OPERATOR_POD_LABELS = {"app.kubernetes.io/name": "kuberay-operator"}
#: z2jh labels each pod with its component.
JUPYTERHUB_HUB, JUPYTERHUB_PROXY, JUPYTERHUB_NOTEBOOK = ({"component": c} for c in ("hub", "proxy", "singleuser-server"))
JUPYTERHUB_HUB_PORT, JUPYTERHUB_PROXY_API_PORT, JUPYTERHUB_NOTEBOOK_PORT = 8081, 8001, 8888
#: The proxy's HTTP port, where the hub's load balancer forwards after ending TLS.
JUPYTERHUB_PROXY_HTTP_PORT = 8000
#: Slinky labels its login pods app.kubernetes.io/name=login (slurm-operator 1.2.1, internal/builder/labels).
SLURM_LOGIN_POD_LABELS = {"app.kubernetes.io/name": "login"}
SSH_PORT = 22


@dataclass(frozen=True)
class Port:
    """A protocol and a port, or a range ``port``-``end_port`` (both included)."""

    port: int
    protocol: str = "TCP"
    end_port: int | None = None

    def __post_init__(self) -> None:
        check_choice("port protocol", self.protocol, PROTOCOLS)
        check_int("port", self.port, minimum=1, maximum=65535)
        if self.end_port is not None:
            check_int(f"port {self.port} end_port", self.end_port, minimum=self.port, maximum=65535)

    def plus(self) -> kplus.NetworkPolicyPort:
        """The cdk8s-plus port: ``protocol``, ``port`` and, for a range, ``endPort``."""
        return kplus.NetworkPolicyPort.of(port=self.port, end_port=self.end_port,
                                          protocol=getattr(kplus.NetworkProtocol, self.protocol))


def _check_cross_namespace(allowance, namespace_field: str, namespace: str) -> None:
    """The checks a flow between two namespaces takes (CrossNamespaceIngress, NamespaceEgress)."""
    check_dns_label("allowance name", allowance.name)
    where = f"allowance {allowance.name!r}"
    check_dns_label(f"{where} {namespace_field}", namespace)
    check_labels(f"{where} from_labels", allowance.from_labels)
    check_labels(f"{where} to_labels", allowance.to_labels)
    _check_ports(where, allowance.ports)


def _check_ports(where: str, ports: object) -> tuple[Port, ...]:
    if isinstance(ports, (str, bytes, Port)) or not isinstance(ports, Sequence) or not ports \
            or not all(isinstance(p, Port) for p in ports):
        raise invalid(f"{where} ports", ports, "use a non-empty list of Port")
    return tuple(ports)


@dataclass(frozen=True)
class InNamespaceAllowance:
    """Pods with ``from_labels`` may reach pods with ``to_labels`` of the same namespace on ``ports``.

    Rendered as an egress policy on the sources and an ingress policy on the destinations: a default-deny
    namespace needs both ends open.
    """

    name: str
    from_labels: Mapping[str, str]
    to_labels: Mapping[str, str]
    ports: Sequence[Port]

    def __post_init__(self) -> None:
        check_dns_label("allowance name", self.name)
        where = f"allowance {self.name!r}"
        for field_name in ("from_labels", "to_labels"):
            if not check_labels(f"{where} {field_name}", getattr(self, field_name)):
                raise ValueError(f"{where} {field_name}={{}} would select every pod: name the pods' labels")
        _check_ports(where, self.ports)


@dataclass(frozen=True)
class CrossNamespaceIngress:
    """Pods of ``from_namespace`` (with ``from_labels``; empty: all of them) may reach this namespace's pods with
    ``to_labels`` (empty: all) on ``ports``. Only ingress is rendered: the source namespace is an operator's,
    which has no egress isolation."""

    name: str
    from_namespace: str
    ports: Sequence[Port]
    from_labels: Mapping[str, str] = field(default_factory=dict)
    to_labels: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_cross_namespace(self, "from_namespace", self.from_namespace)


@dataclass(frozen=True)
class CidrIngress:
    """Clients of the IPv4 networks ``cidrs`` (outside the cluster: a load balancer's) may reach this namespace's
    pods with ``to_labels`` on ``ports``."""

    name: str
    cidrs: Sequence[str]
    ports: Sequence[Port]
    to_labels: Mapping[str, str]

    def __post_init__(self) -> None:
        check_dns_label("allowance name", self.name)
        where = f"allowance {self.name!r}"
        if isinstance(self.cidrs, (str, bytes)) or not self.cidrs:
            raise invalid(f"{where} cidrs", self.cidrs, "use a non-empty list of IPv4 networks")
        for cidr in self.cidrs:
            _check_cidr(cidr, f"{where} cidrs")
        if not check_labels(f"{where} to_labels", self.to_labels):
            raise ValueError(f"{where} to_labels={{}} would select every pod: name the pods' labels")
        _check_ports(where, self.ports)


@dataclass(frozen=True)
class NamespacePolicy:
    """One workload namespace: default deny, the common egress, and its own allowances.

    ``same_namespace_all``: all traffic among the namespace's pods (training, Slurm); otherwise only the
    ``in_namespace`` allowances.
    """

    namespace: str
    same_namespace_all: bool = True
    in_namespace: Sequence[InNamespaceAllowance] = ()
    cross_namespace: Sequence[CrossNamespaceIngress] = ()
    #: Egress of some of the namespace's pods beyond what every workload pod may reach (the hub's sign-in provider).
    egress: Sequence["EgressAllowance"] = ()
    #: Ingress from networks outside the cluster (an internal load balancer's clients).
    ingress: Sequence[CidrIngress] = ()

    def __post_init__(self) -> None:
        check_dns_label("namespace", self.namespace)
        where = f"namespace {self.namespace!r}"
        if not isinstance(self.same_namespace_all, bool):
            raise invalid(f"{where} same_namespace_all", self.same_namespace_all, "use True or False")
        for field_name, kind in (("in_namespace", InNamespaceAllowance), ("cross_namespace", CrossNamespaceIngress),
                                 ("egress", EgressAllowance), ("ingress", CidrIngress)):
            value = getattr(self, field_name)
            if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or not all(isinstance(a, kind) for a in value):
                raise invalid(f"{where} {field_name}", value, f"use a list of {kind.__name__}")
        check_unique(f"{where} allowance names", [a.name for a in (*self.in_namespace, *self.cross_namespace,
                                                                    *self.egress, *self.ingress)])


@dataclass(frozen=True)
class WorkloadNamespaces:
    """Which namespace runs what, the input both the chart and the deploy check derive their view from.

    ``slurm``/``jupyterhub``: the namespace of the Slurm cluster / JupyterHub, None when off.
    ``kuberay_operator``/``slinky_operator``: the operator's namespace, None when that operator is off.
    ``hub_clients``/``login_clients``: the networks the hub's / the Slurm login's internal load balancer forwards
    from (its source ranges and the VPC); empty when the service has no load balancer.
    """

    training: Sequence[str]
    slurm: str | None = None
    jupyterhub: str | None = None
    kuberay_operator: str | None = None
    slinky_operator: str | None = None
    hub_clients: tuple[str, ...] = ()
    login_clients: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.training, (str, bytes)) or not isinstance(self.training, Sequence) or not self.training:
            raise invalid("training", self.training, "use a non-empty list of namespace names")
        for name in self.training:
            check_dns_label("training namespace", name)
        for field_name in ("slurm", "jupyterhub", "kuberay_operator", "slinky_operator"):
            if getattr(self, field_name) is not None:
                check_dns_label(field_name, getattr(self, field_name))
        check_unique("workload namespaces", self.workload())
        for field_name, namespace in (("hub_clients", self.jupyterhub), ("login_clients", self.slurm)):
            clients = getattr(self, field_name)
            if clients and namespace is None:
                raise invalid(field_name, clients, f"none without the {field_name.split('_')[0]}'s namespace")
            object.__setattr__(self, field_name, tuple(_check_cidr(c, field_name) for c in clients))

    def workload(self) -> list[str]:
        """The namespaces that get policies, training first."""
        return [*self.training, *(n for n in (self.slurm, self.jupyterhub) if n)]


def kubernetes_service_ip(vpc_cidr: str) -> str:
    """The ``kubernetes`` Service's address: the first of the service range EKS picks when none is given
    (172.20.0.0/16 for a VPC inside 10.0.0.0/8, else 10.100.0.0/16; EKS API reference, KubernetesNetworkConfigRequest)."""
    network = ipaddress.ip_network(_check_cidr(vpc_cidr))
    inside_ten = network.subnet_of(ipaddress.ip_network("10.0.0.0/8"))
    return "172.20.0.1" if inside_ten else "10.100.0.1"


@dataclass(frozen=True)
class EgressAllowance:
    """Egress from the pods with ``selects`` (empty: every pod) to the IPv4 network ``cidr`` on ``ports``."""

    name: str
    cidr: str
    ports: Sequence[Port]
    selects: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_dns_label("allowance name", self.name)
        where = f"allowance {self.name!r}"
        try:
            network = ipaddress.ip_network(self.cidr, strict=True) if isinstance(self.cidr, str) else None
        except ValueError:
            network = None
        if network is None or network.version != 4:
            raise invalid(f"{where} cidr", self.cidr, "use an IPv4 network such as '203.0.113.0/24' (host bits zero)")
        _check_ports(where, self.ports)
        check_labels(f"{where} selects", self.selects)


@dataclass(frozen=True)
class WorkloadEgress:
    """Where workload pods may open connections beyond their namespace (see the module docstring).

    ``restricted`` (default True): HTTPS only to the VPC (its endpoints) and the ``kubernetes`` Service; False: HTTPS
    to any address (a VPC without endpoints has S3 and ECR only through the NAT gateways). ``allowances``: more
    destinations, for every workload pod of every workload namespace.
    """

    restricted: bool = True
    allowances: Sequence[EgressAllowance] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.restricted, bool):
            raise invalid("egress restricted", self.restricted, "use True or False")
        if isinstance(self.allowances, (str, bytes)) or not all(isinstance(a, EgressAllowance) for a in self.allowances):
            raise invalid("egress allowances", self.allowances, "use a list of EgressAllowance")
        check_unique("egress allowance names", [a.name for a in self.allowances])


def platform_policies(namespaces: WorkloadNamespaces) -> list[NamespacePolicy]:
    """The platform's policy set: every workload namespace with the allowances its workloads need."""
    policies = []
    for name in namespaces.training:
        cross = []
        if namespaces.kuberay_operator:
            # Only the head serves 8265; the source is what is restricted (the operator, nothing else).
            cross.append(CrossNamespaceIngress(
                name="ray-dashboard-from-kuberay", from_namespace=namespaces.kuberay_operator,
                from_labels=KUBERAY_OPERATOR_POD_LABELS, ports=(Port(RAY_DASHBOARD_PORT),)))
        policies.append(NamespacePolicy(name, cross_namespace=tuple(cross)))
    if namespaces.slurm:
        cross = []
        if namespaces.slinky_operator:
            # The operator reads node and job state, the webhook checks drains, through slurmrestd.
            cross.append(CrossNamespaceIngress(
                name="slurmrestd-from-slinky", from_namespace=namespaces.slinky_operator,
                ports=(Port(SLURMRESTD_PORT),)))
        ingress = (CidrIngress("ssh-from-load-balancer", namespaces.login_clients, (Port(SSH_PORT),),
                               SLURM_LOGIN_POD_LABELS),) if namespaces.login_clients else ()
        policies.append(NamespacePolicy(namespaces.slurm, cross_namespace=tuple(cross), ingress=ingress))
    if namespaces.jupyterhub:
        # The hub signs people in: it calls the provider's token and user-info endpoints, somewhere on the internet.
        sign_in = EgressAllowance("hub-to-sign-in-provider", "0.0.0.0/0", (Port(HTTPS_PORT),), selects=JUPYTERHUB_HUB)
        ingress = (CidrIngress("proxy-from-load-balancer", namespaces.hub_clients, (Port(JUPYTERHUB_PROXY_HTTP_PORT),),
                               JUPYTERHUB_PROXY),) if namespaces.hub_clients else ()
        policies.append(NamespacePolicy(namespaces.jupyterhub, same_namespace_all=False, egress=(sign_in,), ingress=ingress, in_namespace=(
            InNamespaceAllowance("proxy-to-hub", JUPYTERHUB_PROXY, JUPYTERHUB_HUB, (Port(JUPYTERHUB_HUB_PORT),)),
            # Notebooks report activity to the hub and call its API with their token.
            InNamespaceAllowance("notebook-to-hub", JUPYTERHUB_NOTEBOOK, JUPYTERHUB_HUB, (Port(JUPYTERHUB_HUB_PORT),)),
            # Only the hub configures the proxy's routes.
            InNamespaceAllowance("hub-to-proxy-api", JUPYTERHUB_HUB, JUPYTERHUB_PROXY, (Port(JUPYTERHUB_PROXY_API_PORT),)),
            InNamespaceAllowance("proxy-to-notebook", JUPYTERHUB_PROXY, JUPYTERHUB_NOTEBOOK, (Port(JUPYTERHUB_NOTEBOOK_PORT),)),
            InNamespaceAllowance("hub-to-notebook", JUPYTERHUB_HUB, JUPYTERHUB_NOTEBOOK, (Port(JUPYTERHUB_NOTEBOOK_PORT),)),
        )))
    return policies


def _check_cidr(vpc_cidr: object, field_name: str = "vpc_cidr") -> str:
    try:
        network = ipaddress.ip_network(vpc_cidr, strict=True) if isinstance(vpc_cidr, str) else None
    except ValueError:
        network = None
    if network is None or network.version != 4:
        raise invalid(field_name, vpc_cidr, "use an IPv4 network such as '10.0.0.0/16' (host bits zero)")
    return str(network)


#: DNS to kube-dns: UDP first (what resolvers use), TCP for truncated answers.
DNS_PORTS = (Port(53, "UDP"), Port(53, "TCP"))


def network_policy(scope: constructs.Construct, namespace: str, name: str, *, component: str = COMPONENT,
                   selects: Mapping[str, str] | None = None, isolate: Sequence[str] = ()) -> kplus.NetworkPolicy:
    """An empty ``kplus.NetworkPolicy`` named ``name`` in ``namespace``; add its rules with ``add_*_rule``.

    ``selects``: the labels of the pods it applies to (None or empty: every pod of the namespace).
    ``isolate``: directions ("Ingress", "Egress") it isolates with no rule of its own (default deny). A direction
    that gets a rule is isolated too: plus lists it in ``policyTypes`` when the rule is added, so an egress-only
    policy never isolates (nor opens) ingress.
    """
    for direction in isolate:
        check_one_of(f"network policy {name!r} isolate", direction, ("Ingress", "Egress"))
    deny = kplus.NetworkPolicyTraffic(default=kplus.NetworkPolicyTrafficDefault.DENY)
    construct_id = f"NetworkPolicy:{namespace}:{name}"
    return kplus.NetworkPolicy(
        scope, construct_id,
        metadata=cdk8s.ApiObjectMetadata(name=name, namespace=namespace, labels=common_labels(component)),
        # No selector: plus selects every pod (podSelector {}), as the policy's own namespace is given here.
        selector=kplus.Pods.select(scope, f"{construct_id}:pods", labels=dict(selects)) if selects else None,
        ingress=deny if "Ingress" in isolate else None,
        egress=deny if "Egress" in isolate else None)


def pods_peer(scope: constructs.Construct, id: str, labels: Mapping[str, str] | None = None, *,
              namespace: str | None = None) -> kplus.Pods:
    """Pods with ``labels`` (none: every pod) of ``namespace``, or of the policy's own namespace when None.

    With a namespace, plus writes ONE peer holding both selectors: those pods in that namespace (AND), not "that
    namespace, or these pods anywhere"; the namespace is matched by its ``kubernetes.io/metadata.name`` label.
    """
    namespaces = kplus.Namespaces.select(scope, f"{id}:namespace", names=[namespace]) if namespace else None
    return kplus.Pods.select(scope, id, labels=dict(labels or {}), namespaces=namespaces)


def allow_dns(policy: kplus.NetworkPolicy) -> None:
    """Egress from the policy's pods to kube-dns in kube-system, UDP and TCP 53."""
    policy.add_egress_rule(pods_peer(policy, "kube-dns", KUBE_DNS["pod_labels"], namespace=KUBE_DNS["namespace"]),
                           [p.plus() for p in DNS_PORTS])


def allow_egress_to_cidr(policy: kplus.NetworkPolicy, cidr: str, ports: Sequence[Port]) -> None:
    """Egress from the policy's pods to an IPv4 network on ``ports``."""
    policy.add_egress_rule(kplus.NetworkPolicyIpBlock.ipv4(policy, f"cidr:{cidr}", cidr), [p.plus() for p in ports])


def add_namespace_policies(scope: constructs.Construct, policy: NamespacePolicy, *, vpc_cidr: str,
                           egress_limits: WorkloadEgress = WorkloadEgress()) -> list[kplus.NetworkPolicy]:
    """The NetworkPolicies of one namespace, default deny first, as ``kplus.NetworkPolicy`` constructs in ``scope``;
    HTTPS and the other destinations out of the cluster as ``egress_limits`` says (default: restricted)."""
    vpc_cidr = _check_cidr(vpc_cidr)
    if not isinstance(egress_limits, WorkloadEgress):
        raise invalid("egress_limits", egress_limits, "use a WorkloadEgress")
    ns = policy.namespace
    # No rules and both types: every pod of the namespace is isolated both ways.
    policies = [network_policy(scope, ns, "default-deny", isolate=("Ingress", "Egress"))]

    def egress(name: str) -> kplus.NetworkPolicy:
        policies.append(network_policy(scope, ns, name))
        return policies[-1]

    allow_dns(egress("allow-dns"))
    https = egress("allow-https")
    for cidr in ([vpc_cidr, f"{kubernetes_service_ip(vpc_cidr)}/32"] if egress_limits.restricted else ["0.0.0.0/0"]):
        allow_egress_to_cidr(https, cidr, [Port(HTTPS_PORT)])
    allow_egress_to_cidr(egress("allow-pod-identity"), POD_IDENTITY_AGENT, [Port(80)])
    allow_egress_to_cidr(egress("allow-shared-storage"), vpc_cidr,
                         [Port(LUSTRE_PORT), Port(LUSTRE_LNET_PORTS[0], end_port=LUSTRE_LNET_PORTS[1]), Port(EFS_PORT)])
    if policy.same_namespace_all:
        # A peer with only a podSelector means pods of the policy's own namespace; no ports: every port.
        same = network_policy(scope, ns, "allow-same-namespace")
        same.add_ingress_rule(pods_peer(same, "from-namespace"))
        same.add_egress_rule(pods_peer(same, "to-namespace"))
        policies.append(same)
    for allowance in policy.in_namespace:
        ports = [p.plus() for p in allowance.ports]
        out = network_policy(scope, ns, f"allow-{allowance.name}-egress", selects=allowance.from_labels)
        out.add_egress_rule(pods_peer(out, "to", allowance.to_labels), ports)
        into = network_policy(scope, ns, f"allow-{allowance.name}-ingress", selects=allowance.to_labels)
        into.add_ingress_rule(pods_peer(into, "from", allowance.from_labels), ports)
        policies += [out, into]
    for allowance in policy.cross_namespace:
        into = network_policy(scope, ns, f"allow-{allowance.name}", selects=allowance.to_labels)
        into.add_ingress_rule(pods_peer(into, "from", allowance.from_labels, namespace=allowance.from_namespace),
                              [p.plus() for p in allowance.ports])
        policies.append(into)
    for allowance in policy.ingress:
        into = network_policy(scope, ns, f"allow-{allowance.name}", selects=allowance.to_labels)
        for cidr in allowance.cidrs:
            into.add_ingress_rule(kplus.NetworkPolicyIpBlock.ipv4(into, f"cidr:{cidr}", cidr),
                                  [p.plus() for p in allowance.ports])
        policies.append(into)
    for allowance in (*egress_limits.allowances, *policy.egress):
        out = network_policy(scope, ns, f"allow-{allowance.name}", selects=allowance.selects)
        allow_egress_to_cidr(out, allowance.cidr, allowance.ports)
        policies.append(out)
    return policies



@dataclass(frozen=True)
class NamespaceEgress:
    """Pods with ``from_labels`` (empty: all) of an operator's namespace may reach pods with ``to_labels`` (empty:
    all) of ``to_namespace`` on ``ports`` (the workload side admits it with its own CrossNamespaceIngress)."""

    name: str
    to_namespace: str
    ports: Sequence[Port]
    from_labels: Mapping[str, str] = field(default_factory=dict)
    to_labels: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_cross_namespace(self, "to_namespace", self.to_namespace)


@dataclass(frozen=True)
class OperatorNamespacePolicy:
    """An operator's own namespace, isolated like a workload namespace: default deny both ways, then DNS, HTTPS
    out (the API server: its ``kubernetes`` Service VIP or the endpoint's addresses, see the module docstring),
    the admission webhooks' ports in from the VPC (the API server calls webhooks from the control plane's network
    interfaces in the cluster's subnets) and the named flows to workload pods. Nothing else in: no other pod of the
    cluster reaches an operator, and an operator reaches no instance metadata, no other port, nothing in the VPC.

    ``api``: HTTPS out (default True; a DaemonSet that talks only to the kubelet's socket needs none).
    """

    namespace: str
    webhook_ports: Sequence[Port] = ()
    egress: Sequence[NamespaceEgress] = ()
    api: bool = True

    def __post_init__(self) -> None:
        check_dns_label("namespace", self.namespace)
        where = f"namespace {self.namespace!r}"
        if self.webhook_ports:
            _check_ports(f"{where} webhook", self.webhook_ports)
        if isinstance(self.egress, (str, bytes)) or not all(isinstance(e, NamespaceEgress) for e in self.egress):
            raise invalid(f"{where} egress", self.egress, "use a list of NamespaceEgress")
        if not isinstance(self.api, bool):
            raise invalid(f"{where} api", self.api, "use True or False")
        check_unique(f"{where} allowance names", [e.name for e in self.egress])


def add_operator_policies(scope: constructs.Construct, policy: OperatorNamespacePolicy, *,
                          vpc_cidr: str) -> list[kplus.NetworkPolicy]:
    """The NetworkPolicies of an operator's namespace (:class:`OperatorNamespacePolicy`), default deny first."""
    vpc_cidr = _check_cidr(vpc_cidr)
    ns = policy.namespace
    policies = [network_policy(scope, ns, "default-deny", isolate=("Ingress", "Egress"))]
    dns = network_policy(scope, ns, "allow-dns")
    allow_dns(dns)
    policies.append(dns)
    if policy.api:
        api = network_policy(scope, ns, "allow-https")
        allow_egress_to_cidr(api, "0.0.0.0/0", [Port(HTTPS_PORT)])
        policies.append(api)
    if policy.webhook_ports:
        webhooks = network_policy(scope, ns, "allow-webhooks-from-api-server")
        webhooks.add_ingress_rule(kplus.NetworkPolicyIpBlock.ipv4(webhooks, f"cidr:{vpc_cidr}", vpc_cidr),
                                  [p.plus() for p in policy.webhook_ports])
        policies.append(webhooks)
    for allowance in policy.egress:
        out = network_policy(scope, ns, f"allow-{allowance.name}", selects=allowance.from_labels)
        out.add_egress_rule(pods_peer(out, "to", allowance.to_labels, namespace=allowance.to_namespace),
                            [p.plus() for p in allowance.ports])
        policies.append(out)
    return policies


class NetworkPoliciesChart(cdk8s.Chart):
    """Default deny plus allowances in every workload namespace (the namespaces must exist first)."""

    def __init__(self, scope: constructs.Construct, id: str, *, namespaces: WorkloadNamespaces | Sequence[NamespacePolicy],
                 vpc_cidr: str, egress: WorkloadEgress = WorkloadEgress()) -> None:
        super().__init__(scope, id)
        if isinstance(namespaces, WorkloadNamespaces):
            namespaces = platform_policies(namespaces)
        if isinstance(namespaces, (str, bytes)) or not isinstance(namespaces, Sequence) or not namespaces \
                or not all(isinstance(n, NamespacePolicy) for n in namespaces):
            raise invalid("namespaces", namespaces, "use a WorkloadNamespaces or a non-empty list of NamespacePolicy")
        check_unique("policy namespaces", [n.namespace for n in namespaces])
        for policy in namespaces:
            add_namespace_policies(self, policy, vpc_cidr=vpc_cidr, egress_limits=egress)

    @property
    def api_objects(self) -> list[cdk8s.ApiObject]:
        """The policies' ApiObjects (each inside its plus construct), in render order."""
        return api_objects_of(self)


class OperatorNamespaceChart(cdk8s.Chart):
    """An operator's namespace, made by the platform rather than by its Helm release (``create_namespace`` off):
    the Namespace with its Pod Security labels, then its NetworkPolicies (:class:`OperatorNamespacePolicy`).

    ``pod_security``: the levels its pods need (default baseline enforced, restricted reported). ``vpc_cidr``: the
    VPC's range, where the API server calls webhooks from; None admits the webhook ports from any address (still
    those ports only), for a cluster whose VPC range is known only at deploy time.
    """

    def __init__(self, scope: constructs.Construct, id: str, *, policy: OperatorNamespacePolicy,
                 pod_security: PodSecurity | None = None, vpc_cidr: str | None = None) -> None:
        super().__init__(scope, id)
        if not isinstance(policy, OperatorNamespacePolicy):
            raise invalid("policy", policy, "use an OperatorNamespacePolicy")
        add_namespace(self, TrainingNamespace(name=policy.namespace, limit_range=None,
                                              pod_security=pod_security or PodSecurity()))
        add_operator_policies(self, policy, vpc_cidr=vpc_cidr or "0.0.0.0/0")

    @property
    def api_objects(self) -> list[cdk8s.ApiObject]:
        """The Namespace first, then its policies, in render order."""
        return api_objects_of(self)
