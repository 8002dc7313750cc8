"""Slinky: the Slurm operator (CRDs, operator) and a Slurm cluster on top (pins: SLURM_OPERATOR*)."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence

from aws_cdk import aws_eks_v2 as eks
from constructs import Construct, IConstruct

from eks_training.constructs.cluster import TrainingCluster
from eks_training.core.catalog import INSTANCE_TYPES, whole_node_requests
from eks_training.core.names import SLURM_NAMESPACE, SYSTEM_NODE_SELECTOR, slurm_pool_name, system_placement
from eks_training.core.versions import SLURM_OPERATOR, SLURM_OPERATOR_CRDS
from eks_training.infra.addons import AddonEntry, ClusterAddon
from eks_training.infra.addons.network_policies import load_balancer_clients
from eks_training.workloads.network_policies import SLURMRESTD_PORT, NamespaceEgress, OperatorNamespacePolicy, Port
from eks_training.workloads.slinky import SlurmClusterChart, SlurmLoginSettings, SlurmPartition


#: The operator's validating webhook configuration (its chart's name for it).
OPERATOR_WEBHOOK = "slurm-operator-webhook"
#: The NodeSet kind as `kubectl patch` names it (resource.group: unambiguous beside other kinds called NodeSet).
NODESET_RESOURCE = "nodesets.slinky.slurm.net"
#: The Slinky webhook's container port (controller-runtime's webhook server).
SLINKY_WEBHOOK_PORT = 9443


class Slinky(ClusterAddon):
    """SchedMD's Slinky operator and one Slurm cluster (controller, accounting, REST API, login, a NodeSet per
    partition). The operator's webhook needs cert-manager: install :class:`CertManager` first and pass it in ``after``.

    * ``cluster_name``: the Slurm cluster's name (at most 30 characters).
    * ``partitions``: one NodeSet of slurmd pods each (:class:`SlurmPartition`).
    * ``slurmd_image``: the slurmd image that runs the jobs (ours: ``training/Dockerfile.slurmd``).
    * ``namespace``: where the Slurm cluster runs; it must hold the FSx claims. Default: ``slurm``.
    * ``create_namespace``: whether the chart creates that namespace. Default: False (the platform's namespaces
      chart makes it, with its quotas and policies).
    * ``node_selector``: where the operator and its webhook run. Default: the system nodes.
    * ``login``: the login pods and their Service (:class:`SlurmLoginSettings`: the directory's SSSD configuration
      people log in through). Default: a ClusterIP Service, the local-users SSSD configuration.

    Attributes: ``crds_release``, ``operator_release``, ``slurm_manifest`` (all but the NodeSets), ``node_sets`` (the
    construct holding each NodeSet's manifest and replicas patch).
    """

    def __init__(self, scope: Construct, id: str, *, cluster: TrainingCluster, cluster_name: str,
                 partitions: Sequence[SlurmPartition], slurmd_image: str, namespace: str = SLURM_NAMESPACE,
                 create_namespace: bool = False, node_selector: Mapping[str, str] = SYSTEM_NODE_SELECTOR,
                 login: SlurmLoginSettings = SlurmLoginSettings(), after: Sequence[IConstruct] = ()) -> None:
        super().__init__(scope, id, cluster=cluster, after=after)
        # The namespace (made with the CRDs' release, the first into it) isolates the operator and its webhook: DNS,
        # the API, slurmrestd in the Slurm cluster's namespace, and the API server's calls to the webhook.
        policy = OperatorNamespacePolicy(SLURM_OPERATOR.namespace, webhook_ports=(Port(SLINKY_WEBHOOK_PORT),), egress=(
            NamespaceEgress("slurmrestd", to_namespace=namespace, ports=(Port(SLURMRESTD_PORT),)),))
        self.crds_release = self.add_release(SLURM_OPERATOR_CRDS, {}, namespace=policy)
        # Both watch only the Slurm cluster's namespace (the chart's lists; its RBAC stays a ClusterRole, which the
        # chart does not narrow).
        self.operator_release = self.add_release(
            SLURM_OPERATOR, {part: {**system_placement(node_selector), "namespaces": namespace}
                             for part in ("operator", "webhook")},
            after=[self.crds_release], create_namespace=False)
        # The operator's webhook (failurePolicy Fail) admits the Slurm objects once cert-manager's cainjector has set
        # its CA bundle, which Helm's wait does not cover: the objects wait for that bundle.
        ready = self.wait_for_webhook(OPERATOR_WEBHOOK, after=self.operator_release)
        chart = SlurmClusterChart(self.k8s, "slurm-cluster", cluster_name=cluster_name, partitions=list(partitions),
                                  namespace=namespace, create_namespace=create_namespace, slurmd_image=slurmd_image,
                                  login=login)
        objects = chart.to_json()
        node_sets = [obj for obj in objects if obj["kind"] == "NodeSet"]
        self.slurm_manifest = self.add_chart("slurm", [obj for obj in objects if obj["kind"] != "NodeSet"],
                                             after=[self.operator_release, ready])
        self.node_sets = self._add_node_sets(node_sets, namespace)

    def _add_node_sets(self, node_sets: Sequence[dict], namespace: str) -> Construct:
        """Each NodeSet in a manifest of its own, without ``spec.replicas``, which a patch sets.

        kubectl apply writes every field of the manifest over the live object, so a NodeSet applied with its replicas
        would be scaled back to them by every deploy that touches it, undoing an operator's ``kubectl scale``. The
        patch runs when it is created and when the configured replicas change, never otherwise. A removed partition's
        manifest is deleted, and its NodeSet with it (kubectl never prunes custom objects). Between a NodeSet's
        creation and its patch, the CRD's default (1 replica) holds.
        """
        replicas, applied = {}, []
        for node_set in node_sets:
            node_set = copy.deepcopy(node_set)
            replicas[node_set["metadata"]["name"]] = node_set["spec"].pop("replicas")
            applied.append(node_set)
        scope = self.add_objects_apart("node-sets", applied, after=[self.operator_release, self.slurm_manifest])
        for name, count in replicas.items():
            patch = eks.KubernetesPatch(
                scope, f"Replicas-{name}", cluster=self.cluster.cluster, resource_name=f"{NODESET_RESOURCE}/{name}",
                resource_namespace=namespace, apply_patch={"spec": {"replicas": count}}, restore_patch={},
                patch_type=eks.PatchType.MERGE)
            patch.node.add_dependency(self.manifests[f"node-sets/NodeSet-{name}"])
        return scope


def _partitions(config) -> list[SlurmPartition]:
    partitions = []
    for p in config.services.slurm_partitions:
        cpu, memory = whole_node_requests(p.instance_type)
        # Each partition on the Karpenter pool of its own that the stack makes (infra.platform_stack).
        partitions.append(SlurmPartition(name=p.name, instance_type=p.instance_type,
                                         accelerator=INSTANCE_TYPES[p.instance_type].accelerator,
                                         replicas=p.replicas, cpu=cpu, memory=memory, max_nodes=p.max_nodes,
                                         node_pool=slurm_pool_name(p.name)))
    return partitions


def _login(config) -> SlurmLoginSettings:
    # People log in over SSH as their directory's users; through an internal NLB when the config asks for one.
    clients = load_balancer_clients(config, "slurm_login")
    return SlurmLoginSettings(sssd_conf_secret=config.services.slurm_sssd_conf_secret, load_balancer=bool(clients),
                              source_ranges=clients)


def slurm_cluster_name(config) -> str:
    """The Slurm cluster's name in a platform (its objects' and Services' prefix)."""
    return f"{config.name}-slurm"


ADDON = AddonEntry(
    "slinky", depends_on=("cert-manager",), after_enabled=("network-policies",),
    enabled=lambda config: config.services.slinky and bool(config.services.slurm_partitions),
    build=lambda scope, parts, after: Slinky(
        scope, "Slinky", cluster=parts.cluster, cluster_name=slurm_cluster_name(parts.config),
        partitions=_partitions(parts.config), slurmd_image=parts.image("slurmd"),
        login=_login(parts.config),
        # The NodeSets' slurmd pods run on Karpenter nodes: after its NodePools, and gone before them on destroy.
        after=[*after, *(m for m in (parts.namespaces_manifest, parts.storage_manifest, parts.node_pools) if m)]))
