"""Kubernetes scheduling semantics, exactly as the scheduler applies them, on plain dicts.

A node is ``labels`` + ``taints`` + ``allocatable``; a pod is its PodSpec. What the scheduler checks before a pod
binds, and what this module checks the same way:

* ``nodeSelector``: every key present with the same value.
* required node affinity (``requiredDuringSchedulingIgnoredDuringExecution``): the terms are ORed, the
  expressions of one term ANDed; operators In, NotIn, Exists, DoesNotExist, Gt, Lt (``matchFields`` only on
  ``metadata.name``, which a node source cannot know: such a term never matches here).
* taints: every ``NoSchedule`` and ``NoExecute`` taint must be tolerated (``PreferNoSchedule`` never blocks).
  A toleration matches a taint when its key is empty with ``Exists`` (everything) or equals the taint key, its
  effect is empty or equal, and with ``Equal`` (the default operator) its value equals the taint's value; an
  absent value is the empty string.
* resources: the pod's request per resource is the larger of the sum of its containers' requests and the largest
  init container's request (limits stand in for requests where a container sets only limits, as the API server
  defaults them), and it must fit the node's allocatable. An extended resource the node does not advertise is 0.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"), "": Decimal(1), "k": Decimal(10**3),
            "M": Decimal(10**6), "G": Decimal(10**9), "T": Decimal(10**12), "P": Decimal(10**15), "E": Decimal(10**18)}


_QUANTITY = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)([A-Za-z]{0,2})$")


def quantity(value: Any) -> Decimal:
    """A Kubernetes quantity ("500m", "16Gi", 8, "1e3") as a number; ValueError with the text when it is not one."""
    match = _QUANTITY.match(str(value).strip())
    suffix = match.group(2) if match else None
    if match is None or (suffix not in _BINARY and suffix not in _DECIMAL):
        raise ValueError(f"{value!r} is not a Kubernetes quantity")
    return Decimal(match.group(1)) * _BINARY.get(suffix, _DECIMAL.get(suffix, 1))


def toleration_matches(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """Whether one toleration tolerates one taint (the scheduler's ``ToleratesTaint``)."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    operator = toleration.get("operator") or "Equal"
    if not key:
        return operator == "Exists"
    if key != taint.get("key"):
        return False
    if operator == "Exists":
        return True
    return (toleration.get("value") or "") == (taint.get("value") or "")


def untolerated_taints(tolerations: Iterable[Mapping[str, Any]], taints: Iterable[Mapping[str, Any]]) -> list[dict]:
    """The blocking taints of a node that no toleration of the pod tolerates."""
    tolerations = list(tolerations or ())
    return [dict(t) for t in taints or () if t.get("effect") in BLOCKING_EFFECTS
            and not any(toleration_matches(tol, t) for tol in tolerations)]


def _expression_matches(expression: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    key, operator, values = expression.get("key"), expression.get("operator"), list(expression.get("values") or ())
    present = key in labels
    if operator == "In":
        return present and labels[key] in values
    if operator == "NotIn":
        return not present or labels[key] not in values
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt"):
        try:
            have, want = int(labels[key]), int(values[0])
        except (KeyError, ValueError, IndexError):
            return False
        return have > want if operator == "Gt" else have < want
    return False


def required_affinity_terms(pod_spec: Mapping[str, Any]) -> list[dict] | None:
    """The pod's required node-affinity terms, or None when it has none (then any node passes)."""
    required = (((pod_spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    terms = required.get("nodeSelectorTerms")
    return list(terms) if terms else None


def selector_mismatches(pod_spec: Mapping[str, Any], labels: Mapping[str, str]) -> list[str]:
    """Why the node's labels fail the pod's nodeSelector and required affinity; empty when they pass."""
    problems = [f"nodeSelector {key}={value} (node has {labels.get(key, 'no such label')})"
                for key, value in (pod_spec.get("nodeSelector") or {}).items() if labels.get(key) != value]
    terms = required_affinity_terms(pod_spec)
    if terms is not None:
        def term_matches(term: Mapping[str, Any]) -> bool:
            if term.get("matchFields"):
                return False
            expressions = term.get("matchExpressions") or []
            return bool(expressions) and all(_expression_matches(e, labels) for e in expressions)
        if not any(term_matches(t) for t in terms):
            wanted = " or ".join(" and ".join(f"{e.get('key')} {e.get('operator')} {','.join(map(str, e.get('values') or []))}".strip()
                                              for e in t.get("matchExpressions") or []) or "matchFields" for t in terms)
            problems.append(f"required node affinity ({wanted})")
    return problems


def pod_requests(pod_spec: Mapping[str, Any]) -> dict[str, Decimal]:
    """The pod's effective request per resource (containers summed; the largest init container if larger)."""
    def of(container: Mapping[str, Any]) -> dict[str, Decimal]:
        resources = container.get("resources") or {}
        merged = {**(resources.get("limits") or {}), **(resources.get("requests") or {})}
        return {name: quantity(value) for name, value in merged.items()}

    total: dict[str, Decimal] = {}
    for container in pod_spec.get("containers") or ():
        for name, amount in of(container).items():
            total[name] = total.get(name, Decimal(0)) + amount
    for container in pod_spec.get("initContainers") or ():
        for name, amount in of(container).items():
            total[name] = max(total.get(name, Decimal(0)), amount)
    return total


@dataclass(frozen=True)
class Shortfall:
    """One resource the pod asks for beyond what the node offers."""

    resource: str
    requested: Decimal
    allocatable: Decimal

    def __str__(self) -> str:
        return f"{self.resource} {_show(self.resource, self.requested)} > {_show(self.resource, self.allocatable)}"


def _show(resource: str, amount: Decimal) -> str:
    if resource in ("memory", "ephemeral-storage"):
        return f"{amount / 2**30:.1f}Gi"
    return format(amount.normalize(), "f")


def shortfalls(requests: Mapping[str, Decimal], allocatable: Mapping[str, Decimal]) -> list[Shortfall]:
    """Resources the pod requests beyond the node's allocatable (a resource the node lacks counts as 0)."""
    return [Shortfall(name, amount, allocatable.get(name, Decimal(0))) for name, amount in sorted(requests.items())
            if amount > allocatable.get(name, Decimal(0))]


def why_not(pod_spec: Mapping[str, Any], *, labels: Mapping[str, str], taints: Iterable[Mapping[str, Any]],
            allocatable: Mapping[str, Decimal]) -> list[str]:
    """Every reason the pod cannot bind to such a node; empty when it can."""
    reasons = selector_mismatches(pod_spec, labels)
    reasons += [f"taint {t['key']}{'=' + t['value'] if t.get('value') else ''}:{t['effect']} not tolerated"
                for t in untolerated_taints(pod_spec.get("tolerations") or (), taints)]
    reasons += [str(s) for s in shortfalls(pod_requests(pod_spec), allocatable)]
    return reasons
