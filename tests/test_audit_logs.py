"""The audit trail of prod: the control plane's log group (the audit log's home) and the VPC flow logs, each with
its own KMS key, kept a year and past `cdk destroy`; dev, which retains no data, lets both go."""

from __future__ import annotations

import pytest

from eks_training.infra.config import ConfigError, parse_config


def _log_groups(template: dict) -> dict[str, dict]:
    """The control plane's and the flow logs' log groups by what they are, with their keys."""
    resources = template["Resources"]
    found = {}
    for lid, resource in resources.items():
        if resource["Type"] != "AWS::Logs::LogGroup":
            continue
        name = resource["Properties"].get("LogGroupName")
        what = "control plane" if isinstance(name, str) and name.endswith("/cluster") else (
            "flow logs" if any(r["Type"] == "AWS::EC2::FlowLog" and r["Properties"].get("LogGroupName") == {"Ref": lid}
                               for r in resources.values()) else None)
        if what:
            key = resources[resource["Properties"]["KmsKeyId"]["Fn::GetAtt"][0]]
            found[what] = {"group": resource, "key": key}
    return found


def test_prod_keeps_its_audit_trail_a_year_with_its_keys_past_a_destroy(prod):
    groups = _log_groups(prod.template)
    assert set(groups) == {"control plane", "flow logs"}
    for what, parts in groups.items():
        assert parts["group"]["Properties"]["RetentionInDays"] == 365, what
        assert parts["group"]["DeletionPolicy"] == "Retain" and parts["key"]["DeletionPolicy"] == "Retain", what
        assert parts["key"]["Properties"]["EnableKeyRotation"] is True, what
    # The observability logs keep their own, shorter, setting: the audit trail does not follow it.
    assert prod.config.observability.log_retention_days == 30


def test_an_environment_without_retained_data_lets_its_audit_trail_go(dev):
    for what, parts in _log_groups(dev.template).items():
        assert parts["group"]["Properties"]["RetentionInDays"] == 365, what
        assert parts["group"]["DeletionPolicy"] == "Delete" and parts["key"]["DeletionPolicy"] == "Delete", what


@pytest.mark.parametrize("days", [0, 45, "year"])
def test_a_retention_cloudwatch_does_not_offer_is_one_line(days):
    with pytest.raises(ConfigError) as raised:
        parse_config({"name": "x", "region": "us-west-2", "availability_zones": ["us-west-2a", "us-west-2b"],
                      "training_az": "us-west-2a", "kubernetes_version": "1.36",
                      "cluster": {"audit_log_retention_days": days}})
    message = str(raised.value)
    assert "\n" not in message and "cluster.audit_log_retention_days" in message and repr(days) in message
