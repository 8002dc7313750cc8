"""What CloudFormation does to each resource when the deployed template is updated to a new one.

Per logical ID: created, updated in place, replaced (a create-only property changes: :mod:`.schemas`), or deleted.
Nested properties count as much as top-level ones (``cdk diff`` judges only top-level properties, so it shows
``LustreConfiguration`` changing ``DeploymentType`` as an in-place update). A replacement propagates: a resource
that names a replaced one (``Ref``, ``Fn::GetAtt``, ``${...}`` in ``Fn::Sub``) sees a new value at deploy time even
though its template text is unchanged, and is itself replaced when that value sits in one of its create-only
properties (a subnet's new CIDR replaces the subnet, then the file system and the node groups in it). An update
can also change an attribute others read: a launch template's ``LatestVersionNumber`` grows with every change of its
``LaunchTemplateData`` (a new version), which the node groups that name it pick up.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from eks_training.infra.tools.check.change.schemas import ReplacingProperty, ResourceSchemas
from eks_training.infra.tools.check.snapshot import references

#: Attributes that change when their resource is updated in place, by the property whose change makes them move.
#: AWS::EC2::LaunchTemplate: each change of LaunchTemplateData creates a new version (CloudFormation's return values
#: of AWS::EC2::LaunchTemplate: LatestVersionNumber).
ATTRIBUTES_MOVED_BY_UPDATE = {("AWS::EC2::LaunchTemplate", "LatestVersionNumber"): "LaunchTemplateData"}
#: Resource attributes (outside Properties) whose change is an update CloudFormation records.
POLICIES = ("DeletionPolicy", "UpdateReplacePolicy")
_MISSING = "<unset>"
#: Marks a value that is new at deploy time although its template text is unchanged.
_NEW = "__changes_at_deploy__"


@dataclass(frozen=True)
class ResourceChange:
    """What happens to one logical ID."""

    logical_id: str
    type: str
    #: "create" | "update" | "replace" | "delete"
    action: str
    old: Mapping[str, Any] | None = None
    new: Mapping[str, Any] | None = None
    #: update: the properties (top-level names, policies) that change.
    changed: tuple[str, ...] = ()
    #: replace: the create-only properties whose value changes.
    because: tuple[ReplacingProperty, ...] = ()
    #: replace: replaced resources whose new identity flows into those properties.
    through: tuple[str, ...] = ()
    #: replace: every property forcing it is conditional (CloudFormation may update in place).
    conditional: bool = False
    #: replace: identity properties the new resource keeps (a custom name): the replacement collides with itself.
    collides: tuple[tuple[str, str], ...] = ()
    #: The type changed under the same logical ID.
    type_changed: bool = False


@dataclass(frozen=True)
class Move:
    """A resource removed under one logical ID and added under another with the same identity (name, key)."""

    old_id: str
    new_id: str
    type: str
    identity: tuple[tuple[str, str], ...]


@dataclass
class TemplateDiff:
    changes: dict[str, ResourceChange] = field(default_factory=dict)
    moves: list[Move] = field(default_factory=list)
    #: Types no schema knows (custom resources other than the EKS handlers'): their replacement is not predicted.
    unknown_types: set[str] = field(default_factory=set)

    def of(self, action: str) -> list[ResourceChange]:
        return [c for c in self.changes.values() if c.action == action]

    @property
    def replaced(self) -> set[str]:
        return {c.logical_id for c in self.changes.values() if c.action == "replace"}

    def moved_attributes(self) -> set[tuple[str, str]]:
        """(logical ID, attribute) pairs whose value changes at deploy without a replacement."""
        moved = set()
        for change in self.of("update"):
            for (type_, attribute), prop in ATTRIBUTES_MOVED_BY_UPDATE.items():
                if change.type == type_ and prop in change.changed:
                    moved.add((change.logical_id, attribute))
        return moved


def diff_templates(old: Mapping[str, Any], new: Mapping[str, Any], schemas: ResourceSchemas) -> TemplateDiff:
    """What CloudFormation does to every resource of ``old`` and ``new`` (two templates of one stack)."""
    old_resources, new_resources = old.get("Resources") or {}, new.get("Resources") or {}
    diff = TemplateDiff()
    common = sorted(set(old_resources) & set(new_resources))
    replaced: dict[str, ResourceChange] = {}
    moved_attributes: set[tuple[str, str]] = set()
    while True:  # to a fixpoint: each replacement may replace what names it
        grown = False
        for lid in common:
            if lid in replaced:
                continue
            change = _replacement(lid, old_resources[lid], new_resources[lid], schemas, set(replaced), moved_attributes,
                                  diff)
            if change is not None:
                replaced[lid] = change
                grown = True
        updates = {lid: _update(lid, old_resources[lid], new_resources[lid], set(replaced), moved_attributes)
                   for lid in common if lid not in replaced}
        diff.changes = {**{lid: c for lid, c in updates.items() if c is not None}, **replaced}
        moved = diff.moved_attributes()
        if not grown and moved <= moved_attributes:
            break
        moved_attributes |= moved
    for lid in sorted(set(old_resources) - set(new_resources)):
        diff.changes[lid] = ResourceChange(lid, old_resources[lid].get("Type", ""), "delete", old=old_resources[lid])
    for lid in sorted(set(new_resources) - set(old_resources)):
        diff.changes[lid] = ResourceChange(lid, new_resources[lid].get("Type", ""), "create", new=new_resources[lid])
    diff.moves = _moves(diff, schemas)
    return diff


def _replacement(lid: str, old: Mapping[str, Any], new: Mapping[str, Any], schemas: ResourceSchemas,
                 replaced: set[str], moved_attributes: set[tuple[str, str]], diff: TemplateDiff) -> ResourceChange | None:
    type_ = new.get("Type", "")
    if old.get("Type") != type_:
        return ResourceChange(lid, type_, "replace", old=old, new=new, type_changed=True)
    facts = schemas.facts(type_)
    if facts is None:
        if not type_.startswith("Custom::") and schemas.available:
            diff.unknown_types.add(type_)
        return None
    old_props = old.get("Properties") or {}
    new_props = marked(new.get("Properties") or {}, replaced, moved_attributes)
    because, through = [], set()
    for prop in facts.replacing:
        before, after = values_at(old_props, prop.path), values_at(new_props, prop.path)
        if _canonical(before) != _canonical(after):
            because.append(prop)
            through |= _new_references(after)
    if not because:
        return None
    collides = []
    for name in facts.identity:
        before, after = values_at(old_props, (name,)), values_at(new_props, (name,))
        if before != [_MISSING] and _canonical(before) == _canonical(after):
            collides.append((name, _shown(before)))
    return ResourceChange(lid, type_, "replace", old=old, new=new, because=tuple(because), through=tuple(sorted(through)),
                          conditional=all(p.conditional for p in because), collides=tuple(collides))


def _update(lid: str, old: Mapping[str, Any], new: Mapping[str, Any], replaced: set[str],
            moved_attributes: set[tuple[str, str]]) -> ResourceChange | None:
    old_props = old.get("Properties") or {}
    new_props = marked(new.get("Properties") or {}, replaced, moved_attributes)
    changed = [name for name in sorted(set(old_props) | set(new_props))
               if _canonical(old_props.get(name, _MISSING)) != _canonical(new_props.get(name, _MISSING))]
    changed += [policy for policy in POLICIES if old.get(policy) != new.get(policy)]
    if not changed:
        return None
    return ResourceChange(lid, new.get("Type", ""), "update", old=old, new=new, changed=tuple(changed))


def _moves(diff: TemplateDiff, schemas: ResourceSchemas) -> list[Move]:
    """Deleted and created resources of one type that share their identity: the same name under a new logical ID."""
    moves = []
    created = diff.of("create")
    for gone in diff.of("delete"):
        facts = schemas.facts(gone.type)
        if facts is None or not facts.identity:
            continue
        before = [values_at(gone.old.get("Properties") or {}, (name,)) for name in facts.identity]
        if any(value == [_MISSING] for value in before):
            continue  # CloudFormation names it: no collision
        for made in created:
            after = [values_at(made.new.get("Properties") or {}, (name,)) for name in facts.identity]
            if made.type == gone.type and _canonical(before) == _canonical(after):
                moves.append(Move(gone.logical_id, made.logical_id, gone.type,
                                  tuple((name, _shown(value)) for name, value in zip(facts.identity, before))))
    return moves


# --- values -----------------------------------------------------------------------------------------------------


def marked(value: Any, replaced: set[str], moved_attributes: set[tuple[str, str]] = frozenset()) -> Any:
    """``value`` with every reference whose value changes at deploy time (to a replaced resource, or to an attribute
    an update moves) wrapped, so that it compares unequal to the same text in the deployed template."""
    if isinstance(value, dict):
        if "Ref" in value and isinstance(value["Ref"], str) and value["Ref"] in replaced:
            return {_NEW: value}
        if "Fn::GetAtt" in value:
            target = value["Fn::GetAtt"]
            resource, attribute = target if isinstance(target, list) else str(target).split(".", 1)
            if resource in replaced or (resource, attribute) in moved_attributes:
                return {_NEW: value}
        if "Fn::Sub" in value and set(references(value)) & replaced:
            return {_NEW: value}
        return {key: marked(item, replaced, moved_attributes) for key, item in value.items()}
    if isinstance(value, list):
        return [marked(item, replaced, moved_attributes) for item in value]
    return value


def values_at(props: Any, path: tuple[str, ...]) -> list[Any]:
    """The values at ``path`` (``*``: every item of a list; a list met by a name is walked item by item)."""
    if not path:
        return [props]
    head, rest = path[0], path[1:]
    if isinstance(props, dict) and _NEW in props and len(props) == 1:
        return [props]  # a value replaced whole at deploy: everything below it changes
    if isinstance(props, list):
        if head == "*":
            return [found for item in props for found in values_at(item, rest)] or [[]]
        return [found for item in props for found in values_at(item, path)] or [[]]
    if isinstance(props, dict):
        return values_at(props[head], rest) if head in props else [_MISSING]
    return [_MISSING]


def _new_references(values: list[Any]) -> set[str]:
    found: set[str] = set()
    for value in values:
        for wrapped in _wrapped(value):
            found |= set(references(wrapped))
    return found


def _wrapped(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        if _NEW in value:
            yield value[_NEW]
            return
        for item in value.values():
            yield from _wrapped(item)
    elif isinstance(value, list):
        for item in value:
            yield from _wrapped(item)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _shown(values: list[Any]) -> str:
    value = values[0] if len(values) == 1 else values
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and "Ref" in value:
        return f"Ref {value['Ref']}"
    return json.dumps(value, sort_keys=True)[:80]
