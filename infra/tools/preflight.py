"""``eks-training preflight``: check an AWS account can hold an environment before ``cdk deploy``.

Read-only calls with the user's own credentials: EC2 instance type offerings in the training AZ, the
On-Demand vCPU Service Quotas per instance family, the configured capacity reservations / Capacity Blocks,
the EKS version's support window, and the FSx for Lustre storage quotas the Service Quotas API reports.
Exit 0 when everything fits, 1 when a check fails, 2 on a usage or credential error (one line).

Sample output (``eks-training preflight --env prod`` in an account where us-west-2a has no trn1)::

    CHECK         SUBJECT                               RESULT  DETAIL
    offering      p5.48xlarge (node group p5-nodes)     ok      offered in us-west-2a
    offering      trn1.32xlarge (node group trn1-nodes) FAIL    not offered in us-west-2a (offered in: us-west-2b, us-west-2d)
    offering      p4d.24xlarge (karpenter pool gpu-a100) ok     offered in us-west-2a
    quota         On-Demand P instances (L-417A185B)    FAIL    needs 4608 vCPUs, quota is 384
    quota         On-Demand Trn instances (L-2C3B7624)  ok      needs 4096 vCPUs, quota is 4096
    eks-version   Kubernetes 1.35                       ok      standard support until 2027-03-27
    fsx-quota     Lustre storage (4800 GiB)             ok      quota 'Lustre storage capacity (GiB)' is 100800
    2 of 7 checks failed

The vCPU demand counts node groups at ``max_size`` and Karpenter pools at ``max_accelerators`` on their
smallest type (the most instances, hence vCPUs, the limit allows); Slurm partitions run on those nodes, so
they are checked for offerings but not counted again. Spot and Capacity Block capacity do not use the
On-Demand quotas and are not counted.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal, Protocol

from eks_training.core.versions import EXTENDED_SUPPORT_USD_PER_HOUR, KUBERNETES_RELEASES
from eks_training.core.catalog import INSTANCE_TYPES
from eks_training.infra.config import ConfigError, PlatformConfig
from eks_training.infra.tools.environment_option import add_environment_arguments, environment_from_args

#: Service Quotas codes of the On-Demand vCPU limits, by the instance family's letter prefix.
ON_DEMAND_QUOTAS: dict[str, tuple[str, str]] = {
    "p": ("L-417A185B", "On-Demand P instances"),
    "g": ("L-DB2E81BA", "On-Demand G and VT instances"),
    "vt": ("L-DB2E81BA", "On-Demand G and VT instances"),
    "trn": ("L-2C3B7624", "On-Demand Trn instances"),
}
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
NO_CREDENTIALS = "no AWS credentials found; set AWS_PROFILE or run aws configure"

Status = Literal["ok", "warn", "FAIL"]


@dataclass(frozen=True)
class CheckResult:
    """One row of the preflight table."""

    check: str
    subject: str
    status: Status
    detail: str


class PreflightError(Exception):
    """A usage or credential problem: ``str(err)`` is the one line to show."""


class ClientSource(Protocol):
    def client(self, service_name: str, region_name: str | None = None) -> Any: ...


def quota_for(instance_type: str) -> tuple[str, str] | None:
    """(quota code, name) of the On-Demand vCPU quota that ``instance_type`` counts against, if we check one."""
    family = instance_type.split(".", 1)[0]
    prefix = next((p for p in sorted(ON_DEMAND_QUOTAS, key=len, reverse=True) if family.startswith(p)), None)
    return ON_DEMAND_QUOTAS[prefix] if prefix else None


def configured_instances(config: PlatformConfig) -> list[tuple[str, str]]:
    """(instance type, where it is configured) for every node group, Karpenter pool type and Slurm partition."""
    found = [(g.instance_type, f"node group {g.name}") for g in config.accelerated_node_groups]
    found += [(t, f"karpenter pool {p.name}") for p in config.capacity.karpenter_pools for t in p.instance_types]
    found += [(s.instance_type, f"slurm partition {s.name}") for s in config.services.slurm_partitions]
    return found


def on_demand_vcpus(config: PlatformConfig) -> dict[str, int]:
    """Most On-Demand vCPUs the config may run, per quota code."""
    demand: dict[str, int] = {}

    def add(instance_type: str, instances: int) -> None:
        quota = quota_for(instance_type)
        if quota:
            demand[quota[0]] = demand.get(quota[0], 0) + instances * INSTANCE_TYPES[instance_type].vcpus

    for group in config.accelerated_node_groups:
        if group.capacity_type in ("on-demand", "capacity-reservation"):  # ODCRs count against On-Demand limits
            add(group.instance_type, group.max_size)
    for pool in config.capacity.karpenter_pools:
        if "on-demand" in pool.capacity_types:
            worst = max(pool.instance_types, key=lambda t: math.ceil(pool.max_accelerators / INSTANCE_TYPES[t].accelerators)
                        * INSTANCE_TYPES[t].vcpus)
            add(worst, math.ceil(pool.max_accelerators / INSTANCE_TYPES[worst].accelerators))
    return demand


def _offering_checks(config: PlatformConfig, ec2: Any) -> Iterator[CheckResult]:
    wanted = sorted({t for t, _ in configured_instances(config)})
    if not wanted:
        return
    zones: dict[str, set[str]] = {t: set() for t in wanted}
    pages = ec2.get_paginator("describe_instance_type_offerings").paginate(
        LocationType="availability-zone", Filters=[{"Name": "instance-type", "Values": wanted}])
    for page in pages:
        for offering in page["InstanceTypeOfferings"]:
            zones[offering["InstanceType"]].add(offering["Location"])
    for instance_type, where in configured_instances(config):
        subject = f"{instance_type} ({where})"
        if config.training_az in zones[instance_type]:
            yield CheckResult("offering", subject, "ok", f"offered in {config.training_az}")
        else:
            elsewhere = ", ".join(sorted(zones[instance_type])) or "no zone of the region"
            yield CheckResult("offering", subject, "FAIL", f"not offered in {config.training_az} (offered in: {elsewhere})")


def _quota_value(quotas: Any, service: str, code: str) -> float | None:
    try:
        return float(quotas.get_service_quota(ServiceCode=service, QuotaCode=code)["Quota"]["Value"])
    except quotas.exceptions.NoSuchResourceException:
        return None


def _quota_checks(config: PlatformConfig, quotas: Any) -> Iterator[CheckResult]:
    names = {code: name for code, name in ON_DEMAND_QUOTAS.values()}
    for code, needed in sorted(on_demand_vcpus(config).items()):
        subject = f"{names[code]} ({code})"
        value = _quota_value(quotas, "ec2", code)
        if value is None:
            yield CheckResult("quota", subject, "warn", f"needs {needed} vCPUs; Service Quotas does not report this quota")
        else:
            status: Status = "ok" if needed <= value else "FAIL"
            yield CheckResult("quota", subject, status, f"needs {needed} vCPUs, quota is {value:g}")


def _reservation_checks(config: PlatformConfig, ec2: Any) -> Iterator[CheckResult]:
    for group in config.accelerated_node_groups:
        if not group.capacity_reservation_id:
            continue
        subject = f"{group.capacity_reservation_id} (node group {group.name})"
        try:
            found = ec2.describe_capacity_reservations(CapacityReservationIds=[group.capacity_reservation_id])
        except ec2.exceptions.ClientError as err:
            if "NotFound" in err.response["Error"]["Code"] or "Malformed" in err.response["Error"]["Code"]:
                yield CheckResult("reservation", subject, "FAIL", "not found in this account and region")
                continue
            raise
        reservation = found["CapacityReservations"][0]
        kind = "capacity-block" if reservation.get("ReservationType") == "capacity-block" else "capacity-reservation"
        problems = [f"{label} is {actual}, config wants {wanted}" for label, actual, wanted in (
            ("type", reservation["InstanceType"], group.instance_type),
            ("zone", reservation["AvailabilityZone"], config.training_az),
            ("kind", kind, group.capacity_type)) if actual != wanted]
        if reservation["State"] not in ("active", "scheduled", "pending"):
            problems.append(f"state is {reservation['State']}")
        if reservation["TotalInstanceCount"] < group.max_size:
            problems.append(f"holds {reservation['TotalInstanceCount']} instances, max_size is {group.max_size}")
        detail = "; ".join(problems) or (f"{kind} of {reservation['TotalInstanceCount']} x {group.instance_type} "
                                         f"in {config.training_az}, {reservation['State']}")
        yield CheckResult("reservation", subject, "FAIL" if problems else "ok", detail)


def _version_check(config: PlatformConfig, today: date) -> CheckResult:
    release = KUBERNETES_RELEASES[config.kubernetes_version]
    status = release.support_status(today)
    subject = f"Kubernetes {release.version}"
    if status == "standard":
        return CheckResult("eks-version", subject, "ok", f"standard support until {release.end_of_standard_support}")
    if status == "unrecorded":
        return CheckResult("eks-version", subject, "warn", "EKS support dates not recorded in this release: "
                           "check the EKS version calendar")
    if status == "extended":
        return CheckResult("eks-version", subject, "warn", f"extended support ({EXTENDED_SUPPORT_USD_PER_HOUR:.2f} USD "
                           f"per cluster-hour) since {release.end_of_standard_support}, ends "
                           f"{release.end_of_extended_support}")
    if status == "unreleased":
        return CheckResult("eks-version", subject, "FAIL", f"not on EKS before {release.on_eks_since}; choose an older "
                           "version until then")
    return CheckResult("eks-version", subject, "FAIL", f"support ended {release.end_of_extended_support}; choose a newer version")


def _fsx_checks(config: PlatformConfig, quotas: Any) -> Iterator[CheckResult]:
    if not config.storage.fsx.enabled:
        return
    wanted = config.storage.fsx.storage_capacity_gib
    subject = f"Lustre storage ({wanted} GiB)"
    lustre = [q for page in quotas.get_paginator("list_service_quotas").paginate(ServiceCode="fsx")
              for q in page["Quotas"]
              if "lustre" in q["QuotaName"].lower() and "storage" in q["QuotaName"].lower()]
    if not lustre:
        yield CheckResult("fsx-quota", subject, "warn", "Service Quotas reports no Lustre storage quota")
    for quota in lustre:
        status: Status = "ok" if wanted <= quota["Value"] else "FAIL"
        yield CheckResult("fsx-quota", subject, status, f"quota '{quota['QuotaName']}' is {quota['Value']:g}")


def preflight_checks(config: PlatformConfig, *, ec2: Any, quotas: Any, today: date) -> list[CheckResult]:
    """Every check for ``config``, using boto3 ``ec2`` and ``service-quotas`` clients of its region."""
    return [*_offering_checks(config, ec2), *_quota_checks(config, quotas), *_reservation_checks(config, ec2),
            _version_check(config, today), *_fsx_checks(config, quotas)]


def format_table(results: list[CheckResult]) -> str:
    """The results as an aligned text table with a closing summary line."""
    rows = [("CHECK", "SUBJECT", "RESULT", "DETAIL"), *((r.check, r.subject, r.status, r.detail) for r in results)]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row[:3], widths)) + "  " + row[3] for row in rows]
    failed = sum(r.status == "FAIL" for r in results)
    lines.append(f"{failed} of {len(results)} checks failed" if failed else f"all {len(results)} checks passed")
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``eks-training preflight``."""
    add_environment_arguments(parser)
    parser.add_argument("--region", help="AWS region (default: the environment's region)")
    parser.add_argument("--profile", help="AWS named profile (default: the usual credential chain)")


def _session(profile: str | None) -> ClientSource:
    import boto3
    import botocore.exceptions

    try:
        session = boto3.Session(profile_name=profile)
    except botocore.exceptions.ProfileNotFound:
        raise PreflightError(f"--profile: AWS profile '{profile}' is not configured (see ~/.aws/config)") from None
    if session.get_credentials() is None:
        raise PreflightError(NO_CREDENTIALS)
    return session


def run(args: argparse.Namespace, *, session: ClientSource | None = None, today: date | None = None) -> int:
    """Run the preflight of ``args.env`` and print the table; ``session`` and ``today`` are for tests."""
    import botocore.exceptions

    try:
        config = environment_from_args(args, "preflight")
        region = args.region or config.region
        if args.region and args.region != config.region:
            raise PreflightError(f"--region: '{args.region}' differs from environment {config.name}'s region "
                                 f"'{config.region}'; its zones are in {config.region}")
        session = session or _session(args.profile)
        results = preflight_checks(config, ec2=session.client("ec2", region_name=region),
                                   quotas=session.client("service-quotas", region_name=region),
                                   today=today or date.today())
    except (ConfigError, PreflightError) as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except botocore.exceptions.NoCredentialsError:
        print(f"error: {NO_CREDENTIALS}", file=sys.stderr)
        return EXIT_USAGE
    except botocore.exceptions.ClientError as err:
        error = err.response.get("Error", {})
        print(f"error: AWS refused {err.operation_name}: {error.get('Code')}: {error.get('Message')}", file=sys.stderr)
        return EXIT_USAGE
    print(format_table(results))
    return EXIT_FAILED if any(r.status == "FAIL" for r in results) else EXIT_OK
