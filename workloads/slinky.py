"""A Slurm cluster on Kubernetes through the Slinky slurm-operator (`slinky.slurm.net/v1beta1`, operator 1.2.1).

The operator (installed by the lead from its pinned Helm chart, with its CRDs and cert-manager) reconciles five
custom resources that this chart emits: Controller (slurmctld), Accounting (slurmdbd), RestApi (slurmrestd),
LoginSet (login pods behind an SSH load balancer) and one NodeSet (slurmd pods) per Slurm partition. The
`SlurmCluster`/`SlurmNodeSet` v1alpha1 kinds of the source document never existed and are never emitted.

No key or password is ever rendered: a small Job creates the Slurm auth key, the JWT key and the accounting
database password inside the cluster, each only if absent, from the kernel's random source. The CRs and the
MariaDB StatefulSet only name those Secrets.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

import cdk8s
import constructs

from eks_training.core.catalog import (
    ACCELERATOR_RESOURCE,
    EFA_RESOURCE,
    accelerator_tolerations,
    instance_facts,
)
from eks_training.workloads.k8s_objects import (
    check_choice,
    check_dns_label,
    check_dns_subdomain,
    check_int,
    check_unique,
    emit,
    quantity_value,
)
from eks_training.workloads.labels import common_labels
from eks_training.core.names import FSX_MOUNT_PATH, SYSTEM_NODE_SELECTOR

SLINKY_API_VERSION = "slinky.slurm.net/v1beta1"
SLURM_OPERATOR_VERSION = "1.2.1"
SLURM_IMAGE_REGISTRY = "ghcr.io/slinkyproject"
#: The slurm chart 1.2.1 default (Slurm 26.05); 25.11 tags are accepted too.
DEFAULT_SLURM_IMAGE_TAG = "26.05-ubuntu26.04"
SUPPORTED_SLURM_RELEASES = ("25.11", "26.05")
#: The logfile/initconf sidecars only need a shell; the upstream chart's `alpine:latest` is pinned here.
SIDECAR_IMAGE = "docker.io/library/alpine:3.22"
SECRET_GENERATOR_IMAGE = "docker.io/library/python:3.13-alpine"
#: MariaDB 11.4 is an LTS release (supported to 2029) and a database slurmdbd supports.
MARIADB_IMAGE = "docker.io/library/mariadb:11.4"
COMPONENT = "slurm"
SHARED_MOUNT_PATH = FSX_MOUNT_PATH  # one mount path everywhere
SSSD_CONF_KEY = "sssd.conf"

_NLB_ANNOTATION_PREFIX = "service.beta.kubernetes.io/aws-load-balancer-"
_INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
#: The source document's Karpenter pools taint Slurm nodes with their partition; tolerating it is harmless elsewhere.
_PARTITION_TAINT = "slurm.schedmd.com/partition"
_SECRET_KEY = re.compile(r"^[-._a-zA-Z0-9]+$")
_SLURM_FEATURE = re.compile(r"^[A-Za-z0-9_.-]+$")
_SLURM_IMAGE_TAG = re.compile(r"^(\d+\.\d+)(\.\d+)?-[a-z]+[a-z0-9.]*$")
_SSH_PUBLIC_KEY = re.compile(r"^(ssh-(ed25519|rsa)|ecdsa-sha2-nistp(256|384|521)|sk-[a-z0-9@.-]+) [A-Za-z0-9+/=]+( .*)?$")
_HOST = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9.:]*[A-Za-z0-9])?$")


# --- input checks (one-line errors; the generic ones live in k8s_objects) -------------------------------------------


def _check_short_name(field: str, value: object, max_length: int) -> str:
    """An RFC 1123 label short enough to prefix the operator's derived names (pods, Services, hostnames)."""
    check_dns_label(field, value)
    if len(value) > max_length:  # type: ignore[arg-type]
        raise ValueError(f"{field}={value!r} is too long: use at most {max_length} characters")
    return value  # type: ignore[return-value]


def _check_positive_quantity(field: str, value: object) -> Decimal:
    amount = quantity_value(field, value)
    if amount <= 0:
        raise ValueError(f"{field}={value!r} is not allowed: use a quantity above zero, e.g. '500m', '8' or '64Gi'")
    return amount


def _check_storage_class(field: str, value: object) -> str | None:
    return None if value is None else check_dns_subdomain(field, value)


# --- settings -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SlurmPartition:
    """One Slurm partition, served by one NodeSet of slurmd pods on one accelerated instance type.

    `devices_per_node` (GPUs or Neuron devices) and `efa_interfaces` default to everything the instance type has;
    `cpu`/`memory` are the slurmd pod's requests (and limits: Slurm sizes the node from the limits) and must stay
    below the instance's capacity so kubelet reservations and DaemonSets still fit. `max_nodes` caps one job's
    nodes (Slurm `MaxNodes`); `features` become Slurm node features for `--constraint`.
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

    def __post_init__(self) -> None:
        where = f"partition {self.name!r}"
        name = _check_short_name("SlurmPartition.name", self.name, 24)
        if name == "default":
            raise ValueError("SlurmPartition.name='default' is not allowed: Slurm reserves it (PartitionName=DEFAULT)")
        check_choice(f"{where}: accelerator", self.accelerator, tuple(ACCELERATOR_RESOURCE))
        facts = instance_facts(self.instance_type, field=f"{where}: instance_type")
        if facts.accelerator != self.accelerator:
            raise ValueError(
                f"{where}: accelerator={self.accelerator!r} does not match instance_type={self.instance_type!r},"
                f" which has {facts.accelerator} accelerators"
            )
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
            raise ValueError(
                f"{where}: cpu={self.cpu!r} is not allowed: stay below the {facts.vcpus} vCPUs of {self.instance_type}"
                " (kubelet reservations and DaemonSets need room)"
            )
        if _check_positive_quantity(f"{where}: memory", self.memory) >= facts.memory_gib * 2**30:
            raise ValueError(
                f"{where}: memory={self.memory!r} is not allowed: stay below the {facts.memory_gib}Gi of {self.instance_type}"
                " (kubelet reservations and DaemonSets need room)"
            )
        features = tuple(self.features)
        for feature in features:
            if not isinstance(feature, str) or not _SLURM_FEATURE.match(feature):
                raise ValueError(
                    f"{where}: features entry {feature!r} is not allowed: use letters, digits, '_', '.' or '-'"
                )
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
            raise ValueError(f"accounting.host={self.host!r} is not a hostname or IP address")
        check_dns_subdomain("accounting.password_secret_name", self.password_secret_name)
        if not isinstance(self.password_secret_key, str) or not _SECRET_KEY.match(self.password_secret_key):
            raise ValueError(
                f"accounting.password_secret_key={self.password_secret_key!r} is not a Secret key:"
                " use letters, digits, '-', '_' or '.'"
            )
        check_int("accounting.port", self.port, minimum=1, maximum=65535)
        for field, value in (("accounting.database", self.database), ("accounting.username", self.username)):
            if not isinstance(value, str) or not re.match(r"^[A-Za-z0-9_]{1,64}$", value):
                raise ValueError(f"{field}={value!r} is not allowed: use 1-64 letters, digits or '_'")


@dataclass(frozen=True)
class SlurmLoginSettings:
    """Login pods and the Service that exposes their SSH port.

    By default a ClusterIP Service (reach it with `kubectl port-forward` or from inside the VPC's pods): the
    platform installs no load balancer controller. `load_balancer=True` asks for an AWS NLB, which needs the AWS
    Load Balancer Controller installed by you (internal unless `internet_facing`, which must name the client CIDRs
    it admits in `source_ranges`). `root_ssh_authorized_keys` are public keys (no secret) for root's authorized_keys.
    """

    replicas: int = 1
    load_balancer: bool = False
    internet_facing: bool = False
    source_ranges: tuple[str, ...] = ()
    root_ssh_authorized_keys: tuple[str, ...] = ()
    cpu: str = "2"
    memory: str = "4Gi"

    def __post_init__(self) -> None:
        check_int("login.replicas", self.replicas, minimum=1)
        _check_positive_quantity("login.cpu", self.cpu)
        _check_positive_quantity("login.memory", self.memory)
        ranges = tuple(self.source_ranges)
        for cidr in ranges:
            try:
                ipaddress.ip_network(cidr)
            except (TypeError, ValueError):
                raise ValueError(f"login.source_ranges entry {cidr!r} is not a CIDR block such as 10.0.0.0/16") from None
        if (self.internet_facing or ranges) and not self.load_balancer:
            raise ValueError(f"login.internet_facing={self.internet_facing} / source_ranges={list(ranges)} need "
                             "load_balancer=True (and the AWS Load Balancer Controller): a ClusterIP Service ignores them")
        if self.internet_facing and not ranges:
            raise ValueError(
                "login.source_ranges=() is not allowed with internet_facing=True: name at least one client CIDR block"
            )
        keys = tuple(self.root_ssh_authorized_keys)
        for key in keys:
            if not isinstance(key, str) or "\n" in key or not _SSH_PUBLIC_KEY.match(key):
                raise ValueError(
                    f"login.root_ssh_authorized_keys entry {str(key)[:40]!r} is not one OpenSSH public key line"
                )
        object.__setattr__(self, "source_ranges", ranges)
        object.__setattr__(self, "root_ssh_authorized_keys", keys)


@dataclass(frozen=True)
class GeneratedSecret:
    """A Secret the in-cluster generator creates once: `size` random bytes, stored raw or as URL-safe text."""

    name: str
    key: str
    encoding: Literal["raw", "text"]
    size: int


def generated_secrets(cluster_name: str, *, in_cluster_database: bool) -> tuple[GeneratedSecret, ...]:
    """The Secrets the generator Job creates for `cluster_name` (the CRs reference exactly these)."""
    secrets = [
        # Slurm's docs make the auth/slurm key from 1024 random bytes and the HS256 key from 32.
        GeneratedSecret(f"{cluster_name}-slurm-key", "slurm.key", "raw", 1024),
        GeneratedSecret(f"{cluster_name}-jwt-key", "jwt_hs256.key", "raw", 32),
    ]
    if in_cluster_database:
        secrets.append(GeneratedSecret(f"{cluster_name}-mariadb-password", "password", "text", 32))
    return tuple(secrets)


def check_slurm_image_tag(tag: object) -> str:
    """Return `tag` when it is a ghcr.io/slinkyproject tag of a supported Slurm release, else raise one line."""
    match = _SLURM_IMAGE_TAG.match(tag) if isinstance(tag, str) else None
    if not match or match.group(1) not in SUPPORTED_SLURM_RELEASES:
        raise ValueError(
            f"slurm_image_tag={tag!r} is not allowed: use a {SLURM_IMAGE_REGISTRY} tag of Slurm"
            f" {' or '.join(SUPPORTED_SLURM_RELEASES)}, e.g. {DEFAULT_SLURM_IMAGE_TAG!r}"
        )
    return tag


# --- pieces shared by the builders -------------------------------------------------------------------------------


def _metadata(name: str, namespace: str | None, **extra: Any) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "labels": common_labels(COMPONENT)}
    if namespace is not None:
        metadata["namespace"] = namespace
    metadata.update(extra)
    return metadata


def _object(api_version: str, kind: str, metadata: dict[str, Any], **body: Any) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": metadata, **body}


def _image(component: str, tag: str) -> str:
    return f"{SLURM_IMAGE_REGISTRY}/{component}:{tag}"


def _resources(cpu: str, memory: str, extended: dict[str, int] | None = None) -> dict[str, Any]:
    """Requests with memory (and extended resources) also as limits: Slurm sizes a node from the limits, and
    extended resources must have equal requests and limits."""
    extra = {name: count for name, count in (extended or {}).items() if count > 0}
    return {"requests": {"cpu": cpu, "memory": memory, **extra}, "limits": {"memory": memory, **extra}}


def _shared_volume(fsx_claim_name: str) -> dict[str, Any]:
    return {"name": "shared", "persistentVolumeClaim": {"claimName": fsx_claim_name}}


_SHARED_MOUNT = {"name": "shared", "mountPath": SHARED_MOUNT_PATH}
_POD_LABELS = {"labels": common_labels(COMPONENT)}


def _secret_ref(secret: GeneratedSecret) -> dict[str, str]:
    return {"name": secret.name, "key": secret.key}


# --- custom resources --------------------------------------------------------------------------------------------


def build_nodeset(
    partition: SlurmPartition,
    *,
    cluster_name: str,
    namespace: str,
    fsx_claim_name: str,
    image_tag: str,
    default_partition: bool = False,
    slurmd_image: str | None = None,
) -> dict[str, Any]:
    """A NodeSet whose pods serve Slurm partition `partition.name` on `partition.instance_type` nodes."""
    # The operator names the Slurm NodeSet and partition after the pod hostname prefix, so the partition is
    # `partition.name` whatever the object is called.
    partition_config = ["State=UP", "MaxTime=UNLIMITED", "OverSubscribe=EXCLUSIVE"]
    if partition.max_nodes is not None:
        partition_config.append(f"MaxNodes={partition.max_nodes}")
    if default_partition:
        partition_config.append("Default=YES")
    node_conf = []
    if partition.features:
        node_conf.append("Features=" + ",".join(partition.features))
    if partition.accelerator == "nvidia":
        # Untyped: gres.conf AutoDetect fills the GPU type and device files.
        node_conf.append(f"Gres=gpu:{partition.devices_per_node}")
    extended = {
        ACCELERATOR_RESOURCE[partition.accelerator]: partition.devices_per_node,
        # Without the EFA devices in the pod, NCCL silently falls back to TCP.
        EFA_RESOURCE: partition.efa_interfaces,
    }
    spec: dict[str, Any] = {
        "controllerRef": {"name": cluster_name},
        "replicas": partition.replicas,
        "scalingMode": "StatefulSet",
        "partition": {"enabled": True, "config": " ".join(partition_config)},
        "slurmd": {
            # Our slurmd image (Slinky's slurmd plus the trainer) when given: srun runs torchrun in this container.
            "image": slurmd_image or _image("slurmd", image_tag),
            "resources": _resources(partition.cpu, partition.memory, extended),
            "volumeMounts": [_SHARED_MOUNT, {"name": "shm", "mountPath": "/dev/shm"}],
        },
        "logfile": {"image": SIDECAR_IMAGE},
        "template": {
            "metadata": _POD_LABELS,
            "spec": {
                "hostname": f"{partition.name}-",
                "nodeSelector": {_INSTANCE_TYPE_LABEL: partition.instance_type},
                "tolerations": [
                    *accelerator_tolerations(partition.accelerator),
                    {"key": _PARTITION_TAINT, "operator": "Equal", "value": partition.name, "effect": "NoSchedule"},
                ],
                "volumes": [
                    _shared_volume(fsx_claim_name),
                    # NCCL and DataLoader workers need far more shared memory than the runtime's 64 MiB default.
                    {"name": "shm", "emptyDir": {"medium": "Memory"}},
                ],
            },
        },
        # A running training job is never evicted by a voluntary disruption (node drain, consolidation).
        "workloadDisruptionProtection": True,
    }
    if node_conf:
        spec["extraConf"] = " ".join(node_conf)
    name = f"{cluster_name}-worker-{partition.name}"
    return _object(SLINKY_API_VERSION, "NodeSet", _metadata(name, namespace), spec=spec)


def build_controller(
    *,
    cluster_name: str,
    namespace: str,
    settings: SlurmControllerSettings,
    secrets: Sequence[GeneratedSecret],
    image_tag: str,
    accounting_name: str | None,
    config_files_name: str | None,
    extra_conf: str | None,
) -> dict[str, Any]:
    """The Controller (slurmctld) with its save-state volume, auth key references and optional accounting."""
    slurm_key, jwt_key = secrets[0], secrets[1]
    persistence: dict[str, Any] = {
        "enabled": True,
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": settings.storage_size}},
    }
    if settings.storage_class:
        persistence["storageClassName"] = settings.storage_class
    spec: dict[str, Any] = {
        "clusterName": cluster_name,
        "slurmKeyRef": _secret_ref(slurm_key),
        "jwtKeyRef": _secret_ref(jwt_key),
        "slurmctld": {
            "image": _image("slurmctld", image_tag),
            "resources": _resources(settings.cpu, settings.memory),
        },
        "reconfigure": {"image": _image("slurmctld", image_tag)},
        "logfile": {"image": SIDECAR_IMAGE},
        "template": {"metadata": _POD_LABELS, "spec": {"nodeSelector": dict(SYSTEM_NODE_SELECTOR)}},
        "persistence": persistence,
    }
    if accounting_name:
        spec["accountingRef"] = {"name": accounting_name}
    if config_files_name:
        spec["configFileRefs"] = [{"name": config_files_name}]
    if extra_conf:
        spec["extraConf"] = extra_conf
    return _object(SLINKY_API_VERSION, "Controller", _metadata(cluster_name, namespace), spec=spec)


def build_rest_api(*, cluster_name: str, namespace: str, replicas: int, image_tag: str) -> dict[str, Any]:
    """The RestApi (slurmrestd) of the cluster's controller."""
    spec = {
        "controllerRef": {"name": cluster_name},
        "replicas": check_int("rest_api_replicas", replicas, minimum=1),
        "slurmrestd": {"image": _image("slurmrestd", image_tag), "resources": _resources("500m", "1Gi")},
        "template": {"metadata": _POD_LABELS, "spec": {"nodeSelector": dict(SYSTEM_NODE_SELECTOR)}},
    }
    return _object(SLINKY_API_VERSION, "RestApi", _metadata(cluster_name, namespace), spec=spec)


def build_accounting(
    *,
    cluster_name: str,
    namespace: str,
    database_host: str,
    database: InClusterMariaDb | ExternalMariaDb,
    password_ref: dict[str, str],
    secrets: Sequence[GeneratedSecret],
    image_tag: str,
) -> dict[str, Any]:
    """The Accounting (slurmdbd) CR, storing into MySQL/MariaDB at `database_host`."""
    external = database if isinstance(database, ExternalMariaDb) else None
    spec = {
        "slurmKeyRef": _secret_ref(secrets[0]),
        "jwtKeyRef": _secret_ref(secrets[1]),
        "slurmdbd": {"image": _image("slurmdbd", image_tag), "resources": _resources("500m", "1Gi")},
        "template": {"metadata": _POD_LABELS, "spec": {"nodeSelector": dict(SYSTEM_NODE_SELECTOR)}},
        "storageConfig": {
            "host": database_host,
            "port": external.port if external else 3306,
            "database": external.database if external else "slurm_acct_db",
            "username": external.username if external else "slurm",
            "passwordKeyRef": password_ref,
        },
    }
    return _object(SLINKY_API_VERSION, "Accounting", _metadata(cluster_name, namespace), spec=spec)


def build_login_set(
    *,
    cluster_name: str,
    namespace: str,
    settings: SlurmLoginSettings,
    sssd_secret_name: str,
    fsx_claim_name: str,
    image_tag: str,
) -> dict[str, Any]:
    """The LoginSet: login pods with the shared file system, SSH behind a ClusterIP Service (or an AWS NLB)."""
    annotations = {
        _NLB_ANNOTATION_PREFIX + "type": "external",
        _NLB_ANNOTATION_PREFIX + "nlb-target-type": "ip",
        _NLB_ANNOTATION_PREFIX + "scheme": "internet-facing" if settings.internet_facing else "internal",
    } if settings.load_balancer else {}
    service_spec: dict[str, Any] = {"type": "LoadBalancer" if settings.load_balancer else "ClusterIP"}
    if settings.source_ranges:
        service_spec["loadBalancerSourceRanges"] = list(settings.source_ranges)
    spec: dict[str, Any] = {
        "controllerRef": {"name": cluster_name},
        "replicas": settings.replicas,
        "sssdConfRef": {"name": sssd_secret_name, "key": SSSD_CONF_KEY},
        "login": {
            "image": _image("login", image_tag),
            "resources": _resources(settings.cpu, settings.memory),
            "volumeMounts": [_SHARED_MOUNT],
        },
        "initconf": {"image": SIDECAR_IMAGE},
        "template": {"metadata": _POD_LABELS, "spec": {"nodeSelector": dict(SYSTEM_NODE_SELECTOR),
                                                        "volumes": [_shared_volume(fsx_claim_name)]}},
        "service": {**({"metadata": {"annotations": annotations}} if annotations else {}), "spec": service_spec},
    }
    if settings.root_ssh_authorized_keys:
        spec["rootSshAuthorizedKeys"] = "\n".join(settings.root_ssh_authorized_keys) + "\n"
    return _object(SLINKY_API_VERSION, "LoginSet", _metadata(f"{cluster_name}-login", namespace), spec=spec)


# --- core objects --------------------------------------------------------------------------------------------------

#: Local users only (the login image's /etc/passwd); nothing in it is secret. Point `sssdConfRef` at another
#: Secret for LDAP/AD, whose bind credentials must then come from outside this chart.
SSSD_CONF = """\
[sssd]
services = nss,pam
domains = DEFAULT

[nss]
filter_groups = root,slurm
filter_users = root,slurm

[pam]

[domain/DEFAULT]
id_provider = proxy
proxy_lib_name = files
auth_provider = proxy
proxy_pam_target = sssd-shadowutils
"""

#: Runs in the generator Job's pod. Random bytes come from os.urandom (the kernel CSPRNG behind /dev/urandom).
#: A Secret that already exists is left untouched, so re-running never rotates a key under a running cluster.
SECRET_GENERATOR_SCRIPT = '''\
"""Create each Secret listed in $SECRETS_SPEC with fresh random bytes, unless it already exists."""
import base64
import json
import os
import ssl
import sys
import urllib.error
import urllib.request

ACCOUNT_DIR = os.environ.get("SERVICE_ACCOUNT_DIR", "/var/run/secrets/kubernetes.io/serviceaccount")


def read_account_file(name):
    with open(os.path.join(ACCOUNT_DIR, name), encoding="utf-8") as stream:
        return stream.read().strip()


def random_value(encoding, size):
    raw = os.urandom(size)
    # MariaDB and slurmdbd read a password as text; keys are used as raw bytes.
    return base64.urlsafe_b64encode(raw).rstrip(b"=") if encoding == "text" else raw


def main():
    host = os.environ["KUBERNETES_SERVICE_HOST"]
    if ":" in host:
        host = "[" + host + "]"
    namespace = read_account_file("namespace")
    url = "https://%s:%s/api/v1/namespaces/%s/secrets" % (host, os.environ["KUBERNETES_SERVICE_PORT"], namespace)
    context = ssl.create_default_context(cafile=os.path.join(ACCOUNT_DIR, "ca.crt"))
    headers = {"Authorization": "Bearer " + read_account_file("token"), "Content-Type": "application/json"}
    labels = json.loads(os.environ.get("SECRET_LABELS", "{}"))
    failures = 0
    for item in json.loads(os.environ["SECRETS_SPEC"]):
        value = random_value(item["encoding"], item["size"])
        body = {
            "apiVersion": "v1",
            "kind": "Secret",
            "type": "Opaque",
            "immutable": True,
            "metadata": {"name": item["name"], "labels": labels},
            "data": {item["key"]: base64.b64encode(value).decode("ascii")},
        }
        request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, context=context, timeout=30):
                print("created Secret " + item["name"])
        except urllib.error.HTTPError as error:
            if error.code == 409:
                print("Secret %s already exists; left unchanged" % item["name"])
            else:
                print("creating Secret %s failed: HTTP %d" % (item["name"], error.code), file=sys.stderr)
                failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
'''


def build_secret_generator(
    *, cluster_name: str, namespace: str, secrets: Sequence[GeneratedSecret]
) -> list[dict[str, Any]]:
    """ServiceAccount, Role, RoleBinding, script ConfigMap and Job that create `secrets` inside the cluster."""
    name = f"{cluster_name}-secret-generator"
    spec_json = json.dumps([{"name": s.name, "key": s.key, "encoding": s.encoding, "size": s.size} for s in secrets])
    hardened = {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]},
    }
    job_spec = {
        "backoffLimit": 6,
        # Gone after success, so a later deploy that changes the template re-creates it instead of failing on
        # the Job's immutable pod template; the script is idempotent.
        "ttlSecondsAfterFinished": 600,
        "template": {
            "metadata": _POD_LABELS,
            "spec": {
                "serviceAccountName": name,
                "automountServiceAccountToken": True,
                "restartPolicy": "OnFailure",
                "nodeSelector": dict(SYSTEM_NODE_SELECTOR),
                "securityContext": {
                    "runAsNonRoot": True,
                    "runAsUser": 65534,
                    "runAsGroup": 65534,
                    "seccompProfile": {"type": "RuntimeDefault"},
                },
                "containers": [
                    {
                        "name": "generate",
                        "image": SECRET_GENERATOR_IMAGE,
                        "command": ["python3", "-B", "/scripts/generate_secrets.py"],
                        "env": [
                            {"name": "SECRETS_SPEC", "value": spec_json},
                            {"name": "SECRET_LABELS", "value": json.dumps(common_labels(COMPONENT))},
                        ],
                        "resources": _resources("50m", "64Mi"),
                        "securityContext": hardened,
                        "volumeMounts": [{"name": "scripts", "mountPath": "/scripts", "readOnly": True}],
                    }
                ],
                "volumes": [{"name": "scripts", "configMap": {"name": name}}],
            },
        },
    }
    return [
        _object("v1", "ServiceAccount", _metadata(name, namespace)),
        _object(
            "rbac.authorization.k8s.io/v1",
            "Role",
            _metadata(name, namespace),
            # Kubernetes RBAC cannot narrow `create` by resourceNames; the Role grants create only, so the Job
            # can neither read nor change any Secret, and the script names exactly the ones above.
            rules=[{"apiGroups": [""], "resources": ["secrets"], "verbs": ["create"]}],
        ),
        _object(
            "rbac.authorization.k8s.io/v1",
            "RoleBinding",
            _metadata(name, namespace),
            roleRef={"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
            subjects=[{"kind": "ServiceAccount", "name": name, "namespace": namespace}],
        ),
        _object("v1", "ConfigMap", _metadata(name, namespace), data={"generate_secrets.py": SECRET_GENERATOR_SCRIPT}),
        _object("batch/v1", "Job", _metadata(name, namespace), spec=job_spec),
    ]


_MARIADB_SECRET_DIR = "/run/secrets/mariadb"


def build_mariadb(
    *, cluster_name: str, namespace: str, settings: InClusterMariaDb, password: GeneratedSecret
) -> tuple[str, list[dict[str, Any]]]:
    """(host, [headless Service, StatefulSet]) of the in-cluster accounting database."""
    name = f"{cluster_name}-mariadb"
    selector = {"app.kubernetes.io/name": "mariadb", "app.kubernetes.io/instance": name}
    labels = {**common_labels(COMPONENT), **selector}
    claim: dict[str, Any] = {
        "metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": settings.storage_size}}},
    }
    if settings.storage_class:
        claim["spec"]["storageClassName"] = settings.storage_class
    container = {
        "name": "mariadb",
        "image": MARIADB_IMAGE,
        # Slurm's accounting guide asks for a large buffer pool and a long lock wait for slurmdbd's schema work.
        "args": ["--innodb-buffer-pool-size=1G", "--innodb-lock-wait-timeout=900"],
        "env": [
            {"name": "MARIADB_DATABASE", "value": "slurm_acct_db"},
            {"name": "MARIADB_USER", "value": "slurm"},
            # From a mounted file, not an environment variable (env leaks into /proc and crash dumps).
            {"name": "MARIADB_PASSWORD_FILE", "value": f"{_MARIADB_SECRET_DIR}/{password.key}"},
            # No root password is ever needed by slurmdbd; the image picks a random one and prints nothing of it.
            {"name": "MARIADB_RANDOM_ROOT_PASSWORD", "value": "1"},
        ],
        "ports": [{"name": "mysql", "containerPort": 3306}],
        "readinessProbe": {
            "exec": {"command": ["healthcheck.sh", "--connect", "--innodb_initialized"]},
            "periodSeconds": 10,
        },
        # Generous: the first start initialises the data directory and slurmdbd's schema work holds locks long.
        "livenessProbe": {
            "exec": {"command": ["healthcheck.sh", "--connect"]},
            "initialDelaySeconds": 120, "periodSeconds": 30, "timeoutSeconds": 10, "failureThreshold": 6,
        },
        "resources": _resources(settings.cpu, settings.memory),
        "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]},
                            "readOnlyRootFilesystem": True},
        # The server writes only its data, its socket/pid folder and temporary files.
        "volumeMounts": [{"name": "data", "mountPath": "/var/lib/mysql"},
                         {"name": "run", "mountPath": "/run/mysqld"}, {"name": "tmp", "mountPath": "/tmp"},
                         {"name": "password", "mountPath": _MARIADB_SECRET_DIR, "readOnly": True}],
    }
    service = _object(
        "v1",
        "Service",
        _metadata(name, namespace, labels=labels),
        spec={"clusterIP": "None", "selector": selector, "ports": [{"name": "mysql", "port": 3306}]},
    )
    stateful_set = _object(
        "apps/v1",
        "StatefulSet",
        _metadata(name, namespace, labels=labels),
        spec={
            "serviceName": name,
            "replicas": 1,
            "selector": {"matchLabels": selector},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    # The image's mysql user (999) owns the data directory.
                    "securityContext": {"runAsNonRoot": True, "runAsUser": 999, "runAsGroup": 999, "fsGroup": 999,
                                        "seccompProfile": {"type": "RuntimeDefault"}},
                    "automountServiceAccountToken": False,  # the database never talks to the API
                    "nodeSelector": dict(SYSTEM_NODE_SELECTOR),
                    "containers": [container],
                    "volumes": [{"name": "run", "emptyDir": {}}, {"name": "tmp", "emptyDir": {}},
                                {"name": "password", "secret": {"secretName": password.name,
                                                                "items": [{"key": password.key, "path": password.key}]}}],
                },
            },
            "volumeClaimTemplates": [claim],
        },
    )
    return f"{name}.{namespace}.svc", [service, stateful_set]


# --- the chart -----------------------------------------------------------------------------------------------------


class SlurmClusterChart(cdk8s.Chart):
    """A complete Slurm cluster for the Slinky operator: controller, accounting, REST API, login and partitions.

    `accounting` is an in-cluster MariaDB (default), an external database, or None (no accounting). The FSx
    claim `fsx_claim_name` (in `namespace`) is mounted at /shared in login and slurmd pods. Every Secret the CRs
    name is created in the cluster by the generator Job (or, for an external database, already exists).
    """

    def __init__(
        self,
        scope: constructs.Construct,
        id: str,
        *,
        cluster_name: str,
        partitions: Sequence[SlurmPartition],
        fsx_claim_name: str,
        namespace: str = "slurm",
        controller: SlurmControllerSettings = SlurmControllerSettings(),
        accounting: InClusterMariaDb | ExternalMariaDb | None = InClusterMariaDb(),
        rest_api_replicas: int = 1,
        login: SlurmLoginSettings = SlurmLoginSettings(),
        slurm_image_tag: str = DEFAULT_SLURM_IMAGE_TAG,
        slurmd_image: str | None = None,
        create_namespace: bool = True,
    ) -> None:
        _check_short_name("cluster_name", cluster_name, 30)
        check_dns_label("namespace", namespace)
        check_dns_subdomain("fsx_claim_name", fsx_claim_name)
        check_slurm_image_tag(slurm_image_tag)
        check_int("rest_api_replicas", rest_api_replicas, minimum=1)
        for field, value, kind in (
            ("controller", controller, SlurmControllerSettings),
            ("login", login, SlurmLoginSettings),
        ):
            if not isinstance(value, kind):
                raise ValueError(f"{field}={value!r} is not allowed: use a {kind.__name__}")
        if accounting is not None and not isinstance(accounting, (InClusterMariaDb, ExternalMariaDb)):
            raise ValueError(
                f"accounting={accounting!r} is not allowed: use InClusterMariaDb(), ExternalMariaDb(...) or None"
            )
        partitions = list(partitions)
        if not partitions or not all(isinstance(p, SlurmPartition) for p in partitions):
            raise ValueError(f"partitions={partitions!r} is not allowed: give one or more SlurmPartition objects")
        check_unique("partition names", [p.name for p in partitions])
        super().__init__(scope, id)

        secrets = generated_secrets(cluster_name, in_cluster_database=isinstance(accounting, InClusterMariaDb))
        objects: list[dict[str, Any]] = []
        if create_namespace:
            objects.append(_object("v1", "Namespace", _metadata(namespace, None)))
        objects += build_secret_generator(cluster_name=cluster_name, namespace=namespace, secrets=secrets)

        sssd_secret_name = f"{cluster_name}-sssd-conf"
        objects.append(
            _object("v1", "Secret", _metadata(sssd_secret_name, namespace), type="Opaque",
                    stringData={SSSD_CONF_KEY: SSSD_CONF})
        )
        uses_gpus = any(p.accelerator == "nvidia" for p in partitions)
        config_files_name = f"{cluster_name}-config-files" if uses_gpus else None
        if config_files_name:
            objects.append(
                _object("v1", "ConfigMap", _metadata(config_files_name, namespace),
                        data={"gres.conf": "AutoDetect=nvidia\n"})
            )

        if isinstance(accounting, InClusterMariaDb):
            host, database_objects = build_mariadb(
                cluster_name=cluster_name, namespace=namespace, settings=accounting, password=secrets[2]
            )
            objects += database_objects
            password_ref = _secret_ref(secrets[2])
        elif isinstance(accounting, ExternalMariaDb):
            host = accounting.host
            password_ref = {"name": accounting.password_secret_name, "key": accounting.password_secret_key}
        if accounting is not None:
            objects.append(
                build_accounting(cluster_name=cluster_name, namespace=namespace, database_host=host,
                                 database=accounting, password_ref=password_ref, secrets=secrets,
                                 image_tag=slurm_image_tag)
            )
        objects.append(
            build_controller(
                cluster_name=cluster_name, namespace=namespace, settings=controller, secrets=secrets,
                image_tag=slurm_image_tag, accounting_name=cluster_name if accounting is not None else None,
                config_files_name=config_files_name, extra_conf="GresTypes=gpu" if uses_gpus else None,
            )
        )
        objects.append(
            build_rest_api(cluster_name=cluster_name, namespace=namespace, replicas=rest_api_replicas,
                           image_tag=slurm_image_tag)
        )
        objects.append(
            build_login_set(cluster_name=cluster_name, namespace=namespace, settings=login,
                            sssd_secret_name=sssd_secret_name, fsx_claim_name=fsx_claim_name,
                            image_tag=slurm_image_tag)
        )
        for index, partition in enumerate(partitions):
            objects.append(
                build_nodeset(partition, cluster_name=cluster_name, namespace=namespace,
                              fsx_claim_name=fsx_claim_name, image_tag=slurm_image_tag,
                              default_partition=index == 0, slurmd_image=slurmd_image)
            )
        for obj in objects:
            emit(self, obj)

