"""Session fixtures: each environment is synthesized once per test session (per xdist worker)."""

from __future__ import annotations

import fcntl
import json
import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# `tests/support` is imported as `support` by every test module.
sys.path.insert(0, str(Path(__file__).resolve().parent))
# jsii runs aws-cdk-lib on the project's Node 22 (the venv points it there); node tools the tests run (cdk8s-cli)
# come from the same node_modules/.bin.
project_node = REPO / "node_modules" / ".bin"
if project_node.is_dir() and str(project_node) not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = f"{project_node}{os.pathsep}{os.environ.get('PATH', '')}"

from support.synth import Synthesized, synthesize  # noqa: E402

ENVIRONMENTS = ("dev", "staging", "prod")
_SYNTHESIZED: dict[str, Synthesized] = {}


def synthesized_environment(name: str, tmp_root: Path) -> Synthesized:
    """The synthesized environment ``name``, built on first use and kept for the session. Under pytest-xdist the
    workers share ``tmp_root``: the first to need an environment synthesizes it (holding a lock), the others read
    its cloud assembly."""
    if name not in _SYNTHESIZED:
        from eks_training.infra.config import load_environment

        config, outdir, marker = load_environment(name), tmp_root / name, tmp_root / f"{name}.synthesized.json"
        with open(tmp_root / f"{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if marker.exists():
                _SYNTHESIZED[name] = Synthesized.read(config, outdir, **json.loads(marker.read_text()))
            else:
                synth = synthesize(config, outdir=outdir)
                marker.write_text(json.dumps({"stack_name": synth.stack_name, "error": synth.error}))
                _SYNTHESIZED[name] = synth
    return _SYNTHESIZED[name]


@pytest.fixture(scope="session")
def synth_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the shipped environments are synthesized: one folder for all xdist workers of this run (the parent of
    their base temporary folders), or this session's own."""
    base = tmp_path_factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "cdk-out-shared"
    root.mkdir(exist_ok=True)
    return root


@pytest.fixture(scope="session", params=ENVIRONMENTS)
def env(request: pytest.FixtureRequest, synth_root: Path) -> Synthesized:
    """Each environment in turn."""
    return synthesized_environment(request.param, synth_root)


@pytest.fixture(scope="session")
def prod(synth_root: Path) -> Synthesized:
    return synthesized_environment("prod", synth_root)


@pytest.fixture(scope="session")
def staging(synth_root: Path) -> Synthesized:
    return synthesized_environment("staging", synth_root)


@pytest.fixture(scope="session")
def dev(synth_root: Path) -> Synthesized:
    return synthesized_environment("dev", synth_root)


# --- CI runs every test: no skip for upstream data the mirror should have given -------------------------------

from eks_training.core.upstream import MIRROR_ENV  # noqa: E402
from support.upstream_data import MISSING_UPSTREAM  # noqa: E402

_UPSTREAM_SKIPS: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    # Under xdist the controller receives every worker's reports, so this sees all of them.
    if report.skipped and MISSING_UPSTREAM in str(report.longrepr):
        _UPSTREAM_SKIPS.append(report.nodeid)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if hasattr(session.config, "workerinput") or not _UPSTREAM_SKIPS:
        return
    if os.environ.get(MIRROR_ENV):
        # Given a mirror (CI's first stage), nothing may skip for want of upstream data.
        print(f"\n{len(_UPSTREAM_SKIPS)} tests skipped for missing upstream artifacts although {MIRROR_ENV} is set: "
              f"{', '.join(_UPSTREAM_SKIPS[:3])}{' ...' if len(_UPSTREAM_SKIPS) > 3 else ''}", file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    else:
        print(f"\n{len(_UPSTREAM_SKIPS)} tests skipped for upstream artifacts this machine lacks (each skip names the "
              "artifact and the command that fetches it: `eks-training fetch-upstream`, or set "
              f"{MIRROR_ENV} to a mirror)", file=sys.stderr)


# --- the long tests first, on both xdist workers, so that neither is left running one alone at the end ---------


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # `make test` uses --dist worksteal, which hands each worker one contiguous half of this list and then lets an
    # idle worker take tests from the other's tail: each half starts with half of the slow tests.
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    fast = [item for item in items if item.get_closest_marker("slow") is None]
    first = slow[0::2] + fast[:max(0, len(items) // 2 - len(slow[0::2]))]
    items[:] = first + slow[1::2] + fast[len(first) - len(slow[0::2]):]
