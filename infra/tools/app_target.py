"""Any CDK app built of our constructs as `eks-training render` sees a platform: read from its synthesized template.

`render --app` writes jobs for a team of an app that is not one of our environments (no environment file). What it
needs it reads from the objects the app's constructs made: a team is a namespace with the ``training``
ServiceAccount (:class:`~eks_training.infra.addons.team.TrainingTeam`), its queue the LocalQueue there, its limits
its ResourceQuota and its ClusterQueue's quota (nominal plus what the cohort lends); the capacity is the app's node
groups and Karpenter pools, the operators its Helm releases.
"""

from __future__ import annotations

from decimal import Decimal

from eks_training.core.catalog import ACCELERATOR_RESOURCE, INSTANCE_TYPES
from eks_training.core.names import LABEL_INSTANCE_TYPE, TEAM_NODE_SELECTOR, TRAINING_SERVICE_ACCOUNT
from eks_training.core.versions import JOBSET, KUBEFLOW_TRAINER, KUBERAY, KUEUE, VOLCANO
from eks_training.infra.tools.check.queues import source_limit, sources_of, kueue_objects, queue_quotas
from eks_training.infra.tools.check.snapshot import PlatformSnapshot
from eks_training.infra.tools.job_render import RenderTarget, TeamFacts

#: The `services` switch each operator's release stands for.
_SERVICE_OF_CHART = {KUEUE.chart: "kueue", KUBEFLOW_TRAINER.chart: "kubeflow_trainer", VOLCANO.chart: "volcano",
                     KUBERAY.chart: "kuberay", JOBSET.chart: "jobset"}


def target_of_app(snap: PlatformSnapshot, name: str) -> RenderTarget:
    """The :class:`RenderTarget` of an app's stack, named ``name`` in messages."""
    objects = [obj for _, obj in snap.objects()]
    services = {_SERVICE_OF_CHART[r.chart] for r in snap.releases if r.chart in _SERVICE_OF_CHART}
    kueue = kueue_objects(snap)
    teams = []
    namespaces = sorted({(o.get("metadata") or {}).get("namespace") for o in objects
                         if o.get("kind") == "ServiceAccount" and o["metadata"].get("name") == TRAINING_SERVICE_ACCOUNT})
    for namespace in namespaces:
        local = sorted(name for ns, name in kueue.local_queues if ns == namespace)
        quota, setting = {}, {}
        for obj in objects:
            meta = obj.get("metadata") or {}
            if obj.get("kind") != "ResourceQuota" or meta.get("namespace") != namespace:
                continue
            for accelerator, resource in ACCELERATOR_RESOURCE.items():
                hard = (obj.get("spec") or {}).get("hard") or {}
                if f"requests.{resource}" in hard:
                    quota[accelerator] = int(hard[f"requests.{resource}"])
                    setting[accelerator] = f"ResourceQuota {namespace}/{meta.get('name')}"
        admitted: dict[str, int] = {}
        if local and kueue.local_queues[(namespace, local[0])] in kueue.cluster_queues:
            admitted = _admitted(snap, kueue, kueue.local_queues[(namespace, local[0])])
        teams.append(TeamFacts(namespace, local[0] if local else None, quota, setting, admitted))
    team_cpu = next((s.instance_type for s in snap.node_sources
                     if all(s.labels.get(k) == v for k, v in TEAM_NODE_SELECTOR.items())), "m6i.2xlarge")
    limits: dict[str, int] = {}
    for source in snap.node_sources:
        facts = INSTANCE_TYPES.get(source.instance_type)
        if facts is None or not facts.accelerators:
            continue
        most = source_limit(snap, source, ACCELERATOR_RESOURCE[facts.accelerator])
        nodes = int(most // facts.accelerators) if most != Decimal("Infinity") else 1000
        limits[source.instance_type] = max(limits.get(source.instance_type, 0), nodes)
    flavors = []
    for flavor in kueue.flavors.values():
        spec = flavor.get("spec") or {}
        layers = max(len(kueue.topologies.get(spec["topologyName"], [])) - 1, 0) if spec.get("topologyName") else 0
        for instance_type in _instance_types(snap, spec):
            flavors.append((instance_type, layers))
    volcano = sorted(o["metadata"]["name"] for o in objects if o.get("kind") == "Queue"
                     and str(o.get("apiVersion", "")).startswith("scheduling.volcano.sh/"))
    return RenderTarget("app", name, tuple(teams), frozenset(services), team_cpu, limits,
                        kueue=bool(kueue.cluster_queues), flavors=tuple(flavors),
                        volcano_queue=volcano[0] if volcano else None)


def _instance_types(snap: PlatformSnapshot, flavor: dict) -> list[str]:
    """The instance types a flavor's nodes have: its label, else those of the node sources it describes."""
    labelled = (flavor.get("nodeLabels") or {}).get(LABEL_INSTANCE_TYPE)
    if labelled:
        return [labelled]
    return sorted({s.instance_type for s in sources_of(flavor, snap.node_sources)})


def _admitted(snap: PlatformSnapshot, kueue, cluster_queue: str) -> dict[str, int]:
    """Per instance type, the most accelerators ``cluster_queue`` admits on one flavor (nominal plus borrowable)."""
    quotas = queue_quotas(cluster_queue, kueue)
    admitted: dict[str, int] = {}
    for flavor_name in quotas.flavors:
        spec = (kueue.flavors.get(flavor_name) or {}).get("spec") or {}
        for instance_type in _instance_types(snap, spec):
            facts = INSTANCE_TYPES.get(instance_type)
            if facts is None or not facts.accelerators:
                continue
            key = (flavor_name, ACCELERATOR_RESOURCE[facts.accelerator])
            most = int(quotas.nominal.get(key, Decimal(0)) + quotas.borrowable.get(key, Decimal(0)))
            admitted[instance_type] = max(admitted.get(instance_type, 0), most)
    return admitted
