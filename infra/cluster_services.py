"""Cluster services of one environment: every enabled add-on (``eks_training.infra.addons``), in dependency order.

Each add-on installs its operator from the pinned chart and our charts on top; a chart that creates custom resources
depends on its operator's release, so CloudFormation installs the CRDs first and, on ``cdk destroy``, removes our
objects before their operator. Every release waits for the system node group its pods run on.
"""

from __future__ import annotations

import cdk8s
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct

from eks_training.core.validation import invalid
from eks_training.infra.addons import AddonContext, discover, install_order
from eks_training.infra.config import PlatformConfig


class ClusterServices(Construct):
    """The environment's add-ons, installed in dependency order.

    Attributes: ``releases`` (release name -> HelmChart), ``manifests`` (chart id -> KubernetesManifest),
    ``installed`` (add-on name -> the construct other add-ons depend on).
    """

    def __init__(self, scope: Construct, id: str, *, config: PlatformConfig, cluster: eks.Cluster, k8s: cdk8s.App,
                 namespaces_manifest: Construct | None, storage_manifest: Construct | None,
                 system_nodes: Construct | None = None, images: dict[str, str] | None = None,
                 pod_identity_agent: Construct | None = None) -> None:
        super().__init__(scope, id)
        self.context = AddonContext(config=config, cluster=cluster, k8s=k8s, scope=self,
                                    pod_identity_agent=pod_identity_agent, namespaces_manifest=namespaces_manifest,
                                    storage_manifest=storage_manifest, system_nodes=system_nodes, images=dict(images or {}))
        self.installed: dict[str, Construct] = {}
        enabled = [addon for addon in discover() if addon.enabled(config)]
        names = {addon.name for addon in enabled}
        for addon in install_order(enabled):
            missing = [name for name in addon.depends_on if name not in names]
            if missing:
                raise invalid(f"add-on {addon.name!r} depends_on", missing, "add-ons the environment turns on: turn "
                                                                            "them on in services, or this one off")
            node = addon.install(self.context)
            for name in addon.depends_on:
                node.node.add_dependency(self.installed[name])
            self.installed[addon.name] = node

    @property
    def releases(self) -> dict[str, eks.HelmChart]:
        return self.context.releases

    @property
    def manifests(self) -> dict[str, eks.KubernetesManifest]:
        return self.context.manifests
