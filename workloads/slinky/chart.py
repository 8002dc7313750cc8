"""The Slurm cluster as one cdk8s chart: every object the builders make, for the Slinky operator to reconcile."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cdk8s
import constructs

from eks_training.core.validation import invalid
from eks_training.workloads.k8s_objects import check_dns_label, check_int, check_unique
from eks_training.workloads.namespaces import api_objects_of
from eks_training.workloads.slinky.builders import (
    SSSD_CONF,
    build_accounting,
    build_controller,
    build_login_set,
    build_nodeset,
    build_rest_api,
)
from eks_training.workloads.slinky.mariadb import build_mariadb
from eks_training.workloads.typed_objects import emit_object
from eks_training.workloads.slinky.parts import api_object, object_metadata
from eks_training.workloads.slinky.secrets import build_secret_generator, generated_secrets, secret_ref
from eks_training.workloads.slinky.settings import (
    DEFAULT_SLURM_IMAGE_TAG,
    SSSD_CONF_KEY,
    ExternalMariaDb,
    InClusterMariaDb,
    SlurmControllerSettings,
    SlurmLoginSettings,
    SlurmPartition,
    check_short_name,
    check_slurm_image_tag,
)

#: What the platform adds to slurm.conf: no job runs as root (slurmd runs privileged, so a root job is its node's
#: root; users log in as themselves, and Slurm refuses root's jobs even from a login pod's root).
SLURM_CONF_SETTINGS = ("DisableRootJobs=YES",)


def controller_extra_conf(uses_gpus: bool) -> str:
    """The Controller's ``extraConf``: :data:`SLURM_CONF_SETTINGS`, and GPU GRES where a partition has GPUs."""
    return "\n".join([*SLURM_CONF_SETTINGS, *(["GresTypes=gpu"] if uses_gpus else [])])


class SlurmClusterChart(cdk8s.Chart):
    """A complete Slurm cluster for the Slinky operator: controller, accounting, REST API, login and partitions.

    `accounting` is an in-cluster MariaDB (default), an external database, or None (no accounting). Login and
    slurmd pods mount the namespace's FSx claims (shared data read-only, the workspace read-write) at /fsx. Every Secret the CRs
    name is created in the cluster by the generator Job (or, for an external database, already exists).
    """

    def __init__(
        self,
        scope: constructs.Construct,
        id: str,
        *,
        cluster_name: str,
        partitions: Sequence[SlurmPartition],
        namespace: str = "slurm",
        controller: SlurmControllerSettings = SlurmControllerSettings(),
        accounting: InClusterMariaDb | ExternalMariaDb | None = InClusterMariaDb(),
        rest_api_replicas: int = 1,
        login: SlurmLoginSettings = SlurmLoginSettings(),
        slurm_image_tag: str = DEFAULT_SLURM_IMAGE_TAG,
        slurmd_image: str | None = None,
        create_namespace: bool = True,
    ) -> None:
        check_short_name("cluster_name", cluster_name, 30)
        check_dns_label("namespace", namespace)
        check_slurm_image_tag(slurm_image_tag)
        check_int("rest_api_replicas", rest_api_replicas, minimum=1)
        for field, value, kind in (
            ("controller", controller, SlurmControllerSettings),
            ("login", login, SlurmLoginSettings),
        ):
            if not isinstance(value, kind):
                raise invalid(field, value, f"use a {kind.__name__}")
        if accounting is not None and not isinstance(accounting, (InClusterMariaDb, ExternalMariaDb)):
            raise invalid("accounting", accounting, "use InClusterMariaDb(), ExternalMariaDb(...) or None")
        partitions = list(partitions)
        if not partitions or not all(isinstance(p, SlurmPartition) for p in partitions):
            raise invalid("partitions", partitions, "give one or more SlurmPartition objects")
        check_unique("partition names", [p.name for p in partitions])
        super().__init__(scope, id)

        secrets = generated_secrets(cluster_name, in_cluster_database=isinstance(accounting, InClusterMariaDb))
        objects: list[dict[str, Any]] = []
        if create_namespace:
            # Emitted now: the plus constructs below are added to the chart as they are built, after it.
            emit_object(self, api_object("v1", "Namespace", object_metadata(namespace, None)))
        build_secret_generator(self, cluster_name=cluster_name, namespace=namespace, secrets=secrets)

        sssd_secret_name = f"{cluster_name}-sssd-conf"
        objects.append(
            api_object("v1", "Secret", object_metadata(sssd_secret_name, namespace), type="Opaque",
                    stringData={SSSD_CONF_KEY: SSSD_CONF})
        )
        uses_gpus = any(p.accelerator == "nvidia" for p in partitions)
        config_files_name = f"{cluster_name}-config-files" if uses_gpus else None
        if config_files_name:
            objects.append(
                api_object("v1", "ConfigMap", object_metadata(config_files_name, namespace),
                        data={"gres.conf": "AutoDetect=nvidia\n"})
            )

        if isinstance(accounting, InClusterMariaDb):
            host, _ = build_mariadb(
                self, cluster_name=cluster_name, namespace=namespace, settings=accounting, password=secrets[2]
            )
            password_ref = secret_ref(secrets[2])
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
                config_files_name=config_files_name, extra_conf=controller_extra_conf(uses_gpus),
            )
        )
        objects.append(
            build_rest_api(cluster_name=cluster_name, namespace=namespace, replicas=rest_api_replicas,
                           image_tag=slurm_image_tag)
        )
        objects.append(
            build_login_set(cluster_name=cluster_name, namespace=namespace, settings=login,
                            sssd_secret_name=sssd_secret_name,
                            image_tag=slurm_image_tag)
        )
        for index, partition in enumerate(partitions):
            objects.append(
                build_nodeset(partition, cluster_name=cluster_name, namespace=namespace,
                              image_tag=slurm_image_tag,
                              default_partition=index == 0, slurmd_image=slurmd_image)
            )
        # The Slinky CRs as the classes `make imports` generated from their CRDs; the core objects as they are.
        for obj in objects:
            emit_object(self, obj)

    @property
    def api_objects(self) -> list[cdk8s.ApiObject]:
        """Every ApiObject, those inside the plus constructs (secret generator, MariaDB) too, in render order."""
        return api_objects_of(self)
