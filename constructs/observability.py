"""TrainingObservability: see what the accelerators and the trainer do, and alarm on what wastes money.

* The ``amazon-cloudwatch-observability`` EKS add-on (CloudWatch agent + Fluent Bit) with accelerated compute
  metrics (NVIDIA GPU through DCGM, Neuron, EFA), container logs and an EMF endpoint for the trainer; its
  ``cloudwatch-agent`` service account gets an EKS Pod Identity role with ``CloudWatchAgentServerPolicy``.
* The ``eks-node-monitoring-agent`` EKS add-on: it sets node conditions (``AcceleratedHardwareReady``, ...) that
  managed node groups' auto repair acts on.
* The log groups the add-on and the trainer write to, created here first so they carry our retention and KMS key
  (the agent would otherwise create them itself, unencrypted and kept forever).
* A dashboard: trainer metrics per job, each job's goodput, time split and cost, accelerator utilisation and memory
  per node and per job's pods, EFA traffic.
* Alarms: idle accelerators, a job's throughput halving, a non-finite loss.

Metric names and dimensions of the trainer are the contract in :mod:`eks_training.core.training_metrics`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from aws_cdk import Duration, RemovalPolicy, Stack
from aws_cdk import aws_cloudwatch as cw
from aws_cdk import aws_eks as eks_l1
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from constructs import Construct, IConstruct

from eks_training.constructs.cluster import pod_identity_principal
from eks_training.constructs.acknowledgements import acknowledge, managed_policy_finding
from eks_training.core import training_metrics as tm
from eks_training.core.validation import (IDLE_MINUTES, LOG_RETENTION_DAYS, check_addon_version, check_dns_label,
                                          check_job_reference, check_metrics_namespace, check_one_of,
                                          check_whole_number, invalid)

CLOUDWATCH_ADDON = "amazon-cloudwatch-observability"
NODE_MONITORING_ADDON = "eks-node-monitoring-agent"
# Pinned so a deploy never changes the agents under running jobs. Versions seen published for EKS:
# amazon-cloudwatch-observability v4.10.3-eksbuild.1 (pinned by aws-observability/application-signals-demo#334,
# 2026-04, after v5.3.0 narrowed the agent's ClusterRole) and eks-node-monitoring-agent v1.6.0-eksbuild.1
# (zalando-incubator/kubernetes-on-aws#10793, 2026-03). Check them against the cluster version before a deploy:
# `aws eks describe-addon-versions --addon-name NAME --kubernetes-version 1.3x`.
DEFAULT_CLOUDWATCH_ADDON_VERSION = "v4.10.3-eksbuild.1"
DEFAULT_NODE_MONITORING_ADDON_VERSION = "v1.6.0-eksbuild.1"
CLOUDWATCH_AGENT_NAMESPACE = "amazon-cloudwatch"
CLOUDWATCH_AGENT_SERVICE_ACCOUNT = "cloudwatch-agent"
CLOUDWATCH_AGENT_POLICY = "CloudWatchAgentServerPolicy"
#: The CloudWatch agent's EMF listener (TCP and UDP) when ``logs.metrics_collected.emf`` is configured.
EMF_PORT = 25888
CONTAINER_INSIGHTS_NAMESPACE = "ContainerInsights"
#: Below this utilisation (percent) an accelerator counts as idle.
IDLE_UTILISATION_PERCENT = 5
#: A job alarms when its 5-minute tokens/s falls below this fraction of its own 1-hour average.
THROUGHPUT_DROP_FRACTION = 0.5

_ACCELERATORS = ("nvidia", "neuron")
# ContainerInsights metric names as the CloudWatch agent publishes them (enhanced observability with accelerated
# compute metrics; names from the agent's awscontainerinsightreceiver and the Container Insights EKS metrics
# reference): utilisation and memory per node and per pod, for each accelerator kind.
_ACCELERATOR_METRICS = {
    "nvidia": {"node": ("node_gpu_utilization", "node_gpu_memory_utilization"),
               "pod": ("pod_gpu_utilization", "pod_gpu_memory_utilization"), "label": "GPU"},
    "neuron": {"node": ("node_neuroncore_utilization", "node_neuroncore_memory_usage_total"),
               "pod": ("pod_neuroncore_utilization", "pod_neuroncore_memory_usage_total"), "label": "NeuronCore"},
}
_EFA_METRICS = ("node_efa_rx_bytes", "node_efa_tx_bytes")
_NODE_DIMENSIONS = "ClusterName,InstanceId,NodeName"
_POD_DIMENSIONS = "ClusterName,Namespace,PodName"


# CloudWatch Logs' allowed retention periods in days (core.validation's list, which the config layer offers too),
# and the aws-cdk-lib member for each (a test synthesizes every member and compares).
_RETENTION_BY_DAYS = dict(zip(LOG_RETENTION_DAYS, (
    "ONE_DAY", "THREE_DAYS", "FIVE_DAYS", "ONE_WEEK", "TWO_WEEKS", "ONE_MONTH", "TWO_MONTHS", "THREE_MONTHS",
    "FOUR_MONTHS", "FIVE_MONTHS", "SIX_MONTHS", "ONE_YEAR", "THIRTEEN_MONTHS", "EIGHTEEN_MONTHS", "TWO_YEARS",
    "THREE_YEARS", "FIVE_YEARS", "SIX_YEARS", "SEVEN_YEARS", "EIGHT_YEARS", "NINE_YEARS", "TEN_YEARS",
), strict=True))


def retention_from_days(days: int) -> logs.RetentionDays:
    """The RetentionDays member for ``days``, or a one-line error listing the periods CloudWatch Logs allows."""
    check_one_of("log_retention_days", days, LOG_RETENTION_DAYS)
    return logs.RetentionDays[_RETENTION_BY_DAYS[days]]


def cloudwatch_addon_configuration() -> dict:
    """The add-on's ``configurationValues``: agent config, container logs (Fluent Bit) on.

    Schema keys as the CloudWatch docs' "Install the CloudWatch agent with the Amazon CloudWatch Observability EKS
    add-on" configuration section documents them: ``agent.config`` is the CloudWatch agent's own JSON config
    (``logs.metrics_collected.kubernetes.enhanced_container_insights`` / ``accelerated_compute_metrics``), and
    ``containerLogs.enabled`` switches the Fluent Bit DaemonSet. Giving ``agent.config`` replaces the add-on's
    default agent config, so everything we rely on is spelled out: ``emf`` opens the agent's EMF listener
    (port 25888) that the trainer can send its metrics to.
    """
    return {
        "agent": {"config": {"logs": {"metrics_collected": {
            "kubernetes": {"enhanced_container_insights": True, "accelerated_compute_metrics": True},
            "emf": {},
        }}}},
        "containerLogs": {"enabled": True},
    }


class TrainingObservability(Construct):
    """Add-ons, log groups, a dashboard and cost alarms for training on one EKS cluster.

    * ``cluster``: the aws_eks_v2 cluster (its name is used as the ``ClusterName`` dimension, a token is fine).
    * ``log_retention``: retention of the log groups created here.
    * ``encryption_key``: KMS key of those log groups; its policy gets a statement for CloudWatch Logs in this
      region (an imported key cannot be changed: give a key created in this app, or None to create one).
    * ``namespaces``: training namespaces (dashboard rows and the non-finite-loss alarm per namespace).
    * ``jobs``: ``"namespace/job"`` names of long-running jobs that get a throughput-drop alarm each
      (:meth:`add_job_alarms` adds more later); jobs are not known at synth, so none is assumed.
    * ``accelerators``: which accelerator kinds ("nvidia", "neuron") get widgets and idle alarms.
    * ``nodegroups``: node groups the add-ons wait for (their controllers need a node to become ACTIVE).
    * ``pod_identity_dependency``: the ``eks-pod-identity-agent`` add-on, so the agent's role can be used at start.
    * ``metrics_namespace``: CloudWatch namespace of the trainer's metrics; ``idle_minutes``: how long accelerators
      may average under 5% utilisation before the idle alarm fires.
    * ``alarm_actions``: what every alarm does when it fires (e.g. ``aws_cloudwatch_actions.SnsAction(topic)``).
    * ``log_retention``: a RetentionDays member; :func:`retention_from_days` turns a config's day count into one.

    Attributes: ``addons`` (name -> CfnAddon), ``role`` (the agent's Pod Identity role), ``log_group`` (container
    logs), ``metrics_log_group`` (trainer EMF), ``log_groups`` (application, metrics, dataplane, host, performance),
    ``encryption_key``, ``dashboard``, ``alarms`` (name -> Alarm).
    """

    def __init__(self, scope: Construct, id: str, *, cluster: eks.ICluster, log_retention: logs.RetentionDays,
                 namespaces: Sequence[str], encryption_key: kms.IKey | None = None, jobs: Sequence[str] = (),
                 accelerators: Sequence[str] = _ACCELERATORS, nodegroups: Sequence[IConstruct] = (),
                 pod_identity_dependency: IConstruct | None = None,
                 metrics_namespace: str = tm.METRICS_NAMESPACE, idle_minutes: int = 30,
                 cloudwatch_addon_version: str = DEFAULT_CLOUDWATCH_ADDON_VERSION,
                 node_monitoring_addon_version: str = DEFAULT_NODE_MONITORING_ADDON_VERSION,
                 alarm_actions: Sequence[cw.IAlarmAction] = (),
                 removal_policy: RemovalPolicy = RemovalPolicy.RETAIN) -> None:
        super().__init__(scope, id)
        _check_props(namespaces=namespaces, accelerators=accelerators, metrics_namespace=metrics_namespace,
                     idle_minutes=idle_minutes, cloudwatch_addon_version=cloudwatch_addon_version,
                     node_monitoring_addon_version=node_monitoring_addon_version)
        self.cluster_name = cluster.cluster_name
        self.namespaces = tuple(namespaces)
        self.metrics_namespace = metrics_namespace
        self.accelerators = tuple(dict.fromkeys(accelerators))
        self.idle_minutes = idle_minutes
        self.alarm_actions = tuple(alarm_actions)

        self.role = iam.Role(
            self, "AgentRole", assumed_by=pod_identity_principal(cluster, CLOUDWATCH_AGENT_NAMESPACE,
                                                                          [CLOUDWATCH_AGENT_SERVICE_ACCOUNT]),
            description="CloudWatch agent and Fluent Bit of the amazon-cloudwatch-observability add-on (Pod Identity)",
            managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name(CLOUDWATCH_AGENT_POLICY)])
        acknowledge(self.role, "CloudWatchAgentServerPolicy is the policy the CloudWatch Observability add-on's "
                    "documentation prescribes for the agent; AWS keeps it current with the agent",
                    managed_policy_finding(CLOUDWATCH_AGENT_POLICY))

        self.encryption_key = encryption_key or kms.Key(
            self, "LogsKey", enable_key_rotation=True, removal_policy=removal_policy,
            description="CloudWatch Logs of training: container logs and trainer metrics")
        names = {"application": tm.application_log_group_name(self.cluster_name),
                 "metrics": tm.metrics_log_group_name(self.cluster_name),
                 **{kind: tm.container_insights_log_group_name(self.cluster_name, kind)
                    for kind in ("dataplane", "host", "performance")}}
        self._allow_cloudwatch_logs(self.encryption_key, list(names.values()))
        # Created before the add-on, so Fluent Bit (application, dataplane, host) and the agent (performance) find
        # them and never create their own (`auto_create_group`), unencrypted and kept forever.
        self.log_groups: dict[str, logs.LogGroup] = {
            kind: logs.LogGroup(self, f"{kind.capitalize()}Logs", log_group_name=name, retention=log_retention,
                                encryption_key=self.encryption_key, removal_policy=removal_policy)
            for kind, name in names.items()}
        self.log_group = self.log_groups["application"]
        self.metrics_log_group = self.log_groups["metrics"]

        cloudwatch = eks_l1.CfnAddon(
            self, "CloudWatchObservability", addon_name=CLOUDWATCH_ADDON, addon_version=cloudwatch_addon_version,
            cluster_name=self.cluster_name, resolve_conflicts="OVERWRITE",
            configuration_values=json.dumps(cloudwatch_addon_configuration(), sort_keys=True),
            # The add-on creates the association itself, before its pods start; Fluent Bit runs under the same
            # service account as the agent (the chart's fluent-bit DaemonSet), so this one role serves both.
            pod_identity_associations=[eks_l1.CfnAddon.PodIdentityAssociationProperty(
                role_arn=self.role.role_arn, service_account=CLOUDWATCH_AGENT_SERVICE_ACCOUNT)])
        cloudwatch.node.add_dependency(*self.log_groups.values())
        monitoring = eks_l1.CfnAddon(
            self, "NodeMonitoring", addon_name=NODE_MONITORING_ADDON, addon_version=node_monitoring_addon_version,
            cluster_name=self.cluster_name, resolve_conflicts="OVERWRITE")
        self.addons: dict[str, eks_l1.CfnAddon] = {CLOUDWATCH_ADDON: cloudwatch, NODE_MONITORING_ADDON: monitoring}
        for addon in self.addons.values():
            for dependency in (*nodegroups, *([pod_identity_dependency] if pod_identity_dependency else [])):
                addon.node.add_dependency(dependency)

        self.alarms: dict[str, cw.Alarm] = {}
        self._idle_alarms()
        for namespace in self.namespaces:
            self._nonfinite_loss_alarm(namespace)
        for i, name in enumerate(jobs):
            namespace, _, job = check_job_reference(f"jobs[{i}]", name).partition("/")
            self.add_job_alarms(namespace, job)
        self.dashboard = cw.Dashboard(self, "Dashboard", default_interval=Duration.hours(6),
                                      widgets=self._dashboard_rows())
        for alarm in self.alarms.values():
            alarm.add_alarm_action(*self.alarm_actions)

    def grant_metrics_write(self, grantee: iam.IGrantable) -> iam.Grant:
        """Let ``grantee`` (the training pods' role) put EMF records into the trainer metrics log group directly,
        for a trainer that writes with the CloudWatch Logs API instead of through the agent's EMF listener."""
        return self.metrics_log_group.grant_write(grantee)

    # --- log encryption -------------------------------------------------------------------------------------

    def _allow_cloudwatch_logs(self, key: kms.IKey, log_group_names: list[str]) -> None:
        allow_cloudwatch_logs(key, log_group_names, sid="AllowCloudWatchLogsForTrainingLogGroups")

    # --- alarms ---------------------------------------------------------------------------------------------

    def _idle_alarms(self) -> None:
        period = Duration.minutes(self.idle_minutes)
        for accelerator in self.accelerators:
            metric_name = _ACCELERATOR_METRICS[accelerator]["node"][0]
            label = _ACCELERATOR_METRICS[accelerator]["label"]
            metric = cw.Metric(namespace=CONTAINER_INSIGHTS_NAMESPACE, metric_name=metric_name,
                               dimensions_map={"ClusterName": self.cluster_name}, statistic="Average", period=period)
            self.alarms[f"{accelerator}-idle"] = cw.Alarm(
                self, f"{label}IdleAlarm", metric=metric, threshold=IDLE_UTILISATION_PERCENT,
                comparison_operator=cw.ComparisonOperator.LESS_THAN_THRESHOLD, evaluation_periods=1,
                # No accelerated node, no metric, no money spent: missing data is not idleness.
                treat_missing_data=cw.TreatMissingData.NOT_BREACHING,
                alarm_description=f"{label}s of the cluster averaged under {IDLE_UTILISATION_PERCENT}% utilisation "
                                  f"for {self.idle_minutes} minutes: paid accelerators are idle")

    def _nonfinite_loss_alarm(self, namespace: str) -> None:
        # A Metrics Insights query covers every job of the namespace, including jobs started after this deploy.
        query = (f'SELECT SUM({tm.NONFINITE_LOSS}) FROM SCHEMA("{self.metrics_namespace}", '
                 f"{tm.DIMENSION_NAMESPACE}, {tm.DIMENSION_JOB}) WHERE {tm.DIMENSION_NAMESPACE} = '{namespace}'")
        self.alarms[f"{namespace}-nonfinite-loss"] = cw.Alarm(
            self, f"NonFiniteLoss-{namespace}", metric=cw.MathExpression(expression=query, period=Duration.minutes(1)),
            threshold=0, comparison_operator=cw.ComparisonOperator.GREATER_THAN_THRESHOLD, evaluation_periods=1,
            treat_missing_data=cw.TreatMissingData.NOT_BREACHING,
            alarm_description=f"a job in namespace {namespace} reported a NaN or infinite loss: the run is wasting "
                              "its accelerators until it is stopped or rolled back")

    def add_job_alarms(self, namespace: str, job: str) -> cw.Alarm:
        """Alarm when ``namespace/job``'s 5-minute tokens/s falls under half its own 1-hour average."""
        check_job_reference("jobs entry", f"{namespace}/{job}")
        key = f"{namespace}/{job}-throughput-drop"
        if key in self.alarms:
            raise invalid("jobs entry", f"{namespace}/{job}", "give each job once (it is listed twice)")

        def tokens(period: Duration) -> cw.Metric:
            return cw.Metric(namespace=self.metrics_namespace, metric_name=tm.TOKENS_PER_SECOND, statistic="Average",
                             dimensions_map={tm.DIMENSION_NAMESPACE: namespace, tm.DIMENSION_JOB: job}, period=period)

        expression = cw.MathExpression(
            expression=f"IF(m1 < {THROUGHPUT_DROP_FRACTION} * FILL(m2, REPEAT), 1, 0)",
            using_metrics={"m1": tokens(Duration.minutes(5)), "m2": tokens(Duration.hours(1))},
            period=Duration.minutes(5), label="throughput below half its 1-hour average")
        alarm = cw.Alarm(
            self, f"ThroughputDrop-{namespace}-{job}", metric=expression, threshold=1,
            comparison_operator=cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD, evaluation_periods=2,
            treat_missing_data=cw.TreatMissingData.NOT_BREACHING,
            alarm_description=f"{namespace}/{job}: tokens/s fell under half of its 1-hour average for 10 minutes "
                              "(a slow node, a stalled data loader or a degraded EFA link)")
        # aws-cdk-lib gives every metric of a math expression the expression's period; m2 must keep its hour.
        # MetricStat.Period is per query in the API; FILL(m2, REPEAT) carries the hourly value across the 5-minute
        # points. Not proven against CloudWatch here (moto and cfn-lint do not evaluate alarms): if a deploy refuses
        # mixed periods, compare with a 5-minute anomaly band instead.
        cfn = alarm.node.default_child
        metrics = Stack.of(self).resolve(cfn.metrics)
        index = next(i for i, query in enumerate(metrics) if query.get("id") == "m2")
        cfn.add_property_override(f"Metrics.{index}.MetricStat.Period", 3600)
        self.alarms[key] = alarm
        if hasattr(self, "dashboard"):  # added after construction: act on it and show it too
            alarm.add_alarm_action(*self.alarm_actions)
            self.dashboard.add_widgets(cw.AlarmStatusWidget(title=f"{namespace}/{job}", alarms=[alarm], width=6))
        return alarm

    # --- dashboard ------------------------------------------------------------------------------------------

    def _search(self, schema: str, metric_name: str, filters: dict[str, str], stat: str = "Average",
                label: str | None = None) -> cw.MathExpression:
        terms = " ".join(f'{name}="{value}"' for name, value in filters.items())
        return cw.MathExpression(expression=f"SEARCH('{{{schema}}} MetricName=\"{metric_name}\" {terms}', '{stat}', 60)",
                                 using_metrics={}, period=Duration.minutes(1), label=label)

    def _goodput_row(self, schema: str, namespace: str) -> list[cw.IWidget]:
        """Goodput, where the time went, and cost, per job of ``namespace``. Each run of a job emits the job's totals
        so far when it ends (training/goodput.py), so a job's newest point covers all its runs; Maximum keeps one
        point per minute as it was sent."""
        where = {tm.DIMENSION_NAMESPACE: namespace}
        return [
            cw.GraphWidget(title=f"{namespace}: goodput per job (productive / total)", width=8,
                           left=[self._search(schema, tm.GOODPUT, where, stat="Maximum")],
                           left_y_axis=cw.YAxisProps(min=0, max=1)),
            cw.GraphWidget(title=f"{namespace}: seconds per job by where they went", width=8, stacked=True,
                           left=[self._search(schema, name, where, stat="Maximum", label=category)
                                 for category, name in tm.TIME_SPLIT_METRICS.items()]),
            cw.GraphWidget(title=f"{namespace}: cost per job (USD: list price x nodes x time)", width=8,
                           left=[self._search(schema, tm.JOB_COST_USD, where, stat="Maximum")]),
        ]

    def _dashboard_rows(self) -> list[list[cw.IWidget]]:
        cluster = {"ClusterName": self.cluster_name}
        trainer_schema = f"{self.metrics_namespace},{tm.DIMENSION_NAMESPACE},{tm.DIMENSION_JOB}"
        rows: list[list[cw.IWidget]] = [[cw.TextWidget(
            markdown="# Training\nTrainer metrics per job (EMF, namespace "
                     f"`{self.metrics_namespace}`), each job's goodput, time split and cost (sent when a run ends), "
                     "accelerator utilisation and memory per node and per job pod, "
                     "EFA traffic per node.", width=24, height=2)]]
        for namespace in self.namespaces:
            rows.append([
                cw.GraphWidget(title=f"{namespace}: {name} per job", width=6, left=[self._search(
                    trainer_schema, name, {tm.DIMENSION_NAMESPACE: namespace})])
                for name in (tm.TOKENS_PER_SECOND, tm.LOSS, tm.MFU, tm.NONFINITE_LOSS)
            ])
            rows.append(self._goodput_row(trainer_schema, namespace))
        for accelerator in self.accelerators:
            facts = _ACCELERATOR_METRICS[accelerator]
            row: list[cw.IWidget] = [
                cw.GraphWidget(title=f"{facts['label']} {name} per node", width=6,
                               left=[self._search(f"{CONTAINER_INSIGHTS_NAMESPACE},{_NODE_DIMENSIONS}", name, cluster)])
                for name in facts["node"]
            ]
            row += [
                cw.GraphWidget(title=f"{facts['label']} {name} per job pod ({namespace})", width=6,
                               left=[self._search(f"{CONTAINER_INSIGHTS_NAMESPACE},{_POD_DIMENSIONS}", name,
                                                  {**cluster, "Namespace": namespace})])
                for namespace in self.namespaces for name in facts["pod"]
            ]
            rows.append(row)
        rows.append([
            cw.GraphWidget(title=f"EFA {name} per node", width=12, left=[self._search(
                f"{CONTAINER_INSIGHTS_NAMESPACE},{_NODE_DIMENSIONS}", name, cluster, stat="Sum")])
            for name in _EFA_METRICS
        ])
        rows.append([cw.AlarmStatusWidget(title="Cost alarms", alarms=list(self.alarms.values()), width=24)])
        return rows


def _check_props(*, namespaces: Sequence[str], accelerators: Sequence[str], metrics_namespace: str,
                 idle_minutes: int, cloudwatch_addon_version: str, node_monitoring_addon_version: str) -> None:
    # core.validation's checks: the config layer runs the same ones on an environment file's observability block.
    if isinstance(namespaces, str) or not namespaces:
        raise invalid("namespaces", namespaces, "give at least one training namespace")
    for i, namespace in enumerate(namespaces):
        check_dns_label(f"namespaces[{i}]", namespace)
    if isinstance(accelerators, str) or not accelerators or any(a not in _ACCELERATORS for a in accelerators):
        raise invalid("accelerators", accelerators, f"use one or more of {', '.join(_ACCELERATORS)}")
    check_metrics_namespace("metrics_namespace", metrics_namespace)
    # One alarm period of idle_minutes; CloudWatch periods go up to one day.
    check_whole_number("idle_minutes", idle_minutes, minimum=IDLE_MINUTES[0], maximum=IDLE_MINUTES[1], unit="minutes")
    for field, version in (("cloudwatch_addon_version", cloudwatch_addon_version),
                           ("node_monitoring_addon_version", node_monitoring_addon_version)):
        check_addon_version(field, version)


def allow_cloudwatch_logs(key: kms.IKey, log_group_names: Sequence[str], *, sid: str) -> None:
    """Let CloudWatch Logs use ``key`` on behalf of these log groups of the key's account and region only (names,
    ``*`` patterns allowed): the encryption context names the group."""
    stack = Stack.of(key)
    log_groups = [f"arn:{stack.partition}:logs:{stack.region}:{stack.account}:log-group:{name}"
                  for name in log_group_names]
    statement = iam.PolicyStatement(
        sid=sid, principals=[iam.ServicePrincipal(f"logs.{stack.region}.amazonaws.com")],
        actions=["kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*"],
        resources=["*"],  # in a key policy, "*" is this key
        conditions={"ArnLike": {"kms:EncryptionContext:aws:logs:arn": log_groups}})
    result = key.add_to_resource_policy(statement, allow_no_op=True)
    if not result.statement_added:
        raise invalid("encryption_key", key.node.path, "a kms.Key created in this app (an imported key's policy "
                                                      "cannot be changed here), or None to create one")
