"""Argo CD ``Application`` objects (``argoproj.io/v1alpha1``) that point at the review manifests in Git.

The review command (``python -m eks_training.infra.tools.review``) writes every Kubernetes object of an environment
under ``cdk.out/manifests/<env>/``. A team that commits that folder to a Git repository can let Argo CD show
the difference between Git and the cluster. The Application syncs manually by default: CloudFormation is the
owner that applies these objects, and the review files carry ``${Token[...]}`` placeholders where a value is
only known at deploy time, so Argo CD is a drift viewer here, not a second applier.
"""

from __future__ import annotations

import re

from eks_training.core.validation import invalid
from eks_training.workloads.k8s_objects import check_dns_label
from eks_training.workloads.labels import common_labels

API_VERSION = "argoproj.io/v1alpha1"
COMPONENT = "gitops"
#: Where Argo CD is installed and looks for its Applications.
ARGOCD_NAMESPACE = "argocd"
#: Files of a review folder that are not Kubernetes objects (a listing of Helm releases, the cost summary).
NOT_MANIFESTS = ("helm-releases.yaml", "summary.json", "argocd/*")

_REPO_URL = re.compile(r"^(https://|ssh://|git@)[^\s]+$")
_REVISION = re.compile(r"^[A-Za-z0-9._/-]{1,255}$")
_PATH = re.compile(r"^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$")


def _check(field: str, value: object, pattern: re.Pattern[str], allowed: str) -> str:
    if not isinstance(value, str) or not pattern.match(value) or ".." in value.split("/"):
        raise invalid(field, value, f"use {allowed}")
    return value


def argocd_application(name: str, *, repo_url: str, revision: str, path: str, project: str = "default",
                       automated: bool = False) -> dict:
    """One Argo CD Application that watches the manifests under ``path`` of ``repo_url`` at ``revision``.

    Only the ``*.yaml`` object files of the folder are read (:data:`NOT_MANIFESTS` are excluded). With
    ``automated`` the Application syncs by itself (prune off, self-heal off); by default it only reports drift.
    Raises a one-line ValueError naming the field for a bad name, URL, revision or path.
    """
    check_dns_label("name", name)
    check_dns_label("project", project)
    _check("repo_url", repo_url, _REPO_URL, "an https://, ssh:// or git@ Git URL without spaces")
    _check("revision", revision, _REVISION, "a branch, tag or commit (letters, digits, '.', '_', '/', '-')")
    _check("path", path, _PATH, "a relative folder such as manifests/prod (no leading '/', no '..')")
    application = {
        "apiVersion": API_VERSION,
        "kind": "Application",
        "metadata": {"name": name, "namespace": ARGOCD_NAMESPACE, "labels": common_labels(COMPONENT)},
        "spec": {
            "project": project,
            "source": {
                "repoURL": repo_url,
                "targetRevision": revision,
                "path": path,
                "directory": {"recurse": False, "include": "*.yaml",
                              "exclude": "{" + ",".join(NOT_MANIFESTS) + "}"},
            },
            # Each object names its own namespace; the in-cluster API server is where Argo CD itself runs.
            "destination": {"server": "https://kubernetes.default.svc"},
        },
    }
    if automated:
        application["spec"]["syncPolicy"] = {"automated": {"prune": False, "selfHeal": False}}
    return application


def environment_applications(environment: str, *, repo_url: str, revision: str, path_prefix: str) -> list[dict]:
    """The Applications of one environment: one for its review folder ``<path_prefix>/<environment>``."""
    check_dns_label("environment", environment)
    prefix = _check("path_prefix", path_prefix.strip("/") if isinstance(path_prefix, str) else path_prefix, _PATH,
                    "a relative folder such as manifests (no leading '/', no '..')")
    return [argocd_application(f"eks-training-{environment}", repo_url=repo_url, revision=revision,
                               path=f"{prefix}/{environment}")]
