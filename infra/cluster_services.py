"""Cluster services of one environment: every enabled add-on (``eks_training.infra.addons``), in dependency order.

Each add-on is a construct any app can use; this one builds the environment's from its config. A chart that
creates custom resources depends on its operator's release, so CloudFormation installs the CRDs first and, on
``cdk destroy``, removes our objects before their operator. Every release waits for the system node group its pods
run on.
"""

from __future__ import annotations

from aws_cdk import aws_eks_v2 as eks
from constructs import Construct

from eks_training.constructs.cluster import TrainingCluster
from eks_training.core.validation import invalid
from eks_training.infra.addons import StackParts, discover, install_order
from eks_training.infra.config import PlatformConfig


class ClusterServices(Construct):
    """The environment's add-ons, installed in dependency order.

    Attributes: ``installed`` (add-on name -> its construct), ``releases`` (release name -> HelmChart),
    ``manifests`` (chart id -> KubernetesManifest), over every add-on.
    """

    def __init__(self, scope: Construct, id: str, *, config: PlatformConfig, cluster: TrainingCluster,
                 namespaces_manifest: Construct | None, storage_manifest: Construct | None,
                 images: dict[str, str] | None = None, pod_identity_agent: Construct | None = None,
                 node_pools: Construct | None = None) -> None:
        super().__init__(scope, id)
        parts = StackParts(config=config, cluster=cluster, pod_identity_agent=pod_identity_agent,
                           namespaces_manifest=namespaces_manifest, storage_manifest=storage_manifest,
                           node_pools=node_pools, images=dict(images or {}))
        self.installed: dict[str, Construct] = {}
        enabled = [addon for addon in discover() if addon.enabled(config)]
        names = {addon.name for addon in enabled}
        for addon in install_order(enabled):
            missing = [name for name in addon.depends_on if name not in names]
            if missing:
                raise invalid(f"add-on {addon.name!r} depends_on", missing, "add-ons the environment turns on: turn "
                                                                            "them on in services, or this one off")
            first = [*addon.depends_on, *(n for n in addon.after_enabled if n in names)]
            self.installed[addon.name] = addon.build(self, parts, [self.installed[n] for n in first])

    @property
    def releases(self) -> dict[str, eks.HelmChart]:
        return {name: release for addon in self.installed.values() for name, release in getattr(addon, "releases", {}).items()}

    @property
    def manifests(self) -> dict[str, eks.KubernetesManifest]:
        return {id: manifest for addon in self.installed.values() for id, manifest in getattr(addon, "manifests", {}).items()}
