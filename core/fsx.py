"""FSx for Lustre sizes and throughputs: what a file system may be, checked once for config and constructs alike.

Amazon FSx API reference (CreateFileSystem, CreateFileSystemLustreConfiguration,
CreateFileSystemLustreMetadataConfiguration): SSD storage is 1200 GiB, 2400 GiB, then steps of 2400 GiB; per-unit
throughput (MB/s/TiB) is 50/100/200 for PERSISTENT_1 and 125/250/500/1000 for PERSISTENT_2, none for SCRATCH_2;
metadata IOPS (PERSISTENT_2 only) are 1500, 3000, 6000, 12000 or a multiple of 12000 up to 192000.
"""

from __future__ import annotations

from eks_training.core.validation import invalid

# Allowed per-unit throughput (MB/s/TiB) per deployment type; None: the type takes no per-unit throughput.
#: Data repository events of the platform's two associations (core.names: FSX_DATA_DIR, FSX_WORKSPACES_DIR). The
#: data directory mirrors the data bucket, deletions included. Workspaces import and export new and changed files
#: but not deletions: the trainer prunes old checkpoints on FSx (--keep-last) and their S3 copies must stay (the
#: bucket's lifecycle expires old versions instead); a deletion in S3 does not delete a running job's files either.
DATA_IMPORT_EVENTS = ("NEW", "CHANGED", "DELETED")
WORKSPACE_IMPORT_EVENTS = ("NEW", "CHANGED")
WORKSPACE_EXPORT_EVENTS = ("NEW", "CHANGED")

_THROUGHPUTS: dict[str, tuple[int, ...] | None] = {
    "PERSISTENT_2": (125, 250, 500, 1000),
    "PERSISTENT_1": (50, 100, 200),
    "SCRATCH_2": None,
}
_DEFAULT_THROUGHPUT = {"PERSISTENT_2": 250, "PERSISTENT_1": 200}
_SSD_SMALL_SIZES = (1200, 2400)
#: The smallest FSx for Lustre SSD file system, GiB.
SMALLEST_LUSTRE_GIB = _SSD_SMALL_SIZES[0]
_SSD_STEP_GIB = 2400
_METADATA_IOPS_SMALL = (1500, 3000, 6000)
_METADATA_IOPS_STEP = 12000
_METADATA_IOPS_MAX = 192000


def is_whole_number(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_capacity(capacity_gib: object) -> int:
    valid = is_whole_number(capacity_gib) and (
        capacity_gib in _SSD_SMALL_SIZES or (capacity_gib > 0 and capacity_gib % _SSD_STEP_GIB == 0)
    )
    if not valid:
        raise invalid("capacity_gib", capacity_gib, "use 1200, 2400 or a multiple of 2400 GiB (SSD storage)")
    return capacity_gib  # type: ignore[return-value]


def check_metadata_iops(deployment_type: str, metadata_iops: object) -> None:
    if metadata_iops is None:
        return
    if deployment_type != "PERSISTENT_2":
        raise invalid("metadata_iops", metadata_iops, f"only PERSISTENT_2 takes it, not {deployment_type}")
    valid = is_whole_number(metadata_iops) and (
        metadata_iops in _METADATA_IOPS_SMALL
        or (0 < metadata_iops <= _METADATA_IOPS_MAX and metadata_iops % _METADATA_IOPS_STEP == 0)
    )
    if not valid:
        raise invalid("metadata_iops", metadata_iops, "use 1500, 3000, 6000, 12000 or a multiple of 12000 up to 192000")


def _resolve_throughput(deployment_type: str, per_unit_throughput: object) -> int | None:
    allowed = _THROUGHPUTS[deployment_type]
    if allowed is None:
        if per_unit_throughput is not None:
            raise invalid("per_unit_throughput", per_unit_throughput, f"{deployment_type} takes none; leave it None")
        return None
    if per_unit_throughput is None:
        return _DEFAULT_THROUGHPUT[deployment_type]
    if not is_whole_number(per_unit_throughput) or per_unit_throughput not in allowed:
        raise invalid("per_unit_throughput", per_unit_throughput, f"{deployment_type} takes one of {list(allowed)} MB/s/TiB")
    return per_unit_throughput  # type: ignore[return-value]


def check_lustre_settings(deployment_type: str, capacity_gib: object, per_unit_throughput: object) -> int | None:
    """Validate a file system's type, size and per-unit throughput together; return the throughput to use.

    Raises a one-line ValueError naming the setting, the value and what is allowed. The config layer calls this
    too, so a bad environment file fails before any construct is built.
    """
    if deployment_type not in _THROUGHPUTS:
        raise invalid("deployment_type", deployment_type, f"use one of {list(_THROUGHPUTS)}")
    _check_capacity(capacity_gib)
    return _resolve_throughput(deployment_type, per_unit_throughput)
