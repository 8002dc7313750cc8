"""What a synthesized platform template says a deploy would create, read back into plain objects.

The deploy check reads only this: node sources (managed node groups and Karpenter pools, with the labels, taints,
capacity and security groups each node really gets), Helm releases with their values, the Kubernetes objects of
every manifest, security groups with their rules, IAM policies and the CloudFormation dependency graph. Values
that CloudFormation resolves at deploy time stay as tokens (``cfn-token:<what>``) that the checks can still name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from eks_training.core.cfn_text import cfn_text
from eks_training.core.catalog import EFA_RESOURCE, HOSTNAME_LABEL, INSTANCE_TYPES, network_labels, node_capacity
from eks_training.core.upstream import release_chart
from eks_training.core.names import LABEL_ROLE

KUBERNETES_RESOURCE = "Custom::AWSCDK-EKS-KubernetesResource"
HELM_CHART = "Custom::AWSCDK-EKS-HelmChart"
KUBERNETES_PATCH = "Custom::AWSCDK-EKS-KubernetesPatch"
OBJECT_VALUE = "Custom::AWSCDK-EKS-KubernetesObjectValue"
CLUSTER_SECURITY_GROUP = "cluster security group"
#: Extended resources each accelerator's device plugin advertises (the Neuron plugin has three views of a device).
DEVICE_RESOURCES = {"nvidia": ("nvidia.com/gpu",),
                    "neuron": ("aws.amazon.com/neuron", "aws.amazon.com/neurondevice", "aws.amazon.com/neuroncore")}


def token_text(intrinsic: Any) -> str:
    """A readable stand-in for a CloudFormation intrinsic: ``cfn-token:Ref:X`` or ``cfn-token:X.Attr``."""
    if isinstance(intrinsic, dict) and "Ref" in intrinsic:
        return f"cfn-token:Ref:{intrinsic['Ref']}"
    if isinstance(intrinsic, dict) and "Fn::GetAtt" in intrinsic:
        resource, attribute = intrinsic["Fn::GetAtt"]
        return f"cfn-token:{resource}.{attribute}"
    return "cfn-token:expression"


def text(value: Any) -> str:
    return cfn_text(value, token_text)


def awaited_job(props: Mapping[str, Any]) -> str | None:
    """``namespace/name`` of the Job whose success a KubernetesObjectValue (its properties) waits for, or None: the
    deploy that created the waiter saw that Job succeed."""
    if (str(props.get("ObjectType", "")).lower() in ("job", "jobs", "job.batch", "jobs.batch")
            and "succeeded" in str(props.get("JsonPath", ""))):
        return f"{props.get('ObjectNamespace', 'default')}/{props.get('ObjectName')}"
    return None


@dataclass(frozen=True)
class NodeSource:
    """Where nodes come from: one managed node group, or one instance type of one Karpenter pool.

    ``on_demand``: something creates a node when a pod needs one (Karpenter). ``standing``: nodes that exist
    without any pod asking (a managed group's desired size > 0). A source with neither never has a node.
    """

    name: str
    kind: str  # "node group" | "Karpenter pool"
    instance_type: str
    labels: Mapping[str, str]
    taints: tuple[Mapping[str, str], ...]
    capacity: Mapping[str, Decimal]  # cpu, memory, pods and the accelerator/EFA counts of the instance
    security_groups: tuple[str, ...]
    standing: bool
    on_demand: bool
    accelerator: str | None = None
    efa: bool = False
    logical_id: str = ""

    @property
    def can_have_nodes(self) -> bool:
        return self.standing or self.on_demand

    def allocatable(self, advertised: set[str]) -> dict[str, Decimal]:
        """Allocatable resources: CPU/memory/pods always, an extended resource only when a plugin advertises it."""
        return {name: amount for name, amount in self.capacity.items() if "/" not in name or name in advertised}


@dataclass(frozen=True)
class Release:
    """One Helm release the stack installs."""

    logical_id: str
    release: str
    chart: str
    version: str
    namespace: str
    values: Mapping[str, Any]
    #: Whether Helm creates the namespace (a bare one: no labels, no policies).
    create_namespace: bool = False


@dataclass(frozen=True)
class SecurityGroupRule:
    """One ingress or egress rule: to/from a group (``peer_group``) or a CIDR, a protocol and a port range."""

    group: str
    direction: str  # "ingress" | "egress"
    protocol: str  # "-1" is all traffic
    from_port: int
    to_port: int
    peer_group: str | None = None
    cidr: str | None = None

    def allows(self, port: int | None, protocol: str = "tcp") -> bool:
        if self.protocol in ("-1", "all"):
            return True
        if port is None or self.protocol != protocol:
            return False
        return self.from_port <= port <= self.to_port


@dataclass
class PlatformSnapshot:
    """Everything the check reads from one synthesized stack template."""

    template: dict[str, Any]
    cluster_name: str = ""
    kubernetes_version: str = ""
    api_security_groups: tuple[str, ...] = ()
    node_sources: list[NodeSource] = field(default_factory=list)
    releases: list[Release] = field(default_factory=list)
    manifests: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    security_group_tags: dict[str, dict[str, str]] = field(default_factory=dict)
    rules: list[SecurityGroupRule] = field(default_factory=list)
    #: Namespace -> the labels a KubernetesPatch gives it (an existing namespace the app labels, e.g. kube-system).
    namespace_patches: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def resources(self) -> dict[str, dict[str, Any]]:
        return self.template.get("Resources", {})

    def of_type(self, type_: str) -> dict[str, dict[str, Any]]:
        return {lid: r for lid, r in self.resources.items() if r.get("Type") == type_}

    def read_node_sources(self) -> None:
        """(Re)derive the node sources from the node groups and the NodePool/EC2NodeClass objects."""
        self.node_sources = []
        _read_node_groups(self)
        _read_karpenter_pools(self)

    def objects(self) -> Iterator[tuple[str, dict[str, Any]]]:
        for lid, objects in self.manifests.items():
            for obj in objects:
                yield lid, obj

    def direct_dependencies(self, logical_id: str) -> set[str]:
        """The resources ``logical_id`` names itself: DependsOn, Ref, GetAtt and ``${...}`` in Fn::Sub."""
        resource = self.resources.get(logical_id, {})
        direct = resource.get("DependsOn") or []
        direct = [direct] if isinstance(direct, str) else list(direct)
        direct += list(references(resource.get("Properties", {})))
        return {dep for dep in direct if dep in self.resources and dep != logical_id}

    def dependencies(self, logical_id: str) -> set[str]:
        """Every resource ``logical_id`` waits for: :meth:`direct_dependencies`, followed transitively."""
        seen: set[str] = set()
        todo = [logical_id]
        while todo:
            for dep in self.direct_dependencies(todo.pop()):
                if dep not in seen:
                    seen.add(dep)
                    todo.append(dep)
        return seen


#: ``${Name}`` or ``${Name.Attribute}`` in an Fn::Sub string (``${!Literal}`` is no reference).
_SUB_REFERENCE = re.compile(r"\$\{([A-Za-z0-9]+)(?:\.[A-Za-z0-9.]+)?\}")


def references(value: Any) -> Iterator[str]:
    """Names ``value`` refers to: Ref, GetAtt and ``${...}`` in Fn::Sub (pseudo parameters included)."""
    if isinstance(value, dict):
        if "Ref" in value and isinstance(value["Ref"], str):
            yield value["Ref"]
        if "Fn::GetAtt" in value:
            yield value["Fn::GetAtt"][0]
        if "Fn::Sub" in value:
            sub = value["Fn::Sub"]
            template, variables = (sub[0], sub[1] if len(sub) > 1 else {}) if isinstance(sub, list) else (sub, {})
            if isinstance(template, str):
                # Names the Sub defines itself are its own variables, not resources.
                yield from (name for name in _SUB_REFERENCE.findall(template) if name not in variables)
        for item in value.values():
            yield from references(item)
    elif isinstance(value, list):
        for item in value:
            yield from references(item)


def _group_id(value: Any) -> str:
    """A security group reference as one stable name: the cluster group, or the group's logical id."""
    if isinstance(value, dict) and "Fn::GetAtt" in value:
        resource, attribute = value["Fn::GetAtt"]
        return CLUSTER_SECURITY_GROUP if attribute == "ClusterSecurityGroupId" else resource
    if isinstance(value, dict) and "Ref" in value:
        return value["Ref"]
    return str(value)


def _tags(tags: Any) -> dict[str, str]:
    if isinstance(tags, dict):
        return {k: text(v) for k, v in tags.items()}
    return {t["Key"]: text(t["Value"]) for t in tags or []}


def load_snapshot(template: dict[str, Any]) -> PlatformSnapshot:
    """Read one stack template into a :class:`PlatformSnapshot`."""
    snap = PlatformSnapshot(template=template)
    clusters = snap.of_type("AWS::EKS::Cluster")
    if len(clusters) != 1:
        raise ValueError(f"the template holds {len(clusters)} EKS clusters; the check reads exactly one")
    cluster = next(iter(clusters.values()))["Properties"]
    snap.cluster_name = text(cluster.get("Name", ""))
    snap.kubernetes_version = text(cluster.get("Version", ""))
    vpc_config = cluster.get("ResourcesVpcConfig", {})
    snap.api_security_groups = (CLUSTER_SECURITY_GROUP, *(_group_id(g) for g in vpc_config.get("SecurityGroupIds", [])))
    _read_security_groups(snap)
    for lid, resource in snap.of_type(KUBERNETES_RESOURCE).items():
        snap.manifests[lid] = json.loads(text(resource["Properties"]["Manifest"]))
    for lid, resource in snap.of_type(HELM_CHART).items():
        props = resource["Properties"]
        values = json.loads(text(props["Values"])) if "Values" in props else {}
        # A deploy synth ships the verified package as an asset and names the chart beside it (constructs.chart_source).
        chart, version = release_chart(props)
        snap.releases.append(Release(lid, props["Release"], chart, version,
                                     props.get("Namespace", "default"), values,
                                     create_namespace=bool(props.get("CreateNamespace"))))
    for resource in snap.of_type(KUBERNETES_PATCH).values():
        props = resource["Properties"]
        kind, _, name = text(props.get("ResourceName", "")).partition("/")
        if kind in ("namespace", "namespaces", "ns"):
            patch = json.loads(text(props["ApplyPatchJson"]))
            snap.namespace_patches.setdefault(name, {}).update((patch.get("metadata") or {}).get("labels") or {})
    snap.read_node_sources()
    return snap


def _read_security_groups(snap: PlatformSnapshot) -> None:
    # EKS creates the cluster security group itself: all traffic among its members, tagged with the cluster name.
    snap.security_group_tags[CLUSTER_SECURITY_GROUP] = {"aws:eks:cluster-name": snap.cluster_name,
                                                        f"kubernetes.io/cluster/{snap.cluster_name}": "owned"}
    snap.rules.append(SecurityGroupRule(CLUSTER_SECURITY_GROUP, "ingress", "-1", 0, 65535, peer_group=CLUSTER_SECURITY_GROUP))
    snap.rules.append(SecurityGroupRule(CLUSTER_SECURITY_GROUP, "egress", "-1", 0, 65535, cidr="0.0.0.0/0"))
    for lid, resource in snap.of_type("AWS::EC2::SecurityGroup").items():
        props = resource.get("Properties", {})
        snap.security_group_tags[lid] = _tags(props.get("Tags"))
        for direction, key in (("ingress", "SecurityGroupIngress"), ("egress", "SecurityGroupEgress")):
            for rule in props.get(key) or []:
                snap.rules.append(_rule(lid, direction, rule))
    for type_, direction in (("AWS::EC2::SecurityGroupIngress", "ingress"), ("AWS::EC2::SecurityGroupEgress", "egress")):
        for resource in snap.of_type(type_).values():
            props = resource["Properties"]
            snap.rules.append(_rule(_group_id(props["GroupId"]), direction, props))


def _rule(group: str, direction: str, props: Mapping[str, Any]) -> SecurityGroupRule:
    peer = props.get("SourceSecurityGroupId") or props.get("DestinationSecurityGroupId")
    protocol = str(props.get("IpProtocol", "-1"))
    return SecurityGroupRule(group, direction, protocol, int(props.get("FromPort", 0) or 0),
                             int(props.get("ToPort", 65535) if props.get("ToPort") is not None else 65535),
                             peer_group=_group_id(peer) if peer else None,
                             cidr=text(props["CidrIp"]) if "CidrIp" in props else None)


def _capacity(instance_type: str) -> dict[str, Decimal]:
    facts = node_capacity(instance_type)
    capacity = {"cpu": facts.allocatable_cpu, "memory": facts.allocatable_memory, "pods": Decimal(facts.max_pods)}
    if facts.accelerator:
        for resource in DEVICE_RESOURCES[facts.accelerator]:
            count = facts.neuron_cores if resource.endswith("neuroncore") else facts.accelerators
            capacity[resource] = Decimal(count)
    if facts.efa_interfaces:
        capacity[EFA_RESOURCE] = Decimal(facts.efa_interfaces)
    return capacity


#: A label every node of a source carries with a value of its own (a host name, a network node id).
PER_NODE_VALUE = "per-node"


def _well_known(instance_type: str, zone: str | None) -> dict[str, str]:
    # EKS labels the nodes of the types EC2 publishes a topology for with each network layer (the catalog's count).
    network = network_labels(instance_type) if instance_type in INSTANCE_TYPES else ()
    labels = {"kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
              "node.kubernetes.io/instance-type": instance_type, HOSTNAME_LABEL: PER_NODE_VALUE,
              **dict.fromkeys(network, PER_NODE_VALUE)}
    if zone:
        labels["topology.kubernetes.io/zone"] = zone
    return labels


def _read_node_groups(snap: PlatformSnapshot) -> None:
    templates = snap.of_type("AWS::EC2::LaunchTemplate")
    for lid, resource in snap.of_type("AWS::EKS::Nodegroup").items():
        props = resource["Properties"]
        groups: tuple[str, ...] = (CLUSTER_SECURITY_GROUP,)
        lt_ref = (props.get("LaunchTemplate") or {}).get("Id")
        if isinstance(lt_ref, dict) and lt_ref.get("Ref") in templates:
            data = templates[lt_ref["Ref"]]["Properties"]["LaunchTemplateData"]
            interface_groups = [g for nic in data.get("NetworkInterfaces") or [] for g in nic.get("Groups") or []]
            explicit = interface_groups or data.get("SecurityGroupIds") or []
            if explicit:  # a launch template with its own groups replaces the cluster group
                groups = tuple(dict.fromkeys(_group_id(g) for g in explicit))
        scaling = props.get("ScalingConfig", {})
        role = (props.get("Labels") or {}).get(LABEL_ROLE)
        name = text(props.get("NodegroupName") or (role if role else lid))
        capacity_type = props.get("CapacityType", "ON_DEMAND")
        for instance_type in props.get("InstanceTypes") or ["m5.large"]:
            facts = node_capacity(instance_type)
            labels = {**_well_known(instance_type, None), "eks.amazonaws.com/nodegroup": name,
                      "eks.amazonaws.com/capacityType": capacity_type, **{k: text(v) for k, v in (props.get("Labels") or {}).items()}}
            taints = tuple({"key": t["Key"], "value": t.get("Value", ""),
                            "effect": {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute",
                                       "PREFER_NO_SCHEDULE": "PreferNoSchedule"}[t["Effect"]]}
                           for t in props.get("Taints") or [])
            snap.node_sources.append(NodeSource(
                name=f"node group {name}", kind="node group", instance_type=instance_type, labels=labels, taints=taints,
                capacity=_capacity(instance_type), security_groups=groups,
                standing=int(scaling.get("DesiredSize", scaling.get("MinSize", 0)) or 0) > 0,
                # Nothing scales a managed group from zero unless an autoscaler is installed: none is.
                on_demand=False, accelerator=facts.accelerator, efa=facts.efa_interfaces > 0 and len(groups) > 1,
                logical_id=lid))


def _read_karpenter_pools(snap: PlatformSnapshot) -> None:
    karpenter = next((r for r in snap.releases if r.release == "karpenter"), None)
    classes = {o["metadata"]["name"]: (lid, o) for lid, o in snap.objects() if o.get("kind") == "EC2NodeClass"}
    for lid, pool in snap.objects():
        if pool.get("kind") != "NodePool":
            continue
        template = pool["spec"]["template"]
        class_name = template["spec"]["nodeClassRef"]["name"]
        node_class = classes.get(class_name, (None, {"spec": {}}))[1]
        groups = tuple(resolve_selector_terms(snap, node_class["spec"].get("securityGroupSelectorTerms") or []))
        requirements = {r["key"]: r for r in template["spec"].get("requirements") or []}
        instance_types = (requirements.get("node.kubernetes.io/instance-type") or {}).get("values") or []
        zones = (requirements.get("topology.kubernetes.io/zone") or {}).get("values") or [None]
        capacity_types = (requirements.get("karpenter.sh/capacity-type") or {}).get("values") or ["on-demand"]
        for instance_type in instance_types:
            facts = node_capacity(instance_type)
            labels = {**_well_known(instance_type, zones[0]), "karpenter.sh/nodepool": pool["metadata"]["name"],
                      "karpenter.sh/capacity-type": capacity_types[0],
                      **{k: v["values"][0] for k, v in requirements.items()
                         if v.get("operator") == "In" and len(v.get("values") or []) == 1},
                      **(template.get("metadata", {}).get("labels") or {})}
            snap.node_sources.append(NodeSource(
                name=f"Karpenter pool {pool['metadata']['name']} ({instance_type})", kind="Karpenter pool",
                instance_type=instance_type, labels=labels, taints=tuple(template["spec"].get("taints") or ()),
                capacity=_capacity(instance_type), security_groups=groups, standing=False,
                on_demand=karpenter is not None, accelerator=facts.accelerator,
                efa=labels.get("eks-training/efa") == "true", logical_id=lid))


def resolve_selector_terms(snap: PlatformSnapshot, terms: list[Mapping[str, Any]]) -> list[str]:
    """The security groups Karpenter finds for ``terms`` (ORed; the tags of one term ANDed; "*" any value)."""
    found: list[str] = []
    for term in terms:
        if "id" in term:
            value = str(term["id"])
            found += [CLUSTER_SECURITY_GROUP] if value.endswith(".ClusterSecurityGroupId") else \
                [g for g in snap.security_group_tags if value.endswith(f"{g}.GroupId")]
            continue
        wanted = term.get("tags") or {}
        if not wanted:
            continue
        for group, tags in snap.security_group_tags.items():
            if all(key in tags and (value == "*" or tags[key] == value) for key, value in wanted.items()):
                found.append(group)
    return list(dict.fromkeys(found))
