"""How the VPC's address range is split: the public and private subnets of every zone, and the training subnet.

Plain arithmetic, shared by the TrainingNetwork construct (which lays the subnets out), the config layer (which
refuses a training subnet that cannot fit the VPC before any CDK code runs) and the deploy check (which warns when
the accelerated capacity could outgrow the training subnet's addresses).
"""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Sequence

#: AWS keeps 5 addresses of every subnet.
AWS_RESERVED_IPS = 5
#: IPs one pod-dense node may take from the VPC CNI (max pods of a large node plus the warm pool).
DEFAULT_POD_IPS_PER_NODE = 110
#: Headroom over the computed need: rolling updates start new nodes before old ones go.
HEADROOM = 1.25
PUBLIC_MASK = 24
PRIVATE_MASK = 20


def default_training_prefix(cidr: str) -> int:
    """The training subnet's prefix when none is configured: the upper half of the VPC's range (a /17 in a /16).

    Fixed by the VPC alone, never by the capacity: a subnet's CIDR cannot change in place, and replacing the training
    subnet replaces the file system, its data repository associations and the node groups in it. Pool limits and node
    counts move freely under it; the deploy check warns when they could outgrow its addresses.
    """
    return ipaddress.ip_network(cidr).prefixlen + 1


def largest_fitting_prefix(cidr: str, zones: int) -> int | None:
    """The shortest training subnet prefix that fits ``cidr`` beside ``zones`` zones' shared subnets (None: none)."""
    network = ipaddress.ip_network(cidr)
    return next((p for p in range(network.prefixlen + 1, 29) if training_prefix_fits(cidr, zones, p)), None)


def training_subnet_prefix(ips_needed: int) -> int:
    """Smallest subnet prefix (largest number) whose usable addresses cover ``ips_needed``."""
    return 32 - math.ceil(math.log2(ips_needed + AWS_RESERVED_IPS))


def training_ips_needed(ip_interfaces_per_node: Sequence[tuple[int, int]],
                        pod_ips_per_node: int = DEFAULT_POD_IPS_PER_NODE) -> int:
    """Addresses the training subnet must hold for ``(max_nodes, ip_interfaces)`` pairs, with headroom.

    An EFA interface of type ``efa`` takes an address; one of type ``efa-only`` takes none, which is why
    p5 nodes with 31 ``efa-only`` cards need far fewer addresses than 32 ENIs suggest.
    """
    raw = sum(nodes * (interfaces + pod_ips_per_node) for nodes, interfaces in ip_interfaces_per_node)
    return math.ceil(raw * HEADROOM)


def shared_addresses(zones: int) -> int:
    """Addresses the public and private subnets of ``zones`` zones take from the bottom of the VPC range."""
    return zones * (2 ** (32 - PUBLIC_MASK) + 2 ** (32 - PRIVATE_MASK))


def training_prefix_fits(cidr: str, zones: int, prefix: int) -> bool:
    """Whether a training subnet of ``/prefix``, carved from the top of ``cidr``, leaves room for the shared ones."""
    network = ipaddress.ip_network(cidr)
    if prefix < network.prefixlen + 1 or prefix > 32:
        return False
    training_block = list(network.subnets(new_prefix=prefix))[-1]
    return int(network.network_address) + shared_addresses(zones) <= int(training_block.network_address)


def most_training_ips(cidr: str, zones: int) -> int:
    """The most addresses a training subnet can hold in ``cidr`` beside ``zones`` zones' shared subnets (0: none)."""
    prefix = largest_fitting_prefix(cidr, zones)
    return 0 if prefix is None else 2 ** (32 - prefix) - AWS_RESERVED_IPS
