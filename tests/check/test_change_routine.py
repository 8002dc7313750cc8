"""Routine changes of a running platform leave what they do not change in place: each test puts back the defect it
guards against (a value that followed capacity, a prune that reached a namespace...) and sees it named.

The whole-template proof (a synthesized prod changed several ways, through the change stage) is
tests/check/test_change_stage.py's ``changed_prod``; these tests hold each rule on its own, without a synth.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from change_scenarios import _double_dev_pool, _halve_partition, _halve_pool, _remove_pool
from test_change_stage import _by_id, _manifest, _obj, _predict, _template

from eks_training.core.cfn_text import cfn_text
from eks_training.core.subnets import default_training_prefix
from eks_training.infra.config import ENVIRONMENTS_DIR, ConfigError, PlatformConfig, parse_config, read_yaml
from eks_training.infra.tools.check.change.stage import predict_changes
from eks_training.infra.tools.check.deploy_check import CheckReport, _check_training_subnet
from eks_training.infra.tools.check.snapshot import load_snapshot


def _environment(name: str, edit=None) -> PlatformConfig:
    data = read_yaml((ENVIRONMENTS_DIR / f"{name}.yaml").read_text(), source=f"{name}.yaml")
    if edit is not None:
        data = copy.deepcopy(data)
        edit(data)
    return parse_config(data, source=f"{name}.yaml")


def _grow_dev_pool(data: dict[str, Any]) -> None:
    for _ in range(6):  # 8 -> 512 GPUs: more nodes than dev's training subnet has addresses for
        _double_dev_pool(data)


# --- the training subnet -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("environment, edit", [("prod", _halve_pool), ("prod", _remove_pool),
                                               ("prod", _halve_partition), ("dev", _double_dev_pool),
                                               ("dev", _grow_dev_pool)])
def test_capacity_edits_leave_the_training_subnet_where_it_is(environment, edit):
    shipped, edited = _environment(environment), _environment(environment, edit)
    assert shipped.training_subnet_demand() != edited.training_subnet_demand()  # the edit did change capacity
    assert edited.training_prefix() == shipped.training_prefix() == default_training_prefix(shipped.network.cidr)


def test_a_configured_prefix_is_kept_and_one_that_cannot_fit_is_refused_in_one_line():
    def prefix(value):
        def edit(data):
            data["network"]["training_subnet_prefix"] = value
        return edit
    assert _environment("prod", prefix(19)).training_prefix() == 19
    with pytest.raises(ConfigError, match=r"^prod.yaml: network.training_subnet_prefix=16 is not allowed: a prefix "
                                         r"from /17 to /28 fits network.cidr 10.0.0.0/16 beside 3 zones'"):
        _environment("prod", prefix(16))


def test_the_deploy_check_warns_when_capacity_could_outgrow_the_training_subnet():
    report = CheckReport("dev", "1.35")
    _check_training_subnet(_environment("dev"), report)
    assert report.notes == []
    grown = _environment("dev", _grow_dev_pool)
    _check_training_subnet(grown, report)
    (note,) = report.notes
    assert note.startswith("network: the training subnet (/17) holds 32763 addresses")
    assert "capacity.karpenter_pools[0].max_accelerators=512" in note and report.ok  # a warning, not a failure


# --- namespaces and volumes: left behind, never pruned ---------------------------------------------------------------


@pytest.mark.parametrize("prune", [False, True])
def test_a_removed_namespace_and_volume_are_left_behind_by_a_manifest_that_never_prunes(prune):
    claim = _obj("PersistentVolumeClaim", "fsx-data", "ai-research", spec={"volumeName": "fsx-data-ai-research"})
    kept = [_obj("Namespace", "training"), _obj("PersistentVolume", "fsx-data-training")]
    # The workspace Job is named after the namespaces it serves: a new name, the old Job left finished.
    setup = _obj("Job", "fsx-workspaces-1", "kube-system", "batch/v1", spec={"template": {"spec": {}}})
    old = _template(Namespaces=_manifest(_obj("Namespace", "ai-research"), kept[0], prune=prune),
                    Storage=_manifest(_obj("PersistentVolume", "fsx-data-ai-research"), claim, kept[1], setup,
                                      prune=prune))
    new = _template(Namespaces=_manifest(kept[0], prune=prune), Storage=_manifest(kept[1], prune=prune))
    report = _predict(old, new)
    found = _by_id(report)
    if prune:  # the defect: kubectl apply --prune deletes both, and the namespace's jobs with it
        assert found["prune:Namespace/ai-research"].destructive and report.verdict == "refused"
        assert found["prune:PersistentVolume/fsx-data-ai-research"].destructive
        return
    namespace, volume = found["orphan:Namespace/ai-research"], found["orphan:PersistentVolume/fsx-data-ai-research"]
    assert not namespace.destructive and not volume.destructive and report.verdict == "in place"
    assert "left behind with everything in it: PersistentVolumeClaim fsx-data" in namespace.message
    assert "kubectl delete namespace ai-research" in namespace.message
    assert "delete it by hand" in volume.message
    assert not found["orphan:Job/kube-system/fsx-workspaces-1"].destructive
    assert not any(c.id.startswith(("prune:", "delete:")) for c in report.changes)


# --- admin access entries --------------------------------------------------------------------------------------------


def _cluster_template(admins: list[str]) -> dict:
    import aws_cdk as cdk
    from aws_cdk import assertions

    from eks_training.constructs.cluster import TrainingCluster
    from eks_training.constructs.network import TrainingNetwork

    stack = cdk.Stack(cdk.App(), "Admins", env=cdk.Environment(region="us-west-2"))
    network = TrainingNetwork(stack, "Network", availability_zones=["us-west-2a", "us-west-2b"],
                              training_az="us-west-2a", vpc_endpoints=False)
    TrainingCluster(stack, "Cluster", vpc=network.vpc, version="1.35", cluster_name="admins",
                    admin_role_arns=admins, training_subnet=network.training_subnet)
    return assertions.Template.from_stack(stack).to_json()


def test_dropping_the_first_admin_leaves_the_second_admins_entry_in_place():
    first, second = ("arn:aws:iam::${AWS::AccountId}:role/platform-admin",
                     "arn:aws:iam::111122223333:role/ops/oncall")
    both, one = _cluster_template([first, second]), _cluster_template([second])
    found = predict_changes(both, load_snapshot(copy.deepcopy(one)), region="us-west-2").changes
    # The first admin's entry goes and nothing else of the admins' changes (keyed by position, the second's entry
    # would take the first's logical ID and be replaced: PrincipalArn is create-only).
    admins = [(c.verb, c.subject) for c in found if c.subject.startswith("ClusterAdmin")]
    assert len(admins) == 1 and admins[0][0] == "delete" and admins[0][1].startswith("ClusterAdminplatformadmin")
    (lid,) = [lid for lid, r in one["Resources"].items()
              if r["Type"] == "AWS::EKS::AccessEntry" and lid.startswith("ClusterAdmin")]
    assert lid.startswith("ClusterAdminopsoncall111122223333") and one["Resources"][lid]["Properties"]["PrincipalArn"] == second


def test_an_admin_named_twice_is_refused_in_one_line():
    arn = "arn:aws:iam::111122223333:role/admin"
    with pytest.raises(ConfigError, match=r"^prod.yaml: cluster.admin_role_arns\[1\]='arn:aws:iam::111122223333:"
                                          r"role/admin' is not allowed: each role once"):
        _environment("prod", lambda data: data["cluster"].__setitem__("admin_role_arns", [arn, arn]))


# --- Slurm NodeSets: replicas are the operator's --------------------------------------------------------------------


def _node_set(max_nodes: int, replicas: int | None) -> dict:
    spec = {"controllerRef": {"name": "prod-slurm"}, "partition": {"enabled": True, "config": f"MaxNodes={max_nodes}"}}
    if replicas is not None:
        spec["replicas"] = replicas
    return _obj("NodeSet", "prod-slurm-worker-gpu", "slurm", "slinky.slurm.net/v1beta1", spec=spec)


@pytest.mark.parametrize("replicas", [None, 0])
def test_a_node_set_update_leaves_its_replicas_to_the_operator(replicas):
    found = _by_id(_predict(_template(Slurm=_manifest(_node_set(16, replicas))),
                            _template(Slurm=_manifest(_node_set(8, replicas)))))
    reset = found.get("update:NodeSet/slurm/prod-slurm-worker-gpu")
    if replicas is None:
        assert reset is None and not any(c.destructive for c in found.values())
    else:  # the defect: every apply writes replicas: 0, draining a partition an operator scaled up
        assert reset.destructive and "spec.replicas: 0" in reset.message and "hand scaling" in reset.message


def _applied(template: dict):
    """(logical ID, object) of every object the template's manifests apply."""
    for lid, resource in template["Resources"].items():
        if resource["Type"] == "Custom::AWSCDK-EKS-KubernetesResource":
            for obj in json.loads(cfn_text(resource["Properties"]["Manifest"], lambda _: "TOKEN")):
                yield lid, obj


def test_the_platform_applies_node_sets_without_replicas_and_patches_them_once(prod):
    resources = prod.template["Resources"]
    node_sets = {obj["metadata"]["name"]: (lid, obj) for lid, obj in _applied(prod.template) if obj["kind"] == "NodeSet"}
    partitions = {f"prod-slurm-worker-{p.name}": p for p in prod.config.services.slurm_partitions}
    assert set(node_sets) == set(partitions)
    patches = {r["Properties"]["ResourceName"]: r for r in resources.values()
               if r["Type"] == "Custom::AWSCDK-EKS-KubernetesPatch"}
    for name, (lid, obj) in node_sets.items():
        assert "replicas" not in obj["spec"]  # the CRD's default (1) at creation, then the patch; never again
        patch = patches[f"nodesets.slinky.slurm.net/{name}"]
        assert json.loads(patch["Properties"]["ApplyPatchJson"]) == {"spec": {"replicas": partitions[name].replicas}}
        assert lid in patch["DependsOn"]


# --- the FSx workspace Job: a changed Job is a new one, and the old, finished one goes ------------------------------


def _workspace_job(name: str, tolerations: list[dict]) -> dict:
    return _obj("Job", name, "kube-system", "batch/v1", spec={"template": {"spec": {"tolerations": tolerations}}})


def _waiter(job: str) -> dict:
    return {"Type": "Custom::AWSCDK-EKS-KubernetesObjectValue", "DependsOn": ["Workspaces"],
            "Properties": {"ServiceToken": "arn:handler", "ClusterName": {"Ref": "Cluster"}, "ObjectType": "job",
                           "ObjectName": job, "ObjectNamespace": "kube-system", "JsonPath": ".status.succeeded"}}


_SYSTEM = [{"key": "CriticalAddonsOnly", "operator": "Exists"}]
_UPGRADING = [*_SYSTEM, {"key": "eks-training/upgrading", "operator": "Exists"}]


@pytest.mark.parametrize("defect", [None, "same name", "not waited for"])
def test_a_changed_workspace_job_replaces_the_finished_one_through_the_prune(defect):
    new_name = "fsx-workspaces-1" if defect == "same name" else "fsx-workspaces-2"
    old = _template(Workspaces=_manifest(_workspace_job("fsx-workspaces-1", _SYSTEM)))
    new = _template(Workspaces=_manifest(_workspace_job(new_name, _UPGRADING)))
    if defect != "not waited for":
        old["Resources"]["WaitOld"], new["Resources"]["WaitNew"] = _waiter("fsx-workspaces-1"), _waiter(new_name)
    report = _predict(old, new)
    found = _by_id(report)
    if defect == "same name":  # the name that hashed only the script: the template changes under it
        change = found["fail:Job/kube-system/fsx-workspaces-1"]
        assert change.destructive and "spec.template changes" in change.message and report.verdict == "refused"
    elif defect == "not waited for":  # a Job nobody saw finish may be running: deleting it is destructive
        assert found["prune:Job/kube-system/fsx-workspaces-1"].destructive and report.verdict == "refused"
    else:
        pruned = found["prune:Job/kube-system/fsx-workspaces-1"]
        assert not pruned.destructive and "it has finished" in pruned.message and report.verdict == "in place"


def test_the_platform_prunes_its_workspace_job_apart_from_the_volumes_it_never_prunes(prod):
    resources = prod.template["Resources"]
    holders = {(obj["kind"], obj["metadata"]["name"]): lid for lid, obj in _applied(prod.template)}
    (job,) = [name for kind, name in holders if kind == "Job" and name.startswith("fsx-workspaces-")]
    job_manifest, volumes = holders[("Job", job)], holders[("PersistentVolumeClaim", "fsx-root")]
    assert "PruneLabel" in resources[job_manifest]["Properties"]
    assert "PruneLabel" not in resources[volumes]["Properties"]
    # A change to the Job's template (a toleration added) under a new name, as the synth names it: the deployed
    # Job, which the deploy waited for, is pruned, and nothing is refused.
    new = copy.deepcopy(prod.template)
    props = new["Resources"][job_manifest]["Properties"]
    (obj,) = json.loads(props["Manifest"])
    obj["spec"]["template"]["spec"]["tolerations"].append({"key": "eks-training/upgrading", "operator": "Exists"})
    obj["metadata"]["name"] = "fsx-workspaces-0123456789"
    props["Manifest"] = json.dumps([obj])
    for resource in new["Resources"].values():
        if resource["Type"] == "Custom::AWSCDK-EKS-KubernetesObjectValue" and resource["Properties"]["ObjectName"] == job:
            resource["Properties"]["ObjectName"] = "fsx-workspaces-0123456789"
    report = predict_changes(prod.template, load_snapshot(new), region="us-west-2")
    pruned = _by_id(report)[f"prune:Job/kube-system/{job}"]
    assert not pruned.destructive and report.verdict == "in place", report.lines()


# --- a Kueue flavor left behind by a rename -------------------------------------------------------------------------


def _flavor(name: str) -> dict:
    return _obj("ResourceFlavor", name, None, "kueue.x-k8s.io/v1beta2", spec={"nodeLabels": {"role": name}})


def _queue(*flavors: str) -> dict:
    return _obj("ClusterQueue", "training", None, "kueue.x-k8s.io/v1beta2", spec={"resourceGroups": [
        {"coveredResources": ["cpu"], "flavors": [{"name": f, "resources": [{"name": "cpu", "nominalQuota": 8}]}
                                                  for f in flavors]}]})


@pytest.mark.parametrize("still_named", [False, True])
def test_a_flavor_renamed_out_of_a_shared_manifest_is_named_with_the_queues_that_use_it(still_named):
    # Kueue's CPU flavor was `system`, in the shared queues manifest; it is `cpu` now, in a manifest of its own.
    priority = _obj("WorkloadPriorityClass", "high", None, "kueue.x-k8s.io/v1beta2", value=100)
    old = _template(Queues=_manifest(_flavor("system"), _queue("system"), priority))
    queue = _queue("cpu", "system") if still_named else _queue("cpu")
    new = _template(Queues=_manifest(priority), FlavorCpu=_manifest(_flavor("cpu"), overwrite=True),
                    QueueTraining=_manifest(queue, overwrite=True))
    report = _predict(old, new)
    orphan = _by_id(report)["orphan:ResourceFlavor/system"]
    assert orphan.destructive and report.verdict == "refused"  # custom objects are never pruned: it stays
    if still_named:
        assert "ClusterQueue training still name it" in orphan.message and "kubectl delete" not in orphan.message
    else:
        assert "no ClusterQueue the stack applies names it" in orphan.message
        assert orphan.message.endswith("(`kubectl delete resourceflavor system`)")
