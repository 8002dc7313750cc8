"""Argo CD Applications for the review manifests, checked against the upstream Argo CD CRD."""

from __future__ import annotations

import pytest

from eks_training.workloads.gitops import argocd_application, environment_applications
from support.k8s_schemas import validate_k8s_object

REPO = "https://github.com/example/ml-platform.git"


def test_environment_application_is_valid_and_points_at_its_folder() -> None:
    [application] = environment_applications("prod", repo_url=REPO, revision="v1.2.0", path_prefix="/review/manifests/")
    validate_k8s_object(application)
    source = application["spec"]["source"]
    assert (source["repoURL"], source["targetRevision"], source["path"]) == (REPO, "v1.2.0", "review/manifests/prod")
    assert "helm-releases.yaml" in source["directory"]["exclude"]
    assert "syncPolicy" not in application["spec"], "CloudFormation owns these objects: no automatic sync by default"


def test_automated_sync_is_valid() -> None:
    application = argocd_application("training", repo_url="git@github.com:example/ml.git", revision="main",
                                     path="manifests/dev", automated=True)
    validate_k8s_object(application)
    assert application["spec"]["syncPolicy"]["automated"] == {"prune": False, "selfHeal": False}


@pytest.mark.parametrize(("field", "kwargs"), [
    ("repo_url", {"repo_url": "ftp://example.com/x"}),
    ("revision", {"revision": "main branch"}),
    ("path", {"path": "/abs/path"}),
    ("path", {"path": "manifests/../secrets"}),
    ("name", {"name": "Not_A_Name"}),
])
def test_bad_input_names_the_field(field: str, kwargs: dict) -> None:
    args = {"name": "app", "repo_url": REPO, "revision": "main", "path": "manifests/dev", **kwargs}
    with pytest.raises(ValueError) as err:
        argocd_application(**args)
    message = str(err.value)
    assert message.startswith(f"{field}=") and "\n" not in message
