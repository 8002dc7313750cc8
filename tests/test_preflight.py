"""Account preflight against moto (EC2 offerings) and botocore Stubber (Service Quotas, capacity reservations)."""

from __future__ import annotations

import argparse
from datetime import date
from typing import Any

import boto3
import pytest

from eks_training.core.versions import KUBERNETES_RELEASES
from botocore.stub import Stubber
from moto import mock_aws

from eks_training.infra.tools import preflight
from eks_training.infra.config import ENVIRONMENTS_DIR, load_environment, parse_config

REGION = "us-west-2"
IN_STANDARD_SUPPORT = date(2026, 12, 1)  # inside the environments' Kubernetes (1.36) standard support window
QUOTA_CODES = ("L-2C3B7624", "L-417A185B", "L-DB2E81BA")  # Trn, P, G+VT: the order preflight asks in


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    preflight.add_arguments(parser)
    return parser.parse_args(list(argv))


def _quotas_client(vcpus: dict[str, float], lustre: list[tuple[str, float]] = ()) -> Any:
    """A stubbed service-quotas client answering the On-Demand quotas in ``vcpus`` and FSx quotas in ``lustre``."""
    client = boto3.client("service-quotas", region_name=REGION, aws_access_key_id="x", aws_secret_access_key="x")
    stub = Stubber(client)
    for code in QUOTA_CODES:
        if code in vcpus:
            stub.add_response("get_service_quota", {"Quota": {
                "ServiceCode": "ec2", "QuotaCode": code, "QuotaName": code, "Value": vcpus[code], "Unit": "None"}},
                {"ServiceCode": "ec2", "QuotaCode": code})
    stub.add_response("list_service_quotas", {"Quotas": [
        {"ServiceCode": "fsx", "QuotaCode": f"L-FSX{i}", "QuotaName": name, "Value": value, "Unit": "None"}
        for i, (name, value) in enumerate(lustre)]}, {"ServiceCode": "fsx"})
    stub.activate()
    return client


class _Session:
    def __init__(self, **clients: Any) -> None:
        self.clients = clients

    def client(self, service_name: str, region_name: str | None = None) -> Any:
        assert region_name == REGION
        return self.clients[service_name.replace("-", "_")]


PLENTY = {code: 100000.0 for code in QUOTA_CODES}


def _plenty(env: str) -> dict[str, float]:
    """Ample quotas for just the On-Demand quotas ``env`` asks about (the stub answers calls in order)."""
    return {code: PLENTY[code] for code in preflight.on_demand_vcpus(load_environment(env))}


@pytest.fixture
def moto_ec2():
    with mock_aws():
        yield boto3.client("ec2", region_name=REGION)


def test_staging_fits_in_moto_account(moto_ec2, capsys: pytest.CaptureFixture[str]) -> None:
    session = _Session(ec2=moto_ec2, service_quotas=_quotas_client(_plenty("staging"), [("Lustre storage capacity (GiB)", 100800)]))
    code = preflight.run(_args("--env", "staging"), session=session, today=IN_STANDARD_SUPPORT)
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.splitlines()[0].split() == ["CHECK", "SUBJECT", "RESULT", "DETAIL"]
    # staging: g6 + trn1 node groups, g5.12xlarge + g5.48xlarge pool, g6 + trn1 partitions
    assert out.count("offered in us-west-2b") == 6
    assert "FAIL" not in out and out.rstrip().endswith("checks passed")


def test_an_environment_file_outside_the_clone_goes_through_preflight(moto_ec2, tmp_path, capsys) -> None:
    # A team's own repository: staging's settings under another name, in a folder that is not the library's.
    own = tmp_path / "team-repo" / "environments" / "acme.yaml"
    own.parent.mkdir(parents=True)
    own.write_text((ENVIRONMENTS_DIR / "staging.yaml").read_text().replace("name: staging", "name: acme", 1))
    session = _Session(ec2=moto_ec2, service_quotas=_quotas_client(_plenty("staging"), [("Lustre storage capacity (GiB)", 100800)]))
    assert preflight.run(_args("--config", str(own)), session=session, today=IN_STANDARD_SUPPORT) == 0
    out = capsys.readouterr().out
    assert out.count("offered in us-west-2b") == 6 and out.rstrip().endswith("checks passed")


@pytest.mark.parametrize(("argv", "message"), [
    ((), "error: preflight: give --env NAME (one of dev, prod, staging) or --config FILE (an environment file of your own)"),
    (("--env", "prod", "--config", "x.yaml"),
     "error: preflight: --config='x.yaml' is not allowed: alone: give --env NAME or --config FILE, not both (--env "
     "prod given too)"),
    (("--config", "/nowhere/acme.yaml"), "error: config file /nowhere/acme.yaml does not exist"),
])
def test_environment_option_errors_are_one_line(capsys, argv, message) -> None:
    assert preflight.run(_args(*argv)) == 2
    assert capsys.readouterr().err == message + "\n"


def test_trn1_not_offered_in_prod_training_az(moto_ec2) -> None:
    # moto's offering catalog (from AWS) has trn1 only in us-west-2b/2d and trn1n only in 2d: prod trains in 2d,
    # so it passes, and the same platform moved to us-west-2a fails on every Trainium row.
    prod = load_environment("prod")
    passing = preflight.preflight_checks(prod, ec2=moto_ec2, quotas=_quotas_client(_plenty("prod")), today=IN_STANDARD_SUPPORT)
    assert [r.subject for r in passing if r.status == "FAIL"] == []
    moved = prod.model_copy(update={"training_az": "us-west-2a"})
    results = preflight.preflight_checks(moved, ec2=moto_ec2, quotas=_quotas_client(_plenty("prod")),
                                         today=IN_STANDARD_SUPPORT)
    failed = {r.subject for r in results if r.status == "FAIL"}
    assert failed == {"trn1.32xlarge (node group trn1-nodes)", "trn1.32xlarge (karpenter pool trn1)",
                      "trn1n.32xlarge (karpenter pool trn1n)", "trn1.32xlarge (slurm partition trainium)"}
    trn1 = next(r for r in results if r.subject == "trn1.32xlarge (node group trn1-nodes)")
    assert "us-west-2b" in trn1.detail and "us-west-2a" not in trn1.detail.split("offered in:")[1]


def test_quota_too_small_fails(moto_ec2) -> None:
    # prod On-Demand P demand: p5-nodes 8 x 192 + gpu-a100 (128/8=16) x 96 + gpu-h100 (64/8=8) x 192 = 4608 vCPUs
    results = preflight.preflight_checks(load_environment("prod"), ec2=moto_ec2,
                                         quotas=_quotas_client({**_plenty("prod"), "L-417A185B": 4607.0}), today=IN_STANDARD_SUPPORT)
    p_quota = next(r for r in results if r.subject.endswith("(L-417A185B)"))
    assert (p_quota.status, p_quota.detail) == ("FAIL", "needs 4608 vCPUs, quota is 4607")
    trn_quota = next(r for r in results if r.subject.endswith("(L-2C3B7624)"))
    # Trn: trn1-nodes 8 x 128 + trn1 pool (256/16=16) x 128 + trn1n pool (128/16=8) x 128 = 4096 vCPUs
    assert trn_quota.detail == "needs 4096 vCPUs, quota is 100000"


def test_quota_exactly_enough_passes(moto_ec2) -> None:
    results = preflight.preflight_checks(load_environment("prod"), ec2=moto_ec2,
                                         quotas=_quotas_client({**_plenty("prod"), "L-417A185B": 4608.0}), today=IN_STANDARD_SUPPORT)
    assert next(r for r in results if r.subject.endswith("(L-417A185B)")).status == "ok"


def test_spot_only_pool_uses_no_on_demand_quota() -> None:
    # dev's pool (8 GPUs, spot + on-demand) at worst is 8 / 4 = 2 g5.12xlarge x 48 vCPUs (8 g5.xlarge is only 32)
    dev = load_environment("dev")
    assert preflight.on_demand_vcpus(dev) == {"L-DB2E81BA": 96}
    data = dev.model_dump(mode="json")
    # Its Kueue quotas name the pool replaced here: queueing is beside the point.
    data["services"].update(kueue=False, kueue_queues=[])
    spot_only = parse_config({**data, "capacity": {"karpenter_pools": [
        {"name": "gpu", "instance_types": ["g5.xlarge"], "capacity_types": ["spot"], "efa": False}]}})
    assert preflight.on_demand_vcpus(spot_only) == {}


def test_fsx_lustre_quota_too_small(moto_ec2) -> None:
    quotas = _quotas_client(_plenty("prod"), [("Lustre PERSISTENT_2 storage capacity (GiB)", 2400)])
    results = preflight.preflight_checks(load_environment("prod"), ec2=moto_ec2, quotas=quotas, today=IN_STANDARD_SUPPORT)
    fsx = [r for r in results if r.check == "fsx-quota"]
    assert [(r.subject, r.status) for r in fsx] == [("Lustre storage (4800 GiB)", "FAIL")]


@pytest.mark.parametrize(("version", "today", "status"), [
    ("1.33", date(2026, 7, 29), "ok"), ("1.33", date(2026, 7, 30), "warn"), ("1.33", date(2027, 7, 30), "FAIL"),
    ("1.36", date(2026, 6, 1), "FAIL"),  # not on EKS before 2026-06-02
])
def test_eks_version_support_status(moto_ec2, version: str, today: date, status: str) -> None:
    dev = load_environment("dev").model_copy(update={"kubernetes_version": version})
    results = preflight.preflight_checks(dev, ec2=moto_ec2, quotas=_quotas_client(_plenty("dev")), today=today)
    result = next(r for r in results if r.check == "eks-version")
    assert result.status == status
    if status == "FAIL" and KUBERNETES_RELEASES[version].on_eks_since:
        assert result.detail == f"not on EKS before {KUBERNETES_RELEASES[version].on_eks_since}; choose an older version until then"


def _reserved_config(capacity_type: str = "capacity-reservation") -> Any:
    base = load_environment("staging").model_dump(mode="json")
    base["capacity"] = {"gpu_node_groups": [{"name": "p5-odcr", "instance_type": "p5.48xlarge", "max_size": 4,
                                             "capacity_type": capacity_type,
                                             "capacity_reservation_id": "cr-0123456789abcdef0"}]}
    # No Karpenter pool and a group at size 0: no notebook capacity, so no JupyterHub either.
    base["services"] = {**base["services"], "slurm_partitions": [], "jupyterhub": False,
                        "kueue": False, "kueue_queues": []}  # its queues name the pools replaced here
    return parse_config(base)


def _stubbed_ec2(reservation: dict[str, Any] | None) -> Any:
    client = boto3.client("ec2", region_name=REGION, aws_access_key_id="x", aws_secret_access_key="x")
    stub = Stubber(client)
    stub.add_response("describe_instance_type_offerings", {"InstanceTypeOfferings": [
        {"InstanceType": "p5.48xlarge", "LocationType": "availability-zone", "Location": "us-west-2b"}]})
    if reservation is None:
        stub.add_client_error("describe_capacity_reservations", "InvalidCapacityReservationId.NotFound",
                              "The capacity reservation ID 'cr-0123456789abcdef0' does not exist")
    else:
        stub.add_response("describe_capacity_reservations", {"CapacityReservations": [{
            "CapacityReservationId": "cr-0123456789abcdef0", "InstanceType": "p5.48xlarge", "InstancePlatform": "Linux/UNIX",
            "AvailabilityZone": "us-west-2b", "TotalInstanceCount": 4, "AvailableInstanceCount": 4, "State": "active",
            "ReservationType": "default", **reservation}]},
            {"CapacityReservationIds": ["cr-0123456789abcdef0"]})
    stub.activate()
    return client


@pytest.mark.parametrize(("reservation", "status", "detail"), [
    ({}, "ok", "capacity-reservation of 4 x p5.48xlarge in us-west-2b, active"),
    ({"AvailabilityZone": "us-west-2a"}, "FAIL", "zone is us-west-2a, config wants us-west-2b"),
    ({"TotalInstanceCount": 2}, "FAIL", "holds 2 instances, max_size is 4"),
    ({"InstanceType": "p4d.24xlarge"}, "FAIL", "type is p4d.24xlarge, config wants p5.48xlarge"),
    ({"ReservationType": "capacity-block"}, "FAIL", "kind is capacity-block, config wants capacity-reservation"),
    ({"State": "expired"}, "FAIL", "state is expired"),
    (None, "FAIL", "not found in this account and region"),
])
def test_capacity_reservation_must_match(reservation: dict | None, status: str, detail: str) -> None:
    results = preflight.preflight_checks(_reserved_config(), ec2=_stubbed_ec2(reservation),
                                         quotas=_quotas_client({"L-417A185B": 100000.0}), today=IN_STANDARD_SUPPORT)
    row = next(r for r in results if r.check == "reservation")
    assert (row.subject, row.status, row.detail) == ("cr-0123456789abcdef0 (node group p5-odcr)", status, detail)


@pytest.fixture
def no_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    for var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE",
                "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_WEB_IDENTITY_TOKEN_FILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


@pytest.mark.parametrize(("argv", "message"), [
    (("--env", "prod"), "error: no AWS credentials found; set AWS_PROFILE or run aws configure"),
    (("--env", "prod", "--profile", "ghost"), "error: --profile: AWS profile 'ghost' is not configured (see ~/.aws/config)"),
    (("--env", "qa"), "error: env='qa' is not allowed: use one of the environments dev, prod, staging"),
    (("--env", "prod", "--region", "eu-west-1"),
     "error: --region: 'eu-west-1' differs from environment prod's region 'us-west-2'; its zones are in us-west-2"),
])
def test_usage_errors_exit_2_with_one_line(no_credentials, capsys: pytest.CaptureFixture[str], argv, message) -> None:
    assert preflight.run(_args(*argv)) == 2
    captured = capsys.readouterr()
    assert captured.err == message + "\n" and captured.out == ""


def test_access_denied_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    client = boto3.client("ec2", region_name=REGION, aws_access_key_id="x", aws_secret_access_key="x")
    stub = Stubber(client)
    stub.add_client_error("describe_instance_type_offerings", "UnauthorizedOperation", "You are not authorized")
    stub.activate()
    session = _Session(ec2=client, service_quotas=_quotas_client(_plenty("dev")))
    assert preflight.run(_args("--env", "dev"), session=session, today=IN_STANDARD_SUPPORT) == 2
    assert capsys.readouterr().err == ("error: AWS refused DescribeInstanceTypeOfferings: UnauthorizedOperation: "
                                       "You are not authorized\n")
