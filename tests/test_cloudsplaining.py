"""cloudsplaining on every IAM policy document of dev, staging and prod; the AWS managed policies the roles attach.

cloudsplaining (Salesforce's IAM least-privilege scanner, its PolicyDocument API) reports the actions a document
allows without resource constraints that escalate privileges, exfiltrate data, expose resources, modify
infrastructure or expose credentials. Privilege escalation and data exfiltration fail the test unless
:data:`ACCEPTED` names the document and the action with a reason. The documents are the templates' own (role
policies, inline policies, managed policies of the stack), intrinsics written as text.

AWS managed policies are attached by ARN and their documents are not in the template (nor offline): the roles
may attach only those in :data:`MANAGED_POLICIES`, each with the reason it is the documented minimum. The one the
review found reading every SSM parameter (AmazonSSMManagedInstanceCore, on both node roles) is not among them.
"""

from __future__ import annotations

import json
import re

import pytest
from cloudsplaining.scan.policy_document import PolicyDocument

from eks_training.core.cfn_text import cfn_text

#: (document glob, action) -> why a privilege-escalation or data-exfiltration finding is acceptable. Empty: none.
ACCEPTED: dict[tuple[str, str], str] = {}

#: AWS managed policies a role may attach -> why (each is what the service's documentation prescribes).
MANAGED_POLICIES: dict[str, str] = {
    "AmazonEKSClusterPolicy": "the EKS cluster role's documented policy (aws-eks-v2 attaches it)",
    "AmazonEKSWorkerNodePolicy": "what EKS documents for worker node roles (node registration, EC2 describe calls)",
    "AmazonEC2ContainerRegistryPullOnly": "image pulls from ECR for the node's kubelet, and nothing that writes",
    "AmazonEKS_CNI_Policy": "the VPC CNI's documented policy, on its own Pod Identity role (not the node role)",
    "service-role/AmazonEBSCSIDriverPolicy": "the EBS CSI driver's documented policy, tag-scoped by AWS",
    "service-role/AmazonEFSCSIDriverPolicy": "the EFS CSI driver's documented policy, tag-scoped by AWS",
    "CloudWatchAgentServerPolicy": "the CloudWatch Observability add-on's documented policy for its agent",
    "service-role/AWSLambdaBasicExecutionRole": "CDK's custom-resource handlers' logs (CloudWatch Logs only)",
    "service-role/AWSLambdaVPCAccessExecutionRole": "the kubectl provider's ENIs when it runs in the VPC",
    "AmazonEC2ContainerRegistryReadOnly": "the kubectl provider's layer images (aws-eks-v2's own handler)",
    "AmazonElasticContainerRegistryPublicReadOnly": "aws-eks-v2's kubectl provider, when it pulls from ECR Public",
}
_GATING = ("privilege_escalation", "data_exfiltration")
_INTRINSICS = {"Ref", "Fn::GetAtt", "Fn::Join", "Fn::Sub", "Fn::Select", "Fn::If", "Fn::ImportValue", "Fn::Split"}


def _plain(value):
    if isinstance(value, dict) and set(value) & _INTRINSICS:
        return cfn_text(value, lambda _: "TOKEN")
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def policy_documents(template: dict) -> dict[str, dict]:
    """Every identity policy document of the template: role policies, inline and managed policies."""
    documents = {}
    for lid, resource in template["Resources"].items():
        props = resource.get("Properties", {})
        if resource["Type"] in ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"):
            documents[lid] = props["PolicyDocument"]
        elif resource["Type"] == "AWS::IAM::Role":
            for policy in props.get("Policies", []):
                documents[f"{lid}/{policy['PolicyName']}"] = policy["PolicyDocument"]
    return {name: _plain(doc) for name, doc in documents.items()}


def findings(document: dict) -> dict[str, list[str]]:
    scanned = PolicyDocument(document)
    return {"privilege_escalation": sorted(str(e.get("type", e)) if isinstance(e, dict) else str(e)
                                           for e in scanned.allows_privilege_escalation),
            "data_exfiltration": sorted(scanned.allows_data_exfiltration_actions),
            "resource_exposure": sorted(scanned.permissions_management_without_constraints),
            "infrastructure_modification": sorted(scanned.infrastructure_modification),
            "credentials_exposure": sorted(scanned.credentials_exposure)}


@pytest.fixture(scope="module")
def scanned(dev, staging, prod) -> dict[str, dict[str, dict[str, list[str]]]]:
    """Environment -> document -> finding kind -> actions."""
    return {env: {name: findings(doc) for name, doc in policy_documents(synth.template).items()}
            for env, synth in (("dev", dev), ("staging", staging), ("prod", prod))}


def test_every_document_was_scanned(scanned) -> None:
    for env, documents in scanned.items():
        assert len(documents) >= 7, (env, sorted(documents))
        assert any(name.startswith("ClusterTraining") for name in documents), env


def test_no_privilege_escalation_or_data_exfiltration(scanned) -> None:
    open_findings = []
    for env, documents in scanned.items():
        for name, kinds in documents.items():
            for kind in _GATING:
                for action in kinds[kind]:
                    if not any(re.fullmatch(glob.replace("*", ".*"), name) and accepted == action
                               for glob, accepted in ACCEPTED):
                        open_findings.append(f"{env} {name}: {kind} {action}")
    assert not open_findings, "cloudsplaining findings:\n" + "\n".join(open_findings)


def test_the_scanner_flags_what_it_should() -> None:
    """The scan is live: a document that reads any object and passes any role is flagged on both counts."""
    bad = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["s3:GetObject", "iam:PassRole", "iam:CreateAccessKey"], "Resource": "*"}]}
    result = findings(bad)
    assert "s3:GetObject" in result["data_exfiltration"]
    assert result["privilege_escalation"], result


def test_roles_attach_only_the_documented_managed_policies(dev, staging, prod) -> None:
    attached: dict[str, set[str]] = {}
    for synth in (dev, staging, prod):
        for lid, role in synth.resources("AWS::IAM::Role").items():
            for arn in role["Properties"].get("ManagedPolicyArns", []):
                name = json.dumps(arn).split(":iam::aws:policy/")[-1].split('"')[0]
                attached.setdefault(name, set()).add(lid)
    unknown = {name: sorted(roles) for name, roles in attached.items() if name not in MANAGED_POLICIES}
    assert not unknown, f"AWS managed policies nobody reviewed: {unknown}"
    assert "AmazonSSMManagedInstanceCore" not in attached  # ssm:GetParameter* on every parameter
    nodes = [lid for synth in (dev, staging, prod) for lid, r in synth.resources("AWS::IAM::Role").items()
             if "ec2.amazonaws.com" in json.dumps(r["Properties"]["AssumeRolePolicyDocument"])]
    assert nodes and all(not prod.resources("AWS::IAM::Role").get(lid, {}).get("Properties", {}).get("Policies")
                         for lid in nodes), "node roles hold inline policies"
