"""A Slurm cluster on Kubernetes through the Slinky slurm-operator (`slinky.slurm.net/v1beta1`, operator 1.2.1).

The operator (installed by the lead from its pinned Helm chart, with its CRDs and cert-manager) reconciles five
custom resources that this chart emits: Controller (slurmctld), Accounting (slurmdbd), RestApi (slurmrestd),
LoginSet (login pods behind an SSH load balancer) and one NodeSet (slurmd pods) per Slurm partition. The
`SlurmCluster`/`SlurmNodeSet` v1alpha1 kinds of the source document never existed and are never emitted.

No key or password is ever rendered: a small Job creates the Slurm auth key, the JWT key and the accounting
database password inside the cluster, each only if absent, from the kernel's random source. The CRs and the
MariaDB StatefulSet only name those Secrets.

One module per idea: `settings` (pins, settings objects, checks), `builders` (the custom resources), `secrets`
(the generator Job and its script, generate_secrets.py), `mariadb` (the in-cluster database), `chart` (the cdk8s
chart that puts them together). Every public name is importable from here.
"""

from __future__ import annotations

from eks_training.workloads.slinky.builders import (
    SSSD_CONF,
    build_accounting,
    build_controller,
    build_login_set,
    build_nodeset,
    build_rest_api,
    login_service_name,
)
from eks_training.workloads.slinky.chart import SlurmClusterChart
from eks_training.workloads.slinky.mariadb import MARIADB_IMAGE, build_mariadb
from eks_training.workloads.slinky.secrets import (
    SECRET_GENERATOR_IMAGE,
    SECRET_GENERATOR_SCRIPT,
    GeneratedSecret,
    build_secret_generator,
    generated_secrets,
)
from eks_training.workloads.slinky.settings import (
    COMPONENT,
    DEFAULT_SLURM_IMAGE_TAG,
    SIDECAR_IMAGE,
    SLINKY_API_VERSION,
    SLURM_IMAGE_REGISTRY,
    SLURM_OPERATOR_VERSION,
    SSSD_CONF_KEY,
    SUPPORTED_SLURM_RELEASES,
    ExternalMariaDb,
    InClusterMariaDb,
    SlurmControllerSettings,
    SlurmLoginSettings,
    SlurmPartition,
    check_slurm_image_tag,
)

__all__ = [
    "COMPONENT", "DEFAULT_SLURM_IMAGE_TAG", "MARIADB_IMAGE", "SECRET_GENERATOR_IMAGE", "SECRET_GENERATOR_SCRIPT",
    "SIDECAR_IMAGE", "SLINKY_API_VERSION", "SLURM_IMAGE_REGISTRY", "SLURM_OPERATOR_VERSION",
    "SSSD_CONF", "SSSD_CONF_KEY", "SUPPORTED_SLURM_RELEASES",
    "ExternalMariaDb", "GeneratedSecret", "InClusterMariaDb", "SlurmClusterChart", "SlurmControllerSettings",
    "SlurmLoginSettings", "SlurmPartition",
    "build_accounting", "build_controller", "build_login_set", "build_mariadb", "build_nodeset", "build_rest_api",
    "build_secret_generator", "check_slurm_image_tag", "generated_secrets", "login_service_name",
]
