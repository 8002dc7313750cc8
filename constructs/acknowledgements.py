"""Acknowledge validation findings (cdk-nag, CloudFormation Validate) on the resources they concern.

Every acknowledgement carries the reason it is safe; the tests fail on any finding left unacknowledged.
Only core CDK (`Validations`) is used, so the constructs do not depend on cdk-nag.
"""

from __future__ import annotations

from aws_cdk import Acknowledgment, Validations
from constructs import IConstruct


def acknowledge(scope: IConstruct, reason: str, *rule_ids: str) -> None:
    """Acknowledge ``rule_ids`` on ``scope`` and everything below it, for ``reason``."""
    if not reason.strip():
        raise ValueError("acknowledge: a reason is required")
    Validations.of(scope).acknowledge(*(Acknowledgment(id=rule, reason=reason) for rule in rule_ids))


def managed_policy_finding(policy_name: str) -> str:
    """The cdk-nag AwsSolutions-IAM4 finding id for one AWS managed policy."""
    return f"AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/{policy_name}]"
