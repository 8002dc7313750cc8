"""The upstream artifacts tests need, through the product's own resolver (mirror, then user cache).

A test that needs one skips with :data:`MISSING_UPSTREAM` in its reason when it is not at hand; with a mirror given
(``EKS_TRAINING_MIRROR``, as CI's first stage) such a skip fails the run (``tests/conftest.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from eks_training.core import upstream

#: Marks every skip for a missing upstream artifact (the conftest rule looks for it).
MISSING_UPSTREAM = "upstream artifact not at hand"


def _reason(artifacts: list[upstream.Artifact]) -> str:
    first = artifacts[0]
    more = f" (and {len(artifacts) - 1} more)" if len(artifacts) > 1 else ""
    return f"{MISSING_UPSTREAM}: {first.name}{more}; {upstream.how_to_get(first)}"


def chart_dir(pin_chart: str, version: str) -> Path:
    """The verified chart folder, or skip the running test."""
    artifact = upstream.chart_artifact(pin_chart, version)
    assert artifact is not None, f"chart {pin_chart} {version} is not in eks_training.core.upstream"
    found = upstream.locate(artifact)
    if found is None:
        pytest.skip(_reason([artifact]))
    return found


def file_path(path: str) -> Path:
    """The verified pinned file (``reference/...``, ``crds/...``, ``charts/mpi-operator-.../...``), or skip."""
    artifact = upstream.file_artifact(path)
    found = upstream.locate(artifact)
    if found is None:
        pytest.skip(_reason([artifact]))
    return found


def tree(artifact: upstream.Artifact) -> Path:
    found = upstream.locate(artifact)
    if found is None:
        pytest.skip(_reason([artifact]))
    return found


def requires(*artifacts: upstream.Artifact) -> pytest.MarkDecorator:
    """A skip marker for a module or test whose every case needs ``artifacts`` (evaluated at collection)."""
    absent = upstream.missing(artifacts)
    return pytest.mark.skipif(bool(absent), reason=_reason(absent) if absent else "")


def installed_charts() -> tuple[upstream.Artifact, ...]:
    """The charts the platform installs and the check renders (the Neuron chart has no source in any mirror)."""
    return tuple(a for a in upstream.CHARTS if a.tree_sha256 is not None or a.sha256 is not None)
