"""Who may invoke the deploy's kubectl handler (a cluster admin through its access entry), as far as the template
can say: aws-eks-v2's provider framework alone, by its role's policy; no function policy lets another account, a
service or anyone else in. What the template cannot close: a principal of this account whose own IAM policy allows
`lambda:InvokeFunction` on `*` (Lambda function policies cannot deny it); that takes an SCP or permission boundary."""

from __future__ import annotations

import json


def _functions(template: dict) -> dict[str, str]:
    return {lid: lid for lid, r in template["Resources"].items()
            if r["Type"] == "AWS::Lambda::Function" and "KubectlProvider" in lid}


def _names(value) -> str:
    return json.dumps(value)


def test_only_the_provider_framework_may_invoke_the_kubectl_handler(prod):
    resources = prod.template["Resources"]
    kubectl = _functions(prod.template)
    handler = next(lid for lid in kubectl if "Handler" in lid and "framework" not in lid)
    framework = next(lid for lid in kubectl if "framework" in lid)
    # No function policy: no other account, service or principal is let in by the functions themselves.
    permissions = [r for r in resources.values() if r["Type"] == "AWS::Lambda::Permission"
                   and any(lid in _names(r["Properties"].get("FunctionName")) for lid in kubectl)]
    assert permissions == []
    # Identity policies of the template that allow invoking either function: the framework's role, for the handler.
    granted = {}
    for lid, resource in resources.items():
        if resource["Type"] not in ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"):
            continue
        for statement in resource["Properties"]["PolicyDocument"]["Statement"]:
            actions = statement.get("Action")
            actions = [actions] if isinstance(actions, str) else actions
            if statement.get("Effect") != "Allow" or not any(a in ("lambda:InvokeFunction", "lambda:*", "*")
                                                             for a in actions):
                continue
            targets = _names(statement.get("Resource"))
            for function in (handler, framework):
                if function in targets or targets in ('"*"', '["*"]'):
                    granted.setdefault(function, []).append(resource["Properties"].get("Roles"))
    (roles,) = granted.pop(handler)
    assert granted == {} and len(roles) == 1 and "KubectlProviderframeworkonEventServiceRole" in _names(roles)
