"""The in-cluster accounting database: a one-replica MariaDB StatefulSet behind a headless Service."""

from __future__ import annotations

from typing import Any

from eks_training.core.names import SYSTEM_NODE_SELECTOR
from eks_training.workloads.labels import common_labels
from eks_training.workloads.slinky.parts import api_object, object_metadata, resources
from eks_training.workloads.slinky.secrets import GeneratedSecret
from eks_training.workloads.slinky.settings import COMPONENT, InClusterMariaDb

#: MariaDB 11.4 is an LTS release (supported to 2029) and a database slurmdbd supports.
MARIADB_IMAGE = "docker.io/library/mariadb:11.4"
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
        "resources": resources(settings.cpu, settings.memory),
        "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]},
                            "readOnlyRootFilesystem": True},
        # The server writes only its data, its socket/pid folder and temporary files.
        "volumeMounts": [{"name": "data", "mountPath": "/var/lib/mysql"},
                         {"name": "run", "mountPath": "/run/mysqld"}, {"name": "tmp", "mountPath": "/tmp"},
                         {"name": "password", "mountPath": _MARIADB_SECRET_DIR, "readOnly": True}],
    }
    service = api_object(
        "v1",
        "Service",
        object_metadata(name, namespace, labels=labels),
        spec={"clusterIP": "None", "selector": selector, "ports": [{"name": "mysql", "port": 3306}]},
    )
    stateful_set = api_object(
        "apps/v1",
        "StatefulSet",
        object_metadata(name, namespace, labels=labels),
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
