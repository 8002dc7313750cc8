"""The keys and the password no template may hold, made inside the cluster by a Job from the kernel's random source.

The Job's script is generate_secrets.py beside this module (plain stdlib, shipped in a ConfigMap); it creates a
Secret only if absent, so re-running never rotates a key under a running cluster.

Its ServiceAccount, Role, RoleBinding, ConfigMap and Job are cdk8s-plus-28 constructs. plus's defaults are said
where they would change what the plain objects meant:

* ``automountServiceAccountToken``: plus writes false on the ServiceAccount (before: unset, so true); the Job's
  pod asks for the token itself (true, as before), and no other pod uses the account.
* container ``securityContext``: plus's runAsNonRoot/readOnlyRootFilesystem/no escalation/not privileged are
  given explicitly with the capabilities drop (:func:`~eks_training.workloads.plus_pods.hardened_container`).
* ``imagePullPolicy``: IfNotPresent (plus's default is Always; the image is pinned by digest); resources: 50m / 64Mi requests and a 64Mi memory limit, no CPU limit (plus's defaults are
  1 CPU / 512Mi requests, 1.5 CPU / 2Gi limits); ``restartPolicy``: OnFailure (plus's Job default is Never).
* system nodes through required node affinity (plus has no nodeSelector), the pod's seccompProfile through a
  JSON patch (plus-28 has none), as in :mod:`eks_training.workloads.mpi_operator_install`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources as package_files
from typing import Literal

import cdk8s
import cdk8s_plus_28 as kplus
import constructs

from eks_training.core.versions import PYTHON_IMAGE
from eks_training.workloads.labels import common_labels
from eks_training.workloads.plus_pods import (
    hardened_container,
    on_system_nodes,
    requests_with_memory_limit,
    runtime_default_seccomp,
)
from eks_training.workloads.slinky.parts import POD_LABELS
from eks_training.workloads.slinky.settings import COMPONENT

#: Python's standard library is all the script needs (core.versions pins it by digest).
SECRET_GENERATOR_IMAGE = PYTHON_IMAGE
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
    scope: constructs.Construct, *, cluster_name: str, namespace: str, secrets: Sequence[GeneratedSecret]
) -> kplus.Job:
    """ServiceAccount, Role, RoleBinding, script ConfigMap and Job (plus constructs in `scope`) that create
    `secrets` inside the cluster; returns the Job."""
    name = f"{cluster_name}-secret-generator"
    spec_json = json.dumps([{"name": s.name, "key": s.key, "encoding": s.encoding, "size": s.size} for s in secrets])

    def metadata() -> cdk8s.ApiObjectMetadata:
        return cdk8s.ApiObjectMetadata(name=name, namespace=namespace, labels=common_labels(COMPONENT))

    # False (plus's default, said here): only the Job's pod, which asks for it, gets a token.
    account = kplus.ServiceAccount(scope, f"ServiceAccount:{namespace}:{name}", metadata=metadata(), automount_token=False)
    role = kplus.Role(scope, f"Role:{namespace}:{name}", metadata=metadata())
    # Kubernetes RBAC cannot narrow `create` by resourceNames; the Role grants create only, so the Job can neither
    # read nor change any Secret, and the script names exactly the ones above.
    role.allow(["create"], kplus.ApiResource.SECRETS)
    kplus.RoleBinding(scope, f"RoleBinding:{namespace}:{name}", role=role, metadata=metadata()).add_subjects(account)
    script = kplus.ConfigMap(scope, f"ConfigMap:{namespace}:{name}", metadata=metadata(),
                             data={"generate_secrets.py": SECRET_GENERATOR_SCRIPT})
    scripts = kplus.Volume.from_config_map(scope, f"Volume:{namespace}:{name}:scripts", script, name="scripts")
    job = kplus.Job(
        scope, f"Job:{namespace}:{name}",
        metadata=metadata(),
        # plus also labels the pod with cdk8s.io/metadata.addr (its own address for the pod; no selector uses it).
        pod_metadata=cdk8s.ApiObjectMetadata(labels=POD_LABELS["labels"]),
        backoff_limit=6,
        # Gone after success, so a later deploy that changes the template re-creates it instead of failing on the
        # Job's immutable pod template; the script is idempotent.
        ttl_after_finished=cdk8s.Duration.seconds(600),
        service_account=account,
        automount_service_account_token=True,  # it creates Secrets through the API (plus's default: false)
        restart_policy=kplus.RestartPolicy.ON_FAILURE,  # plus's Job default: Never
        security_context=kplus.PodSecurityContextProps(ensure_non_root=True, user=65534, group=65534),
        volumes=[scripts],
    )
    on_system_nodes(job)
    runtime_default_seccomp(job)
    job.add_container(
        name="generate", image=SECRET_GENERATOR_IMAGE, command=["python3", "-B", "/scripts/generate_secrets.py"],
        image_pull_policy=kplus.ImagePullPolicy.IF_NOT_PRESENT,  # plus's default: Always
        env_variables={
            "SECRETS_SPEC": kplus.EnvValue.from_value(spec_json),
            "SECRET_LABELS": kplus.EnvValue.from_value(json.dumps(common_labels(COMPONENT))),
        },
        resources=requests_with_memory_limit("secret generator", "50m", "64Mi"),
        security_context=hardened_container(),
        volume_mounts=[kplus.VolumeMount(path="/scripts", volume=scripts, read_only=True)],
    )
    return job
