"""One predicted change: what happens to which resource or Kubernetes object, and whether it destroys something.

Each finding has a stable ID, ``<verb>:<subject>`` (``replace:LustreFileSystem4AFDAE78``,
``prune:Namespace/slurm``, ``orphan:NodePool/gpu-a100``), made only of what it is about: the same change gets the
same ID in every run, so an acknowledgement names exactly the changes a person read, and a later, different change
to the same resource (another verb) is not covered by it.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Verbs in the order the report lists them (the most destructive first).
VERBS = ("replace", "delete", "prune", "orphan", "fail", "stale", "roll", "drift", "skew", "retain", "move", "update",
         "create")


@dataclass(frozen=True)
class Change:
    """One thing a deploy would do.

    ``verb``: replace | delete | prune | orphan | fail | stale (a CRD Helm leaves at its old definition) | roll |
    drift | skew (a version left behind the control plane) | retain | move | update | create.
    ``subject``: the logical ID of a resource, or ``Kind/namespace/name`` (``Kind/name`` when cluster-scoped) of a
    Kubernetes object. ``destructive``: it loses data, running jobs, access or the cluster, or the deploy fails: the
    check fails unless the change is acknowledged.
    """

    verb: str
    subject: str
    message: str
    destructive: bool = False

    @property
    def id(self) -> str:
        return f"{self.verb}:{self.subject}"

    def __str__(self) -> str:
        return f"[{self.id}] {self.message}"


def sort_key(change: Change) -> tuple[int, int, str]:
    verb = VERBS.index(change.verb) if change.verb in VERBS else len(VERBS)
    return (0 if change.destructive else 1, verb, change.subject)
