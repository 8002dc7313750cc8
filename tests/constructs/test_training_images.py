"""TrainingImages: what an image's tag (the hash of its build context) depends on, and what synth stages.

The images' inputs are the package's training/ folder (with the Dockerfiles) and the core/ modules it imports, not
core's pin tables. A copy of
those folders plus infra/, constructs/ and workloads/ stands in for a checkout; a file changed in each of them
either moves every image's hash (core, training) or none (the rest), synthesized for real by CDK.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import aws_cdk as cdk
import pytest
from aws_cdk import aws_iam as iam

from eks_training.constructs.training_images import (CONTEXT_PATTERNS, DEFAULT_CONTEXT, IMAGE_VARIANTS,
                                                     TRAINER_CORE_MODULES, TrainingImages)
from eks_training.core.validation import InvalidValue

REPO = Path(__file__).resolve().parents[2]
#: Files of the checkout that stand in for each part (small ones: the copy is made once per test).
_PARTS = ("core/__init__.py", "core/versions.py", "core/upstream.py", "core/names.py", "core/validation.py",
          "core/training_metrics.py", "training", "infra/config.py", "constructs/karpenter.py",
          "workloads/jobs.py", "workloads/imports/sources.json", ".dockerignore", "pyproject.toml", "README.md")


def _checkout(root: Path) -> Path:
    for part in _PARTS:
        source, target = REPO / part, root / part
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, target)
    return root


def _hashes(context: Path, outdir: Path) -> dict[str, str]:
    app = cdk.App(outdir=str(outdir))
    stack = cdk.Stack(app, "Images", env=cdk.Environment(account="123456789012", region="us-west-2"))
    images = TrainingImages(stack, "Images", variants=list(IMAGE_VARIANTS), context_directory=context)
    images.grant_pull(iam.Role(stack, "Nodes", assumed_by=iam.ServicePrincipal("ec2.amazonaws.com")))
    app.synth()
    return {variant: asset.asset_hash for variant, asset in images.assets.items()}


def test_an_infrastructure_change_moves_no_image_tag_and_a_trainer_change_moves_all(tmp_path: Path) -> None:
    context = _checkout(tmp_path / "checkout")
    before = _hashes(context, tmp_path / "out0")
    assert len(set(before.values())) == len(IMAGE_VARIANTS)  # one hash per Dockerfile
    # A chart or add-on pin bump (the pin table and the digests) included: it must not retag and roll every image.
    for changed in ("infra/config.py", "constructs/karpenter.py", "workloads/jobs.py", "workloads/imports/sources.json",
                    "pyproject.toml", "README.md", "core/versions.py", "core/upstream.py"):
        (context / changed).write_text((context / changed).read_text() + "\n# changed\n")
    (context / "infra" / "new_module.py").write_text("X = 1\n")
    assert _hashes(context, tmp_path / "out1") == before
    (context / "training" / "model.py").write_text((context / "training" / "model.py").read_text() + "\n# changed\n")
    after_training = _hashes(context, tmp_path / "out2")
    assert all(after_training[v] != before[v] for v in IMAGE_VARIANTS)
    (context / "core" / "names.py").write_text((context / "core" / "names.py").read_text() + "\n# changed\n")
    after_core = _hashes(context, tmp_path / "out3")
    assert all(after_core[v] != after_training[v] for v in IMAGE_VARIANTS)


def test_synth_stages_only_core_and_training_of_the_checkout(tmp_path: Path) -> None:
    hashes = _hashes(DEFAULT_CONTEXT, tmp_path)
    staged = tmp_path / f"asset.{hashes['gpu']}"
    top = {p.name for p in staged.iterdir()}
    # .dockerignore rides along (CDK always stages it); nothing of infra/, constructs/, workloads/, tests/, .venv.
    assert top == {"core", "training", ".dockerignore"}
    files = [p for p in staged.rglob("*") if p.is_file()]
    size = sum(p.stat().st_size for p in files)
    print(f"\nstaged build context: {len(files)} files, {size / 1024:.0f} KiB")
    assert size < 2 * 1024 * 1024 and not any("__pycache__" in p.parts for p in files)
    assert (staged / "training" / "Dockerfile.gpu").is_file()
    assert sorted(p.name for p in (staged / "core").iterdir()) == sorted(TRAINER_CORE_MODULES)


def _core_imports(path: Path, *, top_level: bool = False) -> set[str]:
    """The ``eks_training.core`` modules a file imports (any form; ``top_level``: only those its import runs, not
    those inside its functions)."""
    found = set()
    tree = ast.parse(path.read_text())
    nodes = ast.walk(tree) if not top_level else (n for stmt in tree.body if not isinstance(
        stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for n in ast.walk(stmt))
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "eks_training.core":
                found |= {alias.name for alias in node.names}
            elif node.module.startswith("eks_training.core."):
                found.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[2] for a in node.names if a.name.startswith("eks_training.core.")}
    return found


def test_the_images_hold_every_core_module_the_trainer_imports() -> None:
    # Every import of training/, then what importing those core modules imports: an image without one fails at
    # import, on the node.
    needed = set().union(*(_core_imports(p) for p in (REPO / "training").rglob("*.py")))
    queue = list(needed)
    while queue:
        for module in _core_imports(REPO / "core" / f"{queue.pop()}.py", top_level=True) - needed:
            needed.add(module)
            queue.append(module)
    assert needed and {f"{m}.py" for m in needed} <= set(TRAINER_CORE_MODULES)
    assert "versions.py" not in TRAINER_CORE_MODULES and "upstream.py" not in TRAINER_CORE_MODULES
    # validation.py reads the version tables inside two config checks only; the trainer calls neither.
    trainer = "\n".join(p.read_text() for p in (REPO / "training").rglob("*.py"))
    assert "check_kubernetes_version" not in trainer and "check_addon_versions" not in trainer


def test_the_dockerignore_says_what_the_construct_sends() -> None:
    lines = [line.strip() for line in (REPO / ".dockerignore").read_text().splitlines()]
    assert tuple(line for line in lines if line and not line.startswith("#")) == CONTEXT_PATTERNS


def test_a_context_without_the_package_parts_is_refused(tmp_path: Path) -> None:
    stack = cdk.Stack(cdk.App(outdir=str(tmp_path / "out")), "Images")
    with pytest.raises(InvalidValue) as raised:
        TrainingImages(stack, "Images", variants=["gpu"], context_directory=tmp_path)
    assert raised.value.field == "context_directory" and "training/Dockerfile.gpu" in raised.value.allowed
