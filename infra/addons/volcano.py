"""Volcano (gang scheduling) and its queues (pin: core.versions.VOLCANO)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from constructs import Construct, IConstruct

from eks_training.constructs.cluster import TrainingCluster
from eks_training.core.names import SYSTEM_NODE_SELECTOR, system_placement
from eks_training.core.versions import VOLCANO, HelmPin
from eks_training.infra.addons import AddonEntry, ClusterAddon
from eks_training.workloads.network_policies import OperatorNamespacePolicy, Port
from eks_training.workloads.volcano import QueueResources, VolcanoQueue, VolcanoQueuesChart


#: The chart's webhook that validates queues (failurePolicy Fail): the queues wait until it can answer.
QUEUE_WEBHOOK = "volcano-admission-service-queues-validate"
#: The admission webhook's container port (the chart's admission Deployment serves its webhooks there).
VOLCANO_WEBHOOK_PORT = 8443


class Volcano(ClusterAddon):
    """Volcano's scheduler, controllers and admission webhook, and the queues jobs are submitted to.

    * ``queues``: Volcano queues (weight, whether reclaimable, capability). Default: none (Volcano's own ``default``
      queue only).
    * ``node_selector``: where Volcano's own pods run. Default: the system nodes.
    * ``webhook_namespace_label``: a namespace label (value ``"true"``) that limits Volcano's admission webhooks to
      the namespaces that carry it. Default: ``eks-training/uses-volcano``, which the platform's namespaces chart
      sets; None: every namespace (Volcano's own default).

    Its namespace is made by the add-on (Pod Security baseline, default-deny NetworkPolicies that admit the API
    server's calls to the admission webhook and let Volcano reach the API only). Its controllers and scheduler keep
    cluster-wide rights: Volcano schedules and binds pods in every namespace it serves, and its chart has no
    namespaced mode.
    * ``version``: the chart pin. Default: :data:`VOLCANO`.

    Volcano refuses to delete an open queue and the kubectl handler ignores that refusal: close a queue
    (``vcctl queue operate --name NAME --action close``) before removing it here; ``cdk destroy`` needs nothing (the
    queues go with the cluster).

    Attributes: ``release`` (the Helm release), ``queues_manifest`` (the queues, or None without queues).
    """

    def __init__(self, scope: Construct, id: str, *, cluster: TrainingCluster, queues: Sequence[VolcanoQueue] = (),
                 node_selector: Mapping[str, str] = SYSTEM_NODE_SELECTOR, version: HelmPin = VOLCANO,
                 webhook_namespace_label: str | None = "eks-training/uses-volcano",
                 after: Sequence[IConstruct] = ()) -> None:
        super().__init__(scope, id, cluster=cluster, after=after)
        # custom.default_ns and default_tolerations place the scheduler, controllers and admission webhook (and its init Job). The
        # admission webhooks see only the namespaces that run Volcano jobs (labelled eks-training/uses-volcano by
        # the namespaces chart): Volcano's default is every namespace but its own and kube-system. The chart's
        # images are tagged by release, so a node pulls each once (the chart's default is Always).
        custom: dict = {"default_ns": dict(node_selector),
                        "default_tolerations": system_placement(node_selector)["tolerations"]}
        if webhook_namespace_label:
            custom["webhooks_namespace_selector_expressions"] = [
                {"key": webhook_namespace_label, "operator": "In", "values": ["true"]}]
        self.release = self.add_release(version, {"custom": custom, "basic": {"image_pull_policy": "IfNotPresent"}},
                                        namespace=OperatorNamespacePolicy(
                                            version.namespace, webhook_ports=(Port(VOLCANO_WEBHOOK_PORT),)))
        self.queues_manifest = None
        if queues:
            # The admission server has no readiness probe (Helm's wait returns before it serves) and sets its
            # webhooks' CA bundle as it starts: the queues wait for that bundle, or the webhook refuses them.
            ready = self.wait_for_webhook(QUEUE_WEBHOOK, after=self.release)
            chart = VolcanoQueuesChart(self.k8s, "volcano-queues", queues=list(queues))
            self.queues_manifest = self.add_chart("volcano-queues", chart, after=[self.release, ready])


def _queues(config) -> list[VolcanoQueue]:
    return [VolcanoQueue(name=q.name, weight=q.weight, reclaimable=q.reclaimable, capability=QueueResources(
        cpu=q.cpu, memory=f"{q.memory_gib}Gi", nvidia_gpus=q.gpus or None, neuron_devices=q.neuron_devices or None))
        for q in config.services.volcano_queues]


ADDON = AddonEntry(
    "volcano", enabled=lambda config: config.services.volcano,
    build=lambda scope, parts, after: Volcano(scope, "Volcano", cluster=parts.cluster, queues=_queues(parts.config),
                                              after=after))
