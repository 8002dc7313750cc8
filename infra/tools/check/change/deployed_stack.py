"""The template a CloudFormation stack runs now (``--previous-stack NAME``), read with boto3.

``DescribeStacks`` says whether the stack exists and whether CloudFormation would update it; ``GetTemplate``
(``TemplateStage=Original``, what was submitted) returns its template: the last one deployed, or the one a failed
update rolled back to. The caller needs ``cloudformation:DescribeStacks`` and ``cloudformation:GetTemplate`` on the
stack, and credentials from boto3's usual chain (environment, ``AWS_PROFILE``, SSO, an instance role).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

#: Stack states CloudFormation refuses an update in ("... is in <state> state and can not be updated"), and the way
#: out of each.
_STUCK = {
    "UPDATE_ROLLBACK_FAILED": "continue the rollback first (`aws cloudformation continue-update-rollback`)",
    "ROLLBACK_FAILED": "delete the stack first: its creation failed and so did the rollback",
    "DELETE_FAILED": "finish its deletion first (`aws cloudformation delete-stack`, retaining what cannot go)",
}
#: States in which nothing of the stack is running: `cdk deploy` deletes such a stack (or executes its change set)
#: and creates it anew.
_NOTHING_DEPLOYED = {"ROLLBACK_COMPLETE": "its creation failed and was rolled back",
                     "REVIEW_IN_PROGRESS": "a change set created it and was never executed"}


class DeployedStackError(ValueError):
    """The deployed stack cannot be read; the message is one line saying what is needed."""


@dataclass(frozen=True)
class DeployedStack:
    name: str
    region: str
    #: The template running now; None: nothing is deployed (no such stack, or one that never got created).
    template: dict[str, Any] | None
    status: str | None = None
    #: Why nothing is deployed, or why CloudFormation will not update the stack now.
    reason: str | None = None

    @property
    def refused(self) -> str | None:
        """Why CloudFormation refuses to update the stack in its state, or None."""
        if self.status in _STUCK:
            return f"stack {self.name} is {self.status}: CloudFormation updates nothing in that state; {_STUCK[self.status]}"
        if self.status and self.status.endswith("_IN_PROGRESS") and self.status not in _NOTHING_DEPLOYED:
            return f"stack {self.name} is {self.status}: CloudFormation updates nothing until that operation ends"
        return None


def read_deployed_stack(name: str, region: str | None, *, client: Any = None) -> DeployedStack:
    """The stack ``name`` as CloudFormation holds it in ``region`` (None: boto3's default region)."""
    import botocore.exceptions

    try:
        if client is None:
            import boto3

            # A session of its own: boto3's default session caches the credentials it resolved first (another
            # caller's, or none), so the chain is read anew for the stack's account.
            session = boto3.session.Session()
            if session.get_credentials() is None:
                raise botocore.exceptions.NoCredentialsError()
            client = session.client("cloudformation", region_name=region)
        where = client.meta.region_name
        try:
            stacks = client.describe_stacks(StackName=name)["Stacks"]
        except botocore.exceptions.ClientError as err:
            if "does not exist" in str(err.response.get("Error", {}).get("Message", "")):
                return DeployedStack(name, where, None, reason=f"no stack {name} in {where}: first deploy, nothing "
                                                                 "to compare")
            raise
        status = stacks[0].get("StackStatus")
        if status in _NOTHING_DEPLOYED:
            return DeployedStack(name, where, None, status, f"stack {name} is {status} ({_NOTHING_DEPLOYED[status]}): "
                                                            "cdk deploy creates it anew, nothing to compare")
        body = client.get_template(StackName=name, TemplateStage="Original")["TemplateBody"]
    except botocore.exceptions.NoRegionError:
        raise DeployedStackError(f"--previous-stack {name}: no AWS region: the environment's region is not set; "
                                 "set AWS_REGION (or AWS_DEFAULT_REGION)") from None
    except (botocore.exceptions.NoCredentialsError, botocore.exceptions.PartialCredentialsError,
            botocore.exceptions.CredentialRetrievalError, botocore.exceptions.TokenRetrievalError,
            botocore.exceptions.SSOError):
        raise DeployedStackError(
            f"--previous-stack {name}: no AWS credentials: reading the deployed template needs credentials of the "
            "stack's account (AWS_PROFILE, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or SSO) allowed "
            "cloudformation:DescribeStacks and cloudformation:GetTemplate; or give the saved template with "
            "--previous PATH") from None
    except botocore.exceptions.ClientError as err:
        error = err.response.get("Error", {})
        raise DeployedStackError(f"--previous-stack {name}: CloudFormation refused: {error.get('Code')}: "
                                 f"{error.get('Message')}") from None
    except botocore.exceptions.BotoCoreError as err:
        raise DeployedStackError(f"--previous-stack {name}: {' '.join(str(err).split())}") from None
    return DeployedStack(name, where, _template(body, name), status)


def _template(body: Any, name: str) -> dict[str, Any]:
    """botocore decodes a JSON template; a YAML one comes as text (CloudFormation's short forms: cfn-lint's
    decoder, which the change stage needs anyway for the resource schemas)."""
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError:
            from cfnlint.decode import cfn_yaml

            body = cfn_yaml.loads(body)
    if not isinstance(body, dict) or not isinstance(body.get("Resources"), dict):
        raise DeployedStackError(f"--previous-stack {name}: GetTemplate returned no CloudFormation template")
    return json.loads(json.dumps(body, default=str))
