"""Controller IAM policies compared with their upstream reference, action by action and condition by condition.

A difference is any action the reference grants that we do not (missing), any action we grant that it does not
(extra rights), or any condition set that differs for an action (looser when we drop a condition, tighter when we
add one: both change what the controller can do). Each difference fails unless :data:`ACCEPTED_DIFFERENCES` names
it with a written reason.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

#: (policy, action) -> why we differ from the reference on purpose. Empty: ours mirrors Karpenter 1.14's reference.
ACCEPTED_DIFFERENCES: dict[tuple[str, str], str] = {}

Conditions = frozenset  # of (operator, key, tuple of values)


@dataclass(frozen=True)
class PolicyDifference:
    action: str
    message: str


class _CfnLoader(yaml.SafeLoader):
    """YAML that reads CloudFormation short-form tags (!Sub, !Ref, !GetAtt ...) as their plain value."""


_CfnLoader.add_multi_constructor("!", lambda loader, suffix, node: (
    loader.construct_scalar(node) if isinstance(node, yaml.ScalarNode)
    else loader.construct_sequence(node) if isinstance(node, yaml.SequenceNode) else loader.construct_mapping(node)))


def reference_statements(path: Path) -> list[dict[str, Any]]:
    """Every statement of the controller's managed policies in an upstream CloudFormation reference."""
    template = yaml.load(path.read_text(), Loader=_CfnLoader)
    statements = []
    for resource in template["Resources"].values():
        if resource.get("Type") != "AWS::IAM::ManagedPolicy":
            continue
        document = resource["Properties"]["PolicyDocument"]
        document = json.loads(document) if isinstance(document, str) else document
        statements += document["Statement"]
    return statements


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def _conditions(statement: Mapping[str, Any], replace: Mapping[str, str]) -> Conditions:
    def norm(text: Any) -> str:
        text = str(text)
        for old, new in replace.items():
            text = text.replace(old, new)
        return text
    return frozenset((operator, norm(key), tuple(sorted(norm(v) for v in _as_list(values))))
                     for operator, block in (statement.get("Condition") or {}).items() for key, values in block.items())


def _by_action(statements: Iterable[Mapping[str, Any]], replace: Mapping[str, str]) -> dict[str, set[Conditions]]:
    grants: dict[str, set[Conditions]] = {}
    for statement in statements:
        if statement.get("Effect", "Allow") != "Allow":
            continue
        for action in _as_list(statement.get("Action", [])):
            grants.setdefault(action, set()).add(_conditions(statement, replace))
    return grants


def _show(conditions: Conditions) -> str:
    if not conditions:
        return "no condition"
    return "; ".join(f"{op} {key}={','.join(values)}" for op, key, values in sorted(conditions))


def compare_policies(ours: Iterable[Mapping[str, Any]], reference: Iterable[Mapping[str, Any]], *, policy: str,
                     cluster_name: str, region: str, account: str | None = None, accepted: Mapping[tuple[str, str], str] = ACCEPTED_DIFFERENCES
                     ) -> list[PolicyDifference]:
    """Differences between our statements and the reference's, less those accepted with a reason."""
    placeholders = {"cfn-token:Ref:AWS::Partition": "${AWS::Partition}", "cfn-token:Ref:AWS::AccountId": "${AWS::AccountId}",
                    "cfn-token:Ref:AWS::Region": "${AWS::Region}", cluster_name: "${ClusterName}", region: "${AWS::Region}",
                    **({account: "${AWS::AccountId}"} if account else {})}
    mine, theirs = _by_action(ours, placeholders), _by_action(reference, {})
    differences = []
    for action in sorted(set(mine) | set(theirs)):
        if (policy, action) in accepted:
            continue
        if action not in mine:
            differences.append(PolicyDifference(action, f"missing: the reference grants {action} ({_show(next(iter(theirs[action])))})"))
        elif action not in theirs:
            differences.append(PolicyDifference(action, f"extra: {action} is not in the reference"))
        else:
            for conditions in sorted(theirs[action] - mine[action], key=_show):
                differences.append(PolicyDifference(action, f"the reference grants {action} with [{_show(conditions)}]; "
                                                            f"ours with [{' | '.join(map(_show, mine[action]))}]"))
            for conditions in sorted(mine[action] - theirs[action], key=_show):
                differences.append(PolicyDifference(action, f"ours grants {action} with [{_show(conditions)}], "
                                                            f"which the reference does not"))
    return differences
