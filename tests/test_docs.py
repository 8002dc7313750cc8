"""The API reference (`make docs`, pdoc) builds from the docstrings without a warning and has the library's classes."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
#: The L3 constructs another CDK app imports first: each must have its page and its section on it.
KEY_CLASSES = {
    "eks_training.constructs.cluster": "TrainingCluster",
    "eks_training.constructs.node_groups": "AcceleratedNodeGroup",
    "eks_training.constructs.karpenter": "KarpenterController",
    "eks_training.constructs.observability": "TrainingObservability",
    "eks_training.constructs.training_images": "TrainingImages",
}


def doc_modules() -> list[str]:
    """What `make docs` documents: constructs/ has no __init__.py, so pdoc is given its modules one by one."""
    constructs = [f"eks_training.constructs.{path.stem}" for path in sorted((REPO / "constructs").glob("*.py"))]
    return ["eks_training.core", *constructs, "eks_training.workloads", "eks_training.infra"]


def test_the_makefile_documents_the_same_modules() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^docs:", makefile, re.M)
    assert "eks_training.core $(patsubst constructs/%.py,eks_training.constructs.%,$(wildcard constructs/*.py))" \
           " eks_training.workloads eks_training.infra" in makefile


@pytest.mark.slow
def test_pdoc_builds_the_reference_without_warnings(tmp_path: Path) -> None:
    # PDOC_ALLOW_EXEC as in the Makefile: importing aws_cdk starts jsii's Node, which pdoc blocks by default.
    done = subprocess.run([sys.executable, "-m", "pdoc", "--output-directory", str(tmp_path), *doc_modules()],
                          # Not from the repo root: there constructs/ would shadow the constructs library.
                          capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env={**os.environ, "PDOC_ALLOW_EXEC": "1"})
    assert done.returncode == 0, done.stderr[-2000:]
    # pdoc reports what it cannot import or resolve as "Warn: ..." on stderr (jsii's Node banner is not ours).
    assert [line for line in done.stderr.splitlines() if line.startswith("Warn")] == []
    assert (tmp_path / "index.html").is_file()
    for module, name in KEY_CLASSES.items():
        assert getattr(importlib.import_module(module), name).__module__ == module
        page = tmp_path / Path(*module.split(".")).with_suffix(".html")
        html = page.read_text(encoding="utf-8")
        assert f'id="{name}"' in html, f"{page.name} has no section for {name}"
        # The class docstring made it onto the page, not just the name.
        first_line = importlib.import_module(module).__dict__[name].__doc__.strip().splitlines()[0]
        assert first_line.split("`")[0][:40] in html
