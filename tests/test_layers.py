"""The layers stay visible: core <- constructs / workloads <- infra (composition) <- infra/tools, and addons (the
add-ons' public import path) on top; training imports no CDK and none of the others.

Read from the source with `ast` (every import statement, at module level or inside a function), so an import that
breaks the direction fails here whatever the runtime path.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
#: Which of our packages each layer may import (besides itself).
ALLOWED = {
    "core": set(),
    "constructs": {"core"},
    "workloads": {"core"},
    "training": {"core"},
    "infra": {"core", "constructs", "workloads", "training"},
    # The add-ons' public name (eks_training.addons): a facade over infra's add-on modules, which never import it.
    "addons": {"core", "constructs", "workloads", "infra"},
}
#: Third-party roots a layer must never import.
FORBIDDEN_LIBRARIES = {
    "core": {"aws_cdk", "cdk8s", "cdk8s_plus_28", "constructs", "jsii", "torch"},
    "training": {"aws_cdk", "cdk8s", "cdk8s_plus_28", "constructs", "jsii"},
    "workloads": {"aws_cdk"},
}


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


#: `cdk8s import` output (`make imports`): packages below workloads/imports/, generated, 13 MB that AST parsing would
#: take tens of seconds over. They are checked by text below instead: they import nothing of ours.
GENERATED = REPO / "workloads" / "imports"


def _generated(path: Path) -> bool:
    return path.is_relative_to(GENERATED) and path.parent != GENERATED


def _modules(layer: str) -> list[Path]:
    return sorted(p for p in (REPO / layer).rglob("*.py") if "__pycache__" not in p.parts and not _generated(p))


def test_generated_classes_import_nothing_of_ours():
    generated = [p for p in GENERATED.rglob("*.py") if _generated(p)]
    assert generated, "no generated packages under workloads/imports: run make imports"
    assert [str(p.relative_to(REPO)) for p in generated if "eks_training" in p.read_text()] == []


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_point_down(layer):
    wrong = []
    for path in _modules(layer):
        for name in _imports(path):
            parts = name.split(".")
            if parts[0] == "eks_training" and len(parts) > 1 and parts[1] != layer and parts[1] not in ALLOWED[layer]:
                wrong.append(f"{path.relative_to(REPO)} imports {name}")
            if parts[0] in FORBIDDEN_LIBRARIES.get(layer, ()):
                wrong.append(f"{path.relative_to(REPO)} imports {name}")
    assert wrong == []


def test_the_rule_catches_an_upward_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from eks_training.infra.config import PlatformConfig\n")
    assert "eks_training.infra.config" in _imports(bad)


def test_infra_composition_never_imports_its_tools():
    # infra/ composes the app (config, stack, add-ons); infra/tools/ holds the commands around it, which read the
    # composition. The other way round, synthesizing would pull in the check, the planner or the CLI.
    tools = REPO / "infra" / "tools"
    assert tools.is_dir()
    composition = [p for p in _modules("infra") if not p.is_relative_to(tools)]
    assert any(p.name == "platform_stack.py" for p in composition)
    wrong = [f"{p.relative_to(REPO)} imports {name}" for p in composition for name in _imports(p)
             if name.startswith("eks_training.infra.tools")]
    assert wrong == []
