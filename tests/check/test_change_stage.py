"""The change stage of `eks-training check` (``--previous``): each rule on a small hand-made pair of templates, and
one real change of prod (a namespace renamed, FSx grown, a node group's root volume doubled) through the command.

The deployed template is ``old``, the new one ``new``; each test asserts the finding (its ID, whether it fails the
check, what its line names), never a message copied whole.
"""

from __future__ import annotations

import copy
import io
import json
from contextlib import redirect_stdout
from decimal import Decimal

import pytest
import yaml
from support import upstream_data
from support.make_targets import cli_argv, dry_run

from eks_training.core.validation import InvalidValue
from eks_training.infra.tools.check.change import schemas as schema_module
from eks_training.infra.tools.check.change.manifests import update_refusals
from eks_training.infra.tools.check.change.stage import load_previous, predict_changes, read_acknowledgements
from eks_training.infra.tools.check.placement import Placement, PodTemplate
from eks_training.infra.tools.check.snapshot import HELM_CHART, KUBERNETES_RESOURCE, NodeSource, load_snapshot
from eks_training.infra.tools.cli import main

PRUNE_LABEL = "aws.cdk.eks/prune-c8test"
CLUSTER = {"Type": "AWS::EKS::Cluster", "Properties": {
    "Version": "1.36", "RoleArn": "arn:aws:iam::111122223333:role/cluster",
    "ResourcesVpcConfig": {"SubnetIds": ["subnet-1"]},
    "AccessConfig": {"AuthenticationMode": "API", "BootstrapClusterCreatorAdminPermissions": False}}}


def _template(**resources) -> dict:
    return {"Resources": {"Cluster": copy.deepcopy(CLUSTER), **copy.deepcopy(resources)}}


def _predict(old: dict, new: dict, **kwargs):
    return predict_changes(old, load_snapshot(copy.deepcopy(new)), region="us-west-2", **kwargs)


def _by_id(report) -> dict:
    return {change.id: change for change in report.changes}


def _manifest(*objects: dict, prune: bool = True, overwrite: bool = False) -> dict:
    labelled = []
    for obj in objects:
        obj = copy.deepcopy(obj)
        if prune:
            obj.setdefault("metadata", {}).setdefault("labels", {})[PRUNE_LABEL] = ""
        labelled.append(obj)
    props = {"ServiceToken": "arn:handler", "ClusterName": {"Ref": "Cluster"}, "Manifest": json.dumps(labelled)}
    if prune:
        props["PruneLabel"] = PRUNE_LABEL
    if overwrite:
        props["Overwrite"] = True
    return {"Type": KUBERNETES_RESOURCE, "Properties": props}


def _obj(kind: str, name: str, namespace: str | None = None, api_version: str = "v1", **fields) -> dict:
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": api_version, "kind": kind, "metadata": meta, **fields}


# --- CloudFormation: replacements from the schemas ---------------------------------------------------------------


def test_a_nested_create_only_property_replaces_the_cluster_and_a_named_one_cannot_be():
    old = _template()
    new = _template()
    new["Resources"]["Cluster"]["Properties"]["AccessConfig"]["BootstrapClusterCreatorAdminPermissions"] = True
    change = _by_id(_predict(old, new))["replace:Cluster"]
    assert change.destructive
    assert "AccessConfig/BootstrapClusterCreatorAdminPermissions" in change.message
    assert "registry schema" in change.message and "every Kubernetes object, node and running job" in change.message

    for template in (old, new):
        template["Resources"]["Cluster"]["Properties"]["Name"] = "eks-training-prod"
    change = _by_id(_predict(old, new))["replace:Cluster"]
    assert change.destructive and "Name=eks-training-prod" in change.message and "deploy fails" in change.message


def _lustre(**lustre) -> dict:
    return {"Type": "AWS::FSx::FileSystem", "Properties": {
        "FileSystemType": "LUSTRE", "StorageCapacity": 4800, "SubnetIds": ["subnet-1"],
        "LustreConfiguration": {"DeploymentType": "PERSISTENT_2", "PerUnitStorageThroughput": 250, **lustre}}}


@pytest.mark.parametrize("field, value", [("DeploymentType", "PERSISTENT_1"), ("PerUnitStorageThroughput", 500)])
def test_lustre_settings_that_cdk_diff_calls_in_place_replace_the_file_system(field, value):
    # AWS::FSx::FileSystem's registry schema keeps only top-level create-only properties: the resource
    # specification (the CDK CLI's service database) names the nested ones.
    change = _by_id(_predict(_template(Fs=_lustre()), _template(Fs=_lustre(**{field: value}))))["replace:Fs"]
    assert change.destructive
    assert f"LustreConfiguration/{field}" in change.message and "resource specification" in change.message
    assert "its files" in change.message


def test_file_system_capacity_grows_in_place_and_never_shrinks():
    grown = _lustre()
    grown["Properties"]["StorageCapacity"] = 7200
    report = _predict(_template(Fs=_lustre()), _template(Fs=grown))
    assert [(c.id, c.destructive) for c in report.changes] == [("update:Fs", False)]
    assert report.verdict == "in place"
    shrunk = _by_id(_predict(_template(Fs=grown), _template(Fs=_lustre())))["fail:Fs"]
    assert shrunk.destructive and "only grows" in shrunk.message


def test_a_replacement_replaces_what_names_it_in_a_create_only_property():
    subnet = {"Type": "AWS::EC2::Subnet", "Properties": {"VpcId": "vpc-1", "CidrBlock": "10.0.128.0/17"}}
    fs = _lustre()
    fs["Properties"]["SubnetIds"] = [{"Ref": "Training"}]
    role = {"Type": "AWS::IAM::Role", "Properties": {"AssumeRolePolicyDocument": {}}}
    old = _template(Training=subnet, Fs=fs, Role=role)
    new = copy.deepcopy(old)
    new["Resources"]["Training"]["Properties"]["CidrBlock"] = "10.0.192.0/18"
    found = _by_id(_predict(old, new))
    assert "CidrBlock" in found["replace:Training"].message
    assert "Training is replaced" in found["replace:Fs"].message and found["replace:Fs"].destructive
    assert not any(key.endswith(":Role") for key in found)


def _node_group(name: str | None = "p5-nodes", instance_type: str = "p5.48xlarge", **props) -> dict:
    base = {"ClusterName": {"Ref": "Cluster"}, "NodeRole": "arn:aws:iam::111122223333:role/node",
            "Subnets": ["subnet-1"], "InstanceTypes": [instance_type], "ScalingConfig": {"MinSize": 0, "MaxSize": 8}}
    if name:
        base["NodegroupName"] = name
    return {"Type": "AWS::EKS::Nodegroup", "Properties": {**base, **props}}


def test_a_named_node_group_cannot_change_instance_type_nor_move_to_another_logical_id():
    found = _by_id(_predict(_template(Gpu=_node_group()), _template(Gpu=_node_group(instance_type="p5e.48xlarge"))))
    assert "InstanceTypes" in found["replace:Gpu"].message and "NodegroupName=p5-nodes" in found["replace:Gpu"].message
    unnamed = _by_id(_predict(_template(Gpu=_node_group(None)), _template(Gpu=_node_group(None, "p5e.48xlarge"))))
    assert "its nodes, drained and terminated" in unnamed["replace:Gpu"].message

    moved = _by_id(_predict(_template(Gpu=_node_group()), _template(GpuNodes=_node_group())))
    assert moved["fail:GpuNodes"].destructive and "name is taken" in moved["fail:GpuNodes"].message
    assert moved["delete:Gpu"].destructive and "create:GpuNodes" in moved


def test_deleting_data_is_destructive_and_retaining_it_is_listed():
    bucket = {"Type": "AWS::S3::Bucket", "Properties": {}, "DeletionPolicy": "Retain", "UpdateReplacePolicy": "Retain"}
    fs = {**_lustre(), "DeletionPolicy": "Delete"}
    found = _by_id(_predict(_template(Data=bucket, Fs=fs), _template()))
    assert not found["retain:Data"].destructive and "DeletionPolicy Retain" in found["retain:Data"].message
    assert found["delete:Fs"].destructive and "its files" in found["delete:Fs"].message

    armed = {**bucket, "DeletionPolicy": "Delete"}
    change = _by_id(_predict(_template(Data=bucket), _template(Data=armed)))["update:Data"]
    assert change.destructive and "Retain -> Delete" in change.message and "its objects" in change.message


# --- the kubectl handler -----------------------------------------------------------------------------------------


def test_an_update_prunes_namespaces_and_allowlisted_kinds_and_orphans_the_rest():
    old = _template(Objects=_manifest(
        _obj("Namespace", "team-a"), _obj("ConfigMap", "settings", "team-a"),
        _obj("Namespace", "team-b"), _obj("ConfigMap", "kept", "team-b"), _obj("ConfigMap", "dropped", "team-b"),
        _obj("ServiceAccount", "runner", "team-b"), _obj("NodePool", "gpu", api_version="karpenter.sh/v1")))
    new = _template(Objects=_manifest(_obj("Namespace", "team-b"), _obj("ConfigMap", "kept", "team-b")))
    report = _predict(old, new)
    found = _by_id(report)
    namespace = found["prune:Namespace/team-a"]
    assert namespace.destructive and "ConfigMap settings" in namespace.message
    assert "orphan:ConfigMap/team-a/settings" not in found  # it goes with its namespace
    assert found["prune:ConfigMap/team-b/dropped"].destructive  # team-b is still applied to: kubectl prunes there
    assert "launching nodes" in found["orphan:NodePool/gpu"].message and found["orphan:NodePool/gpu"].destructive
    assert "prune list" in found["orphan:ServiceAccount/team-b/runner"].message
    assert report.verdict == "refused"

    # Without a prune label, kubectl apply prunes nothing: even the namespace stays, unmanaged.
    old_unlabelled = _template(Objects=_manifest(_obj("Namespace", "team-a"), _obj("Namespace", "team-b"), prune=False))
    new_unlabelled = _template(Objects=_manifest(_obj("Namespace", "team-b"), prune=False))
    assert "orphan:Namespace/team-a" in _by_id(_predict(old_unlabelled, new_unlabelled))


def test_a_renamed_manifest_deletes_in_cleanup_what_its_successor_applied():
    old = _template(SlurmNamespace=_manifest(_obj("Namespace", "slurm")))
    found = _by_id(_predict(old, _template(SlurmNamespaceV2=_manifest(_obj("Namespace", "slurm")))))
    assert "applied by SlurmNamespaceV2, then deleted" in found["delete:Namespace/slurm"].message
    assert "AlreadyExists" in found["fail:SlurmNamespaceV2"].message  # kubectl create without Overwrite
    overwriting = _by_id(_predict(old, _template(SlurmNamespaceV2=_manifest(_obj("Namespace", "slurm"),
                                                                            overwrite=True))))
    assert "delete:Namespace/slurm" in overwriting and "fail:SlurmNamespaceV2" not in overwriting


def _claim(size: str, storage_class: str = "") -> dict:
    return _obj("PersistentVolumeClaim", "data", "training", spec={
        "accessModes": ["ReadWriteMany"], "storageClassName": storage_class, "resources": {"requests": {"storage": size}}})


def test_kubernetes_refuses_updates_to_immutable_fields():
    expandable = {"gp3": _obj("StorageClass", "gp3", provisioner="ebs.csi.aws.com", allowVolumeExpansion=True)}
    assert "PersistentVolumeClaimResize" in update_refusals(_claim("4800Gi"), _claim("7200Gi"), {})[0]
    assert update_refusals(_claim("100Gi", "gp3"), _claim("200Gi", "gp3"), expandable) == []
    assert "shrinks" in update_refusals(_claim("200Gi", "gp3"), _claim("100Gi", "gp3"), expandable)[0]
    database = _obj("StatefulSet", "db", "slurm", "apps/v1", spec={"replicas": 1, "volumeClaimTemplates": [_claim("8Gi")]})
    bigger = copy.deepcopy(database)
    bigger["spec"]["volumeClaimTemplates"] = [_claim("16Gi")]
    assert "volumeClaimTemplates" in update_refusals(database, bigger, {})[0]
    scaled = copy.deepcopy(database)
    scaled["spec"]["replicas"] = 2
    assert update_refusals(database, scaled, {}) == []
    job = _obj("Job", "install", "ops", "batch/v1", spec={"template": {"spec": {"containers": [{"image": "a:1"}]}}})
    newer = copy.deepcopy(job)
    newer["spec"]["template"]["spec"]["containers"][0]["image"] = "a:2"
    assert "ValidateJobSpecUpdate" in update_refusals(job, newer, {})[0]
    job["spec"]["ttlSecondsAfterFinished"] = 600  # the finished Job is gone by then: apply creates the new one
    assert update_refusals(job, newer, {}) == []


def test_a_static_claim_that_follows_capacity_fails_the_manifest_update():
    found = _by_id(_predict(_template(Storage=_manifest(_claim("4800Gi"))), _template(Storage=_manifest(_claim("7200Gi")))))
    change = found["fail:PersistentVolumeClaim/training/data"]
    assert change.destructive and "4800Gi -> 7200Gi" in change.message and "static" in change.message


def _release(name: str, namespace: str, version: str = "0.19.2") -> dict:
    return {"Type": HELM_CHART, "Properties": {"ClusterName": {"Ref": "Cluster"}, "Release": name,
                                               "Chart": "oci://registry.k8s.io/kueue/charts/kueue",
                                               "Version": version, "Namespace": namespace}}


def test_the_helm_handler_uninstalls_removed_releases_and_cannot_rename_one():
    old = _template(Kueue=_release("kueue", "kueue-system"))
    assert "helm uninstall" in _by_id(_predict(old, _template()))["delete:Kueue"].message
    renamed = _by_id(_predict(old, _template(Kueue=_release("queues", "kueue-system"))))["fail:Kueue"]
    assert renamed.destructive and "second release" in renamed.message
    bumped = _by_id(_predict(old, _template(Kueue=_release("kueue", "kueue-system", "0.20.0"))))["update:Kueue"]
    assert not bumped.destructive and "kueue 0.19.2 -> kueue 0.20.0" in bumped.message


# --- nodes that roll ---------------------------------------------------------------------------------------------


def _source(logical_id: str, **labels) -> NodeSource:
    return NodeSource(name=f"node group {logical_id}", kind="node group", instance_type="p5.48xlarge", labels=labels,
                      taints=(), capacity={"cpu": Decimal(1)}, security_groups=(), standing=False, on_demand=False,
                      logical_id=logical_id)


def _placed(owner: str, source: NodeSource) -> Placement:
    return Placement(PodTemplate(owner, "training", {}), fits=[source])


def test_a_launch_template_change_rolls_its_node_group_and_evicts_the_jobs_there():
    template = {"Type": "AWS::EC2::LaunchTemplate", "Properties": {"LaunchTemplateData": {
        "BlockDeviceMappings": [{"DeviceName": "/dev/xvda", "Ebs": {"VolumeSize": 500}}]}}}
    group = _node_group(LaunchTemplate={"Id": {"Ref": "Lt"}, "Version": {"Fn::GetAtt": ["Lt", "LatestVersionNumber"]}})
    old = _template(Lt=template, Gpu=group)
    new = copy.deepcopy(old)
    new["Resources"]["Lt"]["Properties"]["LaunchTemplateData"]["BlockDeviceMappings"][0]["Ebs"]["VolumeSize"] = 1000
    placements = [_placed("job pytorch-job: PyTorchJob worker", _source("Gpu")), _placed("helm x: Deployment y", _source("Gpu"))]
    found = _by_id(_predict(old, new, placements=placements))
    roll = found["roll:Gpu"]
    # Routine: one node at a time, the job saves on SIGTERM and requeues; a note, not a refusal.
    assert not roll.destructive and "BlockDeviceMappings" in roll.message and "pytorch-job" in roll.message
    assert "1 node at a time (EKS's default: no UpdateConfig)" in roll.message and "SIGTERM" in roll.message
    paced = copy.deepcopy(new)
    paced["Resources"]["Gpu"]["Properties"]["UpdateConfig"] = {"MaxUnavailablePercentage": 50}
    assert "50% of its nodes at a time (UpdateConfig)" in _by_id(_predict(old, paced, placements=placements))["roll:Gpu"].message
    assert "update:Gpu" not in found and not found["update:Lt"].destructive
    platform_only = _by_id(_predict(old, new, placements=placements[1:]))["roll:Gpu"]
    assert not platform_only.destructive and "no job runs there" in platform_only.message


def _pool(limit: str = "128", *, instance_types=("p4d.24xlarge",), label: str = "a100", budgets=None) -> dict:
    disruption = {"consolidationPolicy": "WhenEmpty", **({"budgets": budgets} if budgets else {})}
    return _obj("NodePool", "gpu", api_version="karpenter.sh/v1", spec={
        "limits": {"nvidia.com/gpu": limit}, "disruption": disruption,
        "template": {"metadata": {"labels": {"family": label}}, "spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
            "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": list(instance_types)}]}}})


@pytest.mark.parametrize("new_pool, drifts, destructive", [
    (_pool("64"), False, False),  # limits drift nothing
    (_pool(label="h100"), True, True),  # spec.template's hash changes
    (_pool(instance_types=()), True, True),  # requirements no longer admit p4d.24xlarge
    (_pool(label="h100", budgets=[{"nodes": "0", "reasons": ["Drifted"]}]), True, False),  # held until empty
])
def test_karpenter_drift_follows_its_hash_requirements_and_budgets(new_pool, drifts, destructive):
    pools = _source("Pools", **{"karpenter.sh/nodepool": "gpu"})
    placements = [_placed("job mpijob: MPIJob worker", pools)]
    report = _predict(_template(Pools=_manifest(_pool())), _template(Pools=_manifest(new_pool)), placements=placements)
    drift = _by_id(report).get("drift:NodePool/gpu")
    assert (drift is not None) is drifts
    if drift:
        assert drift.destructive is destructive


def test_job_pods_marked_do_not_disrupt_are_waited_for():
    pools = _source("Pools", **{"karpenter.sh/nodepool": "gpu"})
    jobs = {"mpijob": [{"kind": "MPIJob", "spec": {"template": {
        "metadata": {"annotations": {"karpenter.sh/do-not-disrupt": "true"}}, "spec": {"containers": []}}}}]}
    report = _predict(_template(Pools=_manifest(_pool())), _template(Pools=_manifest(_pool(label="h100"))),
                      placements=[_placed("job mpijob: MPIJob worker", pools)], jobs=jobs)
    drift = _by_id(report)["drift:NodePool/gpu"]
    assert not drift.destructive and "waits for mpijob" in drift.message


# --- acknowledgement, inputs ---------------------------------------------------------------------------------------


def test_acknowledged_changes_pass_and_a_stale_acknowledgement_is_named(tmp_path):
    old, new = _template(Fs=_lustre()), _template()
    refused = _predict(old, new)
    assert [c.id for c in refused.refused] == ["delete:Fs"] and refused.verdict == "refused"
    listed = tmp_path / "acknowledged.txt"
    listed.write_text("# reviewed in the pull request\ndelete:Fs  # the scratch file system goes\nprune:Namespace/old\n")
    acknowledged = _predict(old, new, acknowledged=read_acknowledgements(files=[str(listed)]))
    assert acknowledged.refused == [] and acknowledged.verdict == "acknowledged"
    assert any("prune:Namespace/old" in note for note in acknowledged.notes)
    with pytest.raises(InvalidValue, match=r"^--acknowledge='Fs' is not allowed: a change ID"):
        read_acknowledgements(["Fs"])


def test_the_previous_template_is_a_file_or_a_cloud_assembly(tmp_path):
    template = _template()
    (tmp_path / "deployed.json").write_text(json.dumps(template))
    assert load_previous(tmp_path / "deployed.json")[0] == template
    assembly = tmp_path / "cdk.out"
    assembly.mkdir()
    (assembly / "EksTraining-prod.template.json").write_text(json.dumps(template))
    (assembly / "manifest.json").write_text(json.dumps({"artifacts": {"EksTraining-prod": {
        "type": "aws:cloudformation:stack", "environment": "aws://unknown-account/us-west-2",
        "properties": {"templateFile": "EksTraining-prod.template.json"}}}}))
    assert load_previous(assembly, "EksTraining-prod") == (template, f"{assembly} (EksTraining-prod)")
    with pytest.raises(InvalidValue, match=r"^--previous='.*elsewhere' is not allowed"):
        load_previous(tmp_path / "elsewhere")


def test_without_the_resource_schemas_the_stage_fails_in_one_line(monkeypatch):
    monkeypatch.setattr(schema_module, "cfn_lint_schema_folder", lambda: None)
    report = _predict(_template(), _template())
    assert [c.id for c in report.refused] == ["fail:resource-schemas"]
    assert "pip install 'eks-training[change]'" in report.changes[0].message


# --- prod, for real ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def changed_prod(prod, tmp_path_factory):
    """prod with ai-research renamed research, FSx grown to 7200 GiB, p5-nodes' root volume doubled, pool gpu-a100's
    limit halved, pool trn1n removed and the first Slurm partition's max nodes halved, as a config file and its
    synthesized template (one synth for six scenarios)."""
    from change_scenarios import _halve_partition, _halve_pool, _remove_pool

    from eks_training.infra.config import ENVIRONMENTS_DIR, parse_config, read_yaml
    from eks_training.infra.tools.check.deploy_check import synthesize_template

    data = read_yaml((ENVIRONMENTS_DIR / "prod.yaml").read_text(), source="prod.yaml")
    for namespace in data["training_namespaces"]:
        namespace["name"] = "research" if namespace["name"] == "ai-research" else namespace["name"]
    for queue in data["services"]["kueue_queues"]:
        queue["namespaces"] = ["research" if n == "ai-research" else n for n in queue["namespaces"]]
    data["storage"]["fsx"]["storage_capacity_gib"] = 7200
    data["capacity"]["gpu_node_groups"][0]["root_volume"] = {"size_gib": 1000}
    for edit in (_halve_pool, _remove_pool, _halve_partition):
        edit(data)
    folder = tmp_path_factory.mktemp("changed-prod")
    (folder / "prod.yaml").write_text(yaml.safe_dump(data))
    (folder / "new.template.json").write_text(json.dumps(synthesize_template(parse_config(data))))
    (folder / "deployed.template.json").write_text(json.dumps(prod.template))
    return folder


@pytest.mark.slow
@upstream_data.requires(*upstream_data.installed_charts())
def test_prod_changes_are_refused_until_acknowledged_through_the_command(changed_prod):
    # The command `make change` runs for this pull-request review.
    (line,) = [line for line in dry_run("change", f"CONFIG={changed_prod / 'prod.yaml'}",
                                        f"TEMPLATE={changed_prod / 'new.template.json'}",
                                        f"PREVIOUS={changed_prod / 'deployed.template.json'}") if " check " in line]
    argv = cli_argv(line)
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(argv)
    text = out.getvalue()
    assert status == 1
    refused = [line.split("]")[0].split("[")[1] for line in text.splitlines() if line.startswith("  ! [")]
    # The renamed namespace is left behind with everything in it, named but not refused (never pruned).
    left = next(line for line in text.splitlines() if "[orphan:Namespace/ai-research]" in line)
    assert left.startswith("    [") and "kubectl delete namespace ai-research" in left
    assert not [r for r in refused if r.startswith(("prune:", "delete:Namespace"))]
    # FSx grows in place: the static claims stay as they are (Kubernetes would refuse to grow them).
    assert not [line for line in text.splitlines() if "PersistentVolumeClaim" in line and "[fail:" in line]
    # Capacity edits move no subnet, file system, association or node group: nothing is replaced.
    assert "[replace:" not in text
    # The removed pool is deleted with its node class (its nodes drained): refused until acknowledged.
    assert {"delete:NodePool/trn1n", "delete:EC2NodeClass/trn1n"} <= set(refused)
    # The halved partition's NodeSet is applied again without replicas: an operator's scaling stays.
    assert not [line for line in text.splitlines() if "NodeSet/" in line and "hand scaling" in line]
    assert "delete:Role/ai-research/eks-training-member" in refused  # the old team's rights go with its name
    assert not any(item.startswith("roll:") for item in refused)  # a routine roll is a note
    roll = next(line for line in text.splitlines() if line.startswith("    [roll:NodeGroupp5nodes"))
    assert "BlockDeviceMappings" in roll and "pytorch-job" in roll and "1 node at a time (UpdateConfig)" in roll
    assert "resource specification: CloudFormation's resource specification" in text

    (changed_prod / "acknowledged.txt").write_text("\n".join(refused) + "\n")
    out = io.StringIO()
    with redirect_stdout(out):
        status = main([*argv, "--acknowledgements", str(changed_prod / "acknowledged.txt")])
    assert "(acknowledged; ! destructive, + acknowledged)" in out.getvalue()
    assert not [line for line in out.getvalue().splitlines() if line.startswith("  ! [")]
    assert not [line for line in out.getvalue().splitlines() if "] " in line and "[change]" in line]


def _deployed_at(template: dict, kubernetes_version: str) -> dict:
    """``template`` as it was deployed at an earlier Kubernetes version: the cluster, every node group and every
    add-on's pinned build at that version."""
    from eks_training.core.versions import addon_version

    old = copy.deepcopy(template)
    for resource in old["Resources"].values():
        props = resource.get("Properties") or {}
        if resource["Type"] in ("AWS::EKS::Cluster", "AWS::EKS::Nodegroup") and isinstance(props.get("Version"), str):
            props["Version"] = kubernetes_version
        if resource["Type"] == "AWS::EKS::Addon" and "AddonVersion" in props:
            props["AddonVersion"] = addon_version(props["AddonName"], kubernetes_version) or props["AddonVersion"]
    return old


@pytest.mark.slow
@upstream_data.requires(*upstream_data.installed_charts())
def test_a_one_step_kubernetes_upgrade_of_prod_ends_in_place_and_two_steps_are_refused_in_one_line(prod):
    from eks_training.infra.tools.check.change.stage import Previous
    from eks_training.infra.tools.check.deploy_check import run_check

    assert prod.config.kubernetes_version == "1.36"
    one = run_check(prod.template, config=prod.config,
                    previous=Previous(_deployed_at(prod.template, "1.35"), "prod at 1.35")).change
    rolls = [c for c in one.changes if c.verb == "roll"]
    # Every node group rolls with the version: one node at a time, its jobs requeued, a note and no refusal.
    assert len(rolls) == len([r for r in prod.template["Resources"].values() if r["Type"] == "AWS::EKS::Nodegroup"])
    assert all("Version 1.35 -> 1.36" in c.message and "1 node at a time (UpdateConfig)" in c.message for c in rolls)
    assert one.verdict == "in place" and not one.refused
    two = run_check(prod.template, config=prod.config,
                    previous=Previous(_deployed_at(prod.template, "1.34"), "prod at 1.34")).change
    (refused,) = two.refused
    assert refused.verb == "fail" and "1.34 -> 1.36 skips a minor version" in refused.message


def test_a_replaced_or_removed_node_group_names_the_jobs_running_on_it_now_and_is_refused_until_acknowledged():
    # The job asks for p5.48xlarge: it runs on the deployed group, and fits nothing in the new template.
    job = PodTemplate("job pytorch-job: PyTorchJob worker", "training", {
        "nodeSelector": {"node.kubernetes.io/instance-type": "p5.48xlarge"}, "containers": [{"name": "trainer"}]})
    old = _template(Gpu=_node_group(None))
    new = _template(Gpu=_node_group(None, "p5e.48xlarge"))
    report = _predict(old, new, pods=[job])
    replaced = _by_id(report)["replace:Gpu"]
    assert replaced.destructive and "running pods of pytorch-job are evicted" in replaced.message
    assert [c.id for c in report.refused] == ["replace:Gpu"]
    assert not _predict(old, new, pods=[job], acknowledged=["replace:Gpu"]).refused
    # Without the deployed placement it says what it cannot know instead of "no job runs there".
    blind = _by_id(_predict(old, new))["replace:Gpu"]
    assert "every pod still running there is evicted" in blind.message and "drain it first" in blind.message

    removed = _by_id(_predict(old, _template(), pods=[job]))["delete:Gpu"]
    assert removed.destructive and "running pods of pytorch-job are evicted" in removed.message
