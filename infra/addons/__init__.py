"""Cluster add-ons: each platform service is a construct any CDK app can put on a :class:`TrainingCluster`.

An add-on construct takes ``(scope, id, *, cluster, ...typed props)`` and reads no environment config, so another
app installs our Volcano, KubeRay or device plugins on its own cluster exactly as our stack does::

    cluster = TrainingCluster(stack, "Cluster", vpc=vpc, version="1.36", ...)
    NvidiaDevicePlugin(stack, "NvidiaDevicePlugin", cluster=cluster)
    Volcano(stack, "Volcano", cluster=cluster, queues=[VolcanoQueue(name="research", weight=2)])

Each one is a :class:`ClusterAddon`: its Helm releases and manifests are its children (``releases``, ``manifests``),
every release is installed with ``wait`` after the cluster's system nodes (its pods run there), and ``after`` names
what must exist first. The platform stack composes the same constructs: each module here also defines ``ADDON``, a
:class:`AddonEntry` that says whether an environment wants it and builds it from that environment's config
(``ClusterServices`` discovers the entries by module and installs them in dependency order).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import cdk8s
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct, IConstruct

from eks_training.constructs.chart_source import helm_chart
from eks_training.constructs.cluster import JOB_WAIT, TrainingCluster
from eks_training.core.validation import invalid
from eks_training.core.versions import HelmPin
from eks_training.workloads.namespaces import PodSecurity
from eks_training.workloads.network_policies import OperatorNamespaceChart, OperatorNamespacePolicy

if TYPE_CHECKING:
    from eks_training.infra.config import PlatformConfig


class ClusterAddon(Construct):
    """A platform service on a :class:`TrainingCluster`: Helm releases and cdk8s charts, in order.

    * ``cluster``: the cluster to install into.
    * ``after``: constructs that must exist before anything of this add-on is installed (another add-on whose CRDs
      or webhooks it needs, the namespaces it writes into). Default: none.

    Attributes: ``cluster``, ``releases`` (release name -> HelmChart), ``manifests`` (id -> KubernetesManifest).
    """

    def __init__(self, scope: Construct, id: str, *, cluster: TrainingCluster, after: Sequence[IConstruct] = ()) -> None:
        super().__init__(scope, id)
        if not isinstance(cluster, TrainingCluster):
            raise invalid(f"{self.node.path}: cluster", type(cluster).__name__,
                          "a TrainingCluster (eks_training.constructs.cluster): add-ons wait for its system nodes")
        self.cluster = cluster
        self.releases: dict[str, eks.HelmChart] = {}
        self.manifests: dict[str, eks.KubernetesManifest] = {}
        self._after = tuple(after)

    def add_release(self, pin: HelmPin, values: Mapping[str, Any], *, after: Sequence[IConstruct | None] = (),
                    create_namespace: bool = True, namespace: OperatorNamespacePolicy | None = None,
                    pod_security: PodSecurity | None = None) -> eks.HelmChart:
        """The pinned chart as a release installed with ``wait``; it waits for the system nodes its pods need. A deploy
        synth ships the verified package (:mod:`eks_training.constructs.chart_source`).

        ``namespace``: the release's namespace as the platform makes it, before the release (which then creates
        none): Pod Security labels (``pod_security``, default baseline enforced) and the operator's NetworkPolicies
        (:class:`OperatorNamespacePolicy`: default deny, DNS, the API, its webhooks). Default None: Helm creates a
        bare namespace when ``create_namespace``, which `eks-training check` fails (no policy, no Pod Security label).
        """
        if namespace is not None:
            if namespace.namespace != pin.namespace:
                raise invalid(f"{self.node.path}: namespace", namespace.namespace, f"the release's, {pin.namespace!r}")
            # The cdk8s chart's id is unique in the cluster's one cdk8s app (an app may hold two such add-ons).
            chart = OperatorNamespaceChart(self.k8s, f"{self.node.path}/{pin.release}-namespace", policy=namespace,
                                           pod_security=pod_security, vpc_cidr=self.cluster.vpc_cidr)
            after, create_namespace = (*after, self.add_chart(f"{pin.release}-namespace", chart)), False
        release = helm_chart(
            self, _construct_id(pin.release), cluster=self.cluster.cluster, chart=pin.chart, repository=pin.repository,
            version=pin.version, namespace=pin.namespace, release=pin.release, create_namespace=create_namespace,
            values=dict(values), wait=True)
        # Strict NetworkPolicy mode: a release into a namespace the platform leaves open waits for its open policy.
        self._depend(release, (*after, self.cluster.system_nodegroup,
                               self.cluster.open_namespaces.get(pin.namespace)))
        self.releases[pin.release] = release
        return release

    def add_chart(self, id: str, chart: cdk8s.Chart | Sequence[dict], *,
                  after: Sequence[IConstruct | None] = ()) -> eks.KubernetesManifest:
        """One of our cdk8s charts (made in :attr:`k8s`), or its objects, applied to the cluster after ``after``; the
        deploy waits for each Job it applies to succeed (:meth:`TrainingCluster.wait_for_jobs`)."""
        objects = chart.to_json() if isinstance(chart, cdk8s.Chart) else list(chart)
        manifest = self._manifest(self, _construct_id(id), objects, after)
        self.manifests[id] = manifest
        return manifest

    def add_objects_apart(self, id: str, objects: Sequence[dict], *, key: Callable[[dict], str] | None = None,
                          after: Sequence[IConstruct | None] = ()) -> Construct:
        """``objects`` in manifests of their own, one per ``key`` (default: each object by kind and name), under one
        construct ``id`` (depend on it to wait for them all; the logical IDs follow the keys, not the order).

        For custom objects that must not outlive the config that made them (a NodePool, a ClusterQueue): kubectl's
        prune never deletes a custom kind, so removed from a shared manifest they would stay in the cluster,
        unmanaged. Removed from the config, a manifest of its own is removed from the stack, and CloudFormation's
        delete runs `kubectl delete` on it.
        """
        scope = Construct(self, _construct_id(id))
        groups: dict[str, list[dict]] = {}
        for obj in objects:
            groups.setdefault((key or _object_key)(obj), []).append(obj)
        for name, members in groups.items():
            # Overwrite: created with `kubectl apply`, so an object a shared manifest applied before is taken over.
            self.manifests[f"{id}/{name}"] = self._manifest(scope, name, members, after, overwrite=True)
        return scope

    def _manifest(self, scope: Construct, id: str, objects: list[dict], after: Sequence[IConstruct | None], *,
                  overwrite: bool = False) -> eks.KubernetesManifest:
        manifest = eks.KubernetesManifest(scope, id, cluster=self.cluster.cluster, manifest=objects,
                                          overwrite=overwrite or None)
        self._depend(manifest, after)
        # A Job the chart applies is waited for: its failure fails the deploy, and what comes after waits for it.
        self.cluster.wait_for_jobs(manifest, objects)
        return manifest

    def wait_for_webhook(self, configuration: str, *, after: IConstruct,
                         kind: str = "validatingwebhookconfiguration") -> eks.KubernetesObjectValue:
        """Wait until the admission webhook ``configuration`` (installed by ``after``) has its CA bundle.

        Whoever sets that bundle at run time (the webhook's own server as it starts, cert-manager's cainjector) sets
        it only once the server's certificate exists; until then the API server refuses, with failurePolicy Fail,
        every object the webhook admits, and a Helm wait on a server without a readiness probe says nothing. Apply
        those objects after the returned waiter. It fails the deploy after :data:`JOB_WAIT`.
        """
        waiter = eks.KubernetesObjectValue(
            self, f"Wait-{configuration}", cluster=self.cluster.cluster, object_type=kind, object_name=configuration,
            json_path=".webhooks[0].clientConfig.caBundle", timeout=JOB_WAIT)
        waiter.node.add_dependency(after)
        return waiter

    @property
    def k8s(self) -> cdk8s.App:
        """The cdk8s app this add-on's charts are made in (one per cluster)."""
        return self.cluster.k8s_app

    def _depend(self, resource: Construct, extra: Sequence[IConstruct | None]) -> None:
        for dependency in (*self._after, *extra):
            if dependency is not None:
                resource.node.add_dependency(dependency)


def _object_key(obj: dict) -> str:
    """"<kind>-<name>": a construct id per Kubernetes object (names in a kind are unique per namespace; ours are
    unique in the cluster)."""
    return f"{obj['kind']}-{obj['metadata']['name']}"


def _construct_id(name: str) -> str:
    """A construct id from a release or chart name: "kuberay-operator" -> "KuberayOperator"."""
    return "".join(part[:1].upper() + part[1:] for part in name.replace("_", "-").split("-") if part)


# --- the platform stack's registry ---------------------------------------------------------------------------------


@dataclass
class StackParts:
    """What the platform stack hands every add-on entry: the cluster, the environment's config and the images."""

    config: "PlatformConfig"
    cluster: TrainingCluster
    #: The EKS Pod Identity agent add-on: roles handed to pods must wait for it.
    pod_identity_agent: Construct | None = None
    namespaces_manifest: Construct | None = None
    storage_manifest: Construct | None = None
    #: Karpenter's NodePools: workloads whose pods need its nodes come after them (and go before them on destroy).
    node_pools: Construct | None = None
    #: Image of each variant (gpu, neuron, ray, slurmd): built by the stack, or given in config.
    images: dict[str, str] = field(default_factory=dict)

    def image(self, variant: str) -> str:
        """The environment's image of ``variant``; a one-line error when neither built nor given."""
        if variant not in self.images:
            raise invalid(f"images.{variant}_image", None, f"give one, or set images.build_training_images: true "
                          f"(environment {self.config.name!r} builds no {variant} image and names none)")
        return self.images[variant]


@dataclass(frozen=True)
class AddonEntry:
    """One add-on in the platform stack's registry: its name, what it needs first, and how config builds it."""

    name: str
    enabled: Callable[["PlatformConfig"], bool]
    #: Builds the add-on construct in ``scope`` from the stack's parts; ``after`` is what it depends on.
    build: Callable[[Construct, StackParts, Sequence[IConstruct]], Construct]
    depends_on: tuple[str, ...] = ()
    #: Installed after these where the environment turns them on, not needing them otherwise (their admission
    #: webhooks admit objects this one applies).
    after_enabled: tuple[str, ...] = ()


def discover() -> list[AddonEntry]:
    """Every ``ADDON`` defined by a module of this package, in module-name order."""
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "ADDON"):
            found.append(module.ADDON)
    return found


def install_order(addons: Sequence[Any]) -> list[Any]:
    """``addons`` with each after the ones it depends on; a one-line error for a cycle or an unknown name."""
    by_name = {a.name: a for a in addons}
    ordered: list[Any] = []
    visiting: set[str] = set()

    def visit(addon: Any) -> None:
        if addon in ordered:
            return
        if addon.name in visiting:
            raise ValueError(f"add-on {addon.name!r} depends on itself through {sorted(visiting)}")
        visiting.add(addon.name)
        for name in addon.depends_on:
            if name not in by_name:
                raise ValueError(f"add-on {addon.name!r} depends_on {name!r}, which is no add-on "
                                 f"(known: {', '.join(sorted(by_name))})")
            visit(by_name[name])
        for name in getattr(addon, "after_enabled", ()):
            if name in by_name:
                visit(by_name[name])
        visiting.discard(addon.name)
        ordered.append(addon)

    for addon in addons:
        visit(addon)
    return ordered
