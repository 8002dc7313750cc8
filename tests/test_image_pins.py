"""One rule for a pinned image, in core: what the config file's ``images.*_image`` takes, JupyterHub's values take.

JupyterHub's chart pulls ``singleuser.image.name`` + ``:`` + ``.tag``, so a digest rides in the tag
(``name:tag@sha256:...``) and a digest without a tag is refused with a line that says why. The same inputs go to
the core check, to ``jupyterhub_values`` and to the config layer, which must agree on every one.
"""

from __future__ import annotations

import pytest

from eks_training.core.validation import InvalidValue, check_pinned_image, split_pinned_image

DIGEST = "sha256:" + "0123456789abcdef" * 4
ACCEPTED = (
    "quay.io/jupyter/pytorch-notebook:cuda12-python-3.12",
    f"quay.io/jupyter/pytorch-notebook:cuda12-python-3.12@{DIGEST}",
    "123456789012.dkr.ecr.us-west-2.amazonaws.com/eks-training:gpu-1.4.0",
    "registry.example.com:5000/ml/notebook:v1",
)
#: (image, words of the allowed text)
REFUSED = (
    (f"quay.io/jupyter/pytorch-notebook@{DIGEST}", "put the tag in front of the digest"),
    (f"registry.example.com:5000/ml/notebook@{DIGEST}", "put the tag in front of the digest"),
    ("quay.io/jupyter/pytorch-notebook", "use a pinned registry/name:tag"),
    ("registry.example.com:5000/ml/notebook", "use a pinned registry/name:tag"),
    ("quay.io/jupyter/pytorch-notebook:latest", "(not :latest)"),
    (f"quay.io/jupyter/pytorch-notebook:latest@{DIGEST}", "(not :latest)"),
    ("quay.io/jupyter/pytorch-notebook:v1@sha256:abc", "registry/name:tag@sha256:<64 hex>"),
    ("quay.io/jupyter/pytorch-notebook:v1@md5:" + "0" * 32, "registry/name:tag@sha256:<64 hex>"),
    ("pytorch-notebook:v1", "use a pinned registry/name:tag"),
    ("quay.io/jupyter/pytorch notebook:v1", "use a pinned registry/name:tag"),
)


@pytest.mark.parametrize("image", ACCEPTED)
def test_the_rule_splits_a_pinned_image_into_a_name_and_a_tag_that_join_back(image: str) -> None:
    name, tag = split_pinned_image("gpu_image", image)
    assert f"{name}:{tag}" == image
    assert "@" not in name and not tag.startswith("sha256")
    assert check_pinned_image("gpu_image", image) == image


@pytest.mark.parametrize(("image", "allowed"), REFUSED)
def test_the_rule_refuses_in_the_one_format(image: str, allowed: str) -> None:
    with pytest.raises(InvalidValue) as raised:
        check_pinned_image("images.gpu_image", image)
    assert (raised.value.field, raised.value.value) == ("images.gpu_image", image)
    assert allowed in raised.value.allowed
    assert str(raised.value) == f"images.gpu_image={image!r} is not allowed: {raised.value.allowed}"


def _jupyterhub_verdict(image: str) -> str | None:
    """None when JupyterHub's values take ``image`` as the GPU image, else the allowed text of the refusal."""
    from eks_training.workloads.jupyterhub import DEFAULT_NOTEBOOK_PROFILES, jupyterhub_values

    try:
        jupyterhub_values(namespace="jupyter", training_service_account="training", gpu_image=image,
                          neuron_image=ACCEPTED[0], profiles=DEFAULT_NOTEBOOK_PROFILES)
    except InvalidValue as error:
        assert (error.field, error.value) == ("gpu_image", image)
        return error.allowed
    return None


def _config_verdict(image: str) -> str | None:
    """None when the config layer takes ``image`` as ``images.gpu_image``, else the allowed text of the refusal."""
    from pydantic import ValidationError

    from eks_training.infra.config import ImagesConfig

    try:
        ImagesConfig(build_training_images=False, gpu_image=image)
    except ValidationError as wrapped:
        error = wrapped.errors()[0].get("ctx", {}).get("error")
        assert isinstance(error, InvalidValue), wrapped
        assert (error.field, error.value) == ("gpu_image", image)
        return error.allowed
    return None


@pytest.mark.parametrize("image", [*ACCEPTED, *(image for image, _ in REFUSED)])
def test_jupyterhub_holds_images_to_the_core_rule(image: str) -> None:
    try:
        check_pinned_image("gpu_image", image)
        expected = None
    except InvalidValue as error:
        expected = error.allowed
    assert _jupyterhub_verdict(image) == expected


def test_a_config_file_takes_exactly_the_images_jupyterhub_takes() -> None:
    """A file that loads must synthesize: every input gets the same verdict from the config layer and from JupyterHub."""
    verdicts = {image: (_config_verdict(image), _jupyterhub_verdict(image))
                for image in [*ACCEPTED, *(image for image, _ in REFUSED)]}
    assert {image: pair for image, pair in verdicts.items() if pair[0] != pair[1]} == {}
