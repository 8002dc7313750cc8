"""The platform's utility images (installer Jobs, the secret generator, the database, sidecars): pinned by digest,
pulled once, inside the Kubernetes version skew; read from the pin table and from the synthesized app.

Every image the synthesized prod app runs from its own manifests is one of three things: an image the deploy builds
(ECR, tagged by the hash of its inputs), a utility image pinned by digest in core.versions, or one of Slinky's Slurm
images (slurmctld, slurmd, ...), which follow the Slurm release the operator targets by tag (DEFAULT_SLURM_IMAGE_TAG)
and are platform components like the charts' own images, not utility images.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from eks_training.core import versions
from support import upstream_data
from eks_training.core.validation import split_pinned_image
from eks_training.core.versions import KUBECTL_IMAGES, KUBERNETES_RELEASES
from eks_training.workloads.slinky.settings import SLURM_IMAGE_REGISTRY
from support.synth import TOKEN_PLACEHOLDER

UTILITY_IMAGES = {versions.ALPINE_IMAGE, versions.PYTHON_IMAGE, versions.MARIADB_IMAGE, *KUBECTL_IMAGES.values()}
_DIGEST = re.compile(r"@sha256:[0-9a-f]{64}$")


def _minor(version: str) -> int:
    major, minor = version.split(".")[:2]
    assert major == "1", version
    return int(minor)


@pytest.mark.parametrize("image", sorted(UTILITY_IMAGES))
def test_every_utility_image_is_pinned_by_tag_and_digest(image: str) -> None:
    name, tag = split_pinned_image("image", image)  # the core rule: registry/name:tag[@sha256:...]
    assert _DIGEST.search(tag), f"{image} has no digest"
    assert name.startswith("docker.io/"), image  # the registry is named, not implied


def test_kubectl_is_inside_the_supported_skew_of_every_selectable_version() -> None:
    assert set(KUBECTL_IMAGES) == set(KUBERNETES_RELEASES)
    for cluster, image in KUBECTL_IMAGES.items():
        kubectl = re.search(r":(\d+\.\d+)\.\d+@", image).group(1)
        # kubectl is supported within one minor version (older or newer) of kube-apiserver.
        assert abs(_minor(kubectl) - _minor(cluster)) <= 1, (cluster, image)


def test_the_installer_job_takes_the_kubectl_of_its_cluster_version() -> None:
    import cdk8s

    from eks_training.core.validation import InvalidValue
    from eks_training.workloads.mpi_operator_install import MpiOperatorInstallChart, installer_image

    for version in ("1.31", "1.36"):
        chart = MpiOperatorInstallChart(cdk8s.App(), "install", kubernetes_version=version)
        (job,) = [o for o in chart.to_json() if o["kind"] == "Job"]
        (container,) = job["spec"]["template"]["spec"]["containers"]
        assert container["image"] == KUBECTL_IMAGES[version] and container["imagePullPolicy"] == "IfNotPresent"
    with pytest.raises(InvalidValue) as raised:
        installer_image("1.30")
    assert raised.value.field == "kubernetes_version"


def _images(obj: Any, path: str = "") -> Iterator[tuple[str, dict]]:
    """(path, container-like dict) for every dict with an `image` string: pod containers and CR container specs."""
    if isinstance(obj, dict):
        if isinstance(obj.get("image"), str):
            yield path, obj
        for key, value in obj.items():
            yield from _images(value, f"{path}.{key}")
    elif isinstance(obj, list):
        for index, value in enumerate(obj):
            yield from _images(value, f"{path}[{index}]")


def test_the_synthesized_app_runs_only_built_pinned_or_slurm_images(prod) -> None:
    seen: dict[str, set[str]] = {"built": set(), "utility": set(), "slurm": set()}
    problems = []
    for lid, obj in prod.kubernetes_objects():
        for path, container in _images(obj):
            image, where = container["image"], f"{lid} {obj['kind']} {obj['metadata'].get('name')}{path}"
            if TOKEN_PLACEHOLDER in image:
                seen["built"].add(image)
            elif image.startswith(f"{SLURM_IMAGE_REGISTRY}/"):
                seen["slurm"].add(image)
            elif image in UTILITY_IMAGES:
                seen["utility"].add(image)
                if container.get("imagePullPolicy") != "IfNotPresent":
                    problems.append(f"{where}: {image} pulled {container.get('imagePullPolicy')!r}, not IfNotPresent")
            else:
                problems.append(f"{where}: {image} is neither built by the deploy nor pinned in core.versions")
    assert not problems, "\n".join(problems)
    # prod runs every kind of utility image: the installer's kubectl of its own version, the generator, MariaDB,
    # the sidecars and the FSx workspace Job's shell.
    assert seen["utility"] == {versions.ALPINE_IMAGE, versions.PYTHON_IMAGE, versions.MARIADB_IMAGE,
                               KUBECTL_IMAGES[prod.config.kubernetes_version]}
    assert seen["built"] and seen["slurm"]


def test_jupyterhub_runs_no_user_scheduler_of_another_kubernetes_version() -> None:
    from eks_training.infra.tools.check import helm
    from eks_training.workloads.jupyterhub import DEFAULT_NOTEBOOK_PROFILES, jupyterhub_values

    image = "123456789012.dkr.ecr.us-west-2.amazonaws.com/trainer:abc"
    values = jupyterhub_values(namespace="jupyterhub", training_service_account="training", gpu_image=image,
                               neuron_image=image, profiles=DEFAULT_NOTEBOOK_PROFILES)
    assert values["scheduling"]["userScheduler"] == {"enabled": False}
    chart = upstream_data.chart_dir(versions.JUPYTERHUB.chart, versions.JUPYTERHUB.version)
    objects = helm.render_chart(chart, release="jupyterhub", namespace="jupyterhub", values=values, kube_version="1.36")
    images = {c["image"] for _, c in _images(objects)}
    assert not [i for i in images if "kube-scheduler" in i], images
    assert not [o for o in objects if "user-scheduler" in (o.get("metadata") or {}).get("name", "")]
