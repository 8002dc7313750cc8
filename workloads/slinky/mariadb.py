"""The in-cluster accounting database: a one-replica MariaDB StatefulSet behind a headless Service.

Both are cdk8s-plus-28 constructs (``kplus.Service``, ``kplus.StatefulSet``). Where plus's defaults would change
what the plain objects meant, the values are given:

* the selector: plus would select the pods by its own ``cdk8s.io/metadata.addr`` label; the StatefulSet selects
  (and the Service routes to) ``app.kubernetes.io/name``/``instance`` as before (``select=False`` and the labels).
* ``automountServiceAccountToken`` false (plus's default, said here: the database never talks to the API);
  container security context and ``imagePullPolicy: IfNotPresent`` given (plus defaults to Always; the image is
  pinned by digest); requests and a memory limit equal to the request, no CPU limit (plus would request 1 CPU /
  512Mi and limit 1.5 CPU / 2Gi).
  plus writes memory in Mi: ``accounting.memory`` must be whole mebibytes ("4Gi" is written ``4096Mi``).
* plus writes what the API server would default to the same values: ``podManagementPolicy: OrderedReady``,
  ``updateStrategy`` RollingUpdate with partition 0, ``minReadySeconds: 0``, the probes' ``failureThreshold: 3``,
  the Service's ``type: ClusterIP`` and ``externalIPs: []``, the pod's ``restartPolicy: Always`` (the only one a
  StatefulSet allows), ``dnsPolicy``/``hostNetwork``/``setHostnameAsFQDN``/``terminationGracePeriodSeconds``,
  ``fsGroupChangePolicy: Always``; and a ``cdk8s.io/metadata.addr`` label on the pods, which nothing selects on.
* system nodes through required node affinity (plus has no nodeSelector).

What plus-28 cannot express is added with JSON patches: the pod's ``seccompProfile``, the ``volumeClaimTemplates``
(plus's StatefulSet has none) and the container's mount of that claim. plus runs its typed serializer over the
patched object, which drops fields it does not know and quantities that are not ``Quantity`` objects.
"""

from __future__ import annotations

import cdk8s
import cdk8s_plus_28 as kplus
import constructs

from eks_training.core.versions import MARIADB_IMAGE  # pinned by digest (re-exported here)
from eks_training.workloads.labels import common_labels
from eks_training.workloads.plus_pods import (
    hardened_container,
    on_system_nodes,
    requests_with_memory_limit,
    runtime_default_seccomp,
)
from eks_training.workloads.slinky.secrets import GeneratedSecret
from eks_training.workloads.slinky.settings import COMPONENT, InClusterMariaDb

_MARIADB_SECRET_DIR = "/run/secrets/mariadb"
MARIADB_PORT = 3306


def build_mariadb(
    scope: constructs.Construct, *, cluster_name: str, namespace: str, settings: InClusterMariaDb, password: GeneratedSecret
) -> tuple[str, kplus.StatefulSet]:
    """(host, StatefulSet) of the in-cluster accounting database, added to `scope` with its headless Service."""
    name = f"{cluster_name}-mariadb"
    selector = {"app.kubernetes.io/name": "mariadb", "app.kubernetes.io/instance": name}
    labels = {**common_labels(COMPONENT), **selector}
    claim: dict = {
        "metadata": {"name": "data"},
        # A typed Quantity: the patched object goes through plus's serializer, which keeps only Quantity objects there.
        "spec": {"accessModes": ["ReadWriteOnce"],
                 "resources": {"requests": {"storage": kplus.k8s.Quantity.from_string(settings.storage_size)}}},
    }
    if settings.storage_class:
        claim["spec"]["storageClassName"] = settings.storage_class
    service = kplus.Service(
        scope, f"Service:{namespace}:{name}",
        metadata=cdk8s.ApiObjectMetadata(name=name, namespace=namespace, labels=labels),
        cluster_ip="None", ports=[kplus.ServicePort(port=MARIADB_PORT, name="mysql")])
    run = kplus.Volume.from_empty_dir(scope, f"Volume:{namespace}:{name}:run", "run")
    tmp = kplus.Volume.from_empty_dir(scope, f"Volume:{namespace}:{name}:tmp", "tmp")
    secret = kplus.Volume.from_secret(
        scope, f"Volume:{namespace}:{name}:password",
        kplus.Secret.from_secret_name(scope, f"Secret:{namespace}:{password.name}", password.name),
        name="password", items={password.key: kplus.PathMapping(path=password.key)})
    stateful_set = kplus.StatefulSet(
        scope, f"StatefulSet:{namespace}:{name}",
        metadata=cdk8s.ApiObjectMetadata(name=name, namespace=namespace, labels=labels),
        pod_metadata=cdk8s.ApiObjectMetadata(labels=labels),
        service=service, replicas=1,
        # Our labels select the pods, not plus's cdk8s.io/metadata.addr.
        select=False,
        automount_service_account_token=False,  # the database never talks to the API
        # The image's mysql user (999) owns the data directory.
        security_context=kplus.PodSecurityContextProps(ensure_non_root=True, user=999, group=999, fs_group=999),
        volumes=[run, tmp, secret],
    )
    stateful_set.select(kplus.LabelSelector.of(labels=selector))
    # plus's StatefulSet makes the Service select its pods by their cdk8s.io/metadata.addr label; our labels do,
    # as before (the pods carry both, so the Service routes to the same pods either way).
    for key, value in selector.items():
        service.select_label(key, value)
    cdk8s.ApiObject.of(service).add_json_patch(cdk8s.JsonPatch.remove("/spec/selector/cdk8s.io~1metadata.addr"))
    on_system_nodes(stateful_set)
    runtime_default_seccomp(stateful_set)
    stateful_set.add_container(
        name="mariadb", image=MARIADB_IMAGE,
        # Slurm's accounting guide asks for a large buffer pool and a long lock wait for slurmdbd's schema work.
        args=["--innodb-buffer-pool-size=1G", "--innodb-lock-wait-timeout=900"],
        image_pull_policy=kplus.ImagePullPolicy.IF_NOT_PRESENT,  # plus's default: Always
        env_variables={
            "MARIADB_DATABASE": kplus.EnvValue.from_value("slurm_acct_db"),
            "MARIADB_USER": kplus.EnvValue.from_value("slurm"),
            # From a mounted file, not an environment variable (env leaks into /proc and crash dumps).
            "MARIADB_PASSWORD_FILE": kplus.EnvValue.from_value(f"{_MARIADB_SECRET_DIR}/{password.key}"),
            # No root password is ever needed by slurmdbd; the image picks a random one and prints nothing of it.
            "MARIADB_RANDOM_ROOT_PASSWORD": kplus.EnvValue.from_value("1"),
        },
        ports=[kplus.ContainerPort(number=MARIADB_PORT, name="mysql")],
        readiness=kplus.Probe.from_command(["healthcheck.sh", "--connect", "--innodb_initialized"],
                                           period_seconds=cdk8s.Duration.seconds(10)),
        # Generous: the first start initialises the data directory and slurmdbd's schema work holds locks long.
        liveness=kplus.Probe.from_command(
            ["healthcheck.sh", "--connect"], initial_delay_seconds=cdk8s.Duration.seconds(120),
            period_seconds=cdk8s.Duration.seconds(30), timeout_seconds=cdk8s.Duration.seconds(10), failure_threshold=6),
        resources=requests_with_memory_limit("accounting", settings.cpu, settings.memory),
        security_context=hardened_container(),
        # The server writes only its data, its socket/pid folder and temporary files.
        volume_mounts=[kplus.VolumeMount(path="/run/mysqld", volume=run), kplus.VolumeMount(path="/tmp", volume=tmp),
                       kplus.VolumeMount(path=_MARIADB_SECRET_DIR, volume=secret, read_only=True)],
    )
    # plus-28's StatefulSet has no volumeClaimTemplates: the data claim and its mount are JSON patches.
    api_object = cdk8s.ApiObject.of(stateful_set)
    api_object.add_json_patch(cdk8s.JsonPatch.add("/spec/volumeClaimTemplates", [claim]))
    api_object.add_json_patch(cdk8s.JsonPatch.add("/spec/template/spec/containers/0/volumeMounts/0",
                                                  {"name": "data", "mountPath": "/var/lib/mysql"}))
    return f"{name}.{namespace}.svc", stateful_set
