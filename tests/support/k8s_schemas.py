"""Validate generated Kubernetes objects the way a strict API server would, without a cluster.

Core kinds are checked with kubernetes-validate (strict: unknown fields rejected) for each Kubernetes version
we support. Custom resources are checked against the pinned upstream CRDs (eks_training.core.upstream: the mirror or the user
cache), turned into strict JSON Schemas: the API server would silently prune a misspelt
field, so we reject unknown fields to catch typos. CEL rules (`x-kubernetes-validations`) and admission
webhooks are not evaluated here.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

from eks_training.core import upstream
from support.upstream_data import MISSING_UPSTREAM

DEFAULT_KUBERNETES_VERSIONS = ("1.31", "1.35")
_MAX_REPORTED_ERRORS = 5

_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml is ~10x faster on the 1.4 MB RayJob CRD


@functools.cache
def crd_files() -> tuple[Path, ...] | None:
    """Every pinned upstream CRD, verified, from the mirror or the user cache (eks_training.core.upstream); None
    unless all are at hand."""
    found = upstream.crd_files()
    return tuple(found) if found is not None else None


def skip_unless_crds() -> tuple[Path, ...]:
    """The CRD files, or skip the running test with a reason saying how to get them."""
    files = crd_files()
    if files is None:
        missing = upstream.missing(upstream.CRDS)
        pytest.skip(f"{MISSING_UPSTREAM}: {missing[0].name} (and {len(missing) - 1} more CRDs); "
                    f"{upstream.how_to_get(missing[0])}")
    return files


def crds_folder() -> Path:
    """The one ``crds/`` folder that holds every pinned CRD (what `make imports` reads), or skip."""
    roots = {path.parents[1] for path in skip_unless_crds()}
    if len(roots) != 1:
        pytest.skip(f"{MISSING_UPSTREAM}: the CRDs lie in {len(roots)} folders (mirror and cache); one folder is needed")
    return roots.pop()


# Evaluated at import time: for a test module whose every test needs the CRDs (`pytestmark = requires_crds`).
requires_crds = pytest.mark.skipif(crd_files() is None, reason=f"{MISSING_UPSTREAM}: the upstream CRDs")


def _looks_like_core_group(group: str) -> bool:
    """Groups served by Kubernetes itself: the legacy "" group, dotless ones (apps, batch) and *.k8s.io."""
    return group == "" or "." not in group or group.endswith(".k8s.io")


def _group_of(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def _strict_json_schema(node: Any, *, is_root: bool = True) -> Any:
    """Turn a CRD's OpenAPI v3 structural schema into a JSON Schema that rejects unknown fields."""
    if isinstance(node, list):
        return [_strict_json_schema(item, is_root=False) for item in node]
    if not isinstance(node, dict):
        return node
    converted: dict[str, Any] = {}
    for key, value in node.items():
        if key.startswith("x-kubernetes-") or key == "nullable":
            continue
        if key == "properties":
            converted[key] = {name: _strict_json_schema(sub, is_root=False) for name, sub in value.items()}
            if is_root and "metadata" in converted[key]:
                converted[key]["metadata"] = {"type": "object"}  # ObjectMeta is not in the CRD; allow any
        elif key in ("default", "example", "enum"):
            converted[key] = value  # literal data, not schema
        else:
            converted[key] = _strict_json_schema(value, is_root=False)
    if node.get("x-kubernetes-int-or-string") and "anyOf" not in converted:
        converted["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if node.get("nullable"):
        if "type" in converted:
            converted["type"] = [converted["type"], "null"]
        if "enum" in converted and None not in converted["enum"]:
            converted["enum"] = [*converted["enum"], None]
    if (
        "properties" in node
        and "additionalProperties" not in node
        and not node.get("x-kubernetes-preserve-unknown-fields")
    ):
        converted["additionalProperties"] = False
    return converted


@functools.lru_cache(maxsize=None)
def _crd_documents(path: Path) -> tuple[dict, ...]:
    with path.open(encoding="utf-8") as stream:
        documents = yaml.load_all(stream, Loader=_YAML_LOADER)
        return tuple(d for d in documents if isinstance(d, dict) and d.get("kind") == "CustomResourceDefinition")


def _crd_files(files: tuple[Path, ...], group: str) -> list[Path]:
    """All CRD files, those named `<group>_*.yaml` (the upstream naming) first, so a lookup rarely parses them all."""
    return sorted(files, key=lambda f: (not f.name.startswith(f"{group}_"), str(f)))


@functools.lru_cache(maxsize=None)
def _crd_version(files: tuple[Path, ...], api_version: str, kind: str) -> tuple[dict, str] | None:
    """The strict JSON Schema and scope ("Namespaced"/"Cluster") of (api_version, kind), or None if no CRD has it."""
    group, _, version = api_version.rpartition("/")
    for path in _crd_files(files, group):
        for crd in _crd_documents(path):
            spec = crd.get("spec", {})
            if spec.get("group") != group or spec.get("names", {}).get("kind") != kind:
                continue
            for served in spec.get("versions", []):
                if served.get("name") == version:
                    schema = served.get("schema", {}).get("openAPIV3Schema", {"type": "object"})
                    return _strict_json_schema(copy.deepcopy(schema)), spec.get("scope", "Namespaced")
    return None


@functools.lru_cache(maxsize=None)
def _validator_for(files: tuple[Path, ...], api_version: str, kind: str) -> tuple[jsonschema.protocols.Validator, str] | None:
    found = _crd_version(files, api_version, kind)
    if found is None:
        return None
    schema, scope = found
    return jsonschema.Draft7Validator(schema), scope


def _describe(obj: Mapping[str, Any]) -> str:
    name = (obj.get("metadata") or {}).get("name", "<no name>")
    return f"{obj.get('kind')} {obj.get('apiVersion')} {name!r}"


def _validate_core(obj: dict, kubernetes_versions: Iterable[str]) -> bool:
    """Validate a core kind for every version; False when kubernetes-validate knows no such kind."""
    known = False
    missing_in: list[str] = []
    for version in kubernetes_versions:
        try:
            kubernetes_validate.validate(obj, version, strict=True)
            known = True
        except kubernetes_validate.SchemaNotFoundError:
            missing_in.append(version)
        except kubernetes_validate.ValidationError as error:
            path = ".".join(str(p) for p in error.absolute_path) or "<root>"
            raise AssertionError(f"{_describe(obj)} invalid for Kubernetes {version}: {path}: {error.message}") from None
    if known and missing_in:
        raise AssertionError(f"{_describe(obj)} does not exist in Kubernetes {', '.join(missing_in)}")
    return known


def _validate_custom(obj: dict, validator: jsonschema.protocols.Validator, scope: str) -> None:
    errors = sorted(validator.iter_errors(obj), key=lambda e: e.json_path)
    messages = [f"{e.json_path}: {e.message}" for e in errors[:_MAX_REPORTED_ERRORS]]
    if scope == "Cluster" and (obj.get("metadata") or {}).get("namespace"):
        messages.append("$.metadata.namespace: a cluster-scoped kind takes no namespace")
    if messages:
        more = f" (and {len(errors) - _MAX_REPORTED_ERRORS} more)" if len(errors) > _MAX_REPORTED_ERRORS else ""
        raise AssertionError(f"{_describe(obj)} invalid against its upstream CRD:\n  " + "\n  ".join(messages) + more)


def validate_k8s_object(
    obj: dict,
    kubernetes_versions: Iterable[str] = DEFAULT_KUBERNETES_VERSIONS,
    *,
    allow_unknown_kinds: Collection[tuple[str, str]] = (),
) -> None:
    """Raise AssertionError, with a readable message, when `obj` would not be accepted by a strict API server.

    Core kinds are validated for each of `kubernetes_versions`; custom resources against the upstream CRD
    (the test is skipped when the CRDs folder is absent). An (apiVersion, kind) that is neither a core kind nor in
    the CRDs folder is an error, unless listed in `allow_unknown_kinds`.
    """
    if not isinstance(obj, dict) or not isinstance(obj.get("apiVersion"), str) or not isinstance(obj.get("kind"), str):
        raise AssertionError(f"not a Kubernetes object (needs string apiVersion and kind): {str(obj)[:200]}")
    if not (obj.get("metadata") or {}).get("name"):
        raise AssertionError(f"{_describe(obj)} has no metadata.name")
    api_version, kind = obj["apiVersion"], obj["kind"]
    if (api_version, kind) in allow_unknown_kinds:
        return
    if _looks_like_core_group(_group_of(api_version)) and _validate_core(obj, tuple(kubernetes_versions)):
        return
    found = _validator_for(skip_unless_crds(), api_version, kind)
    if found is None:
        raise AssertionError(
            f"{_describe(obj)}: unknown kind, neither a Kubernetes kind nor in a pinned upstream CRD"
            " (pass allow_unknown_kinds to accept it on purpose)"
        )
    _validate_custom(obj, *found)


def validate_k8s_objects(objs: Iterable[dict], **options: Any) -> list[dict]:
    """Validate every object (see validate_k8s_object); return them as a list for further assertions."""
    checked = list(objs)
    for obj in checked:
        validate_k8s_object(obj, **options)
    return checked


def chart_objects(chart: Any) -> list[dict]:
    """The manifests a cdk8s chart renders (JSON patches applied), in order."""
    return [api_object.to_json() for api_object in chart.api_objects]


def validate_chart(chart: Any, **options: Any) -> list[dict]:
    """Render a cdk8s chart, validate every object and return them."""
    return validate_k8s_objects(chart_objects(chart), **options)
