"""Small helpers for cdk8s-plus-28 pods that state the platform's choices where plus would default otherwise.

Used by the charts whose workloads are plus constructs (the MPI Operator installer, the Slinky secret generator
and MariaDB, the FSx workspace Job). Each helper writes what the plain manifests of those charts wrote, in plus's terms.
"""

from __future__ import annotations

from decimal import Decimal

import cdk8s
import cdk8s_plus_28 as kplus

from eks_training.core.names import SYSTEM_NODE_SELECTOR, SYSTEM_NODE_TOLERATIONS
from eks_training.core.validation import invalid
from eks_training.workloads.k8s_objects import check_quantity, quantity_value

_MEBIBYTE = Decimal(2**20)


def on_system_nodes(workload: kplus.Workload) -> None:
    """Schedule only on nodes with every label of SYSTEM_NODE_SELECTOR, tolerating their taint.

    plus has no ``nodeSelector``: ``attract`` writes the same constraint as required node affinity (one term, an
    ``In`` expression per label, ANDed).
    """
    workload.scheduling.attract(kplus.Node.labeled(
        *(kplus.NodeLabelQuery.is_(key, value) for key, value in SYSTEM_NODE_SELECTOR.items())))
    for toleration in SYSTEM_NODE_TOLERATIONS:
        workload.scheduling.tolerate(kplus.Node.tainted(kplus.NodeTaintQuery.exists(toleration["key"])))


def runtime_default_seccomp(workload: kplus.Workload) -> None:
    """The pod's ``seccompProfile: RuntimeDefault`` (every container of it, debug containers too).

    plus-28's pod security context has no seccompProfile: a JSON patch adds it to the pod template.
    """
    cdk8s.ApiObject.of(workload).add_json_patch(cdk8s.JsonPatch.add(
        "/spec/template/spec/securityContext/seccompProfile", {"type": "RuntimeDefault"}))


def hardened_container(*, non_root: bool = True, user: int | None = None) -> kplus.ContainerSecurityContextProps:
    """No privilege, no escalation, read-only root file system, every capability dropped.

    plus's defaults for the first four are said here, so none depends on plus; it does not drop capabilities
    unless told. ``non_root`` False (and ``user`` 0) for a container that must run as root.
    """
    return kplus.ContainerSecurityContextProps(
        ensure_non_root=non_root, user=user, privileged=False, allow_privilege_escalation=False,
        read_only_root_filesystem=True, capabilities=kplus.ContainerSecutiryContextCapabilities(drop=[kplus.Capability.ALL]))


def cpu(field: str, value: str) -> kplus.Cpu:
    """A CPU quantity as plus's Cpu, written as given ("500m" stays "500m", "2" stays "2")."""
    text = check_quantity(field, value)
    if text.endswith("m") and text[:-1].isdigit():
        return kplus.Cpu.millis(int(text[:-1]))
    try:
        number = Decimal(text)
    except ArithmeticError:
        raise invalid(field, value, "use cores such as 2 or 0.5, or millicores such as 500m") from None
    return kplus.Cpu.units(int(number) if number == number.to_integral_value() else float(number))


def memory(field: str, value: str) -> cdk8s.Size:
    """A memory quantity as a Size: plus writes memory in Mi, so it must be a whole number of mebibytes."""
    mebibytes = quantity_value(field, value) / _MEBIBYTE
    if mebibytes != mebibytes.to_integral_value() or mebibytes <= 0:
        raise invalid(field, value, "use a whole number of mebibytes such as 512Mi or 4Gi (plus writes memory in Mi)")
    return cdk8s.Size.mebibytes(int(mebibytes))


def requests_with_memory_limit(field: str, cpu_request: str, memory_request: str,
                               memory_limit: str | None = None, cpu_limit: str | None = None) -> kplus.ContainerResources:
    """Requests, a memory limit (the request when None) and a CPU limit only when given.

    Without resources plus requests 1 CPU / 512Mi and limits 1.5 CPU / 2Gi; the platform sets no CPU limit
    unless one is meant (throttling protects nothing that requests do not).
    """
    return kplus.ContainerResources(
        cpu=kplus.CpuResources(request=cpu(f"{field} cpu", cpu_request),
                               limit=cpu(f"{field} cpu limit", cpu_limit) if cpu_limit is not None else None),
        memory=kplus.MemoryResources(request=memory(f"{field} memory", memory_request),
                                     limit=memory(f"{field} memory limit", memory_limit or memory_request)))
