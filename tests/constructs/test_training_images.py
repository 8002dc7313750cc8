"""TrainingImages: what an image's tag (the hash of its build context) depends on, and what synth stages.

The images' inputs are the package's training/ folder (with the Dockerfiles) and the core/ modules it imports, not
core's pin tables. A copy of
those folders plus infra/, constructs/ and workloads/ stands in for a checkout; a file changed in each of them
either moves every image's hash (core, training) or none (the rest), synthesized for real by CDK.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import aws_cdk as cdk
import pytest
from aws_cdk import aws_iam as iam

from eks_training.constructs.training_images import (CONTEXT_PATTERNS, DEFAULT_CONTEXT, IMAGE_VARIANTS,
                                                     TRAINER_CORE_MODULES, TrainingImages,
                                                     trainer_core_modules)
from eks_training.core.validation import InvalidValue

REPO = Path(__file__).resolve().parents[2]
#: Files of the checkout that stand in for each part (small ones: the copy is made once per test).
_PARTS = ("core", "training", "infra/config.py", "constructs/karpenter.py",
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


def test_the_images_hold_every_core_module_the_trainer_imports(tmp_path: Path) -> None:
    # Run, not read: every module of training/ imports from a copy of exactly what the images get (the context
    # CONTEXT_PATTERNS admits, as the package eks_training); an image without a core module it needs fails here as
    # it would at import, on the node.
    package = tmp_path / "site" / "eks_training"
    for module in TRAINER_CORE_MODULES:
        (package / "core").mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / "core" / module, package / "core" / module)
    shutil.copytree(REPO / "training", package / "training", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (package / "__init__.py").write_text("")
    modules = sorted(f"eks_training.training.{p.stem}" for p in (REPO / "training").glob("*.py") if p.stem != "__init__")
    # The checkout's editable-install finder would serve a core module the copy lacks: drop it, as the image has none.
    probe = ("import importlib, sys\n"
             "sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, '__module__', '').startswith('__editable__')]\n"
             f"for name in {modules!r}: importlib.import_module(name)\n"
             f"assert all(m.__file__.startswith({str(package)!r}) for n, m in sys.modules.items() if n.startswith('eks_training.'))\n"
             "print(sorted(m for m in sys.modules if m.startswith('eks_training.core.')))")
    result = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": str(tmp_path / "site"), "PYTHONNOUSERSITE": "1"})
    assert result.returncode == 0, result.stderr[-3000:]
    loaded = {m.rsplit(".", 1)[1] + ".py" for m in ast.literal_eval(result.stdout.strip().splitlines()[-1])}
    assert loaded and loaded <= set(TRAINER_CORE_MODULES)
    # The pin tables stay out; validation.py reads them inside two config checks only, which the trainer never calls.
    assert "versions.py" not in TRAINER_CORE_MODULES and "upstream.py" not in TRAINER_CORE_MODULES
    trainer = "\n".join(p.read_text() for p in (REPO / "training").rglob("*.py"))
    assert "check_kubernetes_version" not in trainer and "check_addon_versions" not in trainer


def test_a_new_core_import_in_training_reaches_the_context_by_itself(tmp_path: Path) -> None:
    # The list is traced from the source, not kept by hand: a trainer file importing another core module (and what
    # that module imports at module level, but not inside a function) is sent without editing anything else.
    context = _checkout(tmp_path / "checkout")
    (context / "core" / "extra.py").write_text("from eks_training.core.subnets import x\n\n\n"
                                               "def later():\n    from eks_training.core.upstream import y\n")
    (context / "core" / "subnets.py").write_text("x = 1\n")
    (context / "training" / "uses_extra.py").write_text("def f():\n    from eks_training.core import extra\n")
    modules = trainer_core_modules(context)
    assert {"extra.py", "subnets.py"} <= set(modules) and "upstream.py" not in modules
    assert "versions.py" not in modules and set(TRAINER_CORE_MODULES) <= set(modules)
    staged = tmp_path / "out" / f"asset.{_hashes(context, tmp_path / 'out')['gpu']}"
    assert sorted(p.name for p in (staged / "core").iterdir()) == sorted(modules)


def test_the_dockerignore_says_what_the_construct_sends() -> None:
    lines = [line.strip() for line in (REPO / ".dockerignore").read_text().splitlines()]
    patterns = tuple(line for line in lines if line and not line.startswith("#"))
    assert patterns == CONTEXT_PATTERNS, ".dockerignore must end with these lines (training/'s core imports " \
        "changed):\n" + "\n".join(CONTEXT_PATTERNS)


def test_a_context_without_the_package_parts_is_refused(tmp_path: Path) -> None:
    stack = cdk.Stack(cdk.App(outdir=str(tmp_path / "out")), "Images")
    with pytest.raises(InvalidValue) as raised:
        TrainingImages(stack, "Images", variants=["gpu"], context_directory=tmp_path)
    assert raised.value.field == "context_directory" and "training/Dockerfile.gpu" in raised.value.allowed
