"""Upstream artifacts are pinned dependencies: found in the mirror, then the user cache, verified, never probed for.

`eks-training fetch-upstream` is tested against a real Helm repository and file server on 127.0.0.1 (the helm binary
of the kubectl layer package pulls from it), since upstream itself is not reachable here.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import http.server
import io
import shutil
import subprocess
import tarfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from eks_training.core import upstream, versions
from eks_training.core.versions import HelmPin
from eks_training.infra.tools import upstream_fetch
from eks_training.infra.tools.check.helm import helm_binary
from eks_training.infra.tools.cli import main
from support.upstream_data import MISSING_UPSTREAM

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture()
def no_upstream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No mirror, an empty user cache: what a user has after a fresh clone."""
    monkeypatch.delenv(upstream.MIRROR_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "eks-training" / "upstream"


_UNMIRRORED = [f"chart neuron-helm-chart {versions.NEURON.version}", f"chart karpenter-crd {versions.KARPENTER_CRD.version}"]
#: The mirror this run was given, read before any test unsets it.
_MIRROR = upstream.mirror_root()


def _mirror() -> Path:
    root = _MIRROR
    if root is None:
        pytest.skip(f"{MISSING_UPSTREAM}: {upstream.MIRROR_ENV} is not set (CI sets it to the offline mirror)")
    return root


# --- the lock --------------------------------------------------------------------------------------------------


def test_every_chart_the_platform_installs_is_in_the_lock() -> None:
    pins = [value for value in vars(versions).values() if isinstance(value, HelmPin)]
    assert pins, "core.versions holds the chart pins"
    unlocked = [f"{pin.chart} {pin.version}" for pin in pins if upstream.chart_artifact(pin.chart, pin.version) is None]
    assert unlocked == []


def test_every_artifact_has_one_name_one_place_and_a_digest_or_says_it_has_none() -> None:
    assert len(upstream.BY_NAME) == len(upstream.ARTIFACTS)
    assert len({a.path for a in upstream.ARTIFACTS}) == len(upstream.ARTIFACTS)
    for artifact in upstream.ARTIFACTS:
        assert artifact.source.startswith(("https://", "oci://")), artifact
        if artifact.kind == "file":
            assert artifact.sha256 and len(artifact.sha256) == 64, artifact.name
        if artifact.kind == "tree":
            assert artifact.tree_sha256 and artifact.keep, artifact.name
    # The charts no mirror of ours holds: the Neuron chart's source at the pinned version is not public, and the
    # Karpenter CRD chart holds no pods to place.
    assert sorted(a.name for a in upstream.CHARTS if a.tree_sha256 is None) == sorted(_UNMIRRORED)


def test_the_mpi_installer_checks_the_manifest_digest_the_lock_pins() -> None:
    from eks_training.workloads.mpi_operator_install import MPI_OPERATOR_SHA256

    assert MPI_OPERATOR_SHA256 == upstream.file_artifact(
        f"charts/mpi-operator-{versions.MPI_OPERATOR_VERSION}/mpi-operator.yaml").sha256


def test_the_mirror_holds_every_artifact_and_each_matches_its_pin() -> None:
    root = _mirror()
    found = {a.name: upstream.locate(a, mirror=root) for a in upstream.ARTIFACTS}
    absent = sorted(name for name, path in found.items() if path is None)
    assert absent == sorted(_UNMIRRORED)
    assert all(str(path).startswith(str(root)) for path in found.values() if path is not None)


# --- where artifacts are found ---------------------------------------------------------------------------------


def test_nothing_is_found_without_a_mirror_or_cache_even_with_shared_beside_the_repo(no_upstream: Path,
                                                                                      monkeypatch) -> None:
    monkeypatch.chdir(REPO)  # the working folder's parent may hold a `shared/` mirror: it must not be used
    assert [a for a in upstream.ARTIFACTS if upstream.locate(a) is not None] == []
    assert upstream.crd_files() is None


def test_a_mirror_copy_that_differs_from_its_pin_is_refused_naming_both_digests(tmp_path: Path, no_upstream) -> None:
    artifact = upstream.CRDS[0]
    copy = tmp_path / "mirror" / artifact.path
    copy.parent.mkdir(parents=True)
    copy.write_bytes(b"kind: CustomResourceDefinition\n")
    with pytest.raises(upstream.DigestMismatch) as caught:
        upstream.locate(artifact, mirror=tmp_path / "mirror")
    message = str(caught.value)
    assert "\n" not in message and artifact.name in message and artifact.sha256 in message
    assert hashlib.sha256(b"kind: CustomResourceDefinition\n").hexdigest() in message


def test_a_changed_chart_tree_in_the_mirror_is_refused(tmp_path: Path) -> None:
    root = _mirror()
    artifact = upstream.chart_artifact("volcano", versions.VOLCANO.version)
    copy = tmp_path / artifact.path
    shutil.copytree(root / artifact.path, copy)
    (copy / "values.yaml").write_text((copy / "values.yaml").read_text() + "\nextra: true\n")
    with pytest.raises(upstream.DigestMismatch, match="tree digest"):
        upstream.locate(artifact, mirror=tmp_path)


def test_the_mirror_comes_before_the_cache(tmp_path: Path, no_upstream: Path) -> None:
    artifact = upstream.file_artifact("reference/karpenter-1.14-cloudformation.yaml")
    source = upstream.locate(artifact, mirror=_mirror())
    for root in (tmp_path / "mirror", no_upstream):
        (root / artifact.path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, root / artifact.path)
    upstream.record_digest(no_upstream, artifact, artifact.sha256, "pinned sha256")
    assert upstream.locate(artifact) == no_upstream / artifact.path
    assert upstream.locate(artifact, mirror=tmp_path / "mirror") == tmp_path / "mirror" / artifact.path


def test_a_mirror_that_is_not_a_folder_is_one_line(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(upstream.MIRROR_ENV, str(tmp_path / "absent"))
    with pytest.raises(upstream.UpstreamError, match=f"{upstream.MIRROR_ENV}=.*is not a folder"):
        upstream.locate(upstream.CRDS[0])


# --- fetch-upstream against real servers on 127.0.0.1 ----------------------------------------------------------


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """An HTTP server on 127.0.0.1 over a folder: a Helm repository and plain files."""
    root = tmp_path / "served"
    root.mkdir()
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args) -> None:  # noqa: A002
        pass


def _http_file(url: str) -> bytes:
    import urllib.request

    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read()


def test_fetch_verifies_files_and_refuses_a_mismatch_keeping_nothing(served, no_upstream: Path) -> None:
    base, root = served
    pinned = upstream.file_artifact("reference/karpenter-1.14-cloudformation.yaml")
    (root / "good.yaml").write_bytes(upstream.locate(pinned, mirror=_mirror()).read_bytes())
    (root / "bad.yaml").write_bytes(b"something else\n")
    good = dataclasses.replace(pinned, source=f"{base}/good.yaml")
    bad = dataclasses.replace(upstream.CRDS[0], source=f"{base}/bad.yaml")

    outcomes = upstream_fetch.fetch([good, bad], download=_http_file)
    assert [o.status for o in outcomes] == ["fetched", "refused"]
    served_digest = hashlib.sha256((root / "bad.yaml").read_bytes()).hexdigest()
    assert outcomes[1].detail == f"expected sha256 {bad.sha256}, got {served_digest}"
    assert upstream.locate(pinned) == no_upstream / pinned.path  # later runs find it in the cache, verified
    assert not (no_upstream / bad.path).exists()
    assert upstream_fetch.fetch([good], download=_http_file)[0].status == "present"


def _helm_repository(root: Path, base: str, chart: Path) -> Path:
    helm = helm_binary()
    subprocess.run([str(helm), "package", str(chart), "--destination", str(root)], check=True, capture_output=True)
    subprocess.run([str(helm), "repo", "index", str(root), "--url", base], check=True, capture_output=True)
    (package,) = root.glob("*.tgz")
    return package


def test_fetch_pulls_a_repository_chart_with_helm_and_checks_its_package_digest(served, no_upstream: Path) -> None:
    base, root = served
    pinned = upstream.chart_artifact("aws-efa-k8s-device-plugin", versions.EFA_DEVICE_PLUGIN.version)
    package = _helm_repository(root, base, upstream.locate(pinned, mirror=_mirror()))
    ours = dataclasses.replace(pinned, source=base, sha256=hashlib.sha256(package.read_bytes()).hexdigest())

    (outcome,) = upstream_fetch.fetch([ours])
    assert outcome.status == "fetched", outcome
    folder = upstream.locate(ours)
    assert (folder / "Chart.yaml").is_file() and (folder / "templates" / "daemonset.yaml").is_file()

    (refused,) = upstream_fetch.fetch([dataclasses.replace(ours, sha256="0" * 64)], cache=no_upstream / "other")
    assert refused.status == "refused" and refused.detail.startswith(f"expected sha256 {'0' * 64}, got ")


def test_a_chart_whose_upstream_publishes_no_digest_needs_trust_on_first_use(served, no_upstream: Path) -> None:
    base, root = served
    pinned = upstream.chart_artifact("aws-efa-k8s-device-plugin", versions.EFA_DEVICE_PLUGIN.version)
    _helm_repository(root, base, upstream.locate(pinned, mirror=_mirror()))
    unpinned = dataclasses.replace(pinned, source=base, sha256=None)

    (refused,) = upstream_fetch.fetch([unpinned])
    assert refused.status == "refused" and "--trust-on-first-use" in refused.detail
    assert upstream.locate(unpinned) is None
    (trusted,) = upstream_fetch.fetch([unpinned], trust_on_first_use=True)
    assert trusted.status == "fetched" and "trusted on first use" in trusted.detail
    assert upstream.cached_digests()[unpinned.name]["verified_by"] == "trusted on first use"
    assert upstream.locate(unpinned) is not None
    # From now on the recorded digest pins it: a changed package in the cache is refused.
    stored = no_upstream / f"{unpinned.path}.tgz"
    stored.write_bytes(stored.read_bytes() + b"\0")
    with pytest.raises(upstream.DigestMismatch):
        upstream.locate(unpinned)


def test_fetch_builds_a_tree_from_an_upstream_archive_and_checks_its_tree_digest(served, no_upstream: Path) -> None:
    base, root = served
    rules = upstream.locate(upstream.GUARD_RULES, mirror=_mirror())
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w:gz") as tar:
        tar.add(rules, arcname="aws-guard-rules-registry-7f7340c")  # GitHub's archives hold one top folder
    (root / "rules.tar.gz").write_bytes(archive.getvalue())
    artifact = dataclasses.replace(upstream.GUARD_RULES, source=f"{base}/rules.tar.gz")

    (outcome,) = upstream_fetch.fetch([artifact], download=_http_file)
    assert outcome.status == "fetched", outcome
    assert upstream.locate(artifact) == no_upstream / "guard-rules"
    assert not (no_upstream / "guard-rules" / "SOURCES.md").exists()  # only what the archive's kept paths hold


def _crafted(members: list[tuple[str, str]], base: Path | None = None) -> bytes:
    """A .tar.gz of (kind, name) members: "file" (name as written), "symlink" / "hardlink" (to /etc/passwd), or a
    copy of ``base``'s files under the name "tree:<top>"."""
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w:gz") as tar:
        for kind, name in members:
            if kind == "tree":
                tar.add(base, arcname=name)
                continue
            info = tarfile.TarInfo(name)
            if kind == "file":
                data = b"planted\n"
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                info.type = tarfile.SYMTYPE if kind == "symlink" else tarfile.LNKTYPE
                info.linkname = "/etc/passwd"
                tar.addfile(info)
    return archive.getvalue()


_TOP = "aws-guard-rules-registry-7f7340c"
_PLANTED = [("file", f"{_TOP}/rules/aws/iam/../../../../../escaped.txt"), ("file", "/tmp/eks-training-absolute.txt"),
            ("symlink", f"{_TOP}/rules/aws/iam/passwd"), ("hardlink", f"{_TOP}/rules/aws/iam/hard")]


@pytest.mark.parametrize("planted", _PLANTED, ids=["dotdot", "absolute", "symlink", "hardlink"])
def test_a_crafted_tree_archive_is_refused_and_writes_nothing_outside_the_cache(served, no_upstream: Path,
                                                                                 planted) -> None:
    base, root = served
    rules = upstream.locate(upstream.GUARD_RULES, mirror=_mirror())
    (root / "rules.tar.gz").write_bytes(_crafted([("tree", _TOP), planted], rules))
    artifact = dataclasses.replace(upstream.GUARD_RULES, source=f"{base}/rules.tar.gz")
    before = {p for p in no_upstream.parent.parent.parent.rglob("*")}

    (outcome,) = upstream_fetch.fetch([artifact], download=_http_file)
    assert outcome.status == "refused" and planted[1] in outcome.detail and "nothing was written" in outcome.detail
    assert not (no_upstream / "guard-rules").exists()
    written = {p for p in no_upstream.parent.parent.parent.rglob("*")} - before
    assert all(p.is_dir() for p in written), written  # at most the empty cache folder
    assert not Path("/tmp/eks-training-absolute.txt").exists()


@pytest.mark.parametrize("planted", [("file", "aws-efa-k8s-device-plugin/../../escaped.txt"),
                                     ("symlink", "aws-efa-k8s-device-plugin/templates/passwd")], ids=["dotdot", "symlink"])
def test_a_crafted_chart_package_is_refused_before_it_enters_the_cache(served, no_upstream: Path, planted) -> None:
    base, root = served
    pinned = upstream.chart_artifact("aws-efa-k8s-device-plugin", versions.EFA_DEVICE_PLUGIN.version)
    chart = upstream.locate(pinned, mirror=_mirror())
    # A real Helm repository of the chart, whose package then gains one planted member (as a compromised
    # repository would serve it; helm pull does not open it).
    package = _helm_repository(root, base, chart)
    package.write_bytes(_crafted([("tree", "aws-efa-k8s-device-plugin"), planted], chart))
    ours = dataclasses.replace(pinned, source=base, sha256=hashlib.sha256(package.read_bytes()).hexdigest())

    (outcome,) = upstream_fetch.fetch([ours])  # its digest matches: the members are what is refused
    assert outcome.status == "refused" and planted[1] in outcome.detail, outcome
    assert upstream.locate(ours) is None and not (no_upstream / f"{ours.path}.tgz").exists()
    assert not (no_upstream.parent / "escaped.txt").exists() and not (no_upstream / "escaped.txt").exists()
    # The same package in a mirror, where it matches its pin: refused before anything is unpacked.
    mirror = no_upstream.parent.parent / "mirror"
    (mirror / "charts").mkdir(parents=True)
    shutil.copy(package, mirror / f"{ours.path}.tgz")
    with pytest.raises(upstream.UpstreamError, match=r"archive member .* is not allowed.*nothing was unpacked"):
        upstream.locate(ours, mirror=mirror)
    assert not list(no_upstream.parent.parent.rglob("escaped.txt"))


def test_fetch_upstream_lists_the_lock(capsys, no_upstream) -> None:
    assert main(["fetch-upstream", "--list", "kueue"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("chart kueue 0.19.2") and "oci://registry.k8s.io/kueue/charts/kueue" in line
               and "(not here)" in line for line in lines)
    assert all("kueue" in line for line in lines) and len(lines) == 7  # the chart and its six CRDs


def test_fetch_upstream_refuses_an_unknown_name_in_one_line(capsys) -> None:
    assert main(["fetch-upstream", "no-such-thing"]) == 2
    assert capsys.readouterr().err.strip().startswith("error: fetch-upstream ARTIFACT='no-such-thing' is not allowed")


# --- OCI charts, against a real registry (Debian's docker-registry, the CNCF distribution) on 127.0.0.1 ----------


@pytest.fixture()
def registry(tmp_path: Path) -> Iterator[str]:
    """A registry on a free loopback port; the `oci://` base to push to and pull from."""
    import os
    import socket
    import time

    binary = shutil.which("docker-registry")
    if binary is None:
        assert not os.environ.get("CI"), "CI installs Debian's docker-registry (.ci/run): it is missing"
        pytest.skip("Debian's docker-registry is not installed (apt-get install docker-registry)")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = tmp_path / "registry.yml"
    config.write_text(f"version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: {tmp_path}/data\n"
                      f"http:\n  addr: 127.0.0.1:{port}\n")
    server = subprocess.Popen([binary, "serve", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.1)
        yield f"oci://127.0.0.1:{port}/charts"
    finally:
        server.terminate()
        server.wait(timeout=10)


def _push(package: Path, base: str) -> str:
    """Push a chart package; the manifest digest the registry now serves it under."""
    done = subprocess.run([str(helm_binary()), "push", str(package), base, "--plain-http"], check=True,
                          capture_output=True, text=True)
    return upstream_fetch._OCI_DIGEST.search(done.stdout + done.stderr).group(1)


def test_fetch_pulls_an_oci_chart_and_holds_it_to_its_manifest_digest(registry: str, tmp_path: Path,
                                                                      no_upstream: Path) -> None:
    pinned = upstream.chart_artifact("jobset", "0.12.0")
    chart = upstream.locate(pinned, mirror=_mirror())
    subprocess.run([str(helm_binary()), "package", str(chart), "--destination", str(tmp_path)], check=True,
                   capture_output=True)
    digest = _push(next(tmp_path.glob("jobset-*.tgz")), registry)
    ours = dataclasses.replace(pinned, source=f"{registry}/jobset", oci_digest=digest)

    (outcome,) = upstream_fetch.fetch([ours])
    assert outcome.status == "fetched" and "oci manifest digest" in outcome.detail, outcome
    assert (upstream.locate(ours) / "Chart.yaml").is_file()

    wrong = "sha256:" + "1" * 64
    (refused,) = upstream_fetch.fetch([dataclasses.replace(ours, oci_digest=wrong)], cache=no_upstream / "other")
    assert refused.status == "refused" and refused.detail == f"expected {wrong}, got {digest}"


# --- `make test`'s first step: fetch where upstream is reachable, say so where it is not -------------------------


def test_make_test_fetches_nothing_when_a_mirror_is_set(capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(upstream.MIRROR_ENV, str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert main(["fetch-upstream", "--if-reachable"]) == 0
    assert capsys.readouterr().out.strip() == f"fetch-upstream: the mirror {tmp_path} is set; nothing to fetch"
    assert not (tmp_path / "cache").exists()


def test_reachability_is_a_connection_to_the_artifacts_own_server(served) -> None:
    import socket

    base, _ = served
    with socket.socket() as closed:  # a port nothing listens on once this socket is closed
        closed.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{closed.getsockname()[1]}/x.yaml"
    live = dataclasses.replace(upstream.CRDS[0], source=f"{base}/x.yaml")
    assert upstream_fetch._reachable([dataclasses.replace(live, source=dead)], timeout_s=2) is None
    assert upstream_fetch._reachable([dataclasses.replace(live, source=dead), live], timeout_s=2) == base.split("//")[1]
