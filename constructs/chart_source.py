"""Where a Helm release's chart comes from: its repository (a review synth), or the verified package (a deploy).

A review synth, on a bare clone and offline, names each chart by repository and version, as the kubectl handler
would pull it, and says which package a deploy would verify and ship (an info annotation per release). With the
context flag :data:`SHIP_VERIFIED_CHARTS` (``make deploy`` sets it, after ``eks-training fetch-upstream`` has
fetched and checked the packages), the chart is the unpacked folder of the package whose digest matched its pin
(:func:`eks_training.core.upstream.chart_dir`), shipped as an S3 asset: the handler installs those very files and
pulls nothing. A chart that is not at hand verified fails that synth in one line; a digest mismatch fails it too.
"""

from __future__ import annotations

from typing import Any

from aws_cdk import Annotations
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_s3_assets as s3_assets
from constructs import Construct

from eks_training.core import upstream
from eks_training.core.upstream import SHIPPED_CHART_PROPERTY
from eks_training.core.validation import invalid

#: The context flag of a deploy synth: ship every chart from its verified package.
SHIP_VERIFIED_CHARTS = "eks-training:ship-verified-charts"


def ships_verified_charts(scope: Construct) -> bool:
    """Whether this synth ships charts from their verified packages (the context flag is "true")."""
    return str(scope.node.try_get_context(SHIP_VERIFIED_CHARTS)).lower() == "true"


def helm_chart(scope: Construct, id: str, *, cluster: eks.ICluster, chart: str, version: str,
               repository: str | None = None, **props: Any) -> eks.HelmChart:
    """An aws-eks-v2 HelmChart of ``chart`` at ``version``: from the repository, or (:data:`SHIP_VERIFIED_CHARTS`)
    from the verified package as an asset. ``props``: the HelmChart's other props (release, namespace, values)."""
    artifact = upstream.chart_artifact(chart, version)
    digest = None if artifact is None else (
        f"sha256 {artifact.sha256}" if artifact.sha256 else f"OCI manifest {artifact.oci_digest}" if artifact.oci_digest
        else f"tree {artifact.tree_sha256}" if artifact.tree_sha256 else "the digest fetch-upstream recorded")
    if not ships_verified_charts(scope):
        Annotations.of(scope).add_info(
            f"chart {chart} {version}: this synth names its repository; a deploy ({SHIP_VERIFIED_CHARTS}=true, "
            f"make deploy) verifies the package against {digest or 'no pin (refused)'} and ships it")
        return eks.HelmChart(scope, id, cluster=cluster, chart=chart, repository=repository, version=version, **props)
    folder = upstream.chart_dir(chart, version) if artifact is not None else None
    if folder is None:
        raise invalid(f"{scope.node.path}: chart {chart} {version}", None,
                      "a verified package at hand: run `eks-training fetch-upstream` before a deploy (it checks each "
                      "package's digest; --trust-on-first-use for a chart whose upstream publishes none)")
    release = eks.HelmChart(scope, id, cluster=cluster,
                            chart_asset=s3_assets.Asset(scope, f"{id}Package", path=str(folder)), **props)
    release.node.default_child.node.default_child.add_property_override(
        SHIPPED_CHART_PROPERTY, {"Chart": chart, "Version": version, "Verified": digest})
    return release
