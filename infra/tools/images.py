"""The environment's own images, as `eks-training render` writes them into jobs.

Resolved from the synthesized app (no credentials needed): `cdk synth` writes `cdk.out/EksTraining-<env>.assets.json`,
whose Docker image entries name each variant's Dockerfile, the bootstrap ECR repository and the tag (the hash of the
image's inputs, which is what `cdk deploy` pushes). The account comes from the environment file's `account` or the
caller. An environment that does not build images uses the ones its config names.
"""

from __future__ import annotations

import json
from pathlib import Path

from eks_training.infra.config import PlatformConfig

#: Dockerfile -> variant, the inverse of constructs.training_images.IMAGE_VARIANTS (kept CDK-free for the CLI).
_VARIANT_OF_DOCKERFILE = {"training/Dockerfile.gpu": "gpu", "training/Dockerfile.neuron": "neuron",
                          "training/Dockerfile.ray": "ray", "training/Dockerfile.slurmd": "slurmd"}
_ACCOUNT_HELP = "set `account` in the environment file or pass --account"


class ImageError(ValueError):
    """The images cannot be resolved; the message is one line naming what to do."""


def assets_manifest(config: PlatformConfig, cdk_out: Path) -> Path:
    return Path(cdk_out) / f"EksTraining-{config.name}.assets.json"


def environment_images(config: PlatformConfig, *, cdk_out: Path = Path("cdk.out"), account: str | None = None) -> dict[str, str]:
    """Variant -> pinned image URI for the environment (see the module docstring)."""
    images = config.images
    if not images.build_training_images:
        return {variant: getattr(images, f"{variant}_image") for variant in ("gpu", "neuron", "ray", "slurmd")
                if getattr(images, f"{variant}_image")}
    path = assets_manifest(config, cdk_out)
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError):
        raise ImageError(f"images: {str(path)!r} not found or unreadable: run `make synth ENV={config.name}` first (the "
                         "built images' tags come from the synthesized app), or pass --image") from None
    account = account or config.account
    if not account:
        raise ImageError(f"--account: the {config.name} images live in the deploy account's ECR: {_ACCOUNT_HELP}")
    resolved = {}
    for entry in manifest.get("dockerImages", {}).values():
        variant = _VARIANT_OF_DOCKERFILE.get(entry.get("source", {}).get("dockerFile", ""))
        if variant is None:
            continue
        destination = next(iter(entry["destinations"].values()))
        repository = destination["repositoryName"].replace("${AWS::AccountId}", account).replace(
            "${AWS::Region}", destination.get("region", config.region))
        region = destination.get("region", config.region)
        resolved[variant] = f"{account}.dkr.ecr.{region}.amazonaws.com/{repository}:{destination['imageTag']}"
    return resolved
