"""Acknowledge validation findings (cdk-nag, CloudFormation Validate) on the resources they concern.

Every acknowledgement carries the reason it is safe; the tests fail on any finding left unacknowledged.
Only core CDK (`Validations`) is used, so the constructs do not depend on cdk-nag.
"""

from __future__ import annotations

import re

from aws_cdk import Acknowledgment, Validations
from constructs import IConstruct

from eks_training.core.cfn_text import cfn_text


def acknowledge(scope: IConstruct, reason: str, *rule_ids: str) -> None:
    """Acknowledge ``rule_ids`` on ``scope`` and everything below it, for ``reason``."""
    if not reason.strip():
        raise ValueError("acknowledge: a reason is required")
    Validations.of(scope).acknowledge(*(Acknowledgment(id=rule, reason=reason) for rule in rule_ids))


def managed_policy_finding(policy_name: str) -> str:
    """The cdk-nag AwsSolutions-IAM4 finding id for one AWS managed policy."""
    return f"AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/{policy_name}]"


def wildcard_resource_finding(scope: IConstruct, resource: str) -> str:
    """The cdk-nag AwsSolutions-IAM5 finding id for a wildcard ``resource`` ARN (tokens written as cdk-nag does)."""
    from aws_cdk import Stack

    text = cfn_text(Stack.of(scope).resolve(resource), _nag_token)
    # IAM policy variables (${aws:PrincipalTag/...}) are written <aws:PrincipalTag/...> too.
    text = re.sub(r"[$][{]([^}]+)[}]", r"<\1>", text)
    return f"AwsSolutions-IAM5[Resource::{text}]"


def _nag_token(value: object) -> str:
    """An intrinsic as cdk-nag writes it in finding ids: ``<AWS::Partition>``, ``<Bucket.Arn>``."""
    if isinstance(value, dict) and "Ref" in value:
        return f"<{value['Ref']}>"
    if isinstance(value, dict) and "Fn::GetAtt" in value:
        return f"<{'.'.join(value['Fn::GetAtt'])}>"
    raise ValueError(f"cannot express {value!r} as a cdk-nag finding id")
