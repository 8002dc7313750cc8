"""What changed in the environment file between releases, so that a file written for an older release either loads
(a renamed key is read under its new name) or is refused in one line that names the change and what to write now,
instead of "unknown key", or a refusal of a value the file never wrote (a default that changed).

Each change is found by the file's content (files of 0.1.0 state no ``schema_version``); a file that states a
``schema_version`` newer than this release reads is refused (upgrade eks-training).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from eks_training.core.version import CONFIG_SCHEMA_VERSION, __version__

__all__ = ["CONFIG_CHANGES", "ConfigChange", "ConfigChangeError", "explain_refusal", "upgrade_config"]


class ConfigChangeError(ValueError):
    """A file written for another release that this one cannot read; one line."""


@dataclass(frozen=True)
class ConfigChange:
    """One change of the environment file's format.

    ``kind``: ``renamed`` (``path`` is read as ``renamed_to``: the file loads), ``removed`` (a file that sets
    ``path`` is refused) or ``default`` (the default changed, or a key became required: a file that does not set
    ``path`` and is refused over it gets the change named, see :func:`explain_refusal`).
    """

    schema_version: int
    release: str
    kind: str
    path: tuple[str, ...]
    what: str
    renamed_to: tuple[str, ...] | None = None

    @property
    def field(self) -> str:
        return ".".join(self.path)


#: Every change since the first release, oldest first.
CONFIG_CHANGES: tuple[ConfigChange, ...] = (
    ConfigChange(2, "0.2.0", "removed", ("network", "existing_vpc_id"),
                 "nothing read it (the platform always creates its own VPC): delete the key"),
    ConfigChange(2, "0.2.0", "default", ("kubernetes_version",),
                 "0.1.0 defaulted it to \"1.33\", the version a cluster it created runs"),
    ConfigChange(2, "0.2.0", "default", ("network", "restrict_egress"),
                 "0.1.0 left pods' egress open; it is now limited to the VPC's endpoints by default: set "
                 "vpc_endpoints: true, or restrict_egress: false for 0.1.0's behaviour"),
    ConfigChange(2, "0.2.0", "default", ("cluster", "public_access_cidrs"),
                 "0.1.0 opened a public endpoint to every address; now you name the networks it admits"),
    ConfigChange(2, "0.2.0", "default", ("cluster", "admin_role_arns"),
                 "0.1.0 admitted only the identity that deployed; access entries for these roles are now the way in"),
)


def _parent(data: dict[str, Any], path: tuple[str, ...], *, create: bool = False) -> dict[str, Any] | None:
    """The mapping that holds ``path[-1]``, or None where the file has no such section."""
    node: Any = data
    for part in path[:-1]:
        if not isinstance(node, dict):
            return None
        if part not in node and create:
            node[part] = {}
        node = node.get(part)
    return node if isinstance(node, dict) else None


def upgrade_config(data: dict[str, Any], changes: tuple[ConfigChange, ...] = CONFIG_CHANGES) -> dict[str, Any]:
    """``data`` (a parsed environment file) in this release's format, without ``schema_version``; a one-line
    :class:`ConfigChangeError` that names the change where it cannot be read."""
    data = copy.deepcopy(data)
    stated = data.pop("schema_version", None)
    if stated is not None:
        if isinstance(stated, bool) or not isinstance(stated, int) or stated < 1:
            raise ConfigChangeError(f"schema_version={stated!r} is not allowed: use a whole number from 1 to "
                                    f"{CONFIG_SCHEMA_VERSION} (the file format this release, {__version__}, reads)")
        if stated > CONFIG_SCHEMA_VERSION:
            raise ConfigChangeError(f"schema_version={stated} is not allowed: this release of eks-training "
                                    f"({__version__}) reads up to {CONFIG_SCHEMA_VERSION}; upgrade eks-training to "
                                    "read this file")
    for change in changes:
        if change.kind == "renamed" and stated is not None and stated >= change.schema_version:
            continue  # written for a release that already had this change: nothing to translate
        parent = _parent(data, change.path)
        key = change.path[-1]
        present = parent is not None and key in parent
        if change.kind == "removed" and present:
            raise ConfigChangeError(f"{change.field}: removed in eks-training {change.release}: {change.what}")
        if change.kind == "renamed" and present:
            assert change.renamed_to is not None and parent is not None
            value = parent.pop(key)
            target = _parent(data, change.renamed_to, create=True)
            new_key = change.renamed_to[-1]
            if target is None or new_key in target:
                raise ConfigChangeError(f"{change.field}: renamed to {'.'.join(change.renamed_to)} in eks-training "
                                        f"{change.release}: give it once, under the new name")
            target[new_key] = value
    return data



def explain_refusal(data: Any, line: str, changes: tuple[ConfigChange, ...] = CONFIG_CHANGES) -> str:
    """``line`` (the refusal of ``data``, the file as written) with the change that explains it, where it is about a
    key whose default changed and that ``data`` does not set, unless the file states a ``schema_version`` that has
    the change: an older file's author never wrote the value refused."""
    stated = data.get("schema_version") if isinstance(data, dict) else None
    for change in changes:
        if change.kind != "default" or not any(f"{change.field}{mark}" in line for mark in ("=", ":")):
            continue
        if isinstance(stated, int) and stated >= change.schema_version:
            continue
        parent = _parent(data, change.path) if isinstance(data, dict) else None
        if parent is None or change.path[-1] not in parent:
            return f"{line} (changed in eks-training {change.release}: {change.what})"
    return line
