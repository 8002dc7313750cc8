"""The public API of the constructs library, and the generated config reference that documents the config."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest
from constructs import Construct

import eks_training.constructs
from eks_training.infra.tools.config_reference import render_reference, type_name

REPO = Path(__file__).resolve().parent.parent


def _public_items() -> list[tuple[str, object]]:
    """Every public class and function defined (not imported) in an eks_training.constructs module."""
    items = []
    # pkgutil over the namespace package's path: constructs/ has no __init__.py on purpose.
    for module_info in pkgutil.iter_modules(eks_training.constructs.__path__, "eks_training.constructs."):
        module = importlib.import_module(module_info.name)
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isclass(obj) or inspect.isfunction(obj):
                items.append((f"{module.__name__}.{name}", obj))
    return items


PUBLIC = _public_items()


def test_the_namespace_package_has_modules() -> None:
    names = {name.rsplit(".", 2)[-2] for name, _ in PUBLIC}
    assert {"network", "cluster", "node_groups", "buckets", "storage"} <= names


@pytest.mark.parametrize(("name", "obj"), PUBLIC, ids=[name for name, _ in PUBLIC])
def test_public_item_has_docstring(name: str, obj: object) -> None:
    assert inspect.getdoc(obj) and obj.__doc__, f"{name} has no docstring"


def _undocumented_parameters(function: object) -> list[str]:
    signature = inspect.signature(function)
    return [p.name for p in signature.parameters.values()
            if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            and p.annotation is inspect.Parameter.empty]


CLASSES_WITH_INIT = [(n, o) for n, o in PUBLIC if inspect.isclass(o) and "__init__" in vars(o)]
FUNCTIONS = [(n, o) for n, o in PUBLIC if inspect.isfunction(o)]


@pytest.mark.parametrize(("name", "obj"), CLASSES_WITH_INIT, ids=[n for n, _ in CLASSES_WITH_INIT])
def test_init_has_type_hints(name: str, obj: type) -> None:
    init = vars(obj)["__init__"]
    assert _undocumented_parameters(init) == [], f"{name}.__init__ lacks type hints"
    assert "return" in init.__annotations__, f"{name}.__init__ lacks its return annotation (-> None)"


@pytest.mark.parametrize(("name", "obj"), FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_function_has_type_hints(name: str, obj: object) -> None:
    assert _undocumented_parameters(obj) == [], f"{name} lacks parameter type hints"
    assert "return" in obj.__annotations__, f"{name} lacks a return annotation"


L3_CONSTRUCTS = [(n, o) for n, o in PUBLIC if inspect.isclass(o) and issubclass(o, Construct)]


def test_there_are_l3_constructs() -> None:
    assert {n.rsplit(".", 1)[-1] for n, _ in L3_CONSTRUCTS} >= {
        "TrainingNetwork", "TrainingCluster", "AcceleratedNodeGroup", "TrainingBuckets", "LustreStorage"}


@pytest.mark.parametrize(("name", "obj"), L3_CONSTRUCTS, ids=[n for n, _ in L3_CONSTRUCTS])
def test_l3_construct_takes_scope_id_then_keyword_only_props(name: str, obj: type) -> None:
    params = list(inspect.signature(obj.__init__).parameters.values())[1:]
    assert [p.name for p in params[:2]] == ["scope", "id"], f"{name}: first parameters must be (scope, id)"
    assert all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params[:2])
    loose = [p.name for p in params[2:] if p.kind is not p.KEYWORD_ONLY]
    assert loose == [], f"{name}: props {loose} must be keyword-only (after *)"


def test_config_reference_is_up_to_date() -> None:
    committed = REPO / "docs" / "config-reference.md"
    assert committed.is_file(), "docs/config-reference.md is missing: run python -m eks_training.infra.tools.config_reference"
    assert committed.read_text() == render_reference(), (
        "docs/config-reference.md is stale: run python -m eks_training.infra.tools.config_reference")


def test_config_reference_covers_nested_models() -> None:
    text = render_reference()
    for heading in ("## PlatformConfig", "## NodeGroupConfig", "## FsxConfig", "## DataRepositoryAssociationConfig",
                    "## GitOpsConfig"):
        assert heading in text
    assert "| `storage_capacity_gib` | integer | `1200` | >= 1 |" in text
    assert "| `file_system_path` | string | **required** |" in text


def test_type_names_read_well() -> None:
    from typing import Annotated, Literal

    assert type_name(tuple[int, ...]) == "list of integer"
    assert type_name(Annotated[int, "x"] | None) == "integer or null"
    assert type_name(Literal["a", "b"]) == 'one of `"a"`, `"b"`'
