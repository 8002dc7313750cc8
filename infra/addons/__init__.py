"""Cluster add-ons: one module per add-on, one protocol, installed in dependency order by ``ClusterServices``.

An add-on module defines ``ADDON``, an object with ``name``, ``depends_on`` (names of add-ons it needs installed
first) and two methods: ``enabled(config)`` says whether the environment wants it, ``install(ctx)`` adds its Helm
release and/or charts through the :class:`AddonContext` and returns the construct others depend on. Modules in
this package are discovered by name, so adding an add-on is one module (plus its config switch and tests).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import cdk8s
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct

from eks_training.core.validation import invalid
from eks_training.core.versions import HelmPin
from eks_training.infra.config import PlatformConfig


@dataclass
class AddonContext:
    """What an add-on installs into: the cluster, the cdk8s app of the stack, and the manifests it may need."""

    config: PlatformConfig
    cluster: eks.Cluster
    k8s: cdk8s.App
    #: Where add-ons that are CDK constructs (not charts) add themselves.
    scope: Construct | None = None
    #: The EKS Pod Identity agent add-on: roles handed to pods must wait for it.
    pod_identity_agent: Construct | None = None
    namespaces_manifest: Construct | None = None
    storage_manifest: Construct | None = None
    system_nodes: Construct | None = None
    #: Image of each variant (gpu, neuron, ray, slurmd): built by the stack, or given in config.
    images: dict[str, str] = field(default_factory=dict)
    releases: dict[str, eks.HelmChart] = field(default_factory=dict)
    manifests: dict[str, eks.KubernetesManifest] = field(default_factory=dict)

    def release(self, pin: HelmPin, values: Mapping[str, Any], *after: Construct | None,
                create_namespace: bool = True) -> eks.HelmChart:
        """The pinned chart as a release installed with ``wait``: it waits for the system nodes its pods need."""
        release = self.cluster.add_helm_chart(
            pin.release, chart=pin.chart, repository=pin.repository, version=pin.version, namespace=pin.namespace,
            release=pin.release, create_namespace=create_namespace, values=dict(values), wait=True)
        for dependency in (*after, self.system_nodes):
            if dependency is not None:
                release.node.add_dependency(dependency)
        self.releases[pin.release] = release
        return release

    def chart(self, id: str, chart: cdk8s.Chart, *after: Construct | None) -> eks.KubernetesManifest:
        """One of our cdk8s charts applied to the cluster after ``after``."""
        manifest = self.cluster.add_cdk8s_chart(id, chart)
        for dependency in after:
            if dependency is not None:
                manifest.node.add_dependency(dependency)
        self.manifests[id] = manifest
        return manifest

    def image(self, variant: str) -> str:
        """The environment's image of ``variant``; a one-line error when neither built nor given."""
        if variant not in self.images:
            raise invalid(f"images.{variant}_image", None, f"give one, or set images.build_training_images: true "
                          f"(environment {self.config.name!r} builds no {variant} image and names none)")
        return self.images[variant]


class Addon(Protocol):
    name: str
    depends_on: tuple[str, ...]

    def enabled(self, config: PlatformConfig) -> bool: ...

    def install(self, ctx: AddonContext) -> Construct: ...


def discover() -> list[Addon]:
    """Every ``ADDON`` defined by a module of this package, in module-name order."""
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "ADDON"):
            found.append(module.ADDON)
    return found


def install_order(addons: Sequence[Addon]) -> list[Addon]:
    """``addons`` with each after the ones it depends on; a one-line error for a cycle or an unknown name."""
    by_name = {a.name: a for a in addons}
    ordered: list[Addon] = []
    visiting: set[str] = set()

    def visit(addon: Addon) -> None:
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
        visiting.discard(addon.name)
        ordered.append(addon)

    for addon in addons:
        visit(addon)
    return ordered
