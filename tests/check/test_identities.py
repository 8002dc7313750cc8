"""`eks-training check` refuses pods that name a ServiceAccount their namespace lacks (the API server would)."""

from __future__ import annotations

import copy

import pytest
from support import upstream_data

from eks_training.infra.tools.check.deploy_check import check_snapshot, render_all_jobs
from eks_training.infra.tools.check.identities import missing_account_findings
from eks_training.infra.tools.check.placement import PodTemplate
from eks_training.infra.tools.check.snapshot import load_snapshot

pytestmark = upstream_data.requires(*upstream_data.installed_charts())


@pytest.fixture(scope="module")
def prod_jobs(prod):
    return render_all_jobs(prod.config)


def _identity_failures_without(prod, prod_jobs, account: str) -> set[str]:
    """The identity check's failing subjects once the namespaces' ServiceAccount ``account`` is gone."""
    snap = load_snapshot(copy.deepcopy(prod.template))
    for objects in snap.manifests.values():
        objects[:] = [o for o in objects if not (o["kind"] == "ServiceAccount" and o["metadata"]["name"] == account)]
    report = check_snapshot(snap, config=prod.config, jobs=copy.deepcopy(prod_jobs))
    return {f.subject for f in report.failures if f.area == "identity"}


def test_a_missing_ray_account_fails_every_ray_pod(prod, prod_jobs) -> None:
    subjects = _identity_failures_without(prod, prod_jobs, "ray")
    assert any("RayCluster" in s for s in subjects), subjects  # the shared cluster the kuberay add-on applies
    # A queued RayJob is fixed-size and runs as the token-less `training` account (it must not patch its
    # RayCluster past Kueue's admission): no pod of it uses `ray`, so none fails.
    assert not any(s.startswith(("job rayjob", "job pytorch-job")) for s in subjects), subjects


def test_a_missing_training_account_fails_every_job_pod_including_queued_ray(prod, prod_jobs) -> None:
    subjects = _identity_failures_without(prod, prod_jobs, "training")
    assert any(s.startswith("job rayjob") for s in subjects), subjects
    assert any(s.startswith("job pytorch-job") for s in subjects), subjects
    assert not any("RayCluster shared-ray" in s for s in subjects), subjects  # the shared cluster runs as `ray`


@pytest.mark.parametrize(("account", "fails"), [("default", False), (None, False), ("training", False), ("ray", True)])
def test_account_rule(account, fails) -> None:
    spec = {"containers": []} | ({"serviceAccountName": account} if account else {})
    findings = missing_account_findings([PodTemplate("job x", "team-a", spec)], {("team-a", "training")})
    assert bool(findings) is fails
