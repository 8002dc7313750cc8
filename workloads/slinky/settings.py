"""The Slurm cluster's settings: pins, the typed settings objects and their one-line input checks."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from eks_training.core.catalog import ACCELERATOR_RESOURCE, instance_facts
from eks_training.core.validation import invalid
from eks_training.core.versions import ALPINE_IMAGE
from eks_training.workloads.k8s_objects import check_choice, check_dns_label, check_dns_subdomain, check_int, quantity_value

SLINKY_API_VERSION = "slinky.slurm.net/v1beta1"
SLURM_OPERATOR_VERSION = "1.2.1"
SLURM_IMAGE_REGISTRY = "ghcr.io/slinkyproject"
#: The slurm chart 1.2.1 default (Slurm 26.05); 25.11 tags are accepted too.
DEFAULT_SLURM_IMAGE_TAG = "26.05-ubuntu26.04"
SUPPORTED_SLURM_RELEASES = ("25.11", "26.05")
#: The logfile/initconf sidecars only need a shell; the upstream chart's `alpine:latest`, pinned by digest here.
SIDECAR_IMAGE = ALPINE_IMAGE


def sidecar() -> dict[str, str]:
    """A Slinky sidecar container (logfile, initconf): the pinned shell image, never pulled again once on the node."""
    return {"image": SIDECAR_IMAGE, "imagePullPolicy": "IfNotPresent"}
COMPONENT = "slurm"
SSSD_CONF_KEY = "sssd.conf"

_SECRET_KEY = re.compile(r"^[-._a-zA-Z0-9]+$")
_SLURM_FEATURE = re.compile(r"^[A-Za-z0-9_.-]+$")
_SLURM_IMAGE_TAG = re.compile(r"^(\d+\.\d+)(\.\d+)?-[a-z]+[a-z0-9.]*$")
_SSH_PUBLIC_KEY = re.compile(r"^(ssh-(ed25519|rsa)|ecdsa-sha2-nistp(256|384|521)|sk-[a-z0-9@.-]+) [A-Za-z0-9+/=]+( .*)?$")
_HOST = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9.:]*[A-Za-z0-9])?$")


# Input checks: one-line errors; the generic ones live in k8s_objects.


def check_short_name(field: str, value: object, max_length: int) -> str:
    """An RFC 1123 label short enough to prefix the operator's derived names (pods, Services, hostnames)."""
    check_dns_label(field, value)
    if len(value) > max_length:  # type: ignore[arg-type]
        raise invalid(field, value, f"use at most {max_length} characters")
    return value  # type: ignore[return-value]


def _check_positive_quantity(field: str, value: object) -> Decimal:
    amount = quantity_value(field, value)
    if amount <= 0:
        raise invalid(field, value, "use a quantity above zero, e.g. '500m', '8' or '64Gi'")
    return amount


def _check_storage_class(field: str, value: object) -> str | None:
    return None if value is None else check_dns_subdomain(field, value)


@dataclass(frozen=True)
class SlurmPartition:
    """One Slurm partition, served by one NodeSet of slurmd pods on one accelerated instance type.

    `devices_per_node` (GPUs or Neuron devices) and `efa_interfaces` default to everything the instance type has;
    `cpu`/`memory` are the slurmd pod's requests (and limits: Slurm sizes the node from the limits) and must stay
    below the instance's capacity so kubelet reservations and DaemonSets still fit. `max_nodes` caps one job's
    nodes (Slurm `MaxNodes`); `features` become Slurm node features for `--constraint`. `node_pool`: the Karpenter
    pool of the partition's own nodes (its ``eks-training/pool`` label); slurmd runs privileged, so the platform
    gives each partition nodes no other workload lands on. Default None: any node of the instance type.
    """

    name: str
    instance_type: str
    accelerator: Literal["nvidia", "neuron"]
    replicas: int
    cpu: str
    memory: str
    devices_per_node: int | None = None
    efa_interfaces: int | None = None
    max_nodes: int | None = None
    features: tuple[str, ...] = ()
    node_pool: str | None = None

    def __post_init__(self) -> None:
        where = f"partition {self.name!r}"
        if self.node_pool is not None:
            check_dns_label(f"{where}: node_pool", self.node_pool)
        name = check_short_name("SlurmPartition.name", self.name, 24)
        if name == "default":
            raise invalid("SlurmPartition.name", name, "any name but 'default', which Slurm reserves (PartitionName=DEFAULT)")
        check_choice(f"{where}: accelerator", self.accelerator, tuple(ACCELERATOR_RESOURCE))
        facts = instance_facts(self.instance_type, field=f"{where}: instance_type")
        if facts.accelerator != self.accelerator:
            raise invalid(f"{where}: accelerator", self.accelerator,
                          f"use {facts.accelerator!r}, the accelerators of instance_type={self.instance_type!r}")
        devices = facts.accelerators if self.devices_per_node is None else self.devices_per_node
        check_int(f"{where}: devices_per_node", devices, minimum=1, maximum=facts.accelerators)
        efa = facts.efa_interfaces if self.efa_interfaces is None else self.efa_interfaces
        check_int(f"{where}: efa_interfaces", efa, minimum=0, maximum=facts.efa_interfaces)
        # 0 parks the partition (no slurmd pods, so no accelerated nodes); scale the NodeSet up to use it.
        replicas = check_int(f"{where}: replicas", self.replicas, minimum=0)
        if self.max_nodes is not None:
            # A job asking for more nodes than the partition has would pend forever.
            check_int(f"{where}: max_nodes", self.max_nodes, minimum=1, maximum=replicas or None)
        if _check_positive_quantity(f"{where}: cpu", self.cpu) >= facts.vcpus:
            raise invalid(f"{where}: cpu", self.cpu, f"stay below the {facts.vcpus} vCPUs of {self.instance_type} "
                                                     "(kubelet reservations and DaemonSets need room)")
        if _check_positive_quantity(f"{where}: memory", self.memory) >= facts.memory_gib * 2**30:
            raise invalid(f"{where}: memory", self.memory, f"stay below the {facts.memory_gib}Gi of {self.instance_type} "
                                                           "(kubelet reservations and DaemonSets need room)")
        features = tuple(self.features)
        for feature in features:
            if not isinstance(feature, str) or not _SLURM_FEATURE.match(feature):
                raise invalid(f"{where}: features entry", feature, "use letters, digits, '_', '.' or '-'")
        object.__setattr__(self, "devices_per_node", devices)
        object.__setattr__(self, "efa_interfaces", efa)
        object.__setattr__(self, "features", features)


@dataclass(frozen=True)
class SlurmControllerSettings:
    """slurmctld's requests and its save-state volume (`storage_class` None: the cluster's default class)."""

    cpu: str = "2"
    memory: str = "4Gi"
    storage_size: str = "50Gi"
    storage_class: str | None = None

    def __post_init__(self) -> None:
        _check_positive_quantity("controller.cpu", self.cpu)
        _check_positive_quantity("controller.memory", self.memory)
        _check_positive_quantity("controller.storage_size", self.storage_size)
        _check_storage_class("controller.storage_class", self.storage_class)


@dataclass(frozen=True)
class InClusterMariaDb:
    """A one-replica MariaDB StatefulSet for slurmdbd, with its data on a PersistentVolumeClaim."""

    storage_size: str = "100Gi"
    storage_class: str | None = None
    cpu: str = "1"
    memory: str = "4Gi"

    def __post_init__(self) -> None:
        _check_positive_quantity("accounting.storage_size", self.storage_size)
        _check_positive_quantity("accounting.cpu", self.cpu)
        _check_positive_quantity("accounting.memory", self.memory)
        _check_storage_class("accounting.storage_class", self.storage_class)


@dataclass(frozen=True)
class ExternalMariaDb:
    """A MySQL/MariaDB outside the cluster (e.g. Amazon RDS); its password lives in an existing Secret of the
    namespace (synced from AWS Secrets Manager, for instance) that this chart only names."""

    host: str
    password_secret_name: str
    password_secret_key: str = "password"
    port: int = 3306
    database: str = "slurm_acct_db"
    username: str = "slurm"

    def __post_init__(self) -> None:
        if not isinstance(self.host, str) or len(self.host) > 253 or not _HOST.match(self.host):
            raise invalid("accounting.host", self.host, "use a hostname or IP address")
        check_dns_subdomain("accounting.password_secret_name", self.password_secret_name)
        if not isinstance(self.password_secret_key, str) or not _SECRET_KEY.match(self.password_secret_key):
            raise invalid("accounting.password_secret_key", self.password_secret_key,
                          "use a Secret key: letters, digits, '-', '_' or '.'")
        check_int("accounting.port", self.port, minimum=1, maximum=65535)
        for field, value in (("accounting.database", self.database), ("accounting.username", self.username)):
            if not isinstance(value, str) or not re.match(r"^[A-Za-z0-9_]{1,64}$", value):
                raise invalid(field, value, "use 1-64 letters, digits or '_'")


#: sshd settings every login pod gets. People log in as themselves with the keys their directory holds (SSSD's
#: ``sss_ssh_authorizedkeys``), never as root, never with a password. The operator writes them last in sshd_config,
#: after its ``Include /etc/ssh/sshd_config.d/*.conf``, and sshd keeps the first value it reads of a global keyword:
#: a drop-in of the login image (cloud images ship ``PasswordAuthentication yes`` there) would win over global lines.
#: A ``Match all`` block overrides global values for every connection, so these hold whatever the image carries
#: (tests/workloads/test_sshd_config.py runs the real sshd on it).
SSHD_SETTINGS = """\
Match all
    PermitRootLogin no
    PasswordAuthentication no
    KbdInteractiveAuthentication no
    PermitEmptyPasswords no
    AuthenticationMethods publickey
    AuthorizedKeysCommand /usr/bin/sss_ssh_authorizedkeys %u
    AuthorizedKeysCommandUser nobody
"""


@dataclass(frozen=True)
class SlurmLoginSettings:
    """Login pods and the Service that exposes their SSH port.

    People log in over SSH as themselves: `sssd_conf_secret` names a Secret of the namespace (key `sssd.conf`) with
    the SSSD configuration of your directory (LDAP, Active Directory, FreeIPA), which gives each user their uid, gid
    and SSH public keys; sshd takes the keys from it (:data:`SSHD_SETTINGS`), refuses root and passwords. Without
    it the login pods know only the image's local users: nobody can log in. `root_ssh_authorized_keys` are public
    keys (no secret) for root's authorized_keys, refused while root login is off (always, here): kept for callers
    that name them, who get a one-line error.

    By default a ClusterIP Service. `load_balancer=True` puts SSH behind an internal NLB that EKS's AWS cloud
    provider makes (:mod:`eks_training.workloads.internal_load_balancer`), admitting `source_ranges` only (required
    with it): Slurm users need no Kubernetes identity. `internet_facing` is refused: a login node on the internet is
    a door for every SSH scanner.
    """

    replicas: int = 1
    load_balancer: bool = False
    internet_facing: bool = False
    source_ranges: tuple[str, ...] = ()
    root_ssh_authorized_keys: tuple[str, ...] = ()
    cpu: str = "2"
    memory: str = "4Gi"
    sssd_conf_secret: str | None = None

    def __post_init__(self) -> None:
        check_int("login.replicas", self.replicas, minimum=1)
        if self.sssd_conf_secret is not None:
            check_dns_subdomain("login.sssd_conf_secret", self.sssd_conf_secret)
        if self.internet_facing:
            raise invalid("login.internet_facing", True, "False: the login Service is an internal load balancer "
                          "(reach it from the VPC, a VPN or Direct Connect)")
        if self.load_balancer and not self.source_ranges:
            raise invalid("login.source_ranges", (), "the client networks the internal load balancer admits (e.g. "
                          "your VPN's 10.8.0.0/16) with load_balancer=True")
        _check_positive_quantity("login.cpu", self.cpu)
        _check_positive_quantity("login.memory", self.memory)
        ranges = tuple(self.source_ranges)
        for cidr in ranges:
            try:
                ipaddress.ip_network(cidr)
            except (TypeError, ValueError):
                raise invalid("login.source_ranges entry", cidr, "use a CIDR block such as 10.0.0.0/16") from None
        if (self.internet_facing or ranges) and not self.load_balancer:
            raise invalid("login.load_balancer", self.load_balancer,
                          f"True with internet_facing={self.internet_facing} / source_ranges={list(ranges)}: a "
                          "ClusterIP Service ignores them")
        if self.internet_facing and not ranges:
            raise invalid("login.source_ranges", ranges, "name at least one client CIDR block with internet_facing=True")
        keys = tuple(self.root_ssh_authorized_keys)
        for key in keys:
            if not isinstance(key, str) or "\n" in key or not _SSH_PUBLIC_KEY.match(key):
                raise invalid("login.root_ssh_authorized_keys entry", str(key)[:40], "use one OpenSSH public key line")
        if keys:
            raise invalid("login.root_ssh_authorized_keys", f"{len(keys)} key(s)", "none: root never logs in (root "
                          "reads the Slurm key and runs jobs as anyone); users log in as themselves through SSSD")
        object.__setattr__(self, "source_ranges", ranges)
        object.__setattr__(self, "root_ssh_authorized_keys", keys)


def check_slurm_image_tag(tag: object) -> str:
    """Return `tag` when it is a ghcr.io/slinkyproject tag of a supported Slurm release, else raise one line."""
    match = _SLURM_IMAGE_TAG.match(tag) if isinstance(tag, str) else None
    if not match or match.group(1) not in SUPPORTED_SLURM_RELEASES:
        raise invalid("slurm_image_tag", tag, f"use a {SLURM_IMAGE_REGISTRY} tag of Slurm "
                                              f"{' or '.join(SUPPORTED_SLURM_RELEASES)}, e.g. {DEFAULT_SLURM_IMAGE_TAG!r}")
    return tag
