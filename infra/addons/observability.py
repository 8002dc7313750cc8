"""Observability: metrics, logs, a training dashboard and cost alarms (constructs.observability.TrainingObservability).

The construct is ours already (it takes a cluster and typed props); this entry builds it from the environment's
`observability` section.
"""

from __future__ import annotations

from aws_cdk import RemovalPolicy
from aws_cdk import aws_cloudwatch_actions as cw_actions
from aws_cdk import aws_sns as sns

from eks_training.constructs.observability import TrainingObservability, retention_from_days
from eks_training.infra.addons import AddonEntry


def _build(scope, parts, after) -> TrainingObservability:
    config, settings = parts.config, parts.config.observability
    actions = []
    if settings.alarm_topic_arn:
        actions.append(cw_actions.SnsAction(sns.Topic.from_topic_arn(scope, "AlarmTopic", settings.alarm_topic_arn)))
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
    return observability


ADDON = AddonEntry("observability", enabled=lambda config: config.observability.enabled, build=_build)
