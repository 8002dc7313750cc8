"""The lifecycle stage of `eks-training check`: what exists when CloudFormation creates, deletes and updates each
resource.

The shipped environments pass it. Each defect the review of the first deploy found is put back, as it was before its
fix, into a copy of a session-synthesized template (no new synth), and the stage names it: the resource, the step,
and what is missing.
"""

from __future__ import annotations

import copy
import json
import re
from datetime import date
from pathlib import Path

import pytest
from support import upstream_data

from eks_training.infra.tools.check.deploy_check import check_snapshot, format_report
from eks_training.infra.tools.check.snapshot import PlatformSnapshot, load_snapshot

pytestmark = upstream_data.requires(*upstream_data.installed_charts())

TODAY = date(2026, 11, 30)
README = Path(__file__).resolve().parents[2] / "README.md"


def _lifecycle(synth, *, template=None, snapshot=None):
    """The lifecycle findings of the check on a copy of ``synth``'s template (job kinds are not placed: the stage
    does not read them)."""
    snap = snapshot or load_snapshot(copy.deepcopy(template if template is not None else synth.template))
    report = check_snapshot(snap, config=synth.config, jobs={}, today=TODAY)
    return [f for f in report.failures if f.area == "lifecycle"], report


def _resources(template):
    return template["Resources"]


def _lid(template, prefix, type_=None):
    found = [lid for lid, r in _resources(template).items()
             if lid.startswith(prefix) and (type_ is None or r["Type"] == type_)]
    assert len(found) == 1, (prefix, found)
    return found[0]


def _release(template, name):
    return next(lid for lid, r in _resources(template).items()
                if r["Type"] == "Custom::AWSCDK-EKS-HelmChart" and r["Properties"]["Release"] == name)


def _addon(template, name):
    return next(lid for lid, r in _resources(template).items()
                if r["Type"] == "AWS::EKS::Addon" and r["Properties"]["AddonName"] == name)


def _drop_dependencies(template, lid, *dependencies):
    resource = _resources(template)[lid]
    resource["DependsOn"] = [d for d in resource.get("DependsOn", []) if d not in dependencies]


def _add_dependency(template, lid, dependency):
    resource = _resources(template)[lid]
    resource["DependsOn"] = sorted({*resource.get("DependsOn", []), dependency})


def _remove(template, *lids):
    """Take resources out of the template, and every DependsOn on them."""
    for lid in lids:
        del _resources(template)[lid]
    for resource in _resources(template).values():
        if "DependsOn" in resource:
            resource["DependsOn"] = [d for d in resource["DependsOn"] if d not in lids]


def _about(findings, *words):
    """The findings that mention every one of ``words`` (in the subject, the step or the message)."""
    return [f for f in findings if all(w in f"{f.subject} {f.field} {f.message}" for w in words)]


# --- the shipped environments ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["dev", "staging", "prod"])
def test_shipped_environments_have_no_lifecycle_failure(name, request):
    synth = request.getfixturevalue(name)
    findings, report = _lifecycle(synth)
    assert [str(f) for f in findings] == []
    assert not [n for n in report.notes if n.startswith("lifecycle")]


def test_findings_are_numbered_lines_naming_resource_step_and_what_is_missing(dev):
    template = copy.deepcopy(dev.template)
    _remove(template, *[lid for lid, r in _resources(template).items() if r["Type"] == "Custom::S3AutoDeleteObjects"])
    findings, report = _lifecycle(dev, template=template)
    text = format_report(report)
    lines = [line for line in text.splitlines() if "[lifecycle]" in line]
    assert len(lines) == len(findings) == 3
    for line in lines:
        assert re.match(r"^  \d+\. \[lifecycle\] bucket Buckets\w+ delete, step \d+ of \d+: deleted with the stack but "
                        r"never emptied", line), line


# --- creation ----------------------------------------------------------------------------------------------------


def test_nodes_that_join_before_the_cni_addon_have_no_pod_networking(prod):
    template = copy.deepcopy(prod.template)
    system = _lid(template, "ClusterNodegroupSystemNodes")
    cni, agent, proxy = (_addon(template, n) for n in ("vpc-cni", "eks-pod-identity-agent", "kube-proxy"))
    # As before the fix: every add-on after the system nodes, no node group after the add-ons.
    for lid, resource in _resources(template).items():
        if resource["Type"] == "AWS::EKS::Nodegroup":
            _drop_dependencies(template, lid, cni, agent, proxy)
    for addon in (cni, agent, proxy):
        _add_dependency(template, addon, system)
    _drop_dependencies(template, _release(template, "karpenter"), cni)
    findings, _ = _lifecycle(prod, template=template)
    networking = _about(findings, "joins before the add-on vpc-cni", "AmazonEKS_CNI_Policy", "create, step")
    groups = {g.name: g.eks_name for g in prod.config.accelerated_node_groups}  # what EKS names them
    assert {f.subject.split(" (")[0] for f in networking} == {
        "node group ClusterNodegroupSystemNodes2A8EB028", f"node group {groups['p5-nodes']}",
        f"node group {groups['trn1-nodes']}", f"node group {_lid(template, 'ClusterNodegroupTeamNodes')}",
        "Karpenter nodes of EC2NodeClass gpu-a100", "Karpenter nodes of EC2NodeClass gpu-h100",
        "Karpenter nodes of EC2NodeClass trn1", "Karpenter nodes of EC2NodeClass trn1n",
        # The Slurm partitions' pools of their own (slurmd is privileged).
        "Karpenter nodes of EC2NodeClass slurm-gpu-a100", "Karpenter nodes of EC2NodeClass slurm-gpu-h100",
        "Karpenter nodes of EC2NodeClass slurm-trainium"}
    assert _about(networking, "node group p5-nodes", "eks-pod-identity-agent")


def test_a_node_role_with_the_cni_policy_needs_no_addon_first(prod):
    template = copy.deepcopy(prod.template)
    for lid, resource in _resources(template).items():
        if resource["Type"] == "AWS::EKS::Nodegroup":
            _drop_dependencies(template, lid, _addon(template, "vpc-cni"))
    assert _about(_lifecycle(prod, template=template)[0], "joins before the add-on vpc-cni")
    # The other way EKS documents: the node role carries the CNI's policy itself.
    role = _resources(template)[_lid(template, "ClusterNodeRole", "AWS::IAM::Role")]
    role["Properties"]["ManagedPolicyArns"].append("arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy")
    findings, _ = _lifecycle(prod, template=template)
    assert not [f for f in findings if "node group" in f.subject]


def test_jupyterhub_waiting_for_a_secret_nobody_creates_fails(prod):
    snap = load_snapshot(copy.deepcopy(prod.template))
    hub = next(r for r in snap.releases if r.release == "jupyterhub")
    del hub.values["hub"]["extraEnv"]["OAUTH_CLIENT_SECRET"]["valueFrom"]["secretKeyRef"]["optional"]
    findings, _ = _lifecycle(prod, snapshot=snap)
    secret = _about(findings, "helm release jupyterhub", "Deployment hub", "Secret jupyterhub/jupyterhub-oidc",
                    "env OAUTH_CLIENT_SECRET")
    assert len(secret) == 1 and "Helm's default 5m" in secret[0].message


def test_jupyterhub_pre_pulling_the_training_images_in_its_wait_fails(staging):
    snap = load_snapshot(copy.deepcopy(staging.template))
    hub = next(r for r in snap.releases if r.release == "jupyterhub")
    hub.values["prePuller"]["continuous"]["enabled"] = True  # the chart's default
    findings, _ = _lifecycle(staging, snapshot=snap)
    pulls = _about(findings, "helm release jupyterhub", "DaemonSet continuous-image-puller", "this deploy builds")
    assert len(pulls) == 1 and "asset image" in pulls[0].message


def test_neuron_detector_without_its_namespace_fails(prod):
    template = copy.deepcopy(prod.template)
    _remove(template, _lid(template, "ServicesNeuronDevicePluginNeuronHealthcheckNamespace"))
    findings, _ = _lifecycle(prod, template=template)
    assert len(_about(findings, "helm release neuron-helm-chart", "namespace neuron-healthcheck-system",
                      "nothing creates before it")) == 1


def test_an_object_whose_namespace_comes_later_fails(dev):
    template = copy.deepcopy(dev.template)
    accounts = _lid(template, "ClustermanifestTrainingServiceAccounts")
    _drop_dependencies(template, accounts, _lid(template, "ClusterNamespaces"))
    findings, _ = _lifecycle(dev, template=template)
    assert _about(findings, f"manifest {accounts}", "ServiceAccount training", "namespace training")


def test_custom_objects_applied_before_their_crd_fail(dev):
    template = copy.deepcopy(dev.template)
    pools = _lid(template, "KarpenterKarpenterPools")
    # Neither the controller's release nor the CRDs' (which it waits for) before the NodePools.
    _drop_dependencies(template, pools, _release(template, "karpenter"), _release(template, "karpenter-crd"))
    findings, _ = _lifecycle(dev, template=template)
    assert _about(findings, f"manifest {pools}", "NodePool gpu-g5", "installs the CRD")


def test_volcano_queues_applied_before_its_webhook_answers_fail(dev):
    template = copy.deepcopy(dev.template)
    _remove(template, _lid(template, "ServicesVolcanoWaitvolcanoadmissionservicequeuesvalidate"))
    findings, _ = _lifecycle(dev, template=template)
    queues = _lid(template, "ServicesVolcanoVolcanoQueues")
    webhooks = _about(findings, f"manifest {queues}", "Queue ml-training-queue", "nothing waits until")
    assert {re.search(r"(\w+WebhookConfiguration [\w-]+)", f.message).group(1) for f in webhooks} == {
        "ValidatingWebhookConfiguration volcano-admission-service-queues-validate",
        "MutatingWebhookConfiguration volcano-admission-service-queues-mutate"}


def test_slurm_objects_applied_before_the_operator_webhook_has_its_ca_fail(staging):
    template = copy.deepcopy(staging.template)
    _remove(template, _lid(template, "ServicesSlinkyWaitslurmoperatorwebhook"))
    findings, _ = _lifecycle(staging, template=template)
    assert _about(findings, "Controller staging-slurm", "ValidatingWebhookConfiguration slurm-operator-webhook")


def test_mpi_installer_job_nobody_waits_for_fails(prod):
    template = copy.deepcopy(prod.template)
    _remove(template, _lid(template, "ServicesMpiOperatorMpiOperatorInstallWait"))
    findings, _ = _lifecycle(prod, template=template)
    assert len(_about(findings, "Job mpi-operator-install/install-mpi-operator-v0-8-0", "its failure does not fail "
                      "the deploy")) == 1


def test_a_resource_that_waits_for_a_manifest_but_not_for_its_job_fails(prod):
    template = copy.deepcopy(prod.template)
    support = _lid(template, "ServicesMpiOperatorMpiOperatorSupport")
    _drop_dependencies(template, support, _lid(template, "ServicesMpiOperatorMpiOperatorInstallWait"))
    findings, _ = _lifecycle(prod, template=template)
    assert _about(findings, f"manifest {support}", "but not for its Job mpi-operator-install/install-mpi-operator")


def test_storage_mounted_before_its_data_repository_associations_fails(prod):
    template = copy.deepcopy(prod.template)
    # The storage manifest: the one of the volumes (the workspace Job's own manifest is its child).
    (storage,) = [lid for lid, r in _resources(template).items() if lid.startswith("ClusterStorage")
                  and r["Type"] == "Custom::AWSCDK-EKS-KubernetesResource"
                  and "PersistentVolume" in json.dumps(r["Properties"]["Manifest"])]
    associations = [lid for lid, r in _resources(template).items() if r["Type"] == "AWS::FSx::DataRepositoryAssociation"]
    _drop_dependencies(template, storage, *associations)
    for lid, resource in _resources(template).items():  # the workspace Job, its manifest and waiter inherited them
        if lid.startswith("ClusterStorage"):
            _drop_dependencies(template, lid, *associations)
    findings, _ = _lifecycle(prod, template=template)
    mounts = _about(findings, f"manifest {storage}", "data repository association")
    assert len(mounts) == 2
    assert _about(mounts, "/data (fsx-data-training)", "which makes /data")
    assert _about(mounts, "/workspaces/ai-research (fsx-workspace-ai-research)", "which makes /workspaces")


def test_nobody_outside_the_stack_with_an_access_entry_fails(staging):
    template = copy.deepcopy(staging.template)
    _remove(template, _lid(template, "ClusterAdminekstrainingadmin", "AWS::EKS::AccessEntry"))
    findings, _ = _lifecycle(staging, template=template)
    access = _about(findings, "EKS cluster", "no principal outside the stack has an access entry")
    assert len(access) == 1 and "KarpenterControllerNodeAccess" in access[0].message


# --- deletion ----------------------------------------------------------------------------------------------------


def test_karpenter_losing_its_rights_dns_and_cni_before_its_node_pools_fails(prod):
    template = copy.deepcopy(prod.template)
    karpenter = _release(template, "karpenter")
    # As before the fix: the release waited for its Pod Identity and the system nodes only.
    role = _lid(template, "KarpenterControllerControllerRole", "AWS::IAM::Role")
    policy, access = _lid(template, "KarpenterControllerControllerRoleDefaultPolicy"), _lid(template, "KarpenterControllerNodeAccess")
    coredns = _addon(template, "coredns")
    _drop_dependencies(template, karpenter, role, policy, access, coredns, _addon(template, "vpc-cni"))
    # The pools now name their nodes' access entries themselves: as before, they did not.
    pools = _pool_manifests(template)
    for lid in pools:
        _drop_dependencies(template, lid, access)
    findings, _ = _lifecycle(prod, template=template)
    teardown = _about(findings, "manifest KarpenterKarpenterPools", "delete, step", "NodeClaims")
    assert len(teardown) == len(pools) == 7  # each pool's own manifest
    for finding in teardown:
        for part in (f"{policy} (its IAM policy)", f"{access} (its nodes' access entry)", f"{coredns} (DNS)"):
            assert part in finding.message
        # The system nodes wait for the CNI add-on, and the release for the system nodes: networking still outlives it.
        assert "(pod networking)" not in finding.message


def _pool_manifests(template) -> list[str]:
    """Each Karpenter pool's own manifest (its NodePool and EC2NodeClass)."""
    return [lid for lid, r in _resources(template).items()
            if lid.startswith("KarpenterKarpenterPools") and r["Type"] == "Custom::AWSCDK-EKS-KubernetesResource"]


def test_workloads_on_karpenter_nodes_that_do_not_wait_for_the_node_pools_fail(prod):
    template = copy.deepcopy(prod.template)
    ray = _lid(template, "ServicesKubeRayRayCluster", "Custom::AWSCDK-EKS-KubernetesResource")
    for lid in [lid for lid in _resources(template) if lid.startswith("ServicesKubeRay")]:
        _drop_dependencies(template, lid, *_pool_manifests(template))
    findings, _ = _lifecycle(prod, template=template)
    assert _about(findings, f"manifest {ray}", "RayCluster shared-ray workers", "makes Karpenter create nodes")


def test_claims_deleted_after_their_csi_driver_fail(staging):
    template = copy.deepcopy(staging.template)
    ebs = _addon(template, "aws-ebs-csi-driver")
    for lid, resource in _resources(template).items():
        if lid.startswith("ClusterStorage"):
            _drop_dependencies(template, lid, ebs)
    findings, _ = _lifecycle(staging, template=template)
    claims = _about(findings, "ebs.csi.aws.com driver", "delete, step")
    assert {f.subject.split(" (")[0] for f in claims} >= {"helm release jupyterhub", "manifest ServicesSlinkySlurm6306EA8A"}
    assert _about(claims, "claim jupyterhub/hub-db-dir")


def test_buckets_deleted_without_being_emptied_fail(dev):
    template = copy.deepcopy(dev.template)
    _remove(template, *[lid for lid, r in _resources(template).items() if r["Type"] == "Custom::S3AutoDeleteObjects"])
    findings, _ = _lifecycle(dev, template=template)
    buckets = _about(findings, "never emptied", "BucketNotEmpty", "versioned")
    assert {f.subject.split()[1][:-8] for f in buckets} == {"BucketsAccessLogs", "BucketsDataBucket",
                                                            "BucketsCheckpointBucket"}


def test_a_retained_file_system_in_the_training_subnet_blocks_the_vpc(prod):
    template = copy.deepcopy(prod.template)
    fsx = _lid(template, "LustreFileSystem")
    _resources(template)[fsx]["DeletionPolicy"] = "Retain"  # as prod retained it
    findings, _ = _lifecycle(prod, template=template)
    retained = _about(findings, fsx, "is retained with its network interfaces", "NetworkTrainingSubnet", "NetworkVpc")
    assert len(retained) == 1 and "LustreSecurityGroup" in retained[0].message


# --- update ------------------------------------------------------------------------------------------------------


def test_forced_updates_and_written_desired_sizes_of_node_groups_fail(prod):
    template = copy.deepcopy(prod.template)
    p5 = _resources(template)[_lid(template, "NodeGroupp5nodesNodegroup")]
    system = _resources(template)[_lid(template, "ClusterNodegroupSystemNodes", "AWS::EKS::Nodegroup")]
    assert p5["Properties"]["ForceUpdateEnabled"] is False and system["Properties"]["ForceUpdateEnabled"] is False
    p5["Properties"]["ForceUpdateEnabled"] = True
    p5["Properties"]["ScalingConfig"]["DesiredSize"] = 0
    system["Properties"]["ForceUpdateEnabled"] = True  # aws-eks-v2's default, as the system group had it
    findings, report = _lifecycle(prod, template=template)
    p5_findings = _about(findings, "node group p5-nodes", "update")
    assert len(p5_findings) == 2
    assert _about(p5_findings, "ForceUpdateEnabled", "even where a PodDisruptionBudget holds running training pods")
    assert _about(p5_findings, "writes DesiredSize 0", "between 0 and 8")
    assert _about(findings, "ClusterNodegroupSystemNodes", "PodDisruptionBudget holds the controllers and webhooks")
    # What ForceUpdateEnabled off does not do is said, not implied: a roll still evicts unprotected pods.
    (rolled,) = [n for n in report.notes if n.startswith("update: a change of Kubernetes version")]
    names = [r["Properties"]["NodegroupName"] for r in _resources(template).values()
             if r["Type"] == "AWS::EKS::Nodegroup" and "NodegroupName" in r["Properties"]]
    assert all(name in rolled for name in names) and "evicts the pods no PodDisruptionBudget holds" in rolled


# --- the README says what the stage cannot see ---------------------------------------------------------------------


def test_readme_says_how_the_first_deploy_runs_how_to_reach_a_private_cluster_and_what_destroy_keeps():
    text = README.read_text(encoding="utf-8")
    sections = re.findall(r"^## (.+)$", text, re.M)
    assert sections.index("The first deploy") == sections.index("Deploy an environment") + 1
    first_deploy = text.split("## The first deploy", 1)[1].split("\n## ", 1)[0]
    for needed in ("admin_role_arns", "ec2-instance-connect ssh", "ApiTunnelOperatorPolicyArn", "tls-server-name",
                   "cdk destroy", "jupyterhub-oidc", "rollout restart deployment/hub", "vcctl queue operate"):
        assert needed in first_deploy, needed


# --- the graph ---------------------------------------------------------------------------------------------------


def test_fn_sub_names_the_resources_it_substitutes_but_not_its_own_variables():
    template = {"Resources": {
        "Role": {"Type": "AWS::IAM::Role"}, "Bucket": {"Type": "AWS::S3::Bucket"}, "Other": {"Type": "AWS::SQS::Queue"},
        "User": {"Type": "Custom::Thing", "Properties": {
            "Arn": {"Fn::Sub": "${Role.Arn}/${AWS::Region}/${!Other}"},
            "Name": {"Fn::Sub": ["${Bucket}-${Suffix}", {"Suffix": {"Ref": "AWS::StackName"}}]}}}}}
    snap = PlatformSnapshot(template=template)
    assert snap.direct_dependencies("User") == {"Role", "Bucket"}
    assert snap.dependencies("User") == {"Role", "Bucket"}


def test_without_the_charts_the_stage_notes_what_it_could_not_order_and_fails_nothing(prod, monkeypatch):
    from eks_training.infra.tools.check import deploy_check, helm

    monkeypatch.setattr(helm, "chart_source", lambda chart, version: None)
    monkeypatch.setattr(deploy_check.upstream, "file_path", lambda path: None)
    findings, report = _lifecycle(prod)
    assert findings == []
    notes = [n for n in report.notes if n.startswith("lifecycle")]
    assert any("NodePool (karpenter.sh)" in n and "not checked" in n for n in notes)
    # What needs no chart is still checked: the access entries, say.
    template = copy.deepcopy(prod.template)
    # The admins' entry and the teams' members' (people reach the cluster through those too).
    _remove(template, *(lid for lid, r in _resources(template).items() if r["Type"] == "AWS::EKS::AccessEntry"
                        and lid.startswith(("ClusterAdmin", "Team"))))
    assert _about(_lifecycle(prod, template=template)[0], "no principal outside the stack")
