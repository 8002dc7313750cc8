"""Upstream artifacts the product reads at run time, pinned by version and SHA-256 and resolved like packages.

The deploy check renders upstream Helm charts, compares Karpenter's policy with its reference, reads the MPI
Operator's release manifest; the tests validate objects against upstream CRDs and run the AWS Guard rules. None of
that is vendored in the package. Each artifact is listed once here (charts through their pin in
:mod:`eks_training.core.versions`), and it is found, in this order, in:

1. the **mirror** folder named by ``$EKS_TRAINING_MIRROR`` (or a command's ``--mirror``): an offline copy of
   upstream, such as our CI's;
2. the **user cache**, ``$XDG_CACHE_HOME/eks-training/upstream`` (``~/.cache/eks-training/upstream``), which
   ``eks-training fetch-upstream`` fills from the upstream sources;

and nowhere else: no parent or working folder is ever probed. Both hold the same layout: ``charts/<name>-<version>/``
(an unpacked chart) or ``charts/<name>-<version>.tgz`` (the package ``helm pull`` downloads), ``crds/<project>/<file>``,
``reference/<file>``, ``guard-rules/``. Whatever is found is verified before use: a file or package by its SHA-256,
an unpacked tree by :func:`tree_digest`. A mismatch is an error naming the artifact and both digests, never a
silent fallback.

Digests, and where they come from:

* ``sha256``: the SHA-256 of the bytes upstream publishes (a file; a chart's ``.tgz`` as its repository's
  ``index.yaml`` lists it). ``None`` where upstream publishes no digest we could read (most OCI charts):
  ``fetch-upstream`` then refuses the artifact unless told to trust what it downloads on first use.
* ``oci_digest``: the OCI manifest digest of an OCI chart, where the registry's promotion record publishes it.
* ``tree_sha256``: the unpacked tree as our offline mirror holds it (``../shared`` of our CI: the upstream sources of
  the chart at its release tag, with the changes its SOURCES.md lists), so that mirror is verified too.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tarfile
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from eks_training.core import versions
from eks_training.core.versions import HelmPin

MIRROR_ENV = "EKS_TRAINING_MIRROR"


def how_to_get(artifact: "Artifact") -> str:
    """The one command that brings ``artifact`` (for a user who lacks it)."""
    return f"`eks-training fetch-upstream {artifact.path}` brings it (or set {MIRROR_ENV})"
_CACHE_INDEX = "index.json"


class UpstreamError(Exception):
    """An artifact that is present but unusable (wrong digest, unreadable); the message is one line."""


class DigestMismatch(UpstreamError):
    def __init__(self, artifact: "Artifact", where: Path, kind: str, expected: str, actual: str) -> None:
        super().__init__(f"{artifact.name}: {kind} of {where} is {actual}, expected {expected} "
                         f"(pinned in eks_training.core.upstream); refusing to use it")
        self.expected, self.actual = expected, actual


@dataclass(frozen=True)
class Artifact:
    """One upstream artifact: where it lies in a mirror or the cache, where upstream serves it, and its digests."""

    name: str
    kind: str  # "file" | "chart" | "tree"
    path: str  # relative to a mirror or cache root
    version: str
    #: Where fetch-upstream gets it: an https:// URL (files, trees) or the chart's repository URL / oci:// reference.
    source: str
    sha256: str | None = None
    tree_sha256: str | None = None
    oci_digest: str | None = None
    #: A chart's name in its repository (charts only).
    chart: str | None = None
    #: What a tree's upstream archive holds that the tree keeps (``tree`` only): path prefixes inside the archive.
    keep: tuple[str, ...] = ()

    @property
    def oci(self) -> bool:
        return self.source.startswith("oci://")


# --- the lock ----------------------------------------------------------------------------------------------------

def _chart(pin: HelmPin, *, tree: str | None, sha256: str | None = None, oci_digest: str | None = None) -> Artifact:
    name = pin.chart.rstrip("/").rsplit("/", 1)[-1]
    source = pin.chart if pin.repository is None else pin.repository
    return Artifact(f"chart {name} {pin.version}", "chart", f"charts/{name}-{pin.version}", pin.version, source,
                    sha256=sha256, tree_sha256=tree, oci_digest=oci_digest, chart=name)


def _github_file(path: str, repo: str, tag: str, upstream_path: str, sha256: str) -> Artifact:
    return Artifact(f"file {path}", "file", path, tag, f"https://raw.githubusercontent.com/{repo}/{tag}/{upstream_path}",
                    sha256=sha256)


#: Charts: the package digests are the `digest:` of each repository's index.yaml (NVIDIA gh-pages bf584288,
#: aws/eks-charts gh-pages c7f9ea56) and the promoted OCI digests of registry.k8s.io (kubernetes/k8s.io #9856
#: for Kueue 0.19.2, #9456 for JobSet 0.12.0). The other charts' upstreams publish no digest we could read.
CHARTS: tuple[Artifact, ...] = (
    _chart(versions.KARPENTER, tree="6cabe4bf9a7f66c210796a7897df0d3461da852c74532bd13049c59f8f7c607b"),
    _chart(versions.VOLCANO, tree="597fc349777194e5c45dc7e75de752b3f018a52bfddc87214224a280b813a8c3"),
    _chart(versions.KUBERAY, tree="23d81bf08b7d16457cb8e6c9397198c24a05164318ce229aeabc94c5d84ce444"),
    _chart(versions.KARPENTER_CRD, tree=None),  # CRDs only: the check renders no pods of it
    _chart(versions.CERT_MANAGER, tree="7d0b12a6d7086586ebab0b6c3507180973ce89b2e2ccf9b8f94065e8b04e0f2d"),
    _chart(versions.SLURM_OPERATOR_CRDS, tree="487512f6486c204aa85e15079b357a1524b5db68637093160e027b4f0391234c"),
    _chart(versions.SLURM_OPERATOR, tree="667dc62e259951e782f8ad729d9585b8a35524b972baf7c20ae70444926d329b"),
    _chart(versions.NVIDIA_DEVICE_PLUGIN, tree="f290a643860bea54dd9b1ee3c28824b45fe11d0ebe5ed5a5259a3069d52c0c73",
           sha256="9e5642bcdd3805c6e931f9d3ca542677d1f714d68c14c1364892011e67d9a606"),
    _chart(versions.EFA_DEVICE_PLUGIN, tree="ce733ecc8a475eb4d41ddd4295a4eae138141c1a7a7ef2da03516572b260839b",
           sha256="43b3d666f81a40b7f7ac88ee04a64954abaaa061b1e5f54dc7ce4beb3374e32a"),
    # The Neuron chart's source at 1.9.0 is in no mirror we have: the check models its device plugin from our values.
    _chart(versions.NEURON, tree=None),
    _chart(versions.JUPYTERHUB, tree="909bd830600b6daf30f03d7ed905287a911f7c3551c61ccf0148c87ab131bd79"),
    # Slinky's reference chart for a Slurm cluster: the tests compare our Slinky objects with what it renders.
    _chart(HelmPin("slurm", "oci://ghcr.io/slinkyproject/charts/slurm", "1.2.1", "slurm"),
           tree="c8c7ee50a59ce6d68f18601a9aee278a406f02e57e4e51f57cade8e6b7009f1b"),
    _chart(versions.KUEUE,
           tree="7a47eba1339fe620d886a2ecdbe5f2d49b525f18faec7d584de9882cf0c78fbd",
           oci_digest="sha256:ab436c33ef6c6b9b9e95b633e618bca0e0e436d6581d3b27bd12fc8a8026ab34"),
    _chart(versions.JOBSET,
           tree="0d3e9be7f9180d50ff4195820702708f296163058072ab20e4c6ae57ca54fce4",
           oci_digest="sha256:02808a890a0b0e03a1d3bf5959e2f562b3b47c15e446bbba358c1d24e1f81b24"),
    _chart(versions.KUBEFLOW_TRAINER,
           tree="ba42a102c3bc80eb50442c57e3655af3aaed9fcc39c252c2280bf06daa68535d"),
)

#: Files copied byte for byte from upstream at a tag: their SHA-256 is upstream's (the git blob of each matches).
FILES: tuple[Artifact, ...] = (
    _github_file(f"charts/mpi-operator-{versions.MPI_OPERATOR_VERSION}/mpi-operator.yaml", "kubeflow/mpi-operator",
                 versions.MPI_OPERATOR_VERSION, "deploy/v2beta1/mpi-operator.yaml",
                 "b38def13a94abe60b2a4b3485239d77f64892b8fbd202e9e435a6031b7500a8f"),
    # Karpenter's getting-started scripts download this file of the release tag's `preview` docs (the same blob as
    # the v1.14 docs folder on main).
    _github_file("reference/karpenter-1.14-cloudformation.yaml", "aws/karpenter-provider-aws", "v1.14.1",
                 "website/content/en/preview/getting-started/getting-started-with-karpenter/cloudformation.yaml",
                 "7ffeb01f04b5da482ef43087830de00a476098416e3b4576c38239ef1b0bef4b"),
)

_CRD_SOURCES = {
    "volcano": ("volcano-sh/volcano", "v1.15.1", "config/crd/volcano/bases"),
    "kuberay": ("ray-project/kuberay", "v1.7.0", "ray-operator/config/crd/bases"),
    "mpi-operator": ("kubeflow/mpi-operator", "v0.8.0", "manifests/base"),
    "slurm-operator": ("SlinkyProject/slurm-operator", "v1.2.1", "config/crd/bases"),
    "karpenter": ("aws/karpenter-provider-aws", "v1.14.1", "pkg/apis/crds"),
    "kubeflow-trainer": ("kubeflow/trainer", "v2.3.0", "manifests/base/crds"),
    "kueue": ("kubernetes-sigs/kueue", "v0.19.2", "config/components/crd/bases"),
    "jobset": ("kubernetes-sigs/jobset", "v0.12.0", "config/components/crd/bases"),
    "argocd": ("argoproj/argo-cd", "v3.5.1", "manifests/crds"),
}
_CRD_DIGESTS = {
    "volcano/scheduling.volcano.sh_queues.yaml": "92203dee889b6d3bb628f96d27779e98967d8ba21e58c425c7379bcbcee8b482",
    "volcano/scheduling.volcano.sh_podgroups.yaml": "c297c0fdcf00cea6a35daa2b6153a8590b56df0e22a96dbfa44f773814685017",
    "volcano/batch.volcano.sh_jobs.yaml": "a03feedc265bc8c9d71240063a37e0e818fa70fcad7b8a113b0875dc53fffa90",
    "volcano/topology.volcano.sh_hypernodes.yaml": "77ae7304543e37f218b428fc972dbd71bd6a88cc3004c4222172a63e2bd78fa4",
    "kuberay/ray.io_rayclusters.yaml": "c44704442eef0c6721ad40c1d66782c8bd3fdab9d3344306a5820910a679baa1",
    "kuberay/ray.io_rayjobs.yaml": "01a5cf3b17c1769fda44af7e82debcd98722f0c27b9ab84d084681c6649121f5",
    "kuberay/ray.io_rayservices.yaml": "0a8fc325e6e22b9231c1f282b309555e2ecf94227ca20a03df3d1d9a403907ab",
    "mpi-operator/kubeflow.org_mpijobs.yaml": "78b0131f931fcc8d99f6ce0407281f41b62527e443ec691d26d9634b390ad3bb",
    "slurm-operator/slinky.slurm.net_controllers.yaml": "9c435f78ca81eebb656d2d4c45f34a745c1ef1d6474ecc16b5917ad73e87d4c1",
    "slurm-operator/slinky.slurm.net_nodesets.yaml": "7ae218e2730770548bf7429bb8e3847187041e14584ef50b7f7b066257240b4d",
    "slurm-operator/slinky.slurm.net_loginsets.yaml": "30a5c023b96bf896b2112c96a1803072cbeb0806fe44184c6a70df662ad26fe5",
    "slurm-operator/slinky.slurm.net_restapis.yaml": "113bc81a22cea526269b19bd15a7ccb1ee7d8484d002cfcf7d39662ea81406af",
    "slurm-operator/slinky.slurm.net_accountings.yaml": "609b943f469e56270130087c8506439ad262b5422657fd4c056a3b3961e3957e",
    "slurm-operator/slinky.slurm.net_tokens.yaml": "fe49f9cccb54d5653849bcf60d1422d261524ea171544f53844f990cd52416f6",
    "karpenter/karpenter.sh_nodepools.yaml": "3bb64a20c80776b77aa19a699ebdaf34480a7b2e7ec4ef890b43225b3517f878",
    "karpenter/karpenter.sh_nodeclaims.yaml": "96037dc241031fe0f7a09ddf78183d885ce6a1dfe115f7b3fbf8a12c564be694",
    "karpenter/karpenter.k8s.aws_ec2nodeclasses.yaml": "62dec59f01c0972d4503ca3ed25f243ba9c2f561be0d964ce7a14c8df406132f",
    "kubeflow-trainer/trainer.kubeflow.org_trainjobs.yaml": "a742cafc5b5582640c7e0b7467c024fc237256fbca5ba0a9f0531dfb66d64416",
    "kubeflow-trainer/trainer.kubeflow.org_clustertrainingruntimes.yaml": "ec84dc3388fcdbe8c61d3c247a773d14458dd9438e995bea8e50d2a18080eef9",
    "kubeflow-trainer/trainer.kubeflow.org_trainingruntimes.yaml": "69b8dbdf60a18e28cddcc2b8dfc4ce72a943e14b531b9389d593118faee4919f",
    "kueue/kueue.x-k8s.io_clusterqueues.yaml": "e0a5fc9b370c70f3d993d4f599865817338ecf94187b30b15b12ff33c579bd55",
    "kueue/kueue.x-k8s.io_localqueues.yaml": "dd10ef8d3578e7212fa52763549e7b6be0949793a5b924495fcd293330109fed",
    "kueue/kueue.x-k8s.io_resourceflavors.yaml": "19e339c47e9ca3fa2c9eeddd27715a512f765c4794ed859733408a9715720173",
    "kueue/kueue.x-k8s.io_cohorts.yaml": "61fbe5ec55d45e7fae2d65321fb32517b197257ab78ad55316673183aac911c2",
    "kueue/kueue.x-k8s.io_topologies.yaml": "f703575d3bb64d26f6e839f831e01646367ed41a89b3abf163f8e842ca1c4d2b",
    "kueue/kueue.x-k8s.io_workloadpriorityclasses.yaml": "0b755726aab05b8def9a53ee15b201eed3846bcffd1ff5528fed123f4ae03519",
    "jobset/jobset.x-k8s.io_jobsets.yaml": "d022b87624512cf0b6741b31b24a2bea9945b5a838b50713af29332c878bb6fe",
    # Argo CD's Application CRD keeps its own name upstream (application-crd.yaml).
    "argocd/argoproj.io_applications.yaml": "5dde0e229249b6b707beb98674c1deae3949d5c319a6c45b9f5a80c99618e40c",
}
_CRD_UPSTREAM_NAMES = {"argocd/argoproj.io_applications.yaml": "application-crd.yaml"}


def _crd(relative: str, sha256: str) -> Artifact:
    project, file_name = relative.split("/", 1)
    repo, tag, folder = _CRD_SOURCES[project]
    return _github_file(f"crds/{relative}", repo, tag, f"{folder}/{_CRD_UPSTREAM_NAMES.get(relative, file_name)}", sha256)


#: The upstream CRDs the tests validate every custom resource we write against.
CRDS: tuple[Artifact, ...] = tuple(_crd(relative, digest) for relative, digest in _CRD_DIGESTS.items())

_GUARD_COMMIT = "7f7340c"
#: The AWS Guard Rules Registry's rules for the services our templates hold, and four compliance mappings.
GUARD_RULES = Artifact(
    "tree guard-rules", "tree", "guard-rules", _GUARD_COMMIT,
    f"https://codeload.github.com/aws-cloudformation/aws-guard-rules-registry/tar.gz/{_GUARD_COMMIT}",
    tree_sha256="84c1d5fbd48c79a3139dba7aa7ba54a916c9e7efd6e68002f3e4453a9e7bbc7d",
    keep=("LICENSE", *(f"rules/aws/{service}/" for service in (
        "all_resources", "amazon_ec2", "amazon_ec2_auto_scaling", "amazon_efs", "amazon_eks", "amazon_fsx",
        "amazon_s3", "amazon_sqs", "aws_kms", "cloudwatch", "iam", "lambda")),
        *(f"mappings/rule_set_{name}.json" for name in (
            "cis_aws_benchmark_level_1", "cis_aws_benchmark_level_2", "nist800_53rev5", "wa-Security-Pillar"))))

#: Charts earlier releases of eks-training pinned, with the digests they pinned: a stack deployed by such a release
#: runs them, and the check's change stage reads them beside today's to say what an upgrade does to their CRDs. A
#: chart whose pin moves in :mod:`eks_training.core.versions` comes here with its digests.
PREVIOUS_CHARTS: tuple[Artifact, ...] = (
    _chart(HelmPin("cert-manager", versions.CERT_MANAGER.chart, "v1.19.1", "cert-manager"),
           tree="5971012c6e76127594e94a3cd3e58105d86a0bc71e9b8a00a4153e43dbefc8b5"),
)

ARTIFACTS: tuple[Artifact, ...] = (*CHARTS, *PREVIOUS_CHARTS, *FILES, *CRDS, GUARD_RULES)
BY_NAME = {a.name: a for a in ARTIFACTS}


def chart_artifact(chart: str, version: str) -> Artifact | None:
    """The lock entry of a chart as our CDK code names it (a repository name or an oci:// reference): today's pin or
    one an earlier release pinned (:data:`PREVIOUS_CHARTS`)."""
    name, bare = chart.rstrip("/").rsplit("/", 1)[-1], version.removeprefix("v")
    # A release may spell the version with or without the leading "v" its chart uses.
    return next((a for a in (*CHARTS, *PREVIOUS_CHARTS) if a.chart == name and a.version.removeprefix("v") == bare),
                None)


def file_artifact(path: str) -> Artifact:
    return BY_NAME[f"file {path}"]


# --- where to look -----------------------------------------------------------------------------------------------


def mirror_root(mirror: str | os.PathLike | None = None) -> Path | None:
    """The mirror folder: ``mirror`` if given, else ``$EKS_TRAINING_MIRROR``; None when neither is set."""
    configured = os.fspath(mirror) if mirror is not None else os.environ.get(MIRROR_ENV)
    if not configured:
        return None
    root = Path(configured).expanduser()
    if not root.is_dir():
        raise UpstreamError(f"{MIRROR_ENV}={configured!r} is not a folder: point it at an upstream mirror "
                            "(charts/, crds/, reference/, guard-rules/) or unset it")
    return root


def cache_root() -> Path:
    """The user cache of verified artifacts (XDG base directory rules)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "eks-training" / "upstream"


# --- digests -----------------------------------------------------------------------------------------------------


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def tree_digest(root: Path) -> str:
    """One digest of an unpacked tree: every file's path (POSIX, relative) and SHA-256, in path order.

    A top-level ``SOURCES.md`` is left out: it is a mirror's note about where the tree came from, not upstream's.
    """
    lines = []
    for path in sorted((p for p in Path(root).rglob("*") if p.is_file()), key=lambda p: p.relative_to(root).as_posix()):
        relative = path.relative_to(root).as_posix()
        if relative != "SOURCES.md":
            lines.append(f"{relative}\0{file_digest(path)}\n")
    return hashlib.sha256("".join(lines).encode()).hexdigest()


@functools.lru_cache(maxsize=None)
def _verified(path: str, kind: str, mtime_ns: int) -> str:
    """The digest of ``path`` (cached per process and modification time: the check resolves charts repeatedly)."""
    return tree_digest(Path(path)) if kind == "tree" else file_digest(Path(path))


def _digest_of(path: Path, kind: str) -> str:
    return _verified(str(path), kind, path.stat().st_mtime_ns)


# --- resolving ---------------------------------------------------------------------------------------------------


def locate(artifact: Artifact, *, mirror: str | os.PathLike | None = None) -> Path | None:
    """The verified local copy of ``artifact`` (a file, or a folder for charts and trees), or None when neither the
    mirror nor the cache holds it. Raises :class:`DigestMismatch` for a copy whose digest is not the pinned one."""
    root = mirror_root(mirror)
    if root is not None:
        found = _from_mirror(artifact, root)
        if found is not None:
            return found
    return from_cache(artifact, cache_root())


def _from_mirror(artifact: Artifact, root: Path) -> Path | None:
    target = root / artifact.path
    if artifact.kind == "file":
        if not target.is_file():
            return None
        _expect(artifact, target, "SHA-256", artifact.sha256, _digest_of(target, "file"))
        return target
    if target.is_dir():
        if artifact.tree_sha256 is None:
            raise UpstreamError(f"{artifact.name}: {target} is an unpacked tree, and no tree digest is pinned for it; "
                                f"put the package {target.name}.tgz there instead")
        _expect(artifact, target, "tree digest", artifact.tree_sha256, _digest_of(target, "tree"))
        return target
    package = target.with_name(target.name + ".tgz")
    if artifact.kind == "chart" and package.is_file():
        if artifact.sha256 is None:
            raise UpstreamError(f"{artifact.name}: {package} cannot be verified: upstream publishes no package digest "
                                "we pin; use an unpacked tree or the cache (eks-training fetch-upstream)")
        _expect(artifact, package, "SHA-256", artifact.sha256, _digest_of(package, "file"))
        return _unpacked(package, artifact, cache_root() / "unpacked" / artifact.sha256)
    return None


def from_cache(artifact: Artifact, root: Path) -> Path | None:
    record = cached_digests(root).get(artifact.name)
    expected = artifact.sha256 or (record or {}).get("sha256")
    if artifact.kind == "tree":
        target = root / artifact.path
        if not target.is_dir():
            return None
        _expect(artifact, target, "tree digest", artifact.tree_sha256, _digest_of(target, "tree"))
        return target
    stored = root / (artifact.path + ".tgz" if artifact.kind == "chart" else artifact.path)
    if not stored.is_file() or expected is None:
        return None  # nothing there, or a file no verified fetch recorded
    _expect(artifact, stored, "SHA-256", expected, _digest_of(stored, "file"))
    if artifact.kind == "file":
        return stored
    return _unpacked(stored, artifact, root / artifact.path)


def _expect(artifact: Artifact, where: Path, kind: str, expected: str | None, actual: str) -> None:
    if expected is not None and expected != actual:
        raise DigestMismatch(artifact, where, kind, expected, actual)


def unsafe_members(archive: tarfile.TarFile) -> list[str]:
    """Members of ``archive`` that unpacking would have write outside its folder, or make other than plain files and
    folders: an absolute name, a ``..`` part, a link (symbolic or hard), a device. A chart or a rules tree holds
    none; an archive with one is refused whole, before anything of it is written."""
    bad = []
    for member in archive.getmembers():
        parts = member.name.replace("\\", "/").split("/")
        if member.name.startswith("/") or ".." in parts or not (member.isfile() or member.isdir()):
            bad.append(member.name)
    return bad


def check_members(archive: tarfile.TarFile, what: str) -> None:
    """:func:`unsafe_members` as a one-line error naming ``what`` and the first such member."""
    bad = unsafe_members(archive)
    if bad:
        raise UpstreamError(f"{what}: archive member {bad[0]!r} is not allowed: plain files and folders below the "
                            f"archive's own folder only ({len(bad)} such member{'s' if len(bad) > 1 else ''}; "
                            "nothing was unpacked)")


def _unpacked(package: Path, artifact: Artifact, folder: Path) -> Path:
    """The chart folder unpacked from a verified package (once; re-unpacked when the package changed)."""
    marker = folder / ".eks-training-package-sha256"
    digest = _digest_of(package, "file")
    if marker.is_file() and marker.read_text().strip() == digest:
        return folder / artifact.chart  # type: ignore[operator]
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent, prefix=".unpack-") as scratch:
        with tarfile.open(package, "r:gz") as archive:
            check_members(archive, f"{artifact.name} ({package})")
            archive.extractall(scratch, filter="data")
        chart = Path(scratch) / artifact.chart  # type: ignore[operator]
        if not (chart / "Chart.yaml").is_file():
            raise UpstreamError(f"{artifact.name}: {package} holds no {artifact.chart}/Chart.yaml")
        destination = folder / artifact.chart  # type: ignore[operator]
        if destination.exists():
            _remove_tree(destination)
        chart.rename(destination)
    marker.write_text(digest + "\n")
    return destination


def _remove_tree(folder: Path) -> None:
    for path in sorted(folder.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()
    folder.rmdir()


def cached_digests(root: Path | None = None) -> dict[str, dict[str, str]]:
    """What fetch-upstream recorded in the cache: artifact name -> {"sha256", "verified_by"}."""
    index = (root or cache_root()) / _CACHE_INDEX
    try:
        loaded = json.loads(index.read_text())
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def record_digest(root: Path, artifact: Artifact, sha256: str, verified_by: str) -> None:
    """Add one verified fetch to the cache's index (written atomically)."""
    index = cached_digests(root)
    index[artifact.name] = {"sha256": sha256, "verified_by": verified_by, "version": artifact.version}
    root.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=root, prefix=".index-")
    with os.fdopen(descriptor, "w") as handle:
        json.dump(index, handle, indent=2, sort_keys=True)
    os.replace(temporary, root / _CACHE_INDEX)


# --- what callers ask for ----------------------------------------------------------------------------------------


#: The release's chart and version in a HelmChart custom resource's properties when a deploy synth ships the verified
#: package as an asset (eks_training.constructs.chart_source): the kubectl handler reads only the properties it
#: knows, the deploy check reads this one.
SHIPPED_CHART_PROPERTY = "EksTrainingChart"


def release_chart(props) -> tuple[str | None, str]:
    """(chart, version) of a HelmChart custom resource's properties, whether it names its repository or ships the
    verified package (then :data:`SHIPPED_CHART_PROPERTY` names them)."""
    shipped = props.get(SHIPPED_CHART_PROPERTY) or {}
    return props.get("Chart", shipped.get("Chart")), str(props.get("Version", shipped.get("Version", "")))


def chart_dir(chart: str, version: str) -> Path | None:
    """The verified folder of a chart our code installs (``HelmPin.chart``, ``HelmPin.version``), or None."""
    artifact = chart_artifact(chart, version)
    return locate(artifact) if artifact is not None else None


def file_path(path: str) -> Path | None:
    """The verified copy of a pinned file (``FILES``/``CRDS``: "reference/...", "crds/<project>/<file>"), or None."""
    return locate(file_artifact(path))


def crd_files() -> list[Path] | None:
    """Every pinned upstream CRD, verified; None unless all of them are at hand (a partial set would let an unknown
    kind pass as unknown)."""
    found = [locate(artifact) for artifact in CRDS]
    return None if any(path is None for path in found) else [p for p in found if p is not None]


def missing(artifacts: Iterable[Artifact]) -> list[Artifact]:
    """Those of ``artifacts`` that neither the mirror nor the cache holds."""
    return [a for a in artifacts if locate(a) is None]


def describe(artifact: Artifact) -> str:
    """One line for a listing: name, where it comes from, which digest pins it."""
    pins = [f"sha256 {artifact.sha256[:12]}..." if artifact.sha256 else None,
            f"oci {artifact.oci_digest[7:19]}..." if artifact.oci_digest else None,
            f"tree {artifact.tree_sha256[:12]}..." if artifact.tree_sha256 else None]
    return f"{artifact.name:60} {artifact.source}  [{', '.join(p for p in pins if p) or 'no digest published'}]"
