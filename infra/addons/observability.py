"""Observability: metrics, logs, a training dashboard and cost alarms (constructs.observability.TrainingObservability).

The construct is ours already (it takes a cluster and typed props); this entry builds it from the environment's
`observability` section.
"""

from __future__ import annotations

from aws_cdk import CfnOutput, RemovalPolicy, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_cloudwatch_actions as cw_actions
from aws_cdk import aws_sns as sns

from eks_training.constructs.observability import CLOUDWATCH_AGENT_NAMESPACE, TrainingObservability, retention_from_days
from eks_training.infra.addons import AddonEntry


def _alarm_topic(scope) -> sns.Topic:
    """Where the alarms go without ``alarm_topic_arn``: a topic of the stack (subscribe to its output), so that an
    alarm always notifies someone able to subscribe rather than only turning red on the dashboard. Encrypted with a
    key of its own, which CloudWatch may use to publish (an AWS managed SNS key would refuse CloudWatch)."""
    key = kms.Key(scope, "AlarmTopicKey", enable_key_rotation=True, removal_policy=RemovalPolicy.DESTROY,
                  description="Alarm notifications of the training platform")
    key.add_to_resource_policy(iam.PolicyStatement(
        actions=["kms:Decrypt", "kms:GenerateDataKey*"], resources=["*"],
        principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
        conditions={"StringEquals": {"aws:SourceAccount": Stack.of(scope).account}}))
    topic = sns.Topic(scope, "Alarms", master_key=key, enforce_ssl=True, display_name="eks-training alarms")
    CfnOutput(scope, "AlarmTopicArn", value=topic.topic_arn,
              description="subscribe to the platform's alarms (or set observability.alarm_topic_arn)")
    return topic


def _build(scope, parts, after) -> TrainingObservability:
    config, settings = parts.config, parts.config.observability
    topic = (sns.Topic.from_topic_arn(scope, "AlarmTopic", settings.alarm_topic_arn) if settings.alarm_topic_arn
             else _alarm_topic(scope))
    actions = [cw_actions.SnsAction(topic)]
    observability = TrainingObservability(
        scope, "Observability", cluster=parts.cluster.cluster, log_retention=retention_from_days(settings.log_retention_days),
        namespaces=[n.name for n in config.training_namespaces], accelerators=sorted(config.accelerators()),
        nodegroups=[parts.cluster.system_nodegroup], pod_identity_dependency=parts.pod_identity_agent,
        metrics_namespace=settings.metrics_namespace, idle_minutes=settings.idle_minutes, jobs=settings.alarm_jobs,
        cloudwatch_addon_version=settings.cloudwatch_addon_version,
        node_monitoring_addon_version=settings.node_monitoring_addon_version, alarm_actions=actions,
        removal_policy=RemovalPolicy.RETAIN if config.storage.buckets.retain else RemovalPolicy.DESTROY)
    for dependency in after:
        observability.node.add_dependency(dependency)
    cluster = parts.cluster
    if cluster.network_policy:
        # Strict mode denies a pod no NetworkPolicy selects: the add-ons' pods start after their namespace is open
        # (the CloudWatch add-on's namespace made first, privileged like kube-system: its agents read the host).
        opened = [cluster.open_namespace(CLOUDWATCH_AGENT_NAMESPACE, pod_security="privileged"),
                  *cluster.open_namespaces.values()]
        for addon in observability.addons.values():
            addon.node.add_dependency(*opened)
    return observability


ADDON = AddonEntry("observability", enabled=lambda config: config.observability.enabled, build=_build)
