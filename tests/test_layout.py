"""The repository layout keeps its promises: one import root, the real `constructs` library, two commands."""

from __future__ import annotations

import pytest

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_constructs_folder_has_no_package_init():
    # An __init__.py here would shadow the `constructs` library that aws-cdk-lib imports.
    assert not (REPO / "constructs" / "__init__.py").exists()


def test_constructs_library_is_the_real_one_from_the_repo_root():
    out = subprocess.run([sys.executable, "-c", "import constructs, aws_cdk; print(constructs.__file__); "
                          "print(constructs.Construct.__module__)"],
                         cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    assert "site-packages" in out[0] and not out[0].startswith(str(REPO / "constructs"))
    assert out[1] == "constructs"


def test_every_part_maps_into_the_import_root():
    import eks_training.addons
    import eks_training.constructs.cluster
    import eks_training.infra.config
    import eks_training.training
    import eks_training.workloads

    for module, folder in ((eks_training.constructs.cluster, "constructs"), (eks_training.infra.config, "infra"),
                           (eks_training.workloads, "workloads"), (eks_training.training, "training"),
                           (eks_training.addons, "addons")):
        assert Path(module.__file__).resolve().parent == REPO / folder


@pytest.mark.slow
def test_training_package_never_imports_cdk():
    code = ("import sys, eks_training.training; import pkgutil, importlib\n"
            "for m in pkgutil.iter_modules(eks_training.training.__path__):\n"
            "    importlib.import_module('eks_training.training.' + m.name)\n"
            "bad = [n for n in sys.modules if n.split('.')[0] in ('aws_cdk', 'cdk8s', 'jsii')]\n"
            "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_readme_opens_with_the_two_commands():
    lines = [line.strip() for line in (REPO / "README.md").read_text().splitlines() if line.strip()]
    commands = [line for line in lines[:12] if line.startswith("make ")]
    assert commands[:2] == ["make synth", "make test"]


def test_ci_runs_the_readme_test_command_then_its_first_command_in_a_bare_clone():
    """.ci/run: the README's test command as printed, then the README's first command for every environment in a
    fresh clone with no mirror and an empty HOME, failing on Node's end-of-life banner."""
    readme_commands = (REPO / "README.md").read_text().split("```")[1].split()
    assert readme_commands == ["make", "synth", "make", "test"], readme_commands
    script = (REPO / ".ci" / "run").read_text()
    lines = [line.strip() for line in script.splitlines() if line.strip() and not line.strip().startswith("#")]
    assert lines.count("make test") == 1
    tail = lines[lines.index("make test") + 1:]
    clone = next(line for line in tail if line.startswith("git clone"))
    assert "$bare/alone/" in clone, "the clone has a folder of its own: nothing beside it"
    assert "for env in dev staging prod; do" in tail
    synth = next(line for line in tail if "make synth" in line)
    assert 'make synth ENV="$env"' in synth
    runner = " ".join(tail[tail.index("for env in dev staging prod; do"):])
    for isolation in ("env -u EKS_TRAINING_MIRROR", "-u XDG_CACHE_HOME", 'HOME="$bare/home"'):
        assert isolation in runner, f".ci/run's bare-clone synth lacks {isolation!r}"
    assert "end-of-life" in runner and "exit 1" in runner
