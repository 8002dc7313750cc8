"""Facts about the accelerated EC2 instance types the platform supports.

One row per instance type, typed by hand from AWS's published specifications and cross-checked in
tests against the EC2 instance catalog that the `moto` package ships, so a wrong number fails CI.
Everything that sizes a node group, a launch template, a Karpenter pool, a pod's resource request or a
parallelism plan reads these rows: no other module types an accelerator count or an EFA count.

This module imports nothing from CDK, so charts, the CLI and the planner can use it cheaply.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from eks_training.core.validation import InvalidValue, invalid

Accelerator = Literal["nvidia", "neuron"]

#: Extended Kubernetes resource that a pod requests for one accelerator of each kind.
ACCELERATOR_RESOURCE: dict[str, str] = {
    "nvidia": "nvidia.com/gpu",
    "neuron": "aws.amazon.com/neuron",
}
#: Taint key that keeps non-accelerated pods off accelerated nodes (what the device plugins tolerate).
ACCELERATOR_TAINT: dict[str, str] = ACCELERATOR_RESOURCE


def accelerator_taint(accelerator: str) -> dict[str, str]:
    """The taint every node of ``accelerator`` carries, from managed node groups and Karpenter pools alike."""
    return {"key": ACCELERATOR_TAINT[accelerator], "value": "true", "effect": "NoSchedule"}


def accelerator_tolerations(accelerator: str) -> list[dict[str, str]]:
    """What pods on ``accelerator`` nodes tolerate: the taint's key with any value (``Exists``), so a taint written
    with or without a value matches (an ``Equal`` toleration misses a taint whose value differs)."""
    return [{"key": ACCELERATOR_TAINT[accelerator], "operator": "Exists", "effect": "NoSchedule"}]
#: Extended resource of the EFA device plugin.
EFA_RESOURCE = "vpc.amazonaws.com/efa"


@dataclass(frozen=True)
class InstanceFacts:
    """What one accelerated instance type offers.

    ``accelerators`` counts GPUs (nvidia) or Neuron devices (neuron, what `aws.amazon.com/neuron` counts);
    ``neuron_cores`` is the total NeuronCore count (0 for GPUs). ``efa_interfaces`` is the most EFA
    interfaces one instance takes (0: no EFA), which equals the number of network cards on every EFA type
    here, one EFA interface per card. ``peak_bf16_tflops`` is the dense bf16 peak of one accelerator
    (for MFU and the parallelism planner).
    """

    instance_type: str
    accelerator: Accelerator
    accelerator_name: str
    accelerators: int
    accelerator_memory_gib: float
    neuron_cores: int
    efa_interfaces: int
    network_cards: int
    vcpus: int
    memory_gib: int
    local_nvme_gb: int
    peak_bf16_tflops: float

    @property
    def family(self) -> str:
        """The instance family, e.g. ``p5`` for ``p5.48xlarge``."""
        return self.instance_type.split(".", 1)[0]

    @property
    def efa_supported(self) -> bool:
        return self.efa_interfaces > 0

    @property
    def resource_name(self) -> str:
        """Kubernetes extended resource for this type's accelerators."""
        return ACCELERATOR_RESOURCE[self.accelerator]

    @property
    def total_accelerator_memory_gib(self) -> float:
        return self.accelerators * self.accelerator_memory_gib

    @property
    def network_layers(self) -> int:
        """How many layers of the EC2 network hierarchy label this type's nodes (0: EC2 publishes no topology)."""
        return NETWORK_LAYERS.get(self.instance_type, 0)


def _gpu(t: str, name: str, n: int, mem: float, efa: int, cards: int, vcpus: int, ram: int, nvme: int,
         tflops: float) -> InstanceFacts:
    return InstanceFacts(t, "nvidia", name, n, mem, 0, efa, cards, vcpus, ram, nvme, tflops)


def _neuron(t: str, name: str, n: int, mem: float, cores: int, efa: int, cards: int, vcpus: int, ram: int,
            nvme: int, tflops: float) -> InstanceFacts:
    return InstanceFacts(t, "neuron", name, n, mem, cores, efa, cards, vcpus, ram, nvme, tflops)


# Accelerator memory in GiB as EC2 reports it (MiB / 1024): A100 40/80, H100 80, H200 141, B200 179,
# A10G/L4 22.35, L40S 44.7, Trainium 32, Trainium2 96, Inferentia2 32.
# bf16 dense peaks: A100 312, H100/H200 SXM 989, B200 2250, A10G 70, L4 121, L40S 362, Trainium 190,
# Trainium2 667, Inferentia2 190 (vendor data sheets).
_ROWS: tuple[InstanceFacts, ...] = (
    _gpu("p4d.24xlarge", "A100", 8, 40, 4, 4, 96, 1152, 8000, 312),
    _gpu("p4de.24xlarge", "A100", 8, 80, 4, 4, 96, 1152, 8000, 312),
    _gpu("p5.48xlarge", "H100", 8, 80, 32, 32, 192, 2048, 30400, 989),
    _gpu("p5e.48xlarge", "H200", 8, 141, 32, 32, 192, 2048, 30400, 989),
    _gpu("p5en.48xlarge", "H200", 8, 141, 16, 16, 192, 2048, 30400, 989),
    _gpu("p6-b200.48xlarge", "B200", 8, 179.06, 8, 8, 192, 2048, 30400, 2250),
    _gpu("g5.xlarge", "A10G", 1, 22.35, 0, 1, 4, 16, 250, 70),
    _gpu("g5.12xlarge", "A10G", 4, 22.35, 1, 1, 48, 192, 3800, 70),
    _gpu("g5.48xlarge", "A10G", 8, 22.35, 1, 1, 192, 768, 7600, 70),
    _gpu("g6.xlarge", "L4", 1, 22.35, 0, 1, 4, 16, 250, 121),
    _gpu("g6.12xlarge", "L4", 4, 22.35, 1, 1, 48, 192, 3760, 121),
    _gpu("g6.48xlarge", "L4", 8, 22.35, 1, 1, 192, 768, 7520, 121),
    _gpu("g6e.xlarge", "L40S", 1, 44.7, 0, 1, 4, 32, 250, 362),
    _gpu("g6e.12xlarge", "L40S", 4, 44.7, 1, 1, 48, 384, 3800, 362),
    _gpu("g6e.48xlarge", "L40S", 8, 44.7, 4, 4, 192, 1536, 7600, 362),
    _neuron("trn1.2xlarge", "Trainium", 1, 32, 2, 0, 1, 8, 32, 474, 190),
    _neuron("trn1.32xlarge", "Trainium", 16, 32, 32, 8, 8, 128, 512, 7600, 190),
    _neuron("trn1n.32xlarge", "Trainium", 16, 32, 32, 16, 16, 128, 512, 7600, 190),
    _neuron("trn2.48xlarge", "Trainium2", 16, 96, 128, 16, 16, 192, 2048, 7600, 667),
    _neuron("inf2.xlarge", "Inferentia2", 1, 32, 2, 0, 1, 4, 16, 0, 190),
    _neuron("inf2.48xlarge", "Inferentia2", 12, 32, 24, 0, 1, 192, 768, 0, 190),
)

INSTANCE_TYPES: dict[str, InstanceFacts] = {row.instance_type: row for row in _ROWS}

#: Network nodes EC2's instance topology returns per type (EC2 User Guide, "Prerequisites for Amazon EC2 topology":
#: 3 for p4d, p4de, p5, p5e, p5en, every g6e size, trn1, trn1n, trn2; 4 for p6-b200). EKS labels each node of these
#: types with one `topology.k8s.aws/network-node-layer-N` per layer, N=1 the top of the hierarchy and the last the
#: node the instance plugs into. g5, g6 and inf2 get none.
NETWORK_LAYERS: dict[str, int] = {
    **dict.fromkeys(("p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge",
                     "g6e.xlarge", "g6e.12xlarge", "g6e.48xlarge",
                     "trn1.2xlarge", "trn1.32xlarge", "trn1n.32xlarge", "trn2.48xlarge"), 3),
    "p6-b200.48xlarge": 4,
}
NETWORK_LAYER_LABEL_PREFIX = "topology.k8s.aws/network-node-layer-"

#: On-demand list prices, USD per instance-hour (us-east-1, Linux, AWS's public price list as of 2024), what a job's
#: cost is reckoned at (the trainer's goodput record). Types whose price we could not pin are absent: their cost is
#: reported as unknown, never guessed. Reserved, Savings Plans, Spot and Capacity Block rates differ.
ON_DEMAND_USD_PER_HOUR: dict[str, float] = {
    "p4d.24xlarge": 32.7726, "p4de.24xlarge": 40.9657, "p5.48xlarge": 98.32,
    "g5.xlarge": 1.006, "g5.12xlarge": 5.672, "g5.48xlarge": 16.288,
    "g6.xlarge": 0.8048, "g6.12xlarge": 4.6016, "g6.48xlarge": 13.3504,
    "g6e.xlarge": 1.861, "g6e.12xlarge": 10.493, "g6e.48xlarge": 30.131,
    "trn1.2xlarge": 1.34375, "trn1.32xlarge": 21.50, "trn1n.32xlarge": 24.78,
    "inf2.xlarge": 0.7582, "inf2.48xlarge": 12.9813,
}


def hourly_price(instance_type: str) -> float | None:
    """The on-demand USD price of one ``instance_type`` instance-hour, or None when the catalog has none."""
    return ON_DEMAND_USD_PER_HOUR.get(instance_type)
#: The level below every network layer: one node.
HOSTNAME_LABEL = "kubernetes.io/hostname"


def network_layer_label(layer: int) -> str:
    """The node label of network layer ``layer`` (1 is the top of the hierarchy)."""
    return f"{NETWORK_LAYER_LABEL_PREFIX}{layer}"


def network_labels(instance_type: str) -> tuple[str, ...]:
    """The network layer labels every node of ``instance_type`` carries, top layer first (none for most types)."""
    return tuple(network_layer_label(n) for n in range(1, instance_facts(instance_type).network_layers + 1))


class UnsupportedInstanceTypeError(InvalidValue):
    """An instance type that is not in the catalog."""


def instance_facts(instance_type: str, *, field: str = "instance_type") -> InstanceFacts:
    """The catalog row for ``instance_type``, or a one-line error naming ``field`` and what is allowed."""
    try:
        return INSTANCE_TYPES[instance_type]
    except KeyError:
        allowed = ", ".join(INSTANCE_TYPES)
        raise UnsupportedInstanceTypeError(field, instance_type, f"use a supported accelerated instance type: {allowed}") from None


def supported_types(accelerator: Accelerator | None = None) -> list[str]:
    """Supported instance types, optionally only those of one accelerator kind."""
    return [t for t, f in INSTANCE_TYPES.items() if accelerator is None or f.accelerator == accelerator]


# General-purpose families for system nodes: vCPUs follow the size name and memory is a fixed GiB per vCPU
# (m: 4, c: 2, r: 8) on every current x86 generation (AWS's published sizes; cross-checked against moto in tests).
_GENERAL_MEMORY_PER_VCPU = {"m5": 4, "m5a": 4, "m6i": 4, "m6a": 4, "m7i": 4, "m7a": 4,
                            "c5": 2, "c6i": 2, "c6a": 2, "c7i": 2, "c7a": 2,
                            "r5": 8, "r6i": 8, "r6a": 8, "r7i": 8, "r7a": 8}
_GENERAL_SIZES = {"large": 2, "xlarge": 4, "2xlarge": 8, "4xlarge": 16, "8xlarge": 32, "12xlarge": 48,
                  "16xlarge": 64, "24xlarge": 96}
#: Instance types the system node group may use (x86 general purpose, compute or memory optimised).
SYSTEM_INSTANCE_TYPES: tuple[str, ...] = tuple(f"{family}.{size}" for family in _GENERAL_MEMORY_PER_VCPU
                                               for size in _GENERAL_SIZES)

#: Pods per node the check assumes (the kubelet default that EKS's AMIs keep for most sizes).
MAX_PODS = 110
#: Headroom for the EKS add-on DaemonSets on every node (VPC CNI, kube-proxy, Pod Identity agent, CSI node pods).
DAEMONSET_HEADROOM_CPU = Decimal("0.5")
DAEMONSET_HEADROOM_MEMORY = Decimal(2**30)
#: Share of EC2's nominal memory the kubelet sees as capacity (the kernel and firmware keep the rest).
KUBELET_VISIBLE_MEMORY = Decimal("0.95")


@dataclass(frozen=True)
class NodeCapacity:
    """What a node of one instance type offers to pods, after the reserve stated in :func:`node_capacity`."""

    instance_type: str
    vcpus: int
    memory_gib: int
    accelerator: Accelerator | None
    accelerators: int
    neuron_cores: int
    efa_interfaces: int
    max_pods: int
    allocatable_cpu: Decimal
    allocatable_memory: Decimal  # bytes


def whole_node_requests(instance_type: str) -> tuple[str, str]:
    """(cpu, memory) requests of a pod that owns a node: what :func:`node_capacity` leaves, less 5% of memory
    for the node's own DaemonSets (device plugins, CSI node pods). The one place every whole-node pod is sized."""
    capacity = node_capacity(instance_type)
    memory_gib = int(capacity.allocatable_memory / 2**30 * Decimal("0.95"))
    return str(max(1, int(capacity.allocatable_cpu))), f"{memory_gib}Gi"


def _kube_reserved_cpu(vcpus: int) -> Decimal:
    # The EKS AMIs' kube-reserved CPU: 6% of the first core, 1% of the second, 0.5% of cores 3-4, 0.25% above.
    shares = [Decimal("0.06"), Decimal("0.01"), Decimal("0.005"), Decimal("0.005")]
    return sum((shares[i] if i < 4 else Decimal("0.0025")) for i in range(vcpus))


def node_capacity(instance_type: str, *, field: str = "instance_type") -> NodeCapacity:
    """Allocatable CPU and memory of a node: EC2's figures less kube-reserved (the EKS AMI formulas: CPU by
    core, 255Mi + 11Mi per pod of memory), the 100Mi eviction threshold, 5% of memory the kubelet never sees,
    and :data:`DAEMONSET_HEADROOM_CPU`/``_MEMORY`` for the add-on DaemonSets. One-line error for unknown types."""
    family, _, size = instance_type.partition(".")
    if instance_type in INSTANCE_TYPES:
        facts = INSTANCE_TYPES[instance_type]
        vcpus, memory_gib = facts.vcpus, facts.memory_gib
        accelerator, accelerators, cores, efa = facts.accelerator, facts.accelerators, facts.neuron_cores, facts.efa_interfaces
    elif family in _GENERAL_MEMORY_PER_VCPU and size in _GENERAL_SIZES:
        vcpus = _GENERAL_SIZES[size]
        memory_gib = vcpus * _GENERAL_MEMORY_PER_VCPU[family]
        accelerator, accelerators, cores, efa = None, 0, 0, 0
    else:
        raise UnsupportedInstanceTypeError(
            field, instance_type, f"use an accelerated type ({', '.join(INSTANCE_TYPES)}) or a system type such as "
            f"m6i.2xlarge: families {', '.join(_GENERAL_MEMORY_PER_VCPU)}, sizes {', '.join(_GENERAL_SIZES)}")
    reserved_memory = Decimal((255 + 11 * MAX_PODS + 100) * 2**20) + DAEMONSET_HEADROOM_MEMORY
    return NodeCapacity(
        instance_type, vcpus, memory_gib, accelerator, accelerators, cores, efa, MAX_PODS,
        allocatable_cpu=Decimal(vcpus) - _kube_reserved_cpu(vcpus) - DAEMONSET_HEADROOM_CPU,
        allocatable_memory=Decimal(memory_gib * 2**30) * KUBELET_VISIBLE_MEMORY - reserved_memory)


def check_accelerator(field: str, instance_type: str, accelerator: str) -> InstanceFacts:
    """The catalog row of ``instance_type``, which must carry ``accelerator`` ("nvidia" or "neuron") devices."""
    facts = instance_facts(instance_type, field=field)
    if facts.accelerator != accelerator:
        kinds = ", ".join(supported_types(accelerator))  # type: ignore[arg-type]
        raise invalid(field, instance_type, f"use a type with {accelerator} accelerators ({kinds}); this one has "
                                            f"{facts.accelerator_name} ({facts.accelerator})")
    return facts


def check_efa(field: str, efa: bool, instance_types: "list[str] | tuple[str, ...]") -> None:
    """``efa=True`` only where every one of ``instance_types`` has EFA interfaces."""
    without = [t for t in instance_types if not instance_facts(t).efa_supported]
    if efa and without:
        raise invalid(field, efa, f"{', '.join(without)} {'has' if len(without) == 1 else 'have'} no EFA interfaces: "
                                  "set efa to false or pick EFA types")
