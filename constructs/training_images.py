"""TrainingImages: the trainer's container images, built from `training/` and pushed to ECR by `cdk deploy`.

Each variant is a CDK Docker image asset: `cdk synth` only hashes the build context (no Docker needed), and
`cdk deploy` builds the image and pushes it to the bootstrap ECR repository under a tag that is the hash of its
inputs, so every reference the platform emits is pinned. The context is the package's `training/` folder and the
few `core/` modules it imports (:data:`CONTEXT_PATTERNS`): the trainer imports nothing else of the package, so
changing the infrastructure code or a pin (a chart, an add-on) never gives the images new tags (nor rebuilds them,
nor rolls the pods that run them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from aws_cdk import IgnoreMode
from aws_cdk import aws_ecr_assets as ecr_assets
from aws_cdk import aws_iam as iam
from constructs import Construct

from eks_training.core.validation import invalid

#: Image variant -> its Dockerfile (relative to the build context, the repository root) and what runs it.
IMAGE_VARIANTS: Mapping[str, str] = {
    "gpu": "training/Dockerfile.gpu",  # torchrun jobs, Volcano, MPIJob (sshd + mpirun), notebooks on GPUs
    "neuron": "training/Dockerfile.neuron",  # Trainium jobs and notebooks (AWS Neuron base)
    "ray": "training/Dockerfile.ray",  # RayCluster / RayJob heads and workers
    "slurmd": "training/Dockerfile.slurmd",  # Slinky NodeSets: srun runs torchrun in slurmd's container
}
#: The modules of ``core/`` the trainer imports (a test follows training/'s imports through them). The rest of core/
#: stays out of the images: the pin tables (versions.py, upstream.py) change with every chart or add-on bump, which
#: must not give every image a new tag and roll every pod that runs one.
TRAINER_CORE_MODULES: tuple[str, ...] = ("__init__.py", "names.py", "training_metrics.py", "validation.py")
#: What of the context directory an image is built from, as Docker ignore patterns: everything but training/ and
#: those core modules (the repository's .dockerignore holds the same lines, for `docker build` by hand).
CONTEXT_PATTERNS: tuple[str, ...] = ("*", *(f"!core/{m}" for m in TRAINER_CORE_MODULES), "!training",
                                     "**/__pycache__", "**/*.pyc", "**/.pytest_cache")
#: The folder holding the package's core/ and training/: the checkout (editable install) or the installed package.
DEFAULT_CONTEXT = Path(__file__).resolve().parent.parent


class TrainingImages(Construct):
    """One Docker image asset per variant in ``variants`` (keys of :data:`IMAGE_VARIANTS`), for linux/amd64.

    * ``context_directory``: the folder holding the package's ``core/`` and ``training/`` (default: the one this
      library was loaded from, a checkout or the installed ``eks_training``); only those two folders are sent.
    * ``build_args``: Docker build arguments for every variant (e.g. a pinned base tag).

    Attributes: ``assets`` (variant -> DockerImageAsset), ``image_uris`` (variant -> URI token, pinned by tag).
    """

    def __init__(self, scope: Construct, id: str, *, variants: Sequence[str], context_directory: str | Path | None = None,
                 build_args: Mapping[str, str] | None = None) -> None:
        super().__init__(scope, id)
        unknown = [v for v in variants if v not in IMAGE_VARIANTS]
        if unknown or not variants:
            raise invalid("variants", list(variants), f"use one or more of {', '.join(IMAGE_VARIANTS)}")
        context = Path(context_directory or DEFAULT_CONTEXT)
        missing = [IMAGE_VARIANTS[v] for v in variants if not (context / IMAGE_VARIANTS[v]).is_file()]
        if missing or not (context / "core").is_dir():
            raise invalid("context_directory", str(context), "a folder with the package's core/ and "
                          f"{', '.join(missing or [IMAGE_VARIANTS[v] for v in variants])}")
        self.assets: dict[str, ecr_assets.DockerImageAsset] = {}
        for variant in dict.fromkeys(variants):
            self.assets[variant] = ecr_assets.DockerImageAsset(
                self, variant, directory=str(context), file=IMAGE_VARIANTS[variant],
                platform=ecr_assets.Platform.LINUX_AMD64, build_args=dict(build_args or {}),
                # What is hashed, staged into cdk.out and sent to Docker: training/ and the core modules it imports.
                exclude=list(CONTEXT_PATTERNS), ignore_mode=IgnoreMode.DOCKER)
        # repository:tag rather than the asset's one-token URI: charts that split name and tag (JupyterHub) see the
        # pinned tag (the hash of the image's inputs) as plain text.
        self.image_uris = {variant: f"{asset.repository.repository_uri}:{asset.image_tag}"
                           for variant, asset in self.assets.items()}

    def grant_pull(self, grantee: iam.IGrantable) -> None:
        """Let ``grantee`` (e.g. a node role) pull every image."""
        for asset in self.assets.values():
            asset.repository.grant_pull(grantee)
