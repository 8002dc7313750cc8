"""Karpenter's CRDs as their own release (upstream's karpenter-crd chart), so that a version bump upgrades them."""

from __future__ import annotations

from eks_training.core.versions import KARPENTER, KARPENTER_CRD


def test_the_crd_chart_goes_in_first_at_the_controllers_version_and_the_controller_skips_its_crds(prod):
    releases = {r["Release"]: r for r in prod.helm_releases.values()}
    crds, controller = releases[KARPENTER_CRD.release], releases[KARPENTER.release]
    assert (crds["Chart"], crds["Version"], crds["Namespace"]) == (
        "oci://public.ecr.aws/karpenter/karpenter-crd", KARPENTER.version, KARPENTER.namespace)
    assert controller["Version"] == crds["Version"]
    # Helm installs a chart's crds/ only on first install and never upgrades them: the controller leaves them alone,
    # and CloudFormation creates the CRD release before it (and deletes it after).
    assert controller.get("SkipCrds") is True and not crds.get("SkipCrds")
    resource = prod.template["Resources"][controller["LogicalId"]]
    assert crds["LogicalId"] in resource.get("DependsOn", [])


def test_the_karpenter_releases_keep_the_logical_ids_a_deployed_stack_has(prod):
    # Stacks deployed before `helm_chart` made these through `cluster.add_helm_chart` ("chart-<id>"): a new logical
    # ID would have CloudFormation's cleanup `helm uninstall` them, Karpenter's CRDs and NodePools with them.
    charts = {lid: r["Properties"]["Release"] for lid, r in prod.resources("Custom::AWSCDK-EKS-HelmChart").items()}
    assert {lid.rstrip("0123456789ABCDEF") for lid, release in charts.items()
            if release in ("karpenter", "karpenter-crd")} == {"ClusterchartKarpenter", "ClusterchartKarpenterCrd"}
