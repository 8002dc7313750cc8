"""Generate the configuration reference (markdown) from the pydantic models of ``infra/config.py``.

``python -m eks_training.infra.tools.config_reference --out docs/config-reference.md`` writes it; a test checks the
committed file equals a fresh rendering, so the reference never drifts from the models. Descriptions come
from each model's docstring and the ``#:`` comment above a field; constraints from the field's metadata.
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import sys
import types
import typing
from pathlib import Path
from typing import Any, Sequence

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from eks_training.core.version import CONFIG_SCHEMA_VERSION
from eks_training.infra.config import PlatformConfig

DEFAULT_OUTPUT = Path("docs/config-reference.md")
_CONSTRAINTS = {"ge": ">= {}", "gt": "> {}", "le": "<= {}", "lt": "< {}", "min_length": "at least {} long",
                "max_length": "at most {} long", "pattern": "matches `{}`"}


def _field_comments(model: type[BaseModel]) -> dict[str, str]:
    """``#:`` comments written just above each field in the model's source."""
    comments: dict[str, str] = {}
    pending: list[str] = []
    for line in inspect.getsource(model).splitlines():
        stripped = line.strip()
        if stripped.startswith("#:"):
            pending.append(stripped[2:].strip())
            continue
        match = re.match(r"^([a-z_][a-z0-9_]*)\s*:", stripped)
        if match and pending:
            comments[match.group(1)] = " ".join(pending)
        pending = []
    return comments


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


def type_name(annotation: Any) -> str:
    """A reader's name for a field type: ``list of NodeGroupConfig``, ``one of "a", "b"``, ``integer or null``."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return type_name(args[0])
    if origin is typing.Literal:
        return "one of " + ", ".join(f"`{json.dumps(a)}`" for a in args)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(type_name(a) for a in args)
    if origin is tuple:
        return f"list of {type_name(args[0])}"
    if origin is dict:
        return f"map of {type_name(args[0])} to {type_name(args[1])}"
    if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
        return f"[{annotation.__name__}](#{annotation.__name__.lower()})"
    return {str: "string", int: "integer", bool: "boolean", float: "number", type(None): "null"}.get(
        annotation, getattr(annotation, "__name__", str(annotation)))


def _constraints(field: FieldInfo) -> list[str]:
    found = []
    for item in field.metadata:
        for attr, text in _CONSTRAINTS.items():
            value = getattr(item, attr, None)
            if value is not None:
                found.append(text.format(value))
    # Constraints inside an Annotated alias of an optional type (``Annotated[int, Field(ge=1)] | None``).
    for arg in typing.get_args(field.annotation):
        if typing.get_origin(arg) is typing.Annotated:
            for meta in typing.get_args(arg)[1:]:
                found += _constraints(meta) if isinstance(meta, FieldInfo) else []
    return found


def _default(field: FieldInfo) -> str:
    if field.is_required():
        return "**required**"
    computed = (field.json_schema_extra or {}).get("computed_default") if isinstance(field.json_schema_extra, dict) else None
    if computed:
        return computed  # a default that depends on the day (documented in words, so the reference stays stable)
    value = field.default_factory() if field.default_factory is not None else field.default
    if value is PydanticUndefined:
        return ""
    if isinstance(value, BaseModel):
        return "see section" if value == type(value)() else "`" + json.dumps(value.model_dump(mode="json")) + "`"
    if isinstance(value, tuple) and value and isinstance(value[0], BaseModel):
        return "`" + json.dumps([v.model_dump(mode="json", exclude_defaults=True) for v in value]) + "`"
    return "`" + json.dumps(value if not isinstance(value, tuple) else list(value)) + "`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_reference(root: type[BaseModel] = PlatformConfig) -> str:
    """The markdown reference of ``root`` and every model it contains, in order of first use."""
    ordered: list[type[BaseModel]] = []
    queue = [root]
    while queue:
        model = queue.pop(0)
        if model in ordered:
            continue
        ordered.append(model)
        for field in model.model_fields.values():
            queue += _models_in(field.annotation)
    lines = ["# Configuration reference", "",
             "Generated from `infra/config.py` by `python -m eks_training.infra.tools.config_reference`; do not edit by hand.",
             "An environment file (`infra/environments/<name>.yaml`, or one of your own anywhere: `cdk synth -c",
             "config=FILE`, `--config FILE` on every command, `make synth CONFIG=FILE`) holds one",
             "[PlatformConfig](#platformconfig). Unknown keys are errors, and so are YAML anchors, aliases, merge keys,",
             "repeated keys and booleans other than `true`/`false`. Its `name` must be its file name (`prod.yaml` holds",
             "`name: prod`) unless `-c allow_name_mismatch=true` (or `--allow-name-mismatch`). It may state the",
             f"format it is written for, `schema_version: {CONFIG_SCHEMA_VERSION}` (this release's); a file of an older release",
             "loads, or is refused in one line naming what changed (CHANGELOG.md).", ""]
    for model in ordered:
        comments = _field_comments(model)
        summary = inspect.cleandoc(model.__doc__ or "").split("\n\n")[0].replace("\n", " ")
        lines += [f"## {model.__name__}", ""] + ([summary, ""] if summary else [])
        lines += ["| Field | Type | Default | Description |", "|---|---|---|---|"]
        for name, field in model.model_fields.items():
            description = "; ".join(filter(None, [(field.description or comments.get(name, "")).rstrip("."),
                                                  ", ".join(_constraints(field))]))
            lines.append(f"| `{name}` | {_cell(type_name(field.annotation))} | {_cell(_default(field))} | "
                         f"{_cell(description)} |")
        lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``--out FILE`` (default docs/config-reference.md)."""
    parser = argparse.ArgumentParser(prog="python -m eks_training.infra.tools.config_reference",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=DEFAULT_OUTPUT, type=Path)
    args = parser.parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_reference(), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
