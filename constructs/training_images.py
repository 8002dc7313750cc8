"""TrainingImages: the trainer's container images, built from `training/` and pushed to ECR by `cdk deploy`.

Each variant is a CDK Docker image asset: `cdk synth` only hashes the build context (no Docker needed), and
`cdk deploy` builds the image and pushes it to the bootstrap ECR repository under a tag that is the hash of its
inputs, so every reference the platform emits is pinned. The context is the package's `training/` folder and the
few `core/` modules it imports (:func:`trainer_core_modules`, traced from its source): the trainer imports nothing else of the package, so
changing the infrastructure code or a pin (a chart, an add-on) never gives the images new tags (nor rebuilds them,
nor rolls the pods that run them).
"""

from __future__ import annotations

import ast
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


def trainer_core_modules(context: Path) -> tuple[str, ...]:
    """The files of ``context/core/`` the trainer needs: every ``eks_training.core`` module a file of
    ``context/training/`` imports (anywhere in it), then what importing those runs (their module-level imports), plus
    the package's ``__init__.py``. Derived from the source, so a new core import in training/ gets into the images
    with no list to edit; the rest of core/ stays out: the pin tables (versions.py, upstream.py) change with every
    chart or add-on bump, which must not give every image a new tag and roll every pod that runs one."""
    needed: set[str] = set()
    pending = [path for path in sorted((context / "training").rglob("*.py")) if "__pycache__" not in path.parts]
    while pending:
        path = pending.pop()
        for module in _core_imports(path, top_level=path.parent.name == "core") - needed:
            needed.add(module)
            if (context / "core" / f"{module}.py").is_file():
                pending.append(context / "core" / f"{module}.py")
    return ("__init__.py", *sorted(f"{module}.py" for module in needed))


def _core_imports(path: Path, *, top_level: bool) -> set[str]:
    """The ``eks_training.core`` modules ``path`` imports (``top_level``: only the imports its own import runs)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    statements = [s for s in tree.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    found: set[str] = set()
    for node in (n for s in statements for n in ast.walk(s)) if top_level else ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "eks_training.core":
                found |= {alias.name for alias in node.names}
            elif node.module.startswith("eks_training.core."):
                found.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[2] for a in node.names if a.name.startswith("eks_training.core.")}
    return found


def context_patterns(core_modules: Sequence[str]) -> tuple[str, ...]:
    """What of the context directory an image is built from, as Docker ignore patterns: everything but training/
    and ``core_modules``."""
    return ("*", *(f"!core/{m}" for m in core_modules), "!training", "**/__pycache__", "**/*.pyc", "**/.pytest_cache")


#: The folder holding the package's core/ and training/: the checkout (editable install) or the installed package.
DEFAULT_CONTEXT = Path(__file__).resolve().parent.parent
#: The core modules the images of this package's own training/ get, and the ignore patterns that send them (the
#: repository's .dockerignore holds the same lines, for `docker build` by hand; a test keeps the two equal).
TRAINER_CORE_MODULES: tuple[str, ...] = trainer_core_modules(DEFAULT_CONTEXT)
CONTEXT_PATTERNS: tuple[str, ...] = context_patterns(TRAINER_CORE_MODULES)


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
        patterns = CONTEXT_PATTERNS if context == DEFAULT_CONTEXT else context_patterns(trainer_core_modules(context))
        self.assets: dict[str, ecr_assets.DockerImageAsset] = {}
        for variant in dict.fromkeys(variants):
            self.assets[variant] = ecr_assets.DockerImageAsset(
                self, variant, directory=str(context), file=IMAGE_VARIANTS[variant],
                platform=ecr_assets.Platform.LINUX_AMD64, build_args=dict(build_args or {}),
                # What is hashed, staged into cdk.out and sent to Docker: training/ and the core modules it imports.
                exclude=list(patterns), ignore_mode=IgnoreMode.DOCKER)
        # repository:tag rather than the asset's one-token URI: charts that split name and tag (JupyterHub) see the
        # pinned tag (the hash of the image's inputs) as plain text.
        self.image_uris = {variant: f"{asset.repository.repository_uri}:{asset.image_tag}"
                           for variant, asset in self.assets.items()}

    def grant_pull(self, grantee: iam.IGrantable) -> None:
        """Let ``grantee`` (e.g. a node role) pull every image."""
        for asset in self.assets.values():
            asset.repository.grant_pull(grantee)
