"""The Slinky custom resources (`slinky.slurm.net/v1beta1`): NodeSet, Controller, RestApi, Accounting and LoginSet."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eks_training.core.catalog import ACCELERATOR_RESOURCE, EFA_RESOURCE, accelerator_tolerations
from eks_training.core.names import LABEL_POOL, SLURM_PARTITION_TAINT, TEAM_NODE_SELECTOR, system_placement
from eks_training.workloads.fsx_volumes import fsx_mounts, fsx_pod_volumes
from eks_training.workloads.internal_load_balancer import InternalLoadBalancer
from eks_training.workloads.k8s_objects import check_int
from eks_training.workloads.slinky.parts import (
    POD_LABELS,
    api_object,
    object_metadata,
    resources,
    slurm_image,
)
from eks_training.workloads.slinky.secrets import GeneratedSecret, secret_ref
from eks_training.workloads.slinky.settings import (
    SLINKY_API_VERSION,
    SSSD_CONF_KEY,
    ExternalMariaDb,
    InClusterMariaDb,
    SlurmControllerSettings,
    SlurmLoginSettings,
    SSHD_SETTINGS,
    SlurmPartition,
    sidecar,
)

_INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
#: The partitions' own pools taint their nodes with the partition (core.names.SLURM_PARTITION_TAINT).
_PARTITION_TAINT = SLURM_PARTITION_TAINT

#: Local users only (the login image's /etc/passwd); nothing in it is secret. Point `sssdConfRef` at another
#: Secret for LDAP/AD, whose bind credentials must then come from outside this chart. ``min_id = 1000``: no
#: account with a system uid logs in, root and slurm (uid 401, which owns the Slurm key in the login pod) among
#: them, whatever its name; a directory's configuration needs the same line.
SSSD_CONF = """\
[sssd]
services = nss,pam
domains = DEFAULT

[nss]
filter_groups = root,slurm
filter_users = root,slurm

[pam]

[domain/DEFAULT]
min_id = 1000
id_provider = proxy
proxy_lib_name = files
auth_provider = proxy
proxy_pam_target = sssd-shadowutils
"""


def build_nodeset(
    partition: SlurmPartition,
    *,
    cluster_name: str,
    namespace: str,
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
            "image": slurmd_image or slurm_image("slurmd", image_tag),
            "resources": resources(partition.cpu, partition.memory, extended),
            "volumeMounts": [*fsx_mounts(), {"name": "shm", "mountPath": "/dev/shm"}],
        },
        "logfile": sidecar(),
        "template": {
            "metadata": POD_LABELS,
            "spec": {
                "hostname": f"{partition.name}-",
                "nodeSelector": {_INSTANCE_TYPE_LABEL: partition.instance_type,
                                 **({LABEL_POOL: partition.node_pool} if partition.node_pool else {})},
                "tolerations": [
                    *accelerator_tolerations(partition.accelerator),
                    {"key": _PARTITION_TAINT, "operator": "Equal", "value": partition.name, "effect": "NoSchedule"},
                ],
                "volumes": [
                    *fsx_pod_volumes(),
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
    return api_object(SLINKY_API_VERSION, "NodeSet", object_metadata(name, namespace), spec=spec)


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
        "slurmKeyRef": secret_ref(slurm_key),
        "jwtKeyRef": secret_ref(jwt_key),
        "slurmctld": {
            "image": slurm_image("slurmctld", image_tag),
            "resources": resources(settings.cpu, settings.memory),
        },
        "reconfigure": {"image": slurm_image("slurmctld", image_tag)},
        "logfile": sidecar(),
        "template": {"metadata": POD_LABELS, "spec": system_placement()},
        "persistence": persistence,
    }
    if accounting_name:
        spec["accountingRef"] = {"name": accounting_name}
    if config_files_name:
        spec["configFileRefs"] = [{"name": config_files_name}]
    if extra_conf:
        spec["extraConf"] = extra_conf
    return api_object(SLINKY_API_VERSION, "Controller", object_metadata(cluster_name, namespace), spec=spec)


def build_rest_api(*, cluster_name: str, namespace: str, replicas: int, image_tag: str) -> dict[str, Any]:
    """The RestApi (slurmrestd) of the cluster's controller."""
    spec = {
        "controllerRef": {"name": cluster_name},
        "replicas": check_int("rest_api_replicas", replicas, minimum=1),
        "slurmrestd": {"image": slurm_image("slurmrestd", image_tag), "resources": resources("500m", "1Gi")},
        "template": {"metadata": POD_LABELS, "spec": system_placement()},
    }
    return api_object(SLINKY_API_VERSION, "RestApi", object_metadata(cluster_name, namespace), spec=spec)


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
        "slurmKeyRef": secret_ref(secrets[0]),
        "jwtKeyRef": secret_ref(secrets[1]),
        "slurmdbd": {"image": slurm_image("slurmdbd", image_tag), "resources": resources("500m", "1Gi")},
        "template": {"metadata": POD_LABELS, "spec": system_placement()},
        "storageConfig": {
            "host": database_host,
            "port": external.port if external else 3306,
            "database": external.database if external else "slurm_acct_db",
            "username": external.username if external else "slurm",
            "passwordKeyRef": password_ref,
        },
    }
    return api_object(SLINKY_API_VERSION, "Accounting", object_metadata(cluster_name, namespace), spec=spec)


def build_login_set(
    *,
    cluster_name: str,
    namespace: str,
    settings: SlurmLoginSettings,
    sssd_secret_name: str,
    image_tag: str,
) -> dict[str, Any]:
    """The LoginSet: login pods with the shared file system, SSH behind a ClusterIP Service (or an internal NLB)."""
    # People work here: the team CPU nodes, whose Lustre clients are root-squashed, never the system nodes.
    node_selector = dict(TEAM_NODE_SELECTOR)
    annotations: dict[str, str] = {}
    service_spec: dict[str, Any] = {"type": "ClusterIP"}
    if settings.load_balancer:
        # Targets: the nodes the login pods run on (their nodeSelector), so only those open the node port.
        nlb = InternalLoadBalancer(settings.source_ranges, node_selector, where="login load_balancer")
        annotations = nlb.annotations()
        service_spec = {"type": "LoadBalancer", "loadBalancerSourceRanges": list(nlb.source_ranges)}
    spec: dict[str, Any] = {
        "controllerRef": {"name": cluster_name},
        "replicas": settings.replicas,
        # The directory's SSSD configuration when given: the users who may log in, their uids and SSH keys.
        "sssdConfRef": {"name": settings.sssd_conf_secret or sssd_secret_name, "key": SSSD_CONF_KEY},
        "extraSshdConfig": SSHD_SETTINGS,
        "login": {
            "image": slurm_image("login", image_tag),
            "resources": resources(settings.cpu, settings.memory),
            "volumeMounts": fsx_mounts(),
            # People are logged in here: no setuid program (su, sudo) makes one of them root, who could read the
            # Slurm key (mode 0600, root's) and so act as anyone. sshd, sackd and sssd start as root and only drop.
            "securityContext": {"allowPrivilegeEscalation": False},
        },
        "initconf": sidecar(),
        "template": {"metadata": POD_LABELS, "spec": {"nodeSelector": node_selector, "volumes": fsx_pod_volumes()}},
        "service": {**({"metadata": {"annotations": annotations}} if annotations else {}), "spec": service_spec},
    }
    return api_object(SLINKY_API_VERSION, "LoginSet", object_metadata(login_service_name(cluster_name), namespace),
                      spec=spec)


def login_service_name(cluster_name: str) -> str:
    """The LoginSet's name, which the operator gives its Service too (slurm-operator 1.2.1, LoginSet.ServiceKey)."""
    return f"{cluster_name}-login"

