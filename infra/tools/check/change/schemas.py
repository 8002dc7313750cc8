"""Which property changes make CloudFormation replace a resource, read from CloudFormation's own resource schemas.

Two upstream sources, each cited beside the finding it produces:

* the CloudFormation registry's resource provider schemas (``createOnlyProperties`` and
  ``conditionalCreateOnlyProperties``, JSON pointers such as ``/properties/AccessConfig/BootstrapClusterCreatorAdminPermissions``),
  as cfn-lint ships them for every region (``cfnlint/data/schemas``; the pinned cfn-lint release fixes their date);
* for the types CloudFormation still provisions outside the registry (their schema has no ``handlers``: it was
  converted from the old resource specification and kept only top-level create-only properties, e.g.
  ``AWS::FSx::FileSystem`` has no ``LustreConfiguration/DeploymentType``), the resource specification's
  ``Immutable`` update types, which the AWS CDK CLI's service database (``aws-cdk/db.json.gz``, from
  ``@aws-cdk/aws-service-spec``) still carries per nested property type as ``causesReplacement``.

A type found in neither is reported as not checked, never assumed to update in place.
"""

from __future__ import annotations

import functools
import gzip
import importlib.metadata
import importlib.util
import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Where the CDK CLI keeps its service database, below its package folder.
_CDK_DATABASE = "db.json.gz"
#: Override for the CDK CLI's package folder (``node_modules/aws-cdk``) when it is not found from here or from PATH.
CDK_CLI_ENV = "EKS_TRAINING_CDK_CLI"
#: The two sources, as findings cite them.
REGISTRY = "registry schema"
SPECIFICATION = "resource specification"
#: How deep nested property types are followed in the service database (they can refer to themselves).
_MAX_DEPTH = 8


@dataclass(frozen=True)
class ReplacingProperty:
    """One property (a JSON pointer into the resource, ``*`` for every item of a list) that replaces on change."""

    pointer: str
    #: Where the fact comes from, as a finding cites it.
    source: str
    #: CloudFormation replaces only in some cases (``conditionalCreateOnlyProperties``, "Conditional" updates).
    conditional: bool = False

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(self.pointer.split("/")[2:])  # "/properties/A/B" -> ("A", "B")

    @property
    def name(self) -> str:
        return "/".join(self.path)


@dataclass(frozen=True)
class TypeFacts:
    """What the schemas say about one resource type."""

    type_name: str
    replacing: tuple[ReplacingProperty, ...]
    #: Properties whose values name the resource: a replacement with the same values collides with itself.
    identity: tuple[str, ...] = ()


class ResourceSchemas:
    """The create-only facts of every resource type, for one region (the schemas differ by region)."""

    def __init__(self, region: str | None = None, *, cfn_lint_schemas: Path | None = None,
                 cdk_cli: Path | None = None) -> None:
        self.region = region or "us-east-1"
        self.registry = cfn_lint_schemas if cfn_lint_schemas is not None else cfn_lint_schema_folder()
        self.cdk_cli = cdk_cli if cdk_cli is not None else cdk_cli_folder()
        self._facts: dict[str, TypeFacts | None] = {}

    @property
    def available(self) -> bool:
        return self.registry is not None

    def missing(self) -> list[str]:
        """What is not at hand, each with how to get it (one line each)."""
        problems = []
        if self.registry is None:
            problems.append("CloudFormation's resource schemas are not at hand (they ship with cfn-lint): "
                            "pip install 'eks-training[change]' (or `make install`)")
        if self.cdk_cli is None:
            problems.append("the AWS CDK CLI's service database is not at hand, so nested create-only properties of "
                            "types outside the registry (AWS::FSx::FileSystem's LustreConfiguration) are not checked: "
                            f"npm ci in the project, or set {CDK_CLI_ENV} to the aws-cdk package folder")
        return problems

    def sources(self) -> list[str]:
        """Where the facts come from, in full (findings name them short: :data:`REGISTRY`, :data:`SPECIFICATION`)."""
        found = []
        if self.registry is not None:
            found.append(f"{REGISTRY}: CloudFormation's resource provider schemas for {self.region} "
                         f"({_registry_release(self.registry)})")
        if self.cdk_cli is not None:
            found.append(f"{SPECIFICATION}: CloudFormation's resource specification, as the aws-cdk CLI "
                         f"{_cdk_release(self.cdk_cli)} service database carries it")
        return found

    def facts(self, type_name: str) -> TypeFacts | None:
        """The facts of ``type_name``; None when no schema knows it (custom resources, a type of another region)."""
        if type_name not in self._facts:
            self._facts[type_name] = self._read(type_name)
        return self._facts[type_name]

    def _read(self, type_name: str) -> TypeFacts | None:
        if self.registry is None:
            return None
        schema = _registry_schema(self.registry, self.region, type_name)
        if schema is None:
            return None
        source = REGISTRY
        replacing = [ReplacingProperty(p, source) for p in schema.get("createOnlyProperties") or []]
        replacing += [ReplacingProperty(p, source, conditional=True)
                      for p in schema.get("conditionalCreateOnlyProperties") or []]
        if "handlers" not in schema and self.cdk_cli is not None:
            # Provisioned outside the registry: the old specification's immutable nested properties still apply.
            known = {r.pointer for r in replacing}
            replacing += [ReplacingProperty(pointer, SPECIFICATION, conditional=conditional)
                          for pointer, conditional in _legacy_replacing(self.cdk_cli, type_name)
                          if pointer not in known]
        return TypeFacts(type_name, tuple(replacing), _identity(schema, type_name))


def _identity(schema: dict[str, Any], type_name: str) -> tuple[str, ...]:
    """The properties that name a resource: its primary identifier where the template sets it (``Name`` of a
    cluster, ``PrincipalArn`` of an access entry), and a create-only ``<Type>Name`` (``NodegroupName``)."""
    read_only = set(schema.get("readOnlyProperties") or [])
    names = [p for p in schema.get("primaryIdentifier") or [] if p not in read_only]
    own_name = f"/properties/{type_name.rsplit('::', 1)[-1]}Name"
    if own_name in (schema.get("createOnlyProperties") or []) and own_name not in names:
        names.append(own_name)
    return tuple(p.removeprefix("/properties/") for p in names)


# --- the registry schemas (cfn-lint) ----------------------------------------------------------------------------


def cfn_lint_schema_folder() -> Path | None:
    """cfn-lint's schema folder, found without importing cfn-lint (its import pulls in its rules engine)."""
    spec = importlib.util.find_spec("cfnlint")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "data" / "schemas"
    return folder if (folder / "providers").is_dir() else None


@functools.lru_cache(maxsize=8)
def _registry_release(folder: Path | None) -> str:
    try:
        version = importlib.metadata.version("cfn-lint")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    try:
        date = json.loads((folder / "version.json").read_text())["schema_date"][:10]
    except (OSError, ValueError, KeyError, TypeError):
        date = "undated"
    return f"cfn-lint {version}, schemas of {date}"


@functools.lru_cache(maxsize=8)
def _provider_index(folder: Path, region: str) -> dict[str, str]:
    path = folder / "providers" / f"{region}.json"
    if not path.is_file():
        path = folder / "providers" / "us-east-1.json"
    return json.loads(path.read_text())


@functools.lru_cache(maxsize=512)
def _registry_schema(folder: Path, region: str, type_name: str) -> dict[str, Any] | None:
    digest = _provider_index(folder, region).get(type_name)
    if digest is None:
        return None
    return json.loads((folder / "resources" / f"{digest}.json").read_text())


# --- the resource specification (the CDK CLI's service database) ------------------------------------------------


def cdk_cli_folder() -> Path | None:
    """The aws-cdk CLI package folder: ``$EKS_TRAINING_CDK_CLI``, ``node_modules/aws-cdk`` here or above, or the
    package behind the ``cdk`` on PATH."""
    candidates = []
    if os.environ.get(CDK_CLI_ENV):
        candidates.append(Path(os.environ[CDK_CLI_ENV]))
    here = Path.cwd()
    candidates += [folder / "node_modules" / "aws-cdk" for folder in (here, *here.parents)]
    cdk = shutil.which("cdk")
    if cdk:
        candidates.append(Path(os.path.realpath(cdk)).parent.parent)  # .../aws-cdk/bin/cdk
    return next((c for c in candidates if (c / _CDK_DATABASE).is_file()), None)


@functools.lru_cache(maxsize=4)
def _cdk_release(folder: Path | None) -> str:
    try:
        return json.loads((folder / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError, TypeError):
        return "unknown"


@functools.lru_cache(maxsize=2)
def _service_database(folder: Path) -> tuple[dict[str, dict], dict[str, dict]]:
    """(CloudFormation type -> resource entity, $id -> property type definition), read once per process (~0.6 s)."""
    with gzip.open(folder / _CDK_DATABASE, "rt", encoding="utf-8") as stream:
        schema = json.load(stream)["schema"]
    resources = {r["cloudFormationType"]: r for r in schema["resource"]["entities"]}
    types = {t["$id"]: t for t in schema["typeDefinition"]["entities"]}
    return resources, types


def _legacy_replacing(folder: Path, type_name: str) -> list[tuple[str, bool]]:
    resources, types = _service_database(folder)
    resource = resources.get(type_name)
    if resource is None:
        return []
    return list(_replacing_in(resource.get("properties") or {}, "/properties", types, 0))


def _replacing_in(properties: dict[str, Any], prefix: str, types: dict[str, dict], depth: int) -> Iterator[tuple[str, bool]]:
    for name, prop in properties.items():
        pointer = f"{prefix}/{name}"
        replaces = prop.get("causesReplacement")
        if replaces in ("yes", "maybe"):
            yield pointer, replaces == "maybe"
            continue  # the whole value replaces: nothing below it can say otherwise
        if depth >= _MAX_DEPTH:
            continue
        kind, wildcard = prop.get("type") or {}, ""
        while kind.get("type") in ("array", "map"):  # a list or map of a property type: every item
            kind, wildcard = kind.get("element") or {}, wildcard + "/*"
        if kind.get("type") == "ref":
            nested = types.get((kind.get("reference") or {}).get("$ref"))
            if nested:
                yield from _replacing_in(nested.get("properties") or {}, pointer + wildcard, types, depth + 1)
