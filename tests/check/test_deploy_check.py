"""`eks-training check` on the shipped environments, and on each defect the review found, restored in a fixture.

Each defect test takes prod's synthesized template (or its snapshot), puts one broken input back exactly as it was
before the fix, and shows that the check fails with a finding that names it. The shipped environments pass.
"""

from __future__ import annotations

import copy
import io
import json
from contextlib import redirect_stderr, redirect_stdout
from datetime import date

import pytest
from support import upstream_data

from eks_training.core.versions import addon_version
from eks_training.infra.tools.check.deploy_check import (CheckReport, check_snapshot, check_version, format_report,
                                                         render_all_jobs, run_check)
from eks_training.infra.tools.check.snapshot import load_snapshot
from eks_training.infra.tools.cli import main

pytestmark = upstream_data.requires(*upstream_data.installed_charts())

TODAY = date(2026, 11, 30)


@pytest.fixture(scope="module")
def prod_jobs(prod):
    return render_all_jobs(prod.config)


def _check(synth, jobs, *, snapshot=None, template=None, today=TODAY):
    snap = snapshot or load_snapshot(copy.deepcopy(template or synth.template))
    return check_snapshot(snap, config=synth.config, jobs=copy.deepcopy(jobs), today=today)


def _failures(report, area):
    return [f for f in report.failures if f.area == area]


@pytest.mark.parametrize("name", ["dev", "staging", "prod"])
def test_shipped_environments_pass(name, request):
    synth = request.getfixturevalue(name)
    report = run_check(synth.template, config=synth.config, today=TODAY)
    assert [str(f) for f in report.failures] == []
    assert report.placements and all(p.reachable for p in report.placements)


def test_prod_places_every_pod_template_and_every_job_kind_on_demand(prod, prod_jobs):
    report = _check(prod, prod_jobs)
    text = format_report(report)
    for placement in report.placements:
        assert placement.pod.owner[:78] in text
    kinds = {p.pod.owner.split(":")[0].removeprefix("job ") for p in report.placements if p.pod.owner.startswith("job ")}
    assert kinds == {"mpijob", "volcano-job", "neuron-job", "pytorch-job", "trainjob", "raycluster", "rayjob",
                     "bionemo", "health-check", "data-prep"}
    accelerated = [p for p in report.placements if p.pod.owner.startswith("job ") and p.pod.accelerated]
    assert len(accelerated) >= 7
    for placement in accelerated:
        assert any(s.on_demand for s in placement.reachable), placement.pod.owner
    # Device plugins cover every accelerated node source.
    gpu_sources = {s.name for s in load_snapshot(prod.template).node_sources if s.accelerator == "nvidia"}
    assert gpu_sources <= set(report.device_plugins["helm nvidia-device-plugin: DaemonSet nvidia-device-plugin"])


# --- defect 1: the NVIDIA device plugin's default affinity ----------------------------------------------------


def test_nvidia_plugin_with_the_chart_default_affinity_lands_nowhere(prod, prod_jobs):
    snap = load_snapshot(copy.deepcopy(prod.template))
    nvidia = next(r for r in snap.releases if r.release == "nvidia-device-plugin")
    del nvidia.values["affinity"]  # as before the fix: nodeSelector and tolerations only
    report = _check(prod, prod_jobs, snapshot=snap)
    plugin = [f for f in _failures(report, "device plugin") if "nvidia-device-plugin" in f.subject]
    assert plugin and all("nvidia.com/gpu is never advertised" in f.message for f in plugin)
    assert any("feature.node.kubernetes.io/pci-10de.present" in f.message for f in plugin)
    # ... and then no GPU pod fits anywhere.
    assert any("nvidia.com/gpu 8 > 0" in f.message for f in _failures(report, "scheduling"))


# --- defect 2: Karpenter nodes without the cluster security group --------------------------------------------


def test_karpenter_nodes_without_the_cluster_security_group_never_join(prod, prod_jobs):
    snap = load_snapshot(copy.deepcopy(prod.template))
    for _, obj in snap.objects():
        if obj["kind"] == "EC2NodeClass":
            obj["spec"]["securityGroupSelectorTerms"] = [{"tags": {"karpenter.sh/discovery": snap.cluster_name}}]
    snap.read_node_sources()
    report = _check(prod, prod_jobs, snapshot=snap)
    api = [f for f in _failures(report, "network") if f.field == "EKS API endpoint"]
    assert {f.subject.split(" (")[0] for f in api} == {"Karpenter pool gpu-a100", "Karpenter pool gpu-h100",
                                                       "Karpenter pool trn1", "Karpenter pool trn1n",
                                                       # the Slurm partitions' own pools (issue 23)
                                                       "Karpenter pool slurm-gpu-a100", "Karpenter pool slurm-gpu-h100",
                                                       "Karpenter pool slurm-trainium"}
    assert all("nodes never join" in f.message for f in api)


# --- defect 3: tolerations that miss the pools' taints; node groups nothing scales ----------------------------


def test_equal_tolerations_against_valueless_pool_taints_schedule_nowhere(prod, prod_jobs):
    snap = load_snapshot(copy.deepcopy(prod.template))
    for _, obj in snap.objects():
        if obj["kind"] == "NodePool":
            for taint in obj["spec"]["template"]["spec"]["taints"]:
                taint.pop("value", None)  # as the pools were written before the fix
    snap.read_node_sources()
    jobs = copy.deepcopy(prod_jobs)
    text = json.dumps(jobs).replace('"operator": "Exists", "effect": "NoSchedule"',
                                    '"operator": "Equal", "value": "true", "effect": "NoSchedule"')
    report = _check(prod, json.loads(text), snapshot=snap)
    failed = {f.subject for f in _failures(report, "scheduling")}
    assert "job mpijob: MPIJob mpijob worker" in failed and "job neuron-job: Job neuron-job" in failed
    mpi = next(f for f in _failures(report, "scheduling") if f.subject == "job mpijob: MPIJob mpijob worker")
    assert "taint nvidia.com/gpu:NoSchedule not tolerated" in mpi.message


def test_jobs_that_fit_only_node_groups_at_zero_are_refused(prod, prod_jobs):
    snap = load_snapshot(copy.deepcopy(prod.template))
    snap.node_sources = [s for s in snap.node_sources if s.kind != "Karpenter pool"]
    report = _check(prod, prod_jobs, snapshot=snap)
    neuron = next(f for f in _failures(report, "scheduling") if f.subject == "job neuron-job: Job neuron-job")
    trn1 = next(g for g in prod.config.accelerated_node_groups if g.name == "trn1-nodes")
    assert f"fits only node group {trn1.eks_name}, which never has a node" in neuron.message


# --- system nodes for the platform only: team pods on team nodes ------------------------------------------------


def test_prod_puts_platform_pods_on_the_system_nodes_and_team_pods_on_team_nodes(prod, prod_jobs):
    report = _check(prod, prod_jobs)
    where = {p.pod.owner: {s.name for s in p.reachable} for p in report.placements}
    team_cpu = [o for o in where if o.startswith(("job data-prep", "job mpijob: MPIJob mpijob launcher"))
                or o.endswith((" head", ": LoginSet prod-slurm-login", "launcher"))]
    assert {"job data-prep: Job data-prep", "job rayjob: RayJob rayjob head",
            "manifest ServicesSlinkySlurm6306EA8A: LoginSet prod-slurm-login"} <= set(team_cpu)
    for owner in team_cpu:
        assert where[owner] == {"node group team"}, owner
    platform = [o for o in where if o.startswith(("helm ", "EKS add-on ", "mpi-operator release"))
                and "jupyterhub profile" not in o]
    assert any(o.startswith("EKS add-on coredns") for o in platform) and len(platform) >= 20
    for owner in platform:
        assert where[owner] == {"node group system"}, owner
    snap = load_snapshot(prod.template)
    system = next(s for s in snap.node_sources if s.name == "node group system")
    team = next(s for s in snap.node_sources if s.name == "node group team")
    assert system.taints == ({"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"},)
    assert team.taints == () and team.labels["eks-training/role"] == "team"


def test_untainted_system_nodes_fail_and_take_team_pods(prod, prod_jobs):
    template = copy.deepcopy(prod.template)
    for resource in template["Resources"].values():
        if resource["Type"] == "AWS::EKS::Nodegroup" and resource["Properties"].get("Labels", {}).get(
                "eks-training/role") == "system":
            del resource["Properties"]["Taints"]  # as before: the system group untainted
    report = _check(prod, prod_jobs, template=template)
    failures = {(f.subject, f.field) for f in _failures(report, "scheduling")}
    assert ("node group system", "taints") in failures
    assert ("job data-prep: Job data-prep", "tolerations") in failures
    assert ("job mpijob: MPIJob mpijob launcher", "tolerations") in failures


def test_a_team_pod_that_tolerates_the_system_taint_fails(prod, prod_jobs):
    jobs = copy.deepcopy(prod_jobs)
    (job,) = [o for o in jobs["data-prep"] if o["kind"] == "Job"]
    job["spec"]["template"]["spec"]["tolerations"] = [{"key": "CriticalAddonsOnly", "operator": "Exists"}]
    report = _check(prod, jobs)
    (failure,) = [f for f in _failures(report, "scheduling") if f.subject == "job data-prep: Job data-prep"]
    assert failure.field == "tolerations" and "node group system" in failure.message


def test_an_addon_configured_without_the_system_toleration_lands_off_the_system_nodes(prod, prod_jobs):
    template = copy.deepcopy(prod.template)
    for resource in template["Resources"].values():
        if resource["Type"] == "AWS::EKS::Addon" and resource["Properties"]["AddonName"] == "coredns":
            del resource["Properties"]["ConfigurationValues"]  # as before: EKS's defaults, no placement
    report = _check(prod, prod_jobs, template=template)
    (failure,) = [f for f in _failures(report, "scheduling") if f.subject.startswith("EKS add-on coredns")]
    assert failure.field == "nodeSelector" and "node group team" in failure.message


# --- defect 4: values the charts ignore; components not pinned to system nodes ---------------------------------


def test_volcano_keys_the_chart_does_not_read_fail(prod, prod_jobs):
    snap = load_snapshot(copy.deepcopy(prod.template))
    volcano = next(r for r in snap.releases if r.release == "volcano")
    volcano.values["custom"] = {"scheduler_node_selector": {"eks-training/role": "system"},
                                "controller_node_selector": {"eks-training/role": "system"},
                                "admission_node_selector": {"eks-training/role": "system"}}
    report = _check(prod, prod_jobs, snapshot=snap)
    values = {f.field for f in _failures(report, "values")}
    assert values == {"custom.scheduler_node_selector", "custom.controller_node_selector", "custom.admission_node_selector"}
    pinned = {f.subject for f in _failures(report, "scheduling") if f.field == "nodeSelector"}
    assert "helm volcano: Deployment volcano-scheduler" in pinned


def test_cert_manager_pinning_only_its_controller_fails(prod, prod_jobs):
    snap = load_snapshot(copy.deepcopy(prod.template))
    cert_manager = next(r for r in snap.releases if r.release == "cert-manager")
    for part in ("webhook", "cainjector", "startupapicheck"):
        del cert_manager.values[part]
    report = _check(prod, prod_jobs, snapshot=snap)
    pinned = {f.subject for f in _failures(report, "scheduling") if f.field == "nodeSelector"}
    assert pinned == {"helm cert-manager: Deployment cert-manager-webhook", "helm cert-manager: Deployment cert-manager-cainjector",
                      "helm cert-manager: Job cert-manager-startupapicheck"}


# --- defect 5: Karpenter's controller policy against the upstream reference ------------------------------------


def _karpenter_statements(template):
    """The statements of the policy attached to the role Karpenter's Pod Identity association hands out."""
    (role,) = [r["Properties"]["RoleArn"]["Fn::GetAtt"][0] for r in template["Resources"].values()
               if r["Type"] == "AWS::EKS::PodIdentityAssociation" and r["Properties"]["ServiceAccount"] == "karpenter"]
    policy = next(r for r in template["Resources"].values() if r["Type"] == "AWS::IAM::Policy"
                  and {"Ref": role} in r["Properties"]["Roles"])
    return policy["Properties"]["PolicyDocument"]["Statement"]


def test_karpenter_policy_differences_from_the_reference_fail(prod, prod_jobs):
    template = copy.deepcopy(prod.template)
    statements = _karpenter_statements(template)
    for statement in statements:
        if statement.get("Action") == "pricing:GetProducts":
            statement["Condition"] = {"StringEquals": {"aws:RequestedRegion": "us-west-2"}}
        if isinstance(statement.get("Action"), list) and "ec2:DescribeInstanceStatus" in statement["Action"]:
            statement["Action"].remove("ec2:DescribeInstanceStatus")
        if statement.get("Sid") == "AllowScopedInstanceProfileActions":
            del statement["Condition"]
    report = _check(prod, prod_jobs, template=template)
    by_action: dict[str, str] = {}
    for finding in _failures(report, "iam"):
        by_action[finding.field] = by_action.get(finding.field, "") + finding.message
    assert by_action["ec2:DescribeInstanceStatus"].startswith("missing")
    assert "aws:RequestedRegion" in by_action["pricing:GetProducts"]
    assert "ec2nodeclass" in by_action["iam:DeleteInstanceProfile"]
    assert set(by_action) == {"ec2:DescribeInstanceStatus", "pricing:GetProducts", "iam:AddRoleToInstanceProfile",
                              "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile"}


# --- defect 6: a profile no capacity serves, a LoadBalancer nobody serves, no default class, no wait ---------


def test_notebook_profile_without_capacity_fails(prod, prod_jobs):
    snap = load_snapshot(copy.deepcopy(prod.template))
    hub = next(r for r in snap.releases if r.release == "jupyterhub")
    hub.values["singleuser"]["profileList"][0]["kubespawner_override"]["node_selector"] = {
        "node.kubernetes.io/instance-type": "g5.xlarge"}
    report = _check(prod, prod_jobs, snapshot=snap)
    failed = [f for f in _failures(report, "scheduling") if f.subject.startswith("jupyterhub profile")]
    assert len(failed) == 1 and "node.kubernetes.io/instance-type=g5.xlarge" in failed[0].message


def test_login_service_asking_for_an_absent_load_balancer_controller_fails(prod, prod_jobs):
    snap = load_snapshot(copy.deepcopy(prod.template))
    login = next(obj for _, obj in snap.objects() if obj["kind"] == "LoginSet")
    login["spec"]["service"] = {"metadata": {"annotations": {"service.beta.kubernetes.io/aws-load-balancer-type": "external"}},
                                "spec": {"type": "LoadBalancer"}}
    hub = next(r for r in snap.releases if r.release == "jupyterhub")
    del hub.values["proxy"]["service"]  # the chart's default: a LoadBalancer proxy
    report = _check(prod, prod_jobs, snapshot=snap)
    services = {f.subject: f.message for f in _failures(report, "service")}
    assert "AWS Load Balancer Controller" in next(m for s, m in services.items() if "LoginSet" in s)
    assert "internet-facing" in services["helm jupyterhub: Service proxy-public"]


def test_the_internal_load_balancers_pass_and_one_open_to_every_address_fails(prod, prod_jobs):
    # prod's hub and login Services are internal NLBs of EKS's cloud provider, limited to their source ranges.
    assert not _failures(_check(prod, prod_jobs), "service")
    snap = load_snapshot(copy.deepcopy(prod.template))
    login = next(obj for _, obj in snap.objects() if obj["kind"] == "LoginSet")
    del login["spec"]["service"]["spec"]["loadBalancerSourceRanges"]
    hub = next(r for r in snap.releases if r.release == "jupyterhub")
    hub.values["proxy"]["service"]["annotations"]["service.beta.kubernetes.io/aws-load-balancer-internal"] = "false"
    services = {f.subject: f.message for f in _failures(_check(prod, prod_jobs, snapshot=snap), "service")}
    assert "0.0.0.0/0" in next(m for s, m in services.items() if "LoginSet" in s)
    assert "internet-facing" in services["helm jupyterhub: Service proxy-public"]


def test_claims_without_a_default_storage_class_fail(prod, prod_jobs):
    snap = load_snapshot(copy.deepcopy(prod.template))
    for objects in snap.manifests.values():
        objects[:] = [o for o in objects if o["kind"] != "StorageClass" or o["metadata"]["name"] != "gp3"]
    report = _check(prod, prod_jobs, snapshot=snap)
    claims = {f.subject for f in _failures(report, "storage")}
    assert "helm jupyterhub: PersistentVolumeClaim hub-db-dir" in claims
    assert any("Controller prod-slurm persistence" in c for c in claims)


def test_releases_that_do_not_wait_for_the_system_nodes_fail(prod, prod_jobs):
    template = copy.deepcopy(prod.template)
    system = next(lid for lid in template["Resources"] if lid.startswith("ClusterNodegroupSystemNodes"))
    volcano = next(r for r in template["Resources"].values() if r["Type"] == "Custom::AWSCDK-EKS-HelmChart"
                   and r["Properties"]["Release"] == "volcano")
    volcano["DependsOn"] = [d for d in volcano["DependsOn"] if d != system]
    report = _check(prod, prod_jobs, template=template)
    assert [f.subject for f in _failures(report, "ordering")] == ["helm release volcano"]


@pytest.mark.parametrize(("rule", "sources"), [
    ("NetworkEfaSelfEgress", 6),  # the teams' group: two node groups and four pools, all EFA
    ("NetworkSlurmEfaSelfEgress", 3),  # the Slurm partitions' own group: their three pools
])
def test_efa_group_without_a_self_referencing_egress_rule_fails(prod, prod_jobs, rule, sources):
    template = copy.deepcopy(prod.template)
    template["Resources"] = {lid: r for lid, r in template["Resources"].items() if not lid.startswith(rule)}
    report = _check(prod, prod_jobs, template=template)
    efa = [f for f in _failures(report, "network") if f.field == "EFA peers"]
    assert len(efa) == sources


# --- defect 7: versions ------------------------------------------------------------------------------------------


def _version_stage(template, today=TODAY):
    snap = load_snapshot(template)
    report = CheckReport(environment="prod", kubernetes_version=snap.kubernetes_version)
    check_version(snap, report, today)
    return report


def _set_cluster_version(template, version):
    cluster = next(r for r in template["Resources"].values() if r["Type"] == "AWS::EKS::Cluster")
    cluster["Properties"]["Version"] = version
    for resource in template["Resources"].values():  # as the construct writes them for that version
        if resource["Type"] == "AWS::EKS::Nodegroup":
            resource["Properties"]["Version"] = version
        if resource["Type"] == "AWS::EKS::Addon" and resource["Properties"]["AddonName"] == "kube-proxy":
            resource["Properties"]["AddonVersion"] = addon_version("kube-proxy", version) or f"v{version}.0-eksbuild.1"


@pytest.mark.parametrize(("version", "today", "fails", "noted", "whole_check"), [
    ("1.33", TODAY, False, True, True),  # extended support since 2026-07-29: a note with the price, not a failure
    ("1.34", TODAY, False, False, False), ("1.34", date(2026, 12, 3), False, True, False),  # left it on 2026-12-02
    ("1.35", TODAY, False, False, False),
    ("1.31", date(2026, 12, 2), True, False, False),  # extended support over: EKS creates no such cluster
])
def test_leaving_standard_support_is_a_note_and_only_eks_end_of_support_fails(prod, prod_jobs, version, today, fails,
                                                                                noted, whole_check):
    template = copy.deepcopy(prod.template)
    _set_cluster_version(template, version)
    if whole_check:  # the stage is part of the check (once: a whole check of prod takes seconds)
        report = _check(prod, prod_jobs, template=template, today=today)
    else:
        report = _version_stage(template, today)
    assert bool(_failures(report, "version")) is fails
    notes = [n for n in report.notes if n.startswith("version: Kubernetes")]
    assert bool(notes) is noted
    if noted:
        assert "0.60 USD per cluster-hour" in notes[0]


def test_a_node_group_without_the_clusters_version_fails(prod):
    template = copy.deepcopy(prod.template)
    groups = {r["Properties"].get("NodegroupName", "system"): r for r in template["Resources"].values()
              if r["Type"] == "AWS::EKS::Nodegroup"}
    assert {g["Properties"]["Version"] for g in groups.values()} == {prod.config.kubernetes_version}
    assert _failures(_version_stage(copy.deepcopy(template)), "version") == []
    p5, trn1 = (next(g for n, g in groups.items() if n.startswith(name)) for name in ("p5-nodes-", "trn1-nodes-"))
    del p5["Properties"]["Version"]  # the defect: the group stays behind on an upgrade
    trn1["Properties"]["Version"] = "1.35"
    found = {f.subject: f.message for f in _failures(_version_stage(template), "version")}
    assert found == {
        f"node group {p5['Properties']['NodegroupName']}": "none: the group stays on the version it was created with "
        "when the control plane is upgraded, and EKS refuses the upgrade after that; write the cluster's (1.36)",
        f"node group {trn1['Properties']['NodegroupName']}": "1.35 while the control plane runs 1.36: node groups "
        "move with it, in the same deploy"}


def test_an_addon_left_to_eks_is_noted_and_a_kube_proxy_out_of_skew_fails(prod):
    template = copy.deepcopy(prod.template)
    addons = {r["Properties"]["AddonName"]: r for r in template["Resources"].values() if r["Type"] == "AWS::EKS::Addon"}
    report = _version_stage(copy.deepcopy(template))
    # Prod's FSx CSI driver has no recorded build: the one add-on the template leaves to EKS, and the check says so.
    assert [n for n in report.notes if "names no version" in n] == [
        "version: EKS add-on aws-fsx-csi-driver names no version: EKS picks its default when it is created and an "
        "upgrade leaves it there; pin one (cluster.addon_versions)"]
    del addons["coredns"]["Properties"]["AddonVersion"]  # the defect: "latest" as it was
    addons["kube-proxy"]["Properties"]["AddonVersion"] = "v1.37.0-eksbuild.1"
    report = _version_stage(template)
    assert len([n for n in report.notes if "names no version" in n]) == 2
    assert [(f.subject, f.field) for f in _failures(report, "version")] == [("EKS add-on kube-proxy", "AddonVersion")]


# --- the command ---------------------------------------------------------------------------------------------------


def test_check_command_reads_a_synthesized_template(prod, tmp_path):
    path = tmp_path / "EksTraining-prod.template.json"
    path.write_text(json.dumps(prod.template))
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(["check", "--env", "prod", "--template", str(path)])
    text = out.getvalue()
    assert status == 0, text[-2000:]
    assert text.rstrip().endswith("0 failures: PASS")
    worker = next(line for line in text.splitlines() if line.startswith("job mpijob: MPIJob mpijob worker"))
    assert "Karpenter pool gpu-h100 (p5.48xlarge)" in worker


@pytest.mark.parametrize(("argv", "message"), [
    (["check"], "error: check: give exactly one of --env NAME, --config FILE or --app COMMAND"),
    (["check", "--env", "prod", "--template", "/nonexistent.json"], "error: --template: cannot read '/nonexistent.json'"),
])
def test_check_command_bad_arguments_are_one_line(argv, message):
    err = io.StringIO()
    with redirect_stderr(err):
        assert main(argv) == 2
    assert err.getvalue().startswith(message) and err.getvalue().count("\n") == 1


# --- issue 14: doors ------------------------------------------------------------------------------------------------


def test_a_hub_with_the_charts_default_authenticator_is_an_open_door(prod, prod_jobs):
    snap = load_snapshot(copy.deepcopy(prod.template))
    hub = next(r for r in snap.releases if r.release == "jupyterhub")
    del hub.values["hub"]["config"]  # as before: the chart's dummy authenticator
    report = _check(prod, prod_jobs, snapshot=snap)
    assert [f.field for f in _failures(report, "sign-in")] == ["hub.config.JupyterHub.authenticator_class"]


def test_each_workload_namespace_has_its_own_role_scoped_to_its_checkpoints(prod):
    associations = {r["Properties"]["Namespace"]: r["Properties"]["RoleArn"]["Fn::GetAtt"][0]
                    for r in prod.resources("AWS::EKS::PodIdentityAssociation").values()
                    if r["Properties"].get("ServiceAccount") == "training"}
    assert set(associations) == {"training", "ai-research", "slurm", "jupyterhub"}
    assert len(set(associations.values())) == 4  # one role each
    policies = prod.resources("AWS::IAM::Policy").values()
    for namespace, role in associations.items():
        statements = [s for p in policies if {"Ref": role} in p["Properties"]["Roles"]
                      for s in p["Properties"]["PolicyDocument"]["Statement"]]
        text = json.dumps(statements)
        # Notebooks are people's: each pod's own prefix of the namespace's (issue 23).
        prefix = f"/{namespace}/${{aws:PrincipalTag/kubernetes-pod-name}}" if namespace == "jupyterhub" else f"/{namespace}"
        assert f"{prefix}/*" in text
        others = {"training", "ai-research", "slurm", "jupyterhub"} - {namespace}
        assert not any(f"/{other}/" in text for other in others)
        writes = [s for s in statements if "s3:DeleteObject" in s["Action"]]
        assert writes and all(json.dumps(s["Resource"]).endswith(f'{prefix}/*"]]}}') for s in writes), writes
