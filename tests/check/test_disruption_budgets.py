"""Training jobs' disruption budgets against EKS's node group updates: one eviction at a time lets a roll go on (the
job saves on that pod's SIGTERM and requeues); a budget of none would hold the update 15 minutes and fail it, and
the change stage must see that through the labels the job controllers add to the pods (no template carries them)."""

from __future__ import annotations

import copy

import pytest

from eks_training.infra.config import load_environment
from eks_training.infra.tools.check.change.node_rolls import held_job_kinds
from eks_training.infra.tools.check.deploy_check import render_all_jobs


@pytest.fixture(scope="module")
def prod_jobs() -> dict:
    return render_all_jobs(load_environment("prod"))


def _budgets(jobs: dict) -> list[dict]:
    return [o for objects in jobs.values() for o in objects if isinstance(o, dict) and o.get("kind") == "PodDisruptionBudget"]


def test_rendered_budgets_let_a_node_group_update_evict_one_pod_at_a_time(prod_jobs) -> None:
    budgets = _budgets(prod_jobs)
    assert {b["metadata"]["name"] for b in budgets} >= {"pytorch-job", "volcano-job", "neuron-job", "trainjob"}
    assert all(b["spec"]["maxUnavailable"] == 1 for b in budgets)
    assert held_job_kinds(prod_jobs) == {}  # so a routine roll stays routine


def test_a_budget_of_none_holds_the_jobs_whose_controller_labels_it_selects(prod_jobs) -> None:
    jobs = copy.deepcopy(prod_jobs)
    for budget in _budgets(jobs):
        budget["spec"]["maxUnavailable"] = 0
    held = held_job_kinds(jobs)
    # The Job controller's batch.kubernetes.io/job-name and Volcano's volcano.sh/job-name are on no template.
    assert held["pytorch-job"] == "training/pytorch-job" and held["volcano-job"] == "training/volcano-job"
    assert held["neuron-job"] == "training/neuron-job"
