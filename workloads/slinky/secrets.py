"""The keys and the password no template may hold, made inside the cluster by a Job from the kernel's random source.

The Job's script is generate_secrets.py beside this module (plain stdlib, shipped in a ConfigMap); it creates a
Secret only if absent, so re-running never rotates a key under a running cluster.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources as package_files
from typing import Any, Literal

from eks_training.core.names import SYSTEM_NODE_SELECTOR
from eks_training.workloads.labels import common_labels
from eks_training.workloads.slinky.parts import POD_LABELS, api_object, object_metadata, resources
from eks_training.workloads.slinky.settings import COMPONENT

SECRET_GENERATOR_IMAGE = "docker.io/library/python:3.13-alpine"
#: Runs in the generator Job's pod (see generate_secrets.py: random bytes from os.urandom, existing Secrets left as
#: they are). A file of its own so it is read, linted and tested as the Python it is, not as a string.
SECRET_GENERATOR_SCRIPT = package_files.files(__package__).joinpath("generate_secrets.py").read_text(encoding="utf-8")


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


def secret_ref(secret: GeneratedSecret) -> dict[str, str]:
    return {"name": secret.name, "key": secret.key}


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
            "metadata": POD_LABELS,
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
                        "resources": resources("50m", "64Mi"),
                        "securityContext": hardened,
                        "volumeMounts": [{"name": "scripts", "mountPath": "/scripts", "readOnly": True}],
                    }
                ],
                "volumes": [{"name": "scripts", "configMap": {"name": name}}],
            },
        },
    }
    return [
        api_object("v1", "ServiceAccount", object_metadata(name, namespace)),
        api_object(
            "rbac.authorization.k8s.io/v1",
            "Role",
            object_metadata(name, namespace),
            # Kubernetes RBAC cannot narrow `create` by resourceNames; the Role grants create only, so the Job
            # can neither read nor change any Secret, and the script names exactly the ones above.
            rules=[{"apiGroups": [""], "resources": ["secrets"], "verbs": ["create"]}],
        ),
        api_object(
            "rbac.authorization.k8s.io/v1",
            "RoleBinding",
            object_metadata(name, namespace),
            roleRef={"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
            subjects=[{"kind": "ServiceAccount", "name": name, "namespace": namespace}],
        ),
        api_object("v1", "ConfigMap", object_metadata(name, namespace), data={"generate_secrets.py": SECRET_GENERATOR_SCRIPT}),
        api_object("batch/v1", "Job", object_metadata(name, namespace), spec=job_spec),
    ]
