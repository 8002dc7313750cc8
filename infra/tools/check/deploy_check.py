"""`eks-training check`: would this platform run a job? Offline, from the synthesized app and the rendered jobs.

It reads one stack template (synthesized in-process, or from ``cdk.out``) and answers with findings, each naming
the object, the field and why:

* values: every key we give a Helm release exists in the chart at its pinned version (:mod:`.helm`);
* scheduling: every pod template (rendered Helm releases, our manifests, custom resources' pod templates,
  JupyterHub profiles, every job kind of ``eks-training render``) lands on a node source that has or can get a
  node, with extended resources only where their device plugin lands; accelerated pods on a source that is
  created on demand; device plugins on every node source of their accelerator (:mod:`.placement`);
* storage and services: claims have a StorageClass, each namespace's FSx volumes expose only its own workspace
  (read-write) and the shared data (read-only), pods name only claims their namespace has, LoadBalancer Services
  have a controller that serves them and are internal NLBs limited to their source ranges;
* identity: every pod's ServiceAccount exists in its namespace (:mod:`.identities`);
* people: each team member's access entry lets them submit, follow and exec into their namespace's jobs and nothing
  beyond it (:mod:`.access`, evaluated with Kubernetes RBAC's semantics and EKS's access policies);
* ordering: Helm releases wait for the nodes their pods need;
* reachability: API endpoint, FSx for Lustre, EFA peers (:mod:`.reachability`);
* IAM: the Karpenter controller policy against Karpenter's reference (:mod:`.iam`);
* versions: EKS runs the cluster's Kubernetes version today (past standard support: a note with the price of
  extended support), every node group carries that version and every add-on a build of its own;
* lifecycle: what must exist when CloudFormation creates, deletes and updates each resource (:mod:`.lifecycle`);
* changes (``--previous``): what a deploy over the deployed template replaces, deletes, prunes, orphans and rolls
  (:mod:`.change`); a destructive change fails until acknowledged.

It is no substitute for a deploy: it cannot see AMIs, quotas, capacity in the zone, images that fail to pull, or
what a controller does at run time. ``eks-training preflight`` covers the account; a deploy covers the rest.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import yaml

from eks_training.constructs.cluster import ADDON_PLACEMENT_PATHS, OPEN_POLICY_NAME
from eks_training.core import upstream
from eks_training.core.validation import invalid
from eks_training.core.versions import (KARPENTER, KUBERNETES_RELEASES, MPI_OPERATOR_VERSION, minor, refusal,
                                        support_warning)
from eks_training.infra.addons.network_policies import egress_of, namespaces_of
from eks_training.infra.config import PlatformConfig
from eks_training.infra.tools.check import helm
from eks_training.workloads.internal_load_balancer import INTERNAL_ANNOTATION, TYPE_ANNOTATION, is_internal_nlb
from eks_training.infra.tools.check.access import (TeamAccess, access_policies, rbac_objects_of,
                                                   team_access_findings)
from eks_training.infra.tools.check.change.deployed_stack import read_deployed_stack
from eks_training.infra.tools.check.change.findings import Change
from eks_training.infra.tools.check.change.stage import (ChangeReport, Previous, load_previous, predict_changes,
                                                        read_acknowledgements)
from eks_training.infra.tools.check.fsx_isolation import fsx_volumes, missing_claim_findings, volume_findings
from eks_training.infra.tools.check.iam import compare_policies, reference_statements
from eks_training.infra.tools.check.identities import missing_account_findings, service_accounts
from eks_training.infra.tools.check.kube import selector_mismatches, why_not
from eks_training.infra.tools.check.lifecycle import check_lifecycle
from eks_training.infra.tools.check.network_policy import (STRICT_MODE, before_policies_findings, check_flows,
                                                           enforcing_mode, namespace_findings, network_policy_findings,
                                                           operator_flows, strict_mode_findings, webhook_flows)
from eks_training.infra.tools.check.placement import (
    DEVICE_PLUGINS,
    Placement,
    PodTemplate,
    advertised_by_source,
    device_plugin,
    jupyterhub_profile_pods,
    place,
    pod_templates,
)
from eks_training.infra.tools.check.queues import Admitted, kueue_objects, queue_findings, trainjob_pods
from eks_training.infra.tools.check.reachability import tunnel_findings, unreachable
from eks_training.infra.tools.check.snapshot import DEVICE_RESOURCES, PlatformSnapshot, load_snapshot, text
from eks_training.infra.tools.check.stopping import stop_findings
from eks_training.core.names import (KARPENTER_SERVICE_ACCOUNT, SYSTEM_NODE_SELECTOR, SYSTEM_NODE_TAINT,
                                     system_placement)

KARPENTER_REFERENCE = "reference/karpenter-1.14-cloudformation.yaml"
MPI_OPERATOR_MANIFEST = f"charts/mpi-operator-{MPI_OPERATOR_VERSION}/mpi-operator.yaml"
#: "external" here (or a loadBalancerClass) only the AWS Load Balancer Controller serves; "nlb" EKS's cloud provider.
_LBC_ANNOTATION = TYPE_ANNOTATION
_BIONEMO_PLACEHOLDER_IMAGE = "nvcr.io/nvidia/clara/bionemo-framework:placeholder"
#: Placement does not depend on the image: jobs are rendered with stand-ins (the images are checked elsewhere).
_PLACEHOLDER_IMAGES = {variant: f"check.invalid/eks-training-{variant}:check" for variant in ("gpu", "neuron", "ray")}


@dataclass(frozen=True)
class Finding:
    """One reason the platform would not work: the object, the field, and why."""

    area: str
    subject: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"[{self.area}] {self.subject} {self.field}: {self.message}"


@dataclass
class CheckReport:
    environment: str
    kubernetes_version: str
    placements: list[Placement] = field(default_factory=list)
    device_plugins: dict[str, list[str]] = field(default_factory=dict)
    failures: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: Where Kueue admits each queued job kind through each LocalQueue (:mod:`.queues`).
    admitted: list[Admitted] = field(default_factory=list)
    #: Each team whose members have access entries, and what was verified of their rights (:mod:`.access`).
    teams: list[TeamAccess] = field(default_factory=list)
    #: What a deploy over the deployed template does (:mod:`.change`), when one was given.
    change: Any = None

    @property
    def ok(self) -> bool:
        return not self.failures

    def fail(self, area: str, subject: str, field_: str, message: str) -> None:
        self.failures.append(Finding(area, subject, field_, message))


@dataclass(frozen=True)
class CheckTarget:
    """What the check knows of an app beyond its template.

    For one of our environments (:func:`target_of`) that is its name, account and region, the job kinds `render`
    makes for it and which namespace runs what; for any other CDK app (``--app``) only the stack's name and its
    account and region, so the job kinds and the NetworkPolicy flows, which are defined per environment, are not
    checked (and the report says so).
    """

    name: str
    region: str | None = None
    account: str | None = None
    #: Job kind -> rendered objects; None: no job kinds to place (not one of our environments).
    jobs: Mapping[str, list[dict]] | None = None
    #: Which namespace runs what and the VPC's CIDR, for the NetworkPolicy flows; None: not evaluated.
    namespaces: Any = None
    vpc_cidr: str | None = None
    network_policies: bool = False
    #: Where workload pods may send traffic beyond the cluster (a WorkloadEgress); None: restricted (the default).
    egress: Any = None


def target_of(config: PlatformConfig, jobs: Mapping[str, list[dict]] | None = None) -> CheckTarget:
    """The check's view of one of our environments (``jobs`` default: every kind `render` makes for it)."""
    return CheckTarget(config.name, config.region, config.account,
                       jobs=jobs if jobs is not None else render_all_jobs(config), namespaces=namespaces_of(config),
                       vpc_cidr=config.network.cidr, network_policies=config.services.network_policies,
                       egress=egress_of(config))


def run_check(template: Mapping[str, Any], *, config: PlatformConfig | None = None, target: CheckTarget | None = None,
              jobs: Mapping[str, list[dict]] | None = None, today: date | None = None,
              previous: Previous | None = None) -> CheckReport:
    """Check one synthesized stack ``template`` of ``config`` (or of any app: ``target``); ``jobs`` maps a job kind
    to its rendered objects (default: every kind ``eks-training render`` makes for ``config``); ``previous``: the
    deployed template, to predict what a deploy of this one changes."""
    return check_snapshot(load_snapshot(dict(template)), config=config, target=target, jobs=jobs, today=today,
                          previous=previous)


def check_snapshot(snap: PlatformSnapshot, *, config: PlatformConfig | None = None, target: CheckTarget | None = None,
                   jobs: Mapping[str, list[dict]] | None = None, today: date | None = None,
                   previous: Previous | None = None) -> CheckReport:
    """:func:`run_check` on an already read snapshot."""
    if target is None:
        if config is None:
            raise ValueError("check_snapshot: give config (one of our environments) or target (any app)")
        target = target_of(config, jobs)
    report = CheckReport(target.name, snap.kubernetes_version)
    pods, releases_pods = _release_pods(snap, report)
    pods += _manifest_pods(snap, report)
    if target.jobs is None:
        report.notes.append("job kinds: this app is not one of our environments, so the jobs `eks-training render` "
                            "makes are not placed (check an environment with --env or --config, or give jobs "
                            "render wrote with --job)")
    runtimes = kueue_objects(snap).runtimes
    for kind, objects in (target.jobs or {}).items():
        for obj in objects:
            pods += pod_templates(f"job {kind}", obj)
            pods += trainjob_pods(f"job {kind}", obj, runtimes)
    advertised, report.device_plugins = advertised_by_source(snap.node_sources, pods)
    _check_device_plugins(snap, report, pods)
    placements = place([p for p in pods if not p.daemonset], snap.node_sources, advertised)
    report.placements = placements
    _check_placements(report, placements)
    _check_queues(snap, report, target, advertised)
    for subject, field_, message in stop_findings(target.jobs or {}, runtimes):
        report.fail("stopping", subject, field_, message)
    _check_pinned(snap, report, placements, getattr(target.namespaces, "training", ()) or ())
    _check_team_pods_off_system(snap, report, placements, target)
    _check_release_order(snap, report, releases_pods, placements)
    _check_storage(snap, report, releases_pods)
    _check_fsx_isolation(snap, report, pods)
    _check_service_accounts(snap, report, pods, releases_pods)
    _check_services(snap, report, releases_pods)
    _check_network_policies(snap, report, releases_pods, target, pods)
    _check_namespaces(snap, report, releases_pods, target)
    _check_access(snap, report, releases_pods, target)
    _check_sign_in(snap, report)
    for source in snap.node_sources:  # a group at size 0 too: an operator may scale it by hand
        for what, why in unreachable(snap, source):
            report.fail("network", source.name, what, why)
    for subject, what, why in tunnel_findings(snap):
        report.fail("network", subject, what, why)
    _check_iam(snap, report, target)
    check_version(snap, report, today or date.today())
    if config is not None:
        _check_training_subnet(config, report)
    _check_lifecycle(snap, report, releases_pods, placements)
    if previous is not None:
        _check_changes(snap, report, previous, placements, target, releases_pods, pods)
    return report


# --- collecting pods --------------------------------------------------------------------------------------------


def _release_pods(snap: PlatformSnapshot, report: CheckReport) -> tuple[list[PodTemplate], dict[str, list[dict]]]:
    """Pod templates of every Helm release (rendered for real where the chart is vendored) and the rendered objects."""
    pods: list[PodTemplate] = []
    rendered: dict[str, list[dict]] = {}
    for release in snap.releases:
        source = helm.chart_source(release.chart, release.version)
        if source is None:
            pods += _modelled_release(release, report)
            continue
        for problem in helm.unknown_value_paths(source, release.values):
            report.fail("values", f"helm release {release.release} ({source.name})", problem.path, problem.reason)
        objects = _render(source, release.release, release.namespace, json.dumps(release.values, sort_keys=True),
                          snap.kubernetes_version)
        for obj in objects:
            obj.setdefault("metadata", {}).setdefault("namespace", release.namespace)
        rendered[release.release] = objects
        for obj in objects:
            pods += pod_templates(f"helm {release.release}", obj)
        if release.release == "jupyterhub":
            pods += jupyterhub_profile_pods(release.values, release.namespace)
    return pods, rendered


@functools.lru_cache(maxsize=64)
def _rendered(chart_dir: Path, release: str, namespace: str, values_json: str, kube_version: str) -> str:
    # Cached per chart, values and version: tests check many variants of one app, users run the check repeatedly.
    return json.dumps(helm.render_chart(chart_dir, release=release, namespace=namespace, values=json.loads(values_json),
                                        kube_version=kube_version))


def _render(chart_dir: Path, release: str, namespace: str, values_json: str, kube_version: str) -> list[dict]:
    return json.loads(_rendered(chart_dir, release, namespace, values_json, kube_version))


def _modelled_release(release, report: CheckReport) -> list[PodTemplate]:
    """A release whose chart is not at hand: a device plugin is modelled from our values (never assumed absent, which
    would fail every accelerated pod for a chart we could not read); any other release is listed as not checked."""
    name = release.chart.rstrip("/").rsplit("/", 1)[-1]
    known = upstream.chart_artifact(release.chart, release.version)
    if known is None:
        why, how = f"chart {name} {release.version} is no artifact this release pins", ""
    elif known.tree_sha256 is None and known.sha256 is None and known.oci_digest is None:
        why = f"chart {name} {release.version} is in no mirror of ours and its upstream publishes no digest"
        how = f"; `eks-training fetch-upstream --trust-on-first-use {known.path}` brings it"
    else:
        why, how = f"chart {name} {release.version} is not at hand", f"; {upstream.how_to_get(known)}"
    plugin = next((p for p in DEVICE_PLUGINS if p.chart == name), None)
    if plugin is None:
        report.notes.append(f"helm release {release.release}: {why}, so its values and pods are not checked{how}")
        return []
    where = ".".join(plugin.placement_values)
    report.notes.append(f"helm release {release.release}: {why}, so its {plugin.daemonset} DaemonSet is modelled from "
                        f"our values ({where + '.' if where else ''}nodeSelector/tolerations/affinity, without the "
                        f"chart's defaults for keys we leave unset) and its other keys are unchecked{how}")
    placement = release.values
    for key in plugin.placement_values:
        placement = placement.get(key) or {}
    spec = {key: placement[key] for key in ("nodeSelector", "tolerations", "affinity") if key in placement}
    spec["containers"] = [{"name": plugin.daemonset, "resources": {}}]
    return [PodTemplate(f"helm {release.release}: DaemonSet {plugin.daemonset}", release.namespace, spec, daemonset=True)]


def _manifest_pods(snap: PlatformSnapshot, report: CheckReport) -> list[PodTemplate]:
    pods = []
    for lid, obj in snap.objects():
        pods += pod_templates(f"manifest {lid}", obj)
        if obj.get("kind") == "Job" and "mpi-operator" in (obj.get("metadata") or {}).get("name", ""):
            operator = _mpi_operator_pods()
            if not operator:
                report.notes.append(f"manifest {lid}: the MPI Operator release manifest is not at hand, so the "
                                    "operator's own pods are not placed; "
                                    f"{upstream.how_to_get(upstream.file_artifact(MPI_OPERATOR_MANIFEST))}")
            pods += operator
    return pods + _addon_pods(snap)


def _addon_pods(snap: PlatformSnapshot) -> list[PodTemplate]:
    """The Deployment of each EKS add-on whose configuration places it (CoreDNS, the CSI controllers), modelled from
    that configuration: EKS renders the add-on's manifests, which no template shows. An add-on with no placement in
    its configuration is modelled with none (no selector, no toleration) rather than with defaults we cannot see."""
    pods = []
    for resource in snap.of_type("AWS::EKS::Addon").values():
        props = resource.get("Properties") or {}
        name = props.get("AddonName")
        if name not in ADDON_PLACEMENT_PATHS:
            continue
        values = props.get("ConfigurationValues")
        placement = json.loads(values) if isinstance(values, str) and values.strip() else {}
        for key in ADDON_PLACEMENT_PATHS[name]:
            placement = placement.get(key) or {}
        spec = {key: placement[key] for key in ("nodeSelector", "tolerations", "affinity") if key in placement}
        spec["containers"] = [{"name": name, "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]
        pods.append(PodTemplate(f"EKS add-on {name}: Deployment (its configuration)", _ADDON_NAMESPACES[name], spec))
    return pods


@functools.lru_cache(maxsize=4)
def _parsed_manifest(path: Path) -> str:
    # Parsed once per process (9,000 lines of CRD), handed out as fresh objects.
    return json.dumps([obj for obj in yaml.load_all(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
                       if obj])


def _mpi_operator_manifest() -> list[dict]:
    """The objects of the MPI Operator release manifest our install Job applies (none when it is not vendored)."""
    manifest = upstream.file_path(MPI_OPERATOR_MANIFEST)
    if manifest is None:
        return []
    objects = json.loads(_parsed_manifest(manifest))
    for obj in objects:
        if obj.get("kind") == "Deployment":
            # The install Job pins the operator to the system nodes (and their taint) after applying the manifest.
            obj["spec"]["template"]["spec"].update(system_placement())
    return objects


def _mpi_operator_pods() -> list[PodTemplate]:
    """The MPI Operator's own Deployment, from the release manifest."""
    return [pod for obj in _mpi_operator_manifest() for pod in pod_templates("mpi-operator release manifest", obj)]


def render_all_jobs(config: PlatformConfig) -> dict[str, list[dict]]:
    """Every Kubernetes job kind of ``eks-training render`` for ``config``'s first team, with the defaults a user
    gets."""
    from eks_training.infra.tools.job_render import RenderError, render_job
    from eks_training.workloads.jobs import JOB_KINDS

    jobs = {}
    for kind in JOB_KINDS.values():
        if kind.is_script:
            continue  # an sbatch script runs in the Slinky NodeSets, which are placed as custom resources
        try:
            jobs[kind.name] = render_job(config, kind.name, namespace=config.training_namespaces[0].name,
                                         images=_PLACEHOLDER_IMAGES, dataset="check",
                                         image=_BIONEMO_PLACEHOLDER_IMAGE if kind.name == "bionemo" else None,
                                         data_input="s3://check-bucket/corpus", tokenizer="s3://check-bucket/tokenizer.json")
        except RenderError:
            continue  # the environment has no capacity for this kind: render refuses it in one line
    return jobs


# --- checks -----------------------------------------------------------------------------------------------------


def _check_device_plugins(snap: PlatformSnapshot, report: CheckReport, pods: list[PodTemplate]) -> None:
    for source in snap.node_sources:  # a group at size 0 too: an operator may scale it by hand
        wanted = []
        if source.accelerator:
            wanted.append((source.accelerator, DEVICE_RESOURCES[source.accelerator][0]))
        if source.efa:
            wanted.append(("efa", "vpc.amazonaws.com/efa"))
        for cover, resource in wanted:
            plugins = [owner for owner, landing in report.device_plugins.items()
                       if getattr(device_plugin(owner), "covers", None) == cover]
            if not plugins:
                report.fail("device plugin", source.name, resource, f"no device plugin for {cover} is installed: "
                            f"no node of this source ever advertises {resource}")
            elif not any(source.name in report.device_plugins[owner] for owner in plugins):
                pod = next(p for p in pods if p.owner == plugins[0])
                reasons = why_not(pod.spec, labels=source.labels, taints=source.taints, allocatable=source.allocatable(set()))
                report.fail("device plugin", plugins[0], "nodeSelector/affinity/tolerations",
                            f"does not land on {source.name} ({'; '.join(reasons)}): {resource} is never advertised there")


def _check_placements(report: CheckReport, placements: list[Placement]) -> None:
    for placement in placements:
        pod = placement.pod
        if not placement.reachable:
            closest = sorted(placement.rejected.items(), key=lambda item: len(item[1]))[:2]
            why = " | ".join(f"{name}: {'; '.join(reasons)}" for name, reasons in closest) or "no node source at all"
            if placement.fits:
                why = (f"fits only {', '.join(s.name for s in placement.fits)}, which never has a node "
                       f"(desired 0 and nothing scales it up); rejected elsewhere: {why}")
            report.fail("scheduling", pod.owner, "pod template", f"lands on no node that can exist: {why}")
        elif pod.accelerated and not any(s.on_demand for s in placement.fits):
            report.fail("scheduling", pod.owner, "pod template",
                        f"an accelerated pod that fits only standing capacity ({', '.join(s.name for s in placement.fits)}); "
                        "no node source creates a node for it on demand")


def _check_queues(snap: PlatformSnapshot, report: CheckReport, target: CheckTarget,
                  advertised: Mapping[str, set[str]]) -> None:
    """Kueue: each queued job kind is admissible through every LocalQueue and lands where its flavor says; every
    quota is usable (:mod:`.queues`)."""
    for subject, field_, message in queue_findings(snap, target.jobs, advertised, report.admitted):
        report.fail("queues", subject, field_, message)


def _check_pinned(snap: PlatformSnapshot, report: CheckReport, placements: list[Placement],
                  training_namespaces: Iterable[str] = ()) -> None:
    """Platform services (Helm releases, our manifests; not the team pods among them) select the system nodes: a
    taint is no placement policy.

    A controller that only taints keep off accelerator nodes lands on the first untainted node source anyone adds
    (or on a GPU node whose taint a chart tolerates), and holds it from scale-down.
    """
    system = [s for s in snap.node_sources if all(s.labels.get(k) == v for k, v in SYSTEM_NODE_SELECTOR.items())]
    for placement in placements:
        pod = placement.pod
        if not pod.owner.startswith(("helm ", "manifest ", "EKS add-on ")) or pod.accelerated or is_team_pod(pod, training_namespaces):
            continue
        others = [s.name for s in snap.node_sources if s not in system and not selector_mismatches(pod.spec, s.labels)]
        if others:
            report.fail("scheduling", pod.owner, "nodeSelector",
                        f"not pinned to the system nodes ({', '.join(f'{k}={v}' for k, v in SYSTEM_NODE_SELECTOR.items())}): "
                        f"by its selectors it may land on {len(others)} other node sources ({others[0]}, ...); "
                        "only taints keep it off")


def is_team_pod(pod: PodTemplate, training_namespaces: Iterable[str] = ()) -> bool:
    """Whether a team's code runs in ``pod``: every job kind, a notebook, a Slurm login pod, any pod of a training
    namespace (the shared RayCluster's)."""
    return (pod.owner.startswith(("job ", "jupyterhub profile ")) or ": LoginSet " in pod.owner
            or pod.namespace in set(training_namespaces))


def _check_team_pods_off_system(snap: PlatformSnapshot, report: CheckReport, placements: list[Placement],
                                target: CheckTarget) -> None:
    """The system nodes are the platform's: tainted, so that no team pod lands there (beside Karpenter, the operators
    and the hub, on nodes that Lustre does not root-squash); team pods land on node sources of their own."""
    system = [s for s in snap.node_sources if all(s.labels.get(k) == v for k, v in SYSTEM_NODE_SELECTOR.items())]
    for source in system:
        if not any(t.get("key") == SYSTEM_NODE_TAINT["key"] and t.get("effect") == SYSTEM_NODE_TAINT["effect"]
                   for t in source.taints):
            report.fail("scheduling", source.name, "taints",
                        f"the system nodes carry no {SYSTEM_NODE_TAINT['key']}:{SYSTEM_NODE_TAINT['effect']} taint: "
                        "any pod that selects nothing (a team's job) may land beside the platform's controllers")
    training = getattr(target.namespaces, "training", ()) or ()
    for placement in placements:
        if not is_team_pod(placement.pod, training):
            continue
        landing = [s.name for s in placement.fits if s in system]
        if landing:
            report.fail("scheduling", placement.pod.owner, "tolerations",
                        f"a team's pod that may land on the system nodes ({', '.join(landing)}): only the platform's "
                        f"pods tolerate {SYSTEM_NODE_TAINT['key']}")


def _check_release_order(snap: PlatformSnapshot, report: CheckReport, rendered: Mapping[str, list[dict]],
                         placements: list[Placement]) -> None:
    """A release installed with ``wait`` fails when its pods have no node yet: it must wait for their nodes."""
    by_owner = {p.pod.owner: p for p in placements}
    for release in snap.releases:
        standing = {s.logical_id for owner, p in by_owner.items() if owner.startswith(f"helm {release.release}:")
                    for s in p.reachable if s.standing}
        needed = {s.logical_id for owner, p in by_owner.items() if owner.startswith(f"helm {release.release}:")
                  for s in p.reachable}
        if not needed or any(s.on_demand for owner, p in by_owner.items()
                             if owner.startswith(f"helm {release.release}:") for s in p.reachable):
            continue
        if standing and not standing & snap.dependencies(release.logical_id):
            report.fail("ordering", f"helm release {release.release}", "DependsOn",
                        f"waits for its pods, but not for the node group they land on ({', '.join(sorted(standing))}): "
                        "CloudFormation may install it before any node exists and the install times out")


def _claims(snap: PlatformSnapshot, rendered: Mapping[str, list[dict]]) -> Iterable[tuple[str, dict]]:
    objects = [(f"manifest {lid}", obj) for lid, obj in snap.objects()]
    objects += [(f"helm {name}", obj) for name, objs in rendered.items() for obj in objs]
    for owner, obj in objects:
        kind, spec = obj.get("kind"), obj.get("spec") or {}
        name = f"{owner}: {kind} {(obj.get('metadata') or {}).get('name')}"
        if kind == "PersistentVolumeClaim":
            yield name, spec
        for template in spec.get("volumeClaimTemplates") or []:
            yield f"{name} claim {(template.get('metadata') or {}).get('name')}", template.get("spec") or {}
        persistence = spec.get("persistence") or {}
        if kind == "Controller" and persistence.get("enabled"):
            yield f"{name} persistence", persistence


def _check_storage(snap: PlatformSnapshot, report: CheckReport, rendered: Mapping[str, list[dict]]) -> None:
    classes = {(obj.get("metadata") or {}).get("name"): obj for _, obj in snap.objects() if obj.get("kind") == "StorageClass"}
    classes.update({(obj.get("metadata") or {}).get("name"): obj for objs in rendered.values() for obj in objs
                    if obj.get("kind") == "StorageClass"})
    defaults = [name for name, obj in classes.items()
                if ((obj.get("metadata") or {}).get("annotations") or {}).get("storageclass.kubernetes.io/is-default-class") == "true"]
    for subject, spec in _claims(snap, rendered):
        if spec.get("volumeName"):
            continue  # bound to a static volume
        wanted = spec.get("storageClassName")
        if wanted is None and not defaults:
            report.fail("storage", subject, "storageClassName",
                        "unset, and the cluster has no default StorageClass: the claim stays Pending")
        elif wanted and wanted not in classes:
            report.fail("storage", subject, "storageClassName",
                        f"{wanted!r} is no StorageClass of the app (it has {', '.join(sorted(classes)) or 'none'})")


def _check_fsx_isolation(snap: PlatformSnapshot, report: CheckReport, pods: list[PodTemplate]) -> None:
    objects = [obj for _, obj in snap.objects()]
    volumes = fsx_volumes(objects)
    claims = {((o.get("metadata") or {}).get("namespace"), (o.get("metadata") or {}).get("name"))
              for o in objects if o.get("kind") == "PersistentVolumeClaim"}
    findings = volume_findings(volumes)
    findings += missing_claim_findings(pods, claims, {v.claim_name for v in volumes})
    for subject, field_, message in findings:
        report.fail("storage", subject, field_, message)


def _check_service_accounts(snap: PlatformSnapshot, report: CheckReport, pods: list[PodTemplate],
                            rendered: Mapping[str, list[dict]]) -> None:
    accounts = service_accounts([*(obj for _, obj in snap.objects()), *(o for objs in rendered.values() for o in objs),
                                 *_mpi_operator_manifest()])
    for subject, field_, message in missing_account_findings(pods, accounts):
        report.fail("identity", subject, field_, message)


def _check_services(snap: PlatformSnapshot, report: CheckReport, rendered: Mapping[str, list[dict]]) -> None:
    controller = any("load-balancer-controller" in r.chart for r in snap.releases)
    services = [(f"manifest {lid}", obj) for lid, obj in snap.objects()]
    services += [(f"helm {name}", obj) for name, objs in rendered.items() for obj in objs]
    for owner, obj in services:
        kind = obj.get("kind")
        if kind == "Service":
            service, subject = obj, f"{owner}: Service {(obj.get('metadata') or {}).get('name')}"
        elif kind == "LoginSet" and (obj.get("spec") or {}).get("service"):
            service, subject = obj["spec"]["service"], f"{owner}: LoginSet {obj['metadata']['name']} service"
        else:
            continue
        spec = service.get("spec") or {}
        if spec.get("type") != "LoadBalancer" or controller:
            continue
        annotations = (service.get("metadata") or {}).get("annotations") or {}
        if annotations.get(_LBC_ANNOTATION) == "external" or spec.get("loadBalancerClass"):
            why = "asks for the AWS Load Balancer Controller, which the app does not install: it never gets an address"
        elif is_internal_nlb(annotations, spec.get("loadBalancerSourceRanges")):
            continue  # EKS's AWS cloud provider makes it: internal, limited to its source ranges
        elif annotations.get(INTERNAL_ANNOTATION) == "true" and annotations.get(_LBC_ANNOTATION) == "nlb":
            why = ("has no loadBalancerSourceRanges: the cloud provider would open its node port to 0.0.0.0/0 on the "
                   "target nodes; name the client networks")
        else:
            why = ("falls to EKS's AWS cloud provider as an internet-facing load balancer; use ClusterIP "
                   "(port-forward), or an internal NLB (workloads.internal_load_balancer)")
        report.fail("service", subject, "spec.type", f"LoadBalancer {why}")


#: The namespaces where EKS's own add-ons run pods the app's templates do not show (CoreDNS, the CSI controllers).
_ADDON_NAMESPACES = {"coredns": "kube-system", "aws-ebs-csi-driver": "kube-system", "aws-efs-csi-driver": "kube-system",
                     "aws-fsx-csi-driver": "kube-system", "amazon-cloudwatch-observability": "amazon-cloudwatch"}


def _vpc_cni_mode(snap: PlatformSnapshot) -> tuple[bool, str | None]:
    """(whether the template has a vpc-cni add-on, the network policy mode its configuration sets)."""
    for resource in snap.of_type("AWS::EKS::Addon").values():
        props = resource.get("Properties") or {}
        if props.get("AddonName") == "vpc-cni":
            values = props.get("ConfigurationValues")
            return True, enforcing_mode(values if isinstance(values, str) else None)
    return False, None


def _check_network_policies(snap: PlatformSnapshot, report: CheckReport, rendered: Mapping[str, list[dict]],
                            target: CheckTarget, pods: list[PodTemplate]) -> None:
    """The flows jobs need pass and the doors that must stay shut are shut, under every policy the app applies
    (ours and the charts', which add up), before a new pod's policies are programmed too (the CNI's strict mode);
    and under strict mode every pod of the app has a policy that lets it talk."""
    objects = [obj for _, obj in snap.objects()]
    objects += [obj for objs in rendered.values() for obj in objs if obj.get("kind") == "NetworkPolicy"]
    has_cni, mode = _vpc_cni_mode(snap)
    if mode == STRICT_MODE:
        where: dict[str, str] = {}
        for pod in pods:
            if not pod.daemonset and not pod.spec.get("hostNetwork") and not pod.owner.startswith("job "):
                where.setdefault(pod.namespace, pod.owner)
        for resource in snap.of_type("AWS::EKS::Addon").values():
            name = (resource.get("Properties") or {}).get("AddonName")
            if name in _ADDON_NAMESPACES:
                where.setdefault(_ADDON_NAMESPACES[name], f"EKS add-on {name}")
        for subject, field_, message in strict_mode_findings(objects, where):
            report.fail("network-policy", subject, field_, message)
    if target.namespaces is None:
        report.notes.append("NetworkPolicies: the flows to allow and deny are defined per environment of ours, so they "
                            "are not evaluated for this app")
        return
    if not target.network_policies:
        report.notes.append("NetworkPolicies are off (services.network_policies: false): every pod reaches every pod")
        return
    if has_cni:
        for subject, field_, message in before_policies_findings(mode, target.namespaces, vpc_cidr=target.vpc_cidr):
            report.fail("network-policy", subject, field_, message)
    extra = {"egress": target.egress} if target.egress is not None else {}
    for subject, field_, message in network_policy_findings(objects, namespaces=target.namespaces,
                                                            vpc_cidr=target.vpc_cidr, **extra):
        report.fail("network-policy", subject, field_, message)


def _check_namespaces(snap: PlatformSnapshot, report: CheckReport, rendered: Mapping[str, list[dict]],
                      target: CheckTarget) -> None:
    """Every namespace the app creates (our manifests' Namespace objects, a chart's own, a release's
    create_namespace) has a Pod Security level and NetworkPolicies that isolate it; every admission webhook in the
    app is reachable from the API server through them; the operators' namespaces reach the API and nothing else."""
    created: dict[str, str] = {}
    labels: dict[str, dict[str, str]] = {name: dict(patch) for name, patch in snap.namespace_patches.items()}
    sources = [(f"manifest {lid}", obj) for lid, obj in snap.objects()]
    sources += [(f"helm release {name}", obj) for name, objs in rendered.items() for obj in objs]
    for creator, obj in sources:
        if obj.get("kind") == "Namespace":
            name = (obj.get("metadata") or {}).get("name")
            created.setdefault(name, creator)
            labels.setdefault(name, {}).update((obj.get("metadata") or {}).get("labels") or {})
    for release in snap.releases:
        if release.create_namespace:
            created.setdefault(release.namespace, f"helm release {release.release} (create_namespace)")
    objects = [obj for _, obj in sources]
    policies = target.network_policies or target.namespaces is None
    for subject, field_, message in namespace_findings(created, labels, objects, policies=policies):
        report.fail("namespace", subject, field_, message)
    if not policies or target.vpc_cidr is None:
        return
    flows, unresolved = webhook_flows(objects, vpc_cidr=target.vpc_cidr)
    report.notes.extend(f"webhook {line}" for line in unresolved)
    workload = set(target.namespaces.workload()) if target.namespaces is not None else set()
    # Namespaces of EKS add-ons the platform leaves open on purpose (strict mode; TrainingCluster.open_namespace).
    opened = {(o.get("metadata") or {}).get("namespace") for o in objects
              if o.get("kind") == "NetworkPolicy" and (o.get("metadata") or {}).get("name") == OPEN_POLICY_NAME}
    operators = [n for n in created if n not in workload and n != "kube-system" and n not in opened]
    for flow, expected, _ in check_flows(objects, [*flows, *operator_flows(operators)]):
        verdict = "is blocked, but the platform needs it" if expected else "is allowed, but must be blocked"
        report.fail("network-policy", f"flow {flow.name!r}", str(flow), verdict)


def _check_access(snap: PlatformSnapshot, report: CheckReport, rendered: Mapping[str, list[dict]],
                  target: CheckTarget) -> None:
    """Each team member's access entry, evaluated as EKS authorizes it (access policies, then RBAC over every Role and
    binding the app and its charts create): their jobs in their namespace, nothing beyond (:mod:`.access`)."""
    objects = [obj for _, obj in snap.objects()] + [obj for objs in rendered.values() for obj in objs]
    namespaces = {(obj.get("metadata") or {}).get("name") for obj in objects if obj.get("kind") == "Namespace"}
    namespaces |= {release.namespace for release in snap.releases}
    findings, notes = team_access_findings(snap, rbac_objects_of(objects), target.jobs, sorted(n for n in namespaces if n),
                                           access_policies(), report.teams)
    report.notes += notes
    for subject, field_, message in findings:
        report.fail("access", subject, field_, message)


def _check_sign_in(snap: PlatformSnapshot, report: CheckReport) -> None:
    """A notebook is a shell with the namespace's identity: the hub must sign people in, never the chart's default."""
    for release in snap.releases:
        if release.release != "jupyterhub":
            continue
        hub = release.values.get("hub") or {}
        authenticator = ((hub.get("config") or {}).get("JupyterHub") or {}).get("authenticator_class")
        if authenticator in (None, "dummy", "null", "nullauthenticator"):
            report.fail("sign-in", "helm release jupyterhub", "hub.config.JupyterHub.authenticator_class",
                        f"{authenticator or 'unset (the chart default: dummy)'} lets anyone in and hands them a GPU pod "
                        "with the namespace's role: configure services.jupyterhub_sign_in")
        oauth = (hub.get("config") or {}).get("GenericOAuthenticator") or {}
        if "example.com" in str(oauth.get("authorize_url", "")):
            report.notes.append("JupyterHub sign-in still points at example.com: set services.jupyterhub_sign_in to your "
                                "provider before anyone signs in")


def _check_iam(snap: PlatformSnapshot, report: CheckReport, target: CheckTarget) -> None:
    # The controller's role is the one its Pod Identity association hands to Karpenter's ServiceAccount.
    roles = [association["Properties"]["RoleArn"]["Fn::GetAtt"][0]
             for association in snap.of_type("AWS::EKS::PodIdentityAssociation").values()
             if association["Properties"].get("ServiceAccount") == KARPENTER_SERVICE_ACCOUNT
             and association["Properties"].get("Namespace") == KARPENTER.namespace
             and isinstance(association["Properties"].get("RoleArn"), dict) and "Fn::GetAtt" in association["Properties"]["RoleArn"]]
    if not roles:
        return
    reference = upstream.file_path(KARPENTER_REFERENCE)
    if reference is None:
        report.notes.append("IAM: Karpenter's reference policy is not at hand, so the controller policy is not compared "
                            f"with it; {upstream.how_to_get(upstream.file_artifact(KARPENTER_REFERENCE))}")
        return
    statements = [s for r in snap.of_type("AWS::IAM::Policy").values()
                  if any(isinstance(role, dict) and role.get("Ref") in roles for role in r["Properties"].get("Roles", []))
                  for s in r["Properties"]["PolicyDocument"]["Statement"]]
    statements = _plain(statements)
    for difference in compare_policies(statements, reference_statements(reference), policy="karpenter-controller",
                                       cluster_name=snap.cluster_name, region=target.region or "${AWS::Region}",
                                       account=target.account):
        report.fail("iam", "Karpenter controller role", difference.action, difference.message)


def _plain(value: Any) -> Any:
    """Statement values with intrinsics written as text, so conditions compare as strings."""
    if isinstance(value, dict) and (set(value) & {"Ref", "Fn::GetAtt", "Fn::Join", "Fn::Sub"}):
        return text(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _check_training_subnet(config: PlatformConfig, report: CheckReport) -> None:
    """A warning, not a failure: limits are ceilings, and the subnet's size is fixed once deployed (changing it
    replaces the file system and the node groups in it), so capacity that could outgrow it is for the user to weigh."""
    shortfall = config.training_capacity_shortfall()
    if shortfall:
        needed, held = shortfall
        fields = ", ".join(f"{field}={value}" for field, value, _, _ in config.training_subnet_demand())
        report.notes.append(f"network: the training subnet (/{config.training_prefix()}) holds {held} addresses, but the "
                            f"accelerated capacity at full scale needs {needed} ({fields}): nodes beyond that fail to "
                            "get addresses; lower those limits, or give a new environment a larger "
                            "network.training_subnet_prefix (a change replaces the subnet and what is in it)")


def check_version(snap: PlatformSnapshot, report: CheckReport, today: date) -> None:
    """The versions stage: the cluster's Kubernetes version is one EKS runs on ``today``, and every node group and
    EKS add-on says which version it runs, so that an upgrade moves them with the control plane.

    Leaving standard support is a note with the date and the price of extended support, not a failure: a version
    changes only when its owner changes it. A version EKS does not run (extended support over, or not released
    yet) fails; so does a node group without the cluster's version (it stays behind on an upgrade, and EKS refuses
    the next one) and a kube-proxy newer than the control plane or more than three minor versions behind it.
    """
    release = KUBERNETES_RELEASES.get(snap.kubernetes_version)
    if release is None:
        report.fail("version", "EKS cluster", "Version", f"{snap.kubernetes_version!r} is not a version we support")
        return
    status = release.support_status(today)
    if status in ("ended", "unreleased"):
        why = refusal(release.version, today) or (f"Kubernetes {release.version} is not on EKS before "
                                                  f"{release.on_eks_since}: the cluster cannot be created")
        report.fail("version", "EKS cluster", "Version", why)
    elif status == "extended":
        report.notes.append(f"version: {support_warning(release.version, today)}")
    elif status == "unrecorded":
        report.notes.append(f"Kubernetes {release.version}: EKS support dates not recorded; not checked")
    for lid, resource in sorted(snap.of_type("AWS::EKS::Nodegroup").items()):
        props = resource.get("Properties") or {}
        subject = f"node group {text(props.get('NodegroupName') or lid)}"
        version = props.get("Version")
        if version is None:
            report.fail("version", subject, "Version", f"none: the group stays on the version it was created with when "
                        f"the control plane is upgraded, and EKS refuses the upgrade after that; write the cluster's "
                        f"({release.version})")
        elif text(version) != release.version:
            report.fail("version", subject, "Version", f"{text(version)} while the control plane runs "
                        f"{release.version}: node groups move with it, in the same deploy")
    for lid, resource in sorted(snap.of_type("AWS::EKS::Addon").items()):
        props = resource.get("Properties") or {}
        name, version = text(props.get("AddonName") or lid), props.get("AddonVersion")
        if version is None:
            report.notes.append(f"version: EKS add-on {name} names no version: EKS picks its default when it is created "
                                f"and an upgrade leaves it there; pin one (cluster.addon_versions)")
        elif name == "kube-proxy" and (skew := _minor_skew(text(version), release.version)) is not None \
                and not 0 <= skew <= 3:
            report.fail("version", f"EKS add-on {name}", "AddonVersion",
                        f"{text(version)} with the control plane at {release.version}: kube-proxy may not be newer "
                        "than the API server, nor more than three minor versions older")


def _minor_skew(addon_version: str, kubernetes_version: str) -> int | None:
    """How many minor versions a Kubernetes component's ``vX.Y.Z-...`` is behind ``kubernetes_version`` (None: not a
    Kubernetes version number)."""
    match = re.match(r"^v(\d+)\.(\d+)\.", addon_version)
    if not match:
        return None
    return minor(kubernetes_version)[1] - int(match.group(2)) if int(match.group(1)) == 1 else None


def _check_lifecycle(snap: PlatformSnapshot, report: CheckReport, rendered: Mapping[str, list[dict]],
                     placements: list[Placement]) -> None:
    """What exists when CloudFormation creates, deletes and updates each resource (:mod:`.lifecycle`)."""
    chart_dirs = {r.release: d for r in snap.releases if (d := helm.chart_source(r.chart, r.version)) is not None}
    # The MPI Operator's install Job applies the release manifest: its CRD exists once the Job succeeded.
    job_outputs = {((obj.get("metadata") or {}).get("namespace"), obj["metadata"]["name"]): _mpi_operator_manifest()
                   for _, obj in snap.objects() if obj.get("kind") == "Job"
                   and "mpi-operator" in (obj.get("metadata") or {}).get("name", "")}
    stage = check_lifecycle(snap, rendered, placements=placements, job_outputs=job_outputs, chart_dirs=chart_dirs)
    report.notes += stage.notes
    for finding in stage.findings:
        report.fail("lifecycle", finding.subject, finding.step, finding.message)


def _check_changes(snap: PlatformSnapshot, report: CheckReport, previous: Previous, placements: list[Placement],
                   target: CheckTarget, rendered: Mapping[str, list[dict]], pods: Sequence[PodTemplate] = ()) -> None:
    """The change stage: each destructive change nobody acknowledged fails the check (:mod:`.change`)."""
    if previous.template is None:
        report.change = ChangeReport(previous.name, acknowledged=previous.acknowledged, first_deploy=True,
                                     notes=[f"change stage: {previous.absent or 'nothing deployed'}"])
    else:
        report.change = predict_changes(previous.template, snap, placements=placements, jobs=target.jobs,
                                        region=target.region, acknowledged=previous.acknowledged,
                                        previous_name=previous.name, rendered=rendered, pods=pods)
    if previous.refusal:
        report.change.changes.append(Change("fail", f"stack/{previous.name}", previous.refusal, destructive=True))
    report.notes += report.change.notes
    for change in report.change.refused:
        report.fail("change", change.subject, change.verb, f"destructive, not acknowledged (--acknowledge {change.id})")


# --- output -----------------------------------------------------------------------------------------------------


def format_report(report: CheckReport) -> str:
    """The placement table, the device plugins, then every failure; the last line says pass or fail."""
    lines = [f"eks-training check: environment {report.environment}, Kubernetes {report.kubernetes_version}", "",
             f"{'POD TEMPLATE':78} LANDS ON"]
    for placement in report.placements:
        where = ", ".join(s.name for s in placement.reachable) or "NOWHERE"
        lines.append(f"{placement.pod.owner[:78]:78} {where}")
    if report.admitted:
        lines += ["", f"{'QUEUED JOB':60} {'LOCAL QUEUE':24} ADMITTED ON (PODSET: FLAVOR)"]
        for entry in report.admitted:
            flavors = ", ".join(f"{podset}: {flavor}" for podset, flavor in entry.flavors.items())
            lines.append(f"{entry.job[:60]:60} {entry.local_queue[:24]:24} {flavors}"
                         f"{' (borrowing from its cohort)' if entry.borrows else ''}")
    if report.teams:
        lines += ["", f"{'TEAM ACCESS (NAMESPACE)':40} {'MEMBER ROLES':14} VERIFIED"]
        for team in report.teams:
            lines.append(f"{team.namespace[:40]:40} {len(team.members):<14} {team.allowed} requests a job needs allowed, "
                         f"{team.refused} beyond the namespace's jobs refused")
    lines += ["", f"{'DEVICE PLUGIN':78} RUNS ON"]
    for owner, landing in report.device_plugins.items():
        lines.append(f"{owner[:78]:78} {', '.join(landing) or 'NOWHERE'}")
    if report.change is not None and report.change.first_deploy:
        lines += ["", f"CHANGES from {report.change.previous}: first deploy, nothing to compare",
                  *(f"  {line}" for line in report.change.lines())]
    elif report.change is not None:
        lines += ["", f"CHANGES from {report.change.previous} ({report.change.verdict}; ! destructive, + acknowledged):",
                  *(f"  {line}" for line in report.change.lines() or ["  nothing changes"]),
                  *(f"  create-only facts, {source}" for source in report.change.sources)]
    if report.notes:
        lines += ["", "Not checked:", *(f"  - {note}" for note in report.notes)]
    if report.failures:
        lines += ["", "FAILURES:", *(f"  {i}. {finding}" for i, finding in enumerate(report.failures, 1))]
    lines += ["", f"{len(report.placements)} pod templates, {len(report.failures)} failures: "
                  f"{'PASS' if report.ok else 'FAIL'}"]
    return "\n".join(lines)


# --- entry points -----------------------------------------------------------------------------------------------


def synthesize_template(config: PlatformConfig) -> dict[str, Any]:
    """Synthesize ``config``'s stack in-process (no cdk-nag, no Node CLI) and return its template."""
    import tempfile

    import aws_cdk as cdk

    from eks_training.infra.app_builder import APP_CONTEXT, build_app

    with tempfile.TemporaryDirectory(prefix="eks-training-check-") as outdir:
        app = cdk.App(outdir=outdir, context={**APP_CONTEXT, "nag": "false"})
        stack = build_app(app, config)
        assembly = app.synth()
        return assembly.get_stack_by_name(stack.stack_name).template


def load_template(path: Path) -> dict[str, Any]:
    """A synthesized template from ``cdk.out`` (or any path to a ``*.template.json``)."""
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as err:
        raise ValueError(f"--template: cannot read {str(path)!r}: {err}") from None


def add_arguments(parser) -> None:
    from eks_training.infra.tools.environment_option import add_environment_arguments

    add_environment_arguments(parser)
    parser.add_argument("--template", help="read this synthesized template (cdk.out/EksTraining-ENV.template.json) "
                                           "instead of synthesizing in-process")
    parser.add_argument("--app", help="check any CDK app instead: the command that synthesizes it (as `cdk synth --app` "
                                      "runs it, from this folder) or its cloud assembly folder (cdk.out)")
    parser.add_argument("--stack", help="with --app: the stack to check (default: every stack with an EKS cluster)")
    parser.add_argument("--mirror", help=f"the upstream mirror folder (default: ${upstream.MIRROR_ENV})")
    parser.add_argument("--job", action="append", default=[], metavar="FILE",
                        help="a job `eks-training render` wrote (YAML): placed, queued and authorized like the "
                             "environment's own; with --app, the only jobs checked (repeatable)")
    parser.add_argument("--previous", metavar="PATH",
                        help="the template deployed now (a *.template.json, or a cloud assembly folder): also predict "
                             "what a deploy of the new one replaces, deletes, prunes, orphans and rolls")
    parser.add_argument("--previous-stack", metavar="NAME",
                        help="like --previous, with the template CloudFormation runs for stack NAME now (AWS "
                             "credentials; the environment's region); no such stack: a first deploy, nothing to compare")
    parser.add_argument("--acknowledge", action="append", default=[], metavar="ID",
                        help="with --previous or --previous-stack: accept the destructive change ID (as printed, e.g. "
                             "prune:Namespace/slurm); repeatable")
    parser.add_argument("--acknowledgements", action="append", default=[], metavar="FILE",
                        help="with --previous or --previous-stack: a file of change IDs to accept, one a line "
                             "(# comments)")


def run(args) -> int:
    """The ``eks-training check`` command: print the report; exit 1 when anything would not run."""
    from eks_training.infra.tools.environment_option import environment_from_args

    if args.mirror:
        upstream.mirror_root(args.mirror)  # one line now if it is no folder
        os.environ[upstream.MIRROR_ENV] = args.mirror
    if sum(map(bool, (args.env, args.config, args.app))) != 1:
        raise ValueError("check: give exactly one of --env NAME, --config FILE or --app COMMAND")
    given = read_jobs(getattr(args, "job", None) or [])
    if args.app:
        return _run_app(args.app, args.stack, args, given)
    config = environment_from_args(args, "check")
    template = load_template(Path(args.template)) if args.template else synthesize_template(config)
    report = run_check(template, config=config, jobs={**render_all_jobs(config), **given} if given else None,
                       previous=_previous(args, f"EksTraining-{config.name}", config.region))
    print(format_report(report))
    return 0 if report.ok else 1


def read_jobs(paths: list[str]) -> dict[str, list[dict]]:
    """Each ``--job`` file's objects, under the file's name (a sbatch script is no object: refused)."""
    jobs = {}
    for path in paths:
        try:
            objects = [obj for obj in yaml.safe_load_all(Path(path).read_text()) if obj]
        except (OSError, yaml.YAMLError) as err:
            raise ValueError(f"--job: cannot read {path!r}: {str(err).splitlines()[0]}") from None
        if not objects or not all(isinstance(obj, dict) and obj.get("kind") for obj in objects):
            raise ValueError(f"--job: {path!r} holds no Kubernetes objects (render's YAML output; an sbatch script "
                             "runs in Slurm and is not checked here)")
        jobs[Path(path).name] = objects
    return jobs


def _previous(args, stack_name: str, region: str | None = None) -> Previous | None:
    """The deployed template ``--previous`` or ``--previous-stack`` names, with the acknowledged change IDs."""
    acknowledged = read_acknowledgements(getattr(args, "acknowledge", None) or (),
                                         getattr(args, "acknowledgements", None) or ())
    path, stack = getattr(args, "previous", None), getattr(args, "previous_stack", None)
    if path and stack:
        raise invalid("--previous-stack", stack, "alone: give either --previous PATH or --previous-stack NAME")
    if stack:
        deployed = read_deployed_stack(stack, region)
        where = f"stack {stack} ({deployed.region})"
        if deployed.template is None:
            return Previous(None, where, acknowledged, absent=deployed.reason)
        return Previous(deployed.template, where, acknowledged, refusal=deployed.refused)
    if not path:
        if acknowledged:
            raise invalid("--acknowledge", sorted(acknowledged)[0], "used with --previous or --previous-stack (the "
                                                                    "deployed template)")
        return None
    template, name = load_previous(path, stack_name)
    return Previous(template, name, acknowledged)


def _run_app(app: str, stack_name: str | None, args=None, jobs: dict[str, list[dict]] | None = None) -> int:
    from eks_training.infra.tools.check.cloud_assembly import app_assembly, stacks

    with app_assembly(app) as assembly:
        found = stacks(assembly)
    chosen = [s for s in found if (s.name == stack_name if stack_name else s.has_cluster)]
    if not chosen:
        names = ", ".join(s.name for s in found) or "none"
        raise invalid("--stack" if stack_name else "--app", stack_name or app,
                      f"a stack of the app with an EKS cluster (its stacks: {names})")
    failed = False
    for stack in chosen:
        report = run_check(stack.template, target=CheckTarget(stack.name, stack.region, stack.account,
                                                              jobs=jobs or None),
                           previous=_previous(args, stack.name, stack.region) if args is not None else None)
        print(format_report(report))
        failed |= not report.ok
    return 1 if failed else 0
