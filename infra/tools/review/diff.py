"""What changes in the cluster between two review folders (``cdk.out/manifests/<env>/`` of two synths), object by
object: the Kubernetes objects the stack applies, by kind, namespace and name, and the Helm releases it installs,
each with the fields that changed, where ``cdk diff`` shows a manifest as two one-line JSON strings.

``eks-training review-diff OLD NEW`` (or ``make review-diff OLD=... NEW=...``) prints it; keep the review folder of
what is deployed (``cp -R cdk.out/manifests/prod deployed-review``) and compare the next synth's with it.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from eks_training.infra.tools.review.render import ReviewError

__all__ = ["ObjectChange", "ReviewDiff", "add_arguments", "diff_reviews", "format_diff", "read_review", "run"]

#: The Helm releases' file in a review folder; every other *.yaml there (argocd/ included) holds Kubernetes objects.
HELM_FILE = "helm-releases.yaml"
#: The label aws-cdk-lib's kubectl handler marks each object with for pruning: its key carries a hash of the
#: manifest's construct path, so it is compared as one label (``aws.cdk.eks/prune``) whose value is that hash.
PRUNE_LABEL = "aws.cdk.eks/prune"
#: A value longer than this is shown cut, with its length.
_SHOWN = 100


@dataclass(frozen=True)
class ObjectChange:
    """One object (``Kind/namespace/name``, ``-`` for a cluster-scoped one) added, removed or changed, with the
    changed fields as (path, old, new); ``file`` is the review file that holds it (the new one's, if both)."""

    status: str
    key: str
    file: str
    fields: tuple[tuple[str, Any, Any], ...] = ()


@dataclass
class ReviewDiff:
    changes: list[ObjectChange] = field(default_factory=list)
    unchanged: int = 0

    def count(self, status: str) -> int:
        return sum(change.status == status for change in self.changes)


def _object_key(obj: dict[str, Any]) -> str:
    metadata = obj.get("metadata") or {}
    return f"{obj.get('kind')}/{metadata.get('namespace') or '-'}/{metadata.get('name')}"


def read_review(folder: Path) -> dict[str, tuple[str, Any]]:
    """Every object of a review folder: ``Kind/namespace/name`` (Helm releases: ``HelmRelease/namespace/release``)
    -> (the file that holds it, the object); a ReviewError when ``folder`` holds no review."""
    if not folder.is_dir() or not (folder / HELM_FILE).is_file():
        raise ReviewError(f"review-diff: {str(folder)!r} is not a review folder (cdk.out/manifests/<env>/, written by "
                          "make synth or python -m eks_training.infra.tools.review)")
    objects: dict[str, tuple[str, Any]] = {}
    for path in sorted(folder.rglob("*.yaml")):
        name = path.relative_to(folder).as_posix()
        try:
            documents = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
        except yaml.YAMLError as err:
            raise ReviewError(f"review-diff: {path} is not YAML: {str(err).splitlines()[0]}") from None
        if name == HELM_FILE:
            for release in (documents[0] or {}).get("releases", []):
                objects[f"HelmRelease/{release.get('namespace') or '-'}/{release.get('release')}"] = (name, release)
            continue
        for obj in documents:
            if isinstance(obj, dict) and obj.get("kind"):
                objects[_object_key(obj)] = (name, _prune_label_as_value(obj))
    return objects


def _prune_label_as_value(obj: dict[str, Any]) -> dict[str, Any]:
    labels = (obj.get("metadata") or {}).get("labels")
    if not isinstance(labels, dict) or not any(key.startswith(PRUNE_LABEL + "-") for key in labels):
        return obj
    folded = {key: value for key, value in labels.items() if not key.startswith(PRUNE_LABEL + "-")}
    folded[PRUNE_LABEL] = ",".join(sorted(key.removeprefix(PRUNE_LABEL + "-") for key in labels
                                          if key.startswith(PRUNE_LABEL + "-")))
    return {**obj, "metadata": {**obj["metadata"], "labels": folded}}


def _named(items: list[Any]) -> dict[str, Any] | None:
    """A list of mappings that each have a distinct ``name`` (containers, env, volumes, ports) by name, else None."""
    if not all(isinstance(item, dict) and isinstance(item.get("name"), str) for item in items):
        return None
    names = [item["name"] for item in items]
    return dict(zip(names, items)) if len(set(names)) == len(names) else None


def _changed_fields(old: Any, new: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """(path, old, new) of every leaf that differs; a missing side is None. Lists of named mappings are matched by
    name (``containers[name=trainer]``), other lists of the same length item by item, others as a whole."""
    if old == new:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        found = []
        for key in [*old, *(k for k in new if k not in old)]:
            found += _changed_fields(old.get(key), new.get(key), f"{path}.{key}" if path else str(key))
        return found
    if isinstance(old, list) and isinstance(new, list):
        old_named, new_named = _named(old), _named(new)
        if old_named is not None and new_named is not None and old and new:
            found = []
            for name in [*old_named, *(n for n in new_named if n not in old_named)]:
                found += _changed_fields(old_named.get(name), new_named.get(name), f"{path}[name={name}]")
            return found
        if len(old) == len(new):
            found = []
            for index, (a, b) in enumerate(zip(old, new)):
                found += _changed_fields(a, b, f"{path}[{index}]")
            return found
    return [(path, old, new)]


def diff_reviews(old: Path, new: Path) -> ReviewDiff:
    """The object-by-object difference from review folder ``old`` to ``new``."""
    before, after = read_review(old), read_review(new)
    result = ReviewDiff()
    for key in sorted(before.keys() | after.keys()):
        if key not in after:
            result.changes.append(ObjectChange("removed", key, before[key][0]))
        elif key not in before:
            result.changes.append(ObjectChange("added", key, after[key][0]))
        else:
            fields = _changed_fields(before[key][1], after[key][1])
            if fields:
                result.changes.append(ObjectChange("changed", key, after[key][0], tuple(fields)))
            else:
                result.unchanged += 1
    return result


def _text(value: Any) -> str:
    return "(none)" if value is None else value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _shown_pair(old: Any, new: Any) -> str:
    """``old -> new``; long texts cut to where they start to differ (two image URIs that differ in their tag show
    the tags), with their lengths."""
    before, after = _text(old), _text(new)
    if max(len(before), len(after)) <= _SHOWN:
        return f"{before} -> {after}"
    common = 0
    while common < min(len(before), len(after)) and before[common] == after[common]:
        common += 1
    start = max(0, common - 20)

    def cut(text: str) -> str:
        part = text[start:start + _SHOWN]
        return f"{'...' if start else ''}{part}{'...' if start + _SHOWN < len(text) else ''} ({len(text)} characters)"

    return f"{cut(before)} -> {cut(after)}"


_MARK = {"added": "+", "removed": "-", "changed": "~"}


def format_diff(diff: ReviewDiff) -> str:
    """The changes, one object a line (``+`` added, ``-`` removed, ``~`` changed, with a line per changed field),
    then the counts."""
    lines = []
    for change in diff.changes:
        lines.append(f"{_MARK[change.status]} {change.key}  ({change.file})")
        lines += [f"    {path}: {_shown_pair(old, new)}" for path, old, new in change.fields]
    counts = ", ".join(f"{diff.count(status)} {status}" for status in ("added", "removed", "changed"))
    lines.append(f"{counts}, {diff.unchanged} unchanged" if diff.changes else
                 f"no change: the same {diff.unchanged} objects")
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", type=Path, help="the review folder before (e.g. a copy of cdk.out/manifests/prod)")
    parser.add_argument("new", type=Path, help="the review folder after (cdk.out/manifests/prod of the new synth)")


def run(args: argparse.Namespace) -> int:
    """Print the difference; exit status 0 (a difference is no failure: the review is for people to read)."""
    try:
        print(format_diff(diff_reviews(args.old, args.new)))
    except ReviewError as err:
        raise ValueError(str(err)) from None
    return 0
