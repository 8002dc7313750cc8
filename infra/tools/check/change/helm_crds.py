"""What the Helm handler's `helm upgrade` and `helm uninstall` do to a release's CustomResourceDefinitions.

Helm keeps a chart's CRDs in two places, and treats them differently (helm/helm v4 ``pkg/action``; the same in v3,
as helm.sh/docs/chart_best_practices/custom_resource_definitions says):

* **``crds/``**: applied as they are by an install (the handler's ``helm upgrade --install`` of a release that does not
  exist yet), only where the CRD does not exist (``install.go``, ``installCRDs``). An upgrade renders the templates alone
  (``upgrade.go``), an uninstall deletes the release's manifest alone: these CRDs stay at the definition first installed,
  are never upgraded and never deleted. (The handler reads ``SkipCrds`` but never passes ``--skip-crds`` to Helm:
  aws-cdk-lib ``custom-resource-handlers/dist/aws-eks-v2/kubectl-handler/helm/__init__.py``.)
* **templates**: ordinary release objects. An upgrade applies the new definition, and deletes a CRD the new release no
  longer renders; an uninstall deletes them all; either skips an object annotated ``helm.sh/resource-policy: keep``
  (``resource_policy.go``, ``filterManifestsToKeep``; the kube client's update checks the live object). An upgrade
  that renders an object the release does not own yet (a CRD first installed from ``crds/``) fails
  (``existingResourceConflict``: invalid ownership metadata).

Deleting a CRD deletes every object of its kind. The API server refuses a CRD update that drops a version still in
``status.storedVersions`` (kubernetes ``apiextensions`` validation): the storage version of the deployed definition
is one, until a storage migration moves its objects and the status is edited.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eks_training.core import upstream
from eks_training.infra.tools.check import helm
from eks_training.infra.tools.check.change.findings import Change
from eks_training.infra.tools.check.snapshot import HELM_CHART, text
from eks_training.core.upstream import release_chart

KEEP_ANNOTATION = "helm.sh/resource-policy"
#: How many field paths a line names before it says how many more.
_SHOWN = 4

#: (chart, version) -> the verified chart folder, or None (default :func:`helm.chart_source`).
ChartFinder = Callable[[str, str], "Path | None"]


@dataclass
class ChartCrds:
    """One release's CRDs as one chart version with one set of values installs them, by name."""

    templates: dict[str, dict] = field(default_factory=dict)
    folder: dict[str, dict] = field(default_factory=dict)


@dataclass(frozen=True)
class ReleaseProps:
    """A ``Custom::AWSCDK-EKS-HelmChart``'s properties as the Helm handler reads them."""

    logical_id: str
    release: str
    chart: str
    version: str
    namespace: str
    values: Mapping[str, Any]
    kube_version: str

    @property
    def chart_name(self) -> str:
        return f"{self.chart.rstrip('/').rsplit('/', 1)[-1]} {self.version}"


def releases_of(template: Mapping[str, Any]) -> dict[str, ReleaseProps]:
    resources = template.get("Resources") or {}
    cluster = next((r.get("Properties") or {} for r in resources.values() if r.get("Type") == "AWS::EKS::Cluster"), {})
    found = {}
    for lid, resource in resources.items():
        if resource.get("Type") != HELM_CHART:
            continue
        props = resource.get("Properties") or {}
        values = json.loads(text(props["Values"])) if "Values" in props else {}
        chart, version = release_chart(props)
        found[lid] = ReleaseProps(lid, str(props.get("Release")), str(chart or props.get("ChartAssetURL")),
                                  version, str(props.get("Namespace", "default")), values,
                                  text(cluster.get("Version", "")))
    return found


def crd_changes(old: Mapping[str, Any], new: Mapping[str, Any], *, rendered: Mapping[str, list[dict]] | None = None,
                charts: ChartFinder | None = None) -> tuple[list[Change], list[str]]:
    """(what each upgraded or uninstalled release does to its CRDs, what could not be checked and how to make it
    checkable). ``rendered``: the new template's releases as the deploy check rendered them, by release name."""
    find = charts or helm.chart_source
    before, after = releases_of(old), releases_of(new)
    changes: list[Change] = []
    notes: list[str] = []
    for lid in sorted(before):
        old_release, new_release = before[lid], after.get(lid)
        if new_release is not None and (old_release.release, old_release.namespace) != (new_release.release,
                                                                                      new_release.namespace):
            continue  # a second release, not an upgrade: the release finding names it
        if new_release is not None and _same(old_release, new_release):
            continue
        old_crds = _crds(old_release, find, notes, "deployed")
        if old_crds is None:
            continue
        if new_release is None:
            changes += _uninstalled(old_release, old_crds)
            continue
        new_crds = _crds(new_release, find, notes, "new", (rendered or {}).get(new_release.release))
        if new_crds is not None:
            changes += _upgraded(old_release, new_release, old_crds, new_crds)
    return changes, notes


def _same(old: ReleaseProps, new: ReleaseProps) -> bool:
    """Whether CloudFormation leaves the release alone: the handler runs `helm upgrade` only when the resource's
    properties change (a new cluster version alone changes none)."""
    return (old.chart, old.version, old.values) == (new.chart, new.version, new.values)


def _crds(release: ReleaseProps, find: ChartFinder, notes: list[str], which: str,
          rendered: list[dict] | None = None) -> ChartCrds | None:
    try:
        folder = find(release.chart, release.version)
    except (helm.HelmCheckError, upstream.UpstreamError) as err:
        notes.append(f"change stage: helm release {release.release}: {err}")
        return None
    if folder is None:
        notes.append(f"change stage: helm release {release.release}: the {which} chart {release.chart_name} is not at "
                     f"hand, so what the deploy does to its CRDs is not checked; {_how_to_get(release)}")
        return None
    try:
        objects = rendered if rendered is not None else _render(folder, release)
        crds = ChartCrds({_name(o): o for o in objects if o.get("kind") == "CustomResourceDefinition"},
                         {_name(o): o for o in helm.crd_folder_objects(folder, release.values)})
    except helm.HelmCheckError as err:
        notes.append(f"change stage: helm release {release.release}: {err}; its CRDs are not checked")
        return None
    return crds


def _render(folder: Path, release: ReleaseProps) -> list[dict]:
    return json.loads(_rendered(folder, release.release, release.namespace,
                                json.dumps(release.values, sort_keys=True), release.kube_version))


@functools.lru_cache(maxsize=16)
def _rendered(folder: Path, release: str, namespace: str, values_json: str, kube_version: str) -> str:
    return json.dumps(helm.render_chart(folder, release=release, namespace=namespace, values=json.loads(values_json),
                                        kube_version=kube_version))


def _how_to_get(release: ReleaseProps) -> str:
    artifact = upstream.chart_artifact(release.chart, release.version)
    if artifact is not None:
        return upstream.how_to_get(artifact)
    source = release.chart if release.chart.startswith("oci://") else f"{release.chart} --repo <its repository>"
    return (f"eks-training pins no digest of it (an earlier pin goes to core/upstream.py PREVIOUS_CHARTS); compare by "
            f"hand: `helm pull {source} --version {release.version} --untar`")


def _name(crd: Mapping[str, Any]) -> str:
    return str((crd.get("metadata") or {}).get("name"))


def _kept(crd: Mapping[str, Any]) -> bool:
    annotations = (crd.get("metadata") or {}).get("annotations") or {}
    return str(annotations.get(KEEP_ANNOTATION, "")).strip().lower() == "keep"


def _kind(crd: Mapping[str, Any]) -> str:
    return str(((crd.get("spec") or {}).get("names") or {}).get("kind") or _name(crd))


# --- what happens ----------------------------------------------------------------------------------------------


def _uninstalled(release: ReleaseProps, crds: ChartCrds) -> list[Change]:
    changes = []
    for name, crd in sorted(crds.templates.items()):
        subject = f"CustomResourceDefinition/{name}"
        if _kept(crd):
            changes.append(Change("retain", subject, (
                f"CRD {name} stays when `helm uninstall` removes release {release.release} ({KEEP_ANNOTATION}: keep), "
                f"with every {_kind(crd)}: no release manages it any more")))
        else:
            changes.append(Change("delete", subject, (
                f"CRD {name} is deleted by `helm uninstall` of release {release.release} ({release.chart_name}: a "
                f"template without {KEEP_ANNOTATION}: keep), and with it every {_kind(crd)} in the cluster"),
                destructive=True))
    for name, crd in sorted(crds.folder.items()):
        if name not in crds.templates:
            changes.append(Change("retain", f"CustomResourceDefinition/{name}", (
                f"CRD {name} stays when release {release.release} is uninstalled (Helm never deletes a chart's crds/), "
                f"with every {_kind(crd)}")))
    return changes


def _upgraded(old: ReleaseProps, new: ReleaseProps, before: ChartCrds, after: ChartCrds) -> list[Change]:
    what = (f"release {new.release} ({old.chart_name} -> {new.chart_name})" if old.chart_name != new.chart_name
            else f"release {new.release} ({new.chart_name}, new values)")
    changes = []
    for name in sorted(set(before.templates) | set(before.folder) | set(after.templates) | set(after.folder)):
        subject = f"CustomResourceDefinition/{name}"
        if name in before.templates:
            old_crd = before.templates[name]
            if name in after.templates:
                changes += _definition_update(subject, name, what, old_crd, after.templates[name])
            elif _kept(old_crd):
                changes.append(Change("retain", subject, (
                    f"CRD {name} leaves {what}'s templates and stays ({KEEP_ANNOTATION}: keep), no longer upgraded by "
                    "any release")))
            else:
                moved = (" The new chart ships it in crds/, which an upgrade never installs: it is not re-created."
                         if name in after.folder else "")
                changes.append(Change("delete", subject, (
                    f"CRD {name} is deleted by `helm upgrade` of {what}: the new release no longer renders it and the "
                    f"deployed one has no {KEEP_ANNOTATION}: keep; every {_kind(old_crd)} in the cluster goes with "
                    f"it.{moved}"), destructive=True))
        elif name in before.folder:
            old_crd = before.folder[name]
            if name in after.templates:
                changes.append(Change("fail", subject, (
                    f"CRD {name} moves from crds/ to the templates of {what}: `helm upgrade` must adopt an object the "
                    "release does not own (it came from crds/ at install) and refuses it (invalid ownership metadata), "
                    "so the deploy fails"), destructive=True))
            elif name in after.folder:
                difference = describe(old_crd, after.folder[name])
                if difference:
                    changes.append(Change("stale", subject, (
                        f"CRD {name} stays at the definition first installed, which `helm upgrade` of {what} never "
                        f"updates (crds/); the new chart's differs: {difference.summary()}: the new controller may "
                        "need what the cluster does not serve"), destructive=True))
        elif name in after.templates:
            changes.append(Change("create", subject, f"CRD {name} is created by `helm upgrade` of {what}"))
        else:
            changes.append(Change("stale", subject, (
                f"CRD {name} is new in {what}'s crds/, which `helm upgrade` never installs: it is not created, and every "
                f"{_kind(after.folder[name])} the new controller or a job asks for is refused"), destructive=True))
    return changes


def _definition_update(subject: str, name: str, what: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    difference = describe(old, new)
    if not difference:
        return []
    stored = difference.storage_before
    if stored and stored in difference.versions_removed:
        return [Change("fail", subject, (
            f"CRD {name}: `helm upgrade` of {what} removes version {stored}, the deployed definition's storage version "
            "(in status.storedVersions): the API server refuses the update until the stored objects are migrated and "
            f"the status edited, so the deploy fails ({difference.summary()})"), destructive=True)]
    dropped = sorted(set(difference.versions_removed) | set(difference.unserved))
    tail = (f"; clients still using {', '.join(dropped)} fail (refused if objects were ever stored at it)"
            if dropped else "")
    return [Change("update", subject, f"CRD {name} is upgraded by `helm upgrade` of {what}: {difference.summary()}"
                                      f"{tail}")]


# --- comparing two definitions -----------------------------------------------------------------------------------


@dataclass
class CrdDifference:
    versions_added: list[str] = field(default_factory=list)
    versions_removed: list[str] = field(default_factory=list)
    #: Versions served before and not after.
    unserved: list[str] = field(default_factory=list)
    storage_before: str | None = None
    storage_after: str | None = None
    #: version -> the shallowest schema paths added / removed.
    fields_added: dict[str, list[str]] = field(default_factory=dict)
    fields_removed: dict[str, list[str]] = field(default_factory=dict)
    #: Some version's schema changes beyond its fields (types, enums, patterns, required, validation rules).
    validation: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.versions_added or self.versions_removed or self.unserved or self.fields_added
                    or self.fields_removed or self.validation or self.storage_before != self.storage_after)

    def summary(self) -> str:
        parts = []
        if self.versions_added:
            parts.append(f"versions added {', '.join(self.versions_added)}")
        if self.versions_removed:
            parts.append(f"versions removed {', '.join(self.versions_removed)}")
        if self.unserved:
            parts.append(f"no longer served {', '.join(self.unserved)}")
        if self.storage_before != self.storage_after:
            parts.append(f"storage version {self.storage_before} -> {self.storage_after}")
        for version, paths in self.fields_added.items():
            parts.append(f"{version}: {_counted(paths)} added ({_shown(paths)})")
        for version, paths in self.fields_removed.items():
            parts.append(f"{version}: {_counted(paths)} removed ({_shown(paths)})")
        if self.validation:
            parts.append(f"{', '.join(self.validation)}: validation changes")
        return "; ".join(parts) or "no change"


def describe(old: Mapping[str, Any], new: Mapping[str, Any]) -> CrdDifference:
    """How the definition ``new`` differs from ``old`` in what the API server serves, stores and validates
    (descriptions, labels and annotations left out)."""
    before, after = _versions(old), _versions(new)
    difference = CrdDifference(
        versions_added=[v for v in after if v not in before], versions_removed=[v for v in before if v not in after],
        unserved=[v for v in before if v in after and before[v].get("served") and not after[v].get("served")],
        storage_before=next((v for v, spec in before.items() if spec.get("storage")), None),
        storage_after=next((v for v, spec in after.items() if spec.get("storage")), None))
    for version in (v for v in after if v in before):
        old_schema, new_schema = _schema(before[version]), _schema(after[version])
        old_paths, new_paths = set(_paths(old_schema)), set(_paths(new_schema))
        if added := _shallowest(new_paths - old_paths):
            difference.fields_added[version] = added
        if removed := _shallowest(old_paths - new_paths):
            difference.fields_removed[version] = removed
        if _pruned(old_schema, set(removed)) != _pruned(new_schema, set(added)):
            difference.validation.append(version)
    return difference


def _versions(crd: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {str(v.get("name")): v for v in (crd.get("spec") or {}).get("versions") or []}


def _schema(version: Mapping[str, Any]) -> Mapping[str, Any]:
    return ((version.get("schema") or {}).get("openAPIV3Schema")) or {}


def _paths(schema: Any, prefix: str = "") -> Iterator[str]:
    """Every field path of an OpenAPI schema: ``spec.template.metadata``, ``[]`` for a list's items."""
    if not isinstance(schema, Mapping):
        return
    for name, sub in (schema.get("properties") or {}).items():
        path = f"{prefix}.{name}" if prefix else name
        yield path
        yield from _paths(sub, path)
    if isinstance(schema.get("items"), Mapping):
        yield from _paths(schema["items"], f"{prefix}[]")
    if isinstance(schema.get("additionalProperties"), Mapping):
        yield from _paths(schema["additionalProperties"], f"{prefix}{{}}")


def _shallowest(paths: set[str]) -> list[str]:
    """The paths none of whose parents are among them (a new object is named once, not with every field in it)."""
    return sorted((p for p in paths if not any(p.startswith(q) and p[len(q):][:1] in (".", "[", "{")
                                               for q in paths if q != p)),
                  key=lambda p: (p.count("."), p))


def _pruned(schema: Any, dropped: set[str], prefix: str = "") -> Any:
    """``schema`` without descriptions and without the fields at ``dropped`` paths (named by :func:`_paths`), so
    that what remains differs only where validation does."""
    if isinstance(schema, list):
        return [_pruned(item, dropped, prefix) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    kept = {}
    for key, value in schema.items():
        if key == "description":
            continue
        if key == "properties" and isinstance(value, Mapping):
            paths = {name: f"{prefix}.{name}" if prefix else name for name in value}
            kept[key] = {name: _pruned(sub, dropped, paths[name]) for name, sub in value.items()
                         if paths[name] not in dropped}
        elif key == "items":
            kept[key] = _pruned(value, dropped, f"{prefix}[]")
        elif key == "additionalProperties":
            kept[key] = _pruned(value, dropped, f"{prefix}{{}}")
        elif key == "required" and isinstance(value, list):
            kept[key] = sorted(name for name in value if (f"{prefix}.{name}" if prefix else name) not in dropped)
        else:
            kept[key] = _pruned(value, dropped, prefix)
    return kept


def _counted(paths: list[str]) -> str:
    return f"{len(paths)} field{'s' if len(paths) != 1 else ''}"


def _shown(paths: list[str]) -> str:
    return ", ".join(paths[:_SHOWN]) + (f", and {len(paths) - _SHOWN} more" if len(paths) > _SHOWN else "")
