"""The FSx contract every pod that uses FSx must meet, checked the same way for jobs, Ray, Slurm and notebooks."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

#: (claim, where pods see it, read-only): the shared data read-only, the namespace's own workspace read-write.
EXPECTED = {"fsx-data": ("/fsx/data", True), "fsx-workspace": ("/fsx/workspace", False)}


def _items(values: Iterable[dict] | Mapping[str, dict]) -> list[dict]:
    return list(values.values()) if isinstance(values, Mapping) else list(values)


def assert_namespace_fsx(volumes: Iterable[dict] | Mapping[str, dict], mounts: Iterable[dict] | Mapping[str, dict],
                         *, workspace_sub_path: str | None = None) -> None:
    """The pod mounts exactly the namespace's two FSx claims, where and how the platform promises.

    ``workspace_sub_path``: the workspace is mounted as that folder of the claim (a notebook's own folder), and
    nowhere whole."""
    by_name = {v["name"]: v for v in _items(volumes)}
    claims = {}
    for mount in _items(mounts):
        claim = (by_name[mount["name"]].get("persistentVolumeClaim") or {}).get("claimName")  # KeyError: no such volume
        if claim == "fsx-workspace" and workspace_sub_path is not None:
            assert mount.get("subPath") == workspace_sub_path, mount
        elif mount.get("subPath"):
            continue  # a further view into a claim (e.g. a cache folder of the workspace), not the claim's own mount
        if claim is not None and claim.startswith("fsx"):
            claims[claim] = (mount["mountPath"], bool(mount.get("readOnly")),
                             bool(by_name[mount["name"]]["persistentVolumeClaim"].get("readOnly")))
    assert {claim: (path, ro) for claim, (path, ro, _) in claims.items()} == EXPECTED
    assert claims["fsx-data"][2] is True, "the data claim must be read-only in the pod's volume too"
