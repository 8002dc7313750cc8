"""Who reaches whom: the security groups each node source really carries, against the rules in the template.

A node reaches a target on a port when one of the node's groups may send there (egress to the target's group or
a CIDR) and one of the target's groups admits it (ingress from one of the node's groups, or a CIDR rule). What the
check asks of every node source that can have nodes: the EKS API endpoint (443), FSx for Lustre (988 and
1018-1023) and, for EFA sources, all traffic to and from their EFA peers through a self-referencing group (SRD is
not IP traffic: a CIDR rule does not carry it, the group must name itself in both directions).
"""

from __future__ import annotations

from collections.abc import Iterable

from eks_training.infra.tools.check.snapshot import NodeSource, PlatformSnapshot

LUSTRE_PORTS = (988, *range(1018, 1024))


def _admits(snap: PlatformSnapshot, target_groups: Iterable[str], source_groups: Iterable[str], port: int) -> bool:
    sources = set(source_groups)
    return any(rule.direction == "ingress" and rule.group in target_groups and rule.allows(port)
               and (rule.peer_group in sources or rule.cidr is not None) for rule in snap.rules)


def _sends(snap: PlatformSnapshot, source_groups: Iterable[str], target_groups: Iterable[str], port: int) -> bool:
    targets = set(target_groups)
    return any(rule.direction == "egress" and rule.group in source_groups and rule.allows(port)
               and (rule.peer_group in targets or rule.cidr is not None) for rule in snap.rules)


def reaches(snap: PlatformSnapshot, source: NodeSource, target_groups: Iterable[str], port: int) -> bool:
    target_groups = list(target_groups)
    return (_sends(snap, source.security_groups, target_groups, port)
            and _admits(snap, target_groups, source.security_groups, port))


def lustre_groups(snap: PlatformSnapshot) -> list[str]:
    """The security groups of every FSx for Lustre file system in the template."""
    groups = []
    for resource in snap.of_type("AWS::FSx::FileSystem").values():
        for group in resource["Properties"].get("SecurityGroupIds") or []:
            groups.append(group["Fn::GetAtt"][0] if isinstance(group, dict) and "Fn::GetAtt" in group else str(group))
    return groups


def efa_self_referencing(snap: PlatformSnapshot, group: str) -> bool:
    """Whether ``group`` admits and sends all traffic to itself by group reference (what EFA needs)."""
    def named(direction: str) -> bool:
        return any(r.direction == direction and r.group == group and r.peer_group == group and r.protocol == "-1"
                   for r in snap.rules)
    return named("ingress") and named("egress")


def unreachable(snap: PlatformSnapshot, source: NodeSource) -> list[tuple[str, str]]:
    """(what, why) for each thing the node source's nodes cannot reach."""
    problems = []
    if not source.security_groups:
        return [("security groups", "the node source resolves to no security group at all")]
    if not reaches(snap, source, snap.api_security_groups, 443):
        problems.append(("EKS API endpoint", f"groups {', '.join(source.security_groups)} reach no group of the "
                                             f"control plane ({', '.join(snap.api_security_groups)}) on 443: nodes never join"))
    for group in lustre_groups(snap):
        closed = [port for port in LUSTRE_PORTS if not reaches(snap, source, [group], port)]
        if closed:
            problems.append(("FSx for Lustre", f"ports {', '.join(map(str, closed))} to {group} closed from "
                                               f"{', '.join(source.security_groups)}: /fsx never mounts"))
    if source.efa:
        peers = [g for g in source.security_groups if efa_self_referencing(snap, g)]
        if not peers:
            problems.append(("EFA peers", f"none of {', '.join(source.security_groups)} admits and sends all traffic "
                                          "to itself by group reference: NCCL/Neuron collectives over EFA fail"))
    return problems


def groups_reach(snap: PlatformSnapshot, source_groups: Iterable[str], target_groups: Iterable[str], port: int) -> bool:
    """Whether something carrying ``source_groups`` reaches something carrying ``target_groups`` on TCP ``port``."""
    source_groups, target_groups = list(source_groups), list(target_groups)
    return _sends(snap, source_groups, target_groups, port) and _admits(snap, target_groups, source_groups, port)


def tunnel_findings(snap: PlatformSnapshot) -> list[tuple[str, str, str]]:
    """(subject, what, why) for each EC2 Instance Connect Endpoint of the template that is no way into the API: it
    must reach an instance on 22, and that instance the API endpoint on 443, with no IAM role of its own."""
    from eks_training.infra.tools.check.snapshot import _group_id

    findings = []
    instances = snap.of_type("AWS::EC2::Instance")
    for lid, endpoint in snap.of_type("AWS::EC2::InstanceConnectEndpoint").items():
        groups = [_group_id(g) for g in endpoint["Properties"].get("SecurityGroupIds") or []]
        hosts = {i: [_group_id(g) for g in r["Properties"].get("SecurityGroupIds") or []] for i, r in instances.items()}
        reached = [i for i, host_groups in hosts.items() if groups_reach(snap, groups, host_groups, 22)]
        subject = f"EC2 Instance Connect Endpoint {lid}"
        if not reached:
            findings.append((subject, "SSH (22)", "reaches no instance of the template: no way to the API through it"))
            continue
        for instance in reached:
            props = instances[instance]["Properties"]
            if not groups_reach(snap, hosts[instance], snap.api_security_groups, 443):
                findings.append((f"{subject} -> instance {instance}", "HTTPS (443)",
                                 f"the instance reaches no group of the control plane ({', '.join(snap.api_security_groups)})"
                                 " on 443: the tunnel ends there"))
            if props.get("IamInstanceProfile"):
                findings.append((f"{subject} -> instance {instance}", "IamInstanceProfile",
                                 "the tunnel's instance holds an IAM role: anyone who can open the tunnel holds it too"))
    return findings
