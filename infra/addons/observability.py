"""Observability: metrics, logs, a training dashboard and cost alarms (constructs.observability.TrainingObservability).

The add-on that shows the registry's contract end to end: one module, one config section (`observability`), and
its tests (tests/test_addons.py). It adds a CDK construct, not a chart, into the add-ons' scope.
"""

from __future__ import annotations

from dataclasses import dataclass

from aws_cdk import RemovalPolicy
from aws_cdk import aws_cloudwatch_actions as cw_actions
from aws_cdk import aws_sns as sns

from eks_training.constructs.observability import TrainingObservability, retention_from_days


@dataclass(frozen=True)
class Observability:
    name: str = "observability"
    depends_on: tuple[str, ...] = ()

    def enabled(self, config) -> bool:
        return config.observability.enabled

    def install(self, ctx):
        config, settings = ctx.config, ctx.config.observability
        actions = []
        if settings.alarm_topic_arn:
            actions.append(cw_actions.SnsAction(sns.Topic.from_topic_arn(ctx.scope, "AlarmTopic", settings.alarm_topic_arn)))
        return TrainingObservability(
            ctx.scope, "Observability", cluster=ctx.cluster, log_retention=retention_from_days(settings.log_retention_days),
            namespaces=[n.name for n in config.training_namespaces], accelerators=sorted(config.accelerators()),
            nodegroups=[n for n in (ctx.system_nodes,) if n is not None], pod_identity_dependency=ctx.pod_identity_agent,
            metrics_namespace=settings.metrics_namespace, idle_minutes=settings.idle_minutes, jobs=settings.alarm_jobs,
            cloudwatch_addon_version=settings.cloudwatch_addon_version,
            node_monitoring_addon_version=settings.node_monitoring_addon_version, alarm_actions=actions,
            removal_policy=RemovalPolicy.RETAIN if config.storage.buckets.retain else RemovalPolicy.DESTROY)


ADDON = Observability()
