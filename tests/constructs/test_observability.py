"""TrainingObservability: add-ons and their Pod Identity role, log groups with KMS, dashboard, alarms, cfn-lint, bad props."""

from __future__ import annotations

import json
import time
from pathlib import Path

import aws_cdk as cdk
import pytest
from aws_cdk import assertions
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_kms as kms
from aws_cdk import aws_cloudwatch_actions as cw_actions
from aws_cdk import aws_iam as iam
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sns as sns
from aws_cdk.lambda_layer_kubectl_v35 import KubectlV35Layer

from eks_training.core import training_metrics as tm
from eks_training.training.goodput import CATEGORIES, GoodputMeter
from eks_training.training.telemetry import emf_document
from eks_training.constructs.observability import (
    CLOUDWATCH_ADDON,
    DEFAULT_CLOUDWATCH_ADDON_VERSION,
    DEFAULT_NODE_MONITORING_ADDON_VERSION,
    NODE_MONITORING_ADDON,
    TrainingObservability,
    retention_from_days,
)
from support.synth import cfn_lint

ENV = cdk.Environment(account="111111111111", region="us-west-2")
CLUSTER_NAME = "train-obs"


def _stack(key=None, app: cdk.App | None = None, **props) -> tuple[cdk.Stack, TrainingObservability]:
    """A stack with an aws_eks_v2 cluster and the construct; ``key(stack)`` builds its encryption key."""
    app = app or cdk.App()
    stack = cdk.Stack(app, "Observability", env=ENV)
    vpc = ec2.Vpc(stack, "Vpc", max_azs=2, nat_gateways=0, subnet_configuration=[
        ec2.SubnetConfiguration(name="private", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)])
    cluster = eks.Cluster(stack, "Cluster", version=eks.KubernetesVersion.V1_35, cluster_name=CLUSTER_NAME, vpc=vpc,
                          vpc_subnets=[ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)],
                          default_capacity_type=eks.DefaultCapacityType.NODEGROUP, default_capacity=0,
                          kubectl_provider_options=eks.KubectlProviderOptions(kubectl_layer=KubectlV35Layer(stack, "Kubectl")))
    if key is not None:
        props["encryption_key"] = key(stack)
    if props.pop("with_alarm_topic", False):
        props["alarm_actions"] = [cw_actions.SnsAction(sns.Topic(stack, "AlarmTopic", enforce_ssl=True))]
    if props.pop("with_dependencies", False):
        props["pod_identity_dependency"] = eks.CfnAddon(stack, "PodIdentityAgent", addon_name="eks-pod-identity-agent",
                                                        cluster_name=cluster.cluster_name)
        props["nodegroups"] = [cluster.add_nodegroup_capacity("System", instance_types=[ec2.InstanceType("m6i.large")],
                                                              min_size=1, max_size=1, desired_size=1)]
    defaults = dict(cluster=cluster, log_retention=logs.RetentionDays.ONE_MONTH, namespaces=["team-a", "team-b"])
    observability = TrainingObservability(stack, "Observability", **{**defaults, **props})
    return stack, observability


@pytest.fixture(scope="module")
def synthesized() -> tuple[dict, TrainingObservability]:
    stack, observability = _stack(jobs=["team-a/llama"], idle_minutes=45, with_dependencies=True,
                                  with_alarm_topic=True)
    template = assertions.Template.from_stack(stack).to_json()
    _CLUSTER_REFS.update(lid for lid, r in template["Resources"].items()
                         if r["Type"] == "AWS::EKS::Cluster" and r["Properties"]["Name"] == CLUSTER_NAME)
    return template, observability


def _resources(template: dict, type_: str) -> dict[str, dict]:
    return {lid: r for lid, r in template["Resources"].items() if r["Type"] == type_}


_CLUSTER_REFS: set[str] = set()


def _text(value: object) -> str:
    """A CloudFormation value as text: a Ref to the EKS cluster as its name, any other intrinsic as <intrinsic>."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and "Fn::Join" in value:
        return "".join(_text(part) for part in value["Fn::Join"][1])
    if isinstance(value, dict) and value.get("Ref") in _CLUSTER_REFS:
        return CLUSTER_NAME
    return "<intrinsic>"


def test_addons_are_pinned_and_configured(synthesized) -> None:
    template, _ = synthesized
    addons = {r["Properties"]["AddonName"]: r["Properties"] for r in _resources(template, "AWS::EKS::Addon").values()}
    assert addons[CLOUDWATCH_ADDON]["AddonVersion"] == DEFAULT_CLOUDWATCH_ADDON_VERSION
    assert addons[NODE_MONITORING_ADDON]["AddonVersion"] == DEFAULT_NODE_MONITORING_ADDON_VERSION
    config = json.loads(addons[CLOUDWATCH_ADDON]["ConfigurationValues"])
    kubernetes = config["agent"]["config"]["logs"]["metrics_collected"]["kubernetes"]
    assert kubernetes == {"enhanced_container_insights": True, "accelerated_compute_metrics": True}
    assert config["containerLogs"] == {"enabled": True}
    association = addons[CLOUDWATCH_ADDON]["PodIdentityAssociations"]
    assert [a["ServiceAccount"] for a in association] == ["cloudwatch-agent"]


def test_addons_wait_for_their_log_groups_nodes_and_pod_identity(synthesized) -> None:
    template, observability = synthesized
    groups = {lid for lid in _resources(template, "AWS::Logs::LogGroup")}
    (agent,) = [lid for lid, r in _resources(template, "AWS::EKS::Addon").items()
                if r["Properties"]["AddonName"] == "eks-pod-identity-agent"]
    (nodegroup,) = _resources(template, "AWS::EKS::Nodegroup")
    for name, addon in observability.addons.items():
        depends = set(template["Resources"][cdk.Stack.of(addon).get_logical_id(addon)].get("DependsOn", []))
        assert {agent, nodegroup} <= depends, name
        if name == CLOUDWATCH_ADDON:
            assert groups <= depends


def test_agent_role_is_for_pod_identity_with_the_agent_policy(synthesized) -> None:
    template, observability = synthesized
    role_id = _logical_id(observability.role)
    role = template["Resources"][role_id]["Properties"]
    principals = [s["Principal"]["Service"] for s in role["AssumeRolePolicyDocument"]["Statement"]]
    assert principals == ["pods.eks.amazonaws.com"]
    assert ["sts:AssumeRole", "sts:TagSession"] == sorted(role["AssumeRolePolicyDocument"]["Statement"][0]["Action"])
    assert [_text(arn) for arn in role["ManagedPolicyArns"]] == [
        "arn:<intrinsic>:iam::aws:policy/CloudWatchAgentServerPolicy"]
    addon = next(r for r in _resources(template, "AWS::EKS::Addon").values()
                 if r["Properties"]["AddonName"] == CLOUDWATCH_ADDON)
    assert addon["Properties"]["PodIdentityAssociations"][0]["RoleArn"] == {"Fn::GetAtt": [role_id, "Arn"]}


def _logical_id(construct) -> str:
    return cdk.Stack.of(construct).get_logical_id(construct.node.default_child)


def test_log_groups_have_retention_and_the_key_cloudwatch_logs_may_use(synthesized) -> None:
    template, observability = synthesized
    groups = {_text(r["Properties"]["LogGroupName"]): r["Properties"] for r in _resources(template, "AWS::Logs::LogGroup").values()}
    assert set(groups) == {f"/eks-training/{CLUSTER_NAME}/training-metrics",
                           *(f"/aws/containerinsights/{CLUSTER_NAME}/{kind}" for kind in ("application", "dataplane",
                                                                                         "host", "performance"))}
    key_id = _logical_id(observability.encryption_key)
    for props in groups.values():
        assert props["RetentionInDays"] == 30
        assert props["KmsKeyId"] == {"Fn::GetAtt": [key_id, "Arn"]}
    statements = template["Resources"][key_id]["Properties"]["KeyPolicy"]["Statement"]
    logs_statement = next(s for s in statements if s.get("Sid") == "AllowCloudWatchLogsForTrainingLogGroups")
    assert logs_statement["Principal"] == {"Service": "logs.us-west-2.amazonaws.com"}
    assert "kms:GenerateDataKey*" in logs_statement["Action"] and "kms:Decrypt*" in logs_statement["Action"]
    arns = sorted(_text(a) for a in logs_statement["Condition"]["ArnLike"]["kms:EncryptionContext:aws:logs:arn"])
    assert arns == sorted(f"arn:<intrinsic>:logs:us-west-2:111111111111:log-group:{name}" for name in groups)


def test_a_given_key_gets_the_statement_and_an_imported_one_is_refused() -> None:
    stack, observability = _stack(key=lambda stack: kms.Key(stack, "Given", enable_key_rotation=True))
    template = assertions.Template.from_stack(stack).to_json()
    assert len(_resources(template, "AWS::KMS::Key")) == 1
    statements = template["Resources"][_logical_id(observability.encryption_key)]["Properties"]["KeyPolicy"]["Statement"]
    assert any(s.get("Sid") == "AllowCloudWatchLogsForTrainingLogGroups" for s in statements)
    with pytest.raises(ValueError, match=r"^encryption_key='[^']*Imported' is not allowed: a kms.Key created in this "
                                         r"app \(an imported key's policy cannot be changed here\)"):
        _stack(key=lambda stack: kms.Key.from_key_arn(stack, "Imported", "arn:aws:kms:us-west-2:111111111111:key/abcd"))


def test_dashboard_graphs_trainer_and_accelerator_metrics(synthesized) -> None:
    template, _ = synthesized
    (dashboard,) = _resources(template, "AWS::CloudWatch::Dashboard").values()
    body = _text(dashboard["Properties"]["DashboardBody"])
    for name in (tm.TOKENS_PER_SECOND, tm.LOSS, tm.MFU, tm.NONFINITE_LOSS, "node_gpu_utilization",
                 "node_gpu_memory_utilization", "pod_gpu_utilization", "node_neuroncore_utilization",
                 "node_neuroncore_memory_usage_total", "node_efa_rx_bytes", "node_efa_tx_bytes"):
        assert f'MetricName=\\"{name}\\"' in body, name
    assert '{EksTraining,Namespace,Job} MetricName=\\"tokens_per_second\\" Namespace=\\"team-b\\"' in body
    assert f'{{ContainerInsights,ClusterName,InstanceId,NodeName}} MetricName=\\"node_gpu_utilization\\" ClusterName=\\"{CLUSTER_NAME}\\"' in body


def _widget_searches(body: str) -> list[tuple[dict, list[str]]]:
    """Each graph widget of a dashboard body with the expressions of its metrics."""
    return [(widget, [m[0]["expression"] for m in widget["properties"].get("metrics", []) if "expression" in m[0]])
            for widget in json.loads(body)["widgets"]]


def test_dashboard_shows_each_jobs_goodput_time_split_and_cost_as_the_trainer_emits_them(synthesized) -> None:
    template, _ = synthesized
    (dashboard,) = _resources(template, "AWS::CloudWatch::Dashboard").values()
    widgets = _widget_searches(_text(dashboard["Properties"]["DashboardBody"]))
    # What the trainer sends: its goodput record of a real meter, turned into EMF by its own code.
    meter = GoodputMeter(None, instance_type="g5.12xlarge", nodes=2, started_at=time.time() - 5)
    meter.training_starts()
    meter.step_done(1)
    sent = emf_document({"event": "goodput", **meter.record()}, "team-a", "llama")
    (directive,) = sent["_aws"]["CloudWatchMetrics"]
    (dimensions,) = directive["Dimensions"]
    schema = ",".join((directive["Namespace"], *dimensions))
    names = [metric["Name"] for metric in directive["Metrics"]]
    assert {"goodput", "job_cost_usd"} <= set(names) and len(names) == len(CATEGORIES) + 3  # + goodput, total, cost
    for namespace in ("team-a", "team-b"):
        def graphs_of(name: str) -> list[dict]:
            search = f'{{{schema}}} MetricName="{name}" {dimensions[0]}="{namespace}"'
            return [widget for widget, expressions in widgets if any(search in e for e in expressions)]

        for name in names:
            if name != tm.JOB_SECONDS:  # the total is the stacked split's height
                assert graphs_of(name), (namespace, name)
        (goodput,) = graphs_of(tm.GOODPUT)
        assert goodput["properties"]["yAxis"]["left"] == {"min": 0, "max": 1}
        # Every category of the trainer's ledger, stacked in one graph: the stack's height is the job's total.
        split = [graphs_of(tm.TIME_SPLIT_METRICS[category]) for category in CATEGORIES]
        assert all(graphs == split[0] for graphs in split) and len(split[0]) == 1, namespace
        assert split[0][0]["properties"]["stacked"] is True
        (cost,) = graphs_of(tm.JOB_COST_USD)
        assert "cost" in cost["properties"]["title"]


def test_idle_alarms_average_over_idle_minutes(synthesized) -> None:
    template, observability = synthesized
    for accelerator, metric in (("nvidia", "node_gpu_utilization"), ("neuron", "node_neuroncore_utilization")):
        alarm = template["Resources"][_logical_id(observability.alarms[f"{accelerator}-idle"])]["Properties"]
        assert (alarm["MetricName"], alarm["Namespace"], alarm["Statistic"]) == (metric, "ContainerInsights", "Average")
        assert alarm["Period"] == 45 * 60 and alarm["EvaluationPeriods"] == 1
        assert (alarm["Threshold"], alarm["ComparisonOperator"]) == (5, "LessThanThreshold")
        assert alarm["Dimensions"][0]["Name"] == "ClusterName"
        assert alarm["TreatMissingData"] == "notBreaching"


def test_throughput_drop_alarm_compares_five_minutes_with_its_hour(synthesized) -> None:
    template, observability = synthesized
    alarm = template["Resources"][_logical_id(observability.alarms["team-a/llama-throughput-drop"])]["Properties"]
    queries = {q["Id"]: q for q in alarm["Metrics"]}
    (expression,) = [q for q in queries.values() if q.get("ReturnData")]
    assert expression["Expression"] == "IF(m1 < 0.5 * FILL(m2, REPEAT), 1, 0)"
    assert (queries["m1"]["MetricStat"]["Period"], queries["m2"]["MetricStat"]["Period"]) == (300, 3600)
    for query in (queries["m1"], queries["m2"]):
        metric = query["MetricStat"]["Metric"]
        assert (metric["Namespace"], metric["MetricName"]) == ("EksTraining", "tokens_per_second")
        assert {d["Name"]: d["Value"] for d in metric["Dimensions"]} == {"Namespace": "team-a", "Job": "llama"}
    assert (alarm["Threshold"], alarm["ComparisonOperator"]) == (1, "GreaterThanOrEqualToThreshold")


def test_nonfinite_loss_alarm_per_namespace(synthesized) -> None:
    template, observability = synthesized
    for namespace in ("team-a", "team-b"):
        alarm = template["Resources"][_logical_id(observability.alarms[f"{namespace}-nonfinite-loss"])]["Properties"]
        (query,) = alarm["Metrics"]
        assert query["Expression"] == ('SELECT SUM(nonfinite_loss) FROM SCHEMA("EksTraining", Namespace, Job) '
                                       f"WHERE Namespace = '{namespace}'")
        assert query["Period"] == 60
        assert (alarm["Threshold"], alarm["ComparisonOperator"]) == (0, "GreaterThanThreshold")


def test_template_is_cfn_lint_clean(synthesized, tmp_path: Path) -> None:
    template, _ = synthesized
    path = tmp_path / "observability.template.json"
    path.write_text(json.dumps(template))
    findings = cfn_lint([path], ignore={})
    # Errors anywhere; warnings on our resources (aws-cdk-lib's VPC and cluster scaffolding carries W3005/W3010).
    ours = [f for f in findings if f["Rule"]["Id"].startswith("E")
            or (f["Rule"]["Id"].startswith("W") and f["Location"]["Path"][1].startswith("Observability"))]
    assert ours == []


@pytest.mark.parametrize(("props", "message"), [
    ({"idle_minutes": 0}, r"^idle_minutes=0 is not allowed: use a whole number of minutes from 1 to 1440$"),
    ({"namespaces": []}, r"^namespaces=\[\] is not allowed: give at least one training namespace$"),
    ({"namespaces": ["ok", "Team_B"]}, r"^namespaces\[1\]='Team_B' is not allowed: use 1-63 lowercase letters"),
    ({"cloudwatch_addon_version": "4.10.3"},
     r"^cloudwatch_addon_version='4\.10\.3' is not allowed: use an EKS add-on version vX\.Y\.Z-eksbuild\.N"),
    ({"node_monitoring_addon_version": "latest"},
     r"^node_monitoring_addon_version='latest' is not allowed: use an EKS add-on version"),
    ({"accelerators": ["tpu"]}, r"^accelerators=\['tpu'\] is not allowed: use one or more of nvidia, neuron$"),
    ({"jobs": ["team-a"]}, r"^jobs\[0\]='team-a' is not allowed: use 'namespace/job', each 1-63 lowercase"),
    ({"metrics_namespace": "AWS/EC2"}, r"^metrics_namespace='AWS/EC2' is not allowed: .*not starting with 'AWS/'$"),
])
def test_bad_props_are_one_line_errors(props: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message) as raised:
        _stack(**props)
    assert "\n" not in str(raised.value)


def test_cdk_nag_finds_nothing_unacknowledged_in_the_construct(tmp_path: Path) -> None:
    from cdk_nag import AwsSolutionsChecks

    from eks_training.infra.nag_pack import EksTrainingChecks

    app = cdk.App(outdir=str(tmp_path))
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app), EksTrainingChecks(app))
    stack, _ = _stack(app=app, jobs=["team-a/llama"])
    try:
        app.synth()
    except RuntimeError:
        pass  # violations elsewhere (the bare test VPC and cluster) fail the synth; the report says where
    report = json.loads((tmp_path / "validation-report.json").read_text())
    ours = [(v["ruleName"], r["constructPath"]) for p in report["pluginReports"] for v in p["violations"]
            for r in v["violatingConstructs"] if r["constructPath"].startswith("Observability/Observability/")]
    assert ours == []


def test_a_job_alarm_added_later_shows_on_the_dashboard() -> None:
    stack, observability = _stack()
    observability.add_job_alarms("team-b", "mistral")
    template = assertions.Template.from_stack(stack).to_json()
    alarm_id = _logical_id(observability.alarms["team-b/mistral-throughput-drop"])
    (dashboard,) = _resources(template, "AWS::CloudWatch::Dashboard").values()
    assert {"Fn::GetAtt": [alarm_id, "Arn"]} in dashboard["Properties"]["DashboardBody"]["Fn::Join"][1]
    with pytest.raises(ValueError, match=r"^jobs entry='team-b/mistral' is not allowed: give each job once"):
        observability.add_job_alarms("team-b", "mistral")


def test_every_alarm_notifies_the_given_actions(synthesized) -> None:
    template, observability = synthesized
    (topic,) = _resources(template, "AWS::SNS::Topic")
    assert len(observability.alarms) == 5  # GPU idle, Neuron idle, 2 namespaces' NaN loss, 1 job's throughput
    for name, alarm in observability.alarms.items():
        assert template["Resources"][_logical_id(alarm)]["Properties"]["AlarmActions"] == [{"Ref": topic}], name


def test_retention_days_map_to_what_cdk_writes() -> None:
    app = cdk.App()
    stack = cdk.Stack(app, "Retention")
    days = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653]
    for day in days:
        logs.LogGroup(stack, f"G{day}", retention=retention_from_days(day))
    written = sorted(r["Properties"]["RetentionInDays"] for r in
                     _resources(assertions.Template.from_stack(stack).to_json(), "AWS::Logs::LogGroup").values())
    assert written == days
    with pytest.raises(ValueError, match=r"^log_retention_days=31 is not allowed: use one of 1, 3, 5, 7, 14, 30, 60"):
        retention_from_days(31)


def test_training_role_can_be_granted_metrics_writes() -> None:
    stack, observability = _stack()
    role = iam.Role(stack, "TrainingRole", assumed_by=iam.ServicePrincipal("pods.eks.amazonaws.com"))
    observability.grant_metrics_write(role)
    template = assertions.Template.from_stack(stack).to_json()
    (policy,) = [r for r in _resources(template, "AWS::IAM::Policy").values()
                 if {"Ref": _logical_id(role)} in r["Properties"]["Roles"]]
    (statement,) = policy["Properties"]["PolicyDocument"]["Statement"]
    assert set(statement["Action"]) == {"logs:CreateLogStream", "logs:PutLogEvents"}
    assert statement["Resource"] == {"Fn::GetAtt": [_logical_id(observability.metrics_log_group), "Arn"]}
