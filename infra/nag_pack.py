"""EksTrainingChecks: the security rules cdk-nag 3.0.2 does not apply to this platform.

cdk-nag's EKS rules look at the old ``Custom::AWSCDK-EKS-Cluster`` resource and never see the native
``AWS::EKS::Cluster`` that ``aws_eks_v2`` writes, and it has no rule for IMDSv2 on launch templates, FSx
encryption or wildcard actions on Pod Identity roles. This pack reads the synthesized templates (a plain
``IPolicyValidationPlugin``: cdk-nag's ``NagPack.applyRule`` wants jsii callbacks that Python functions
cannot be) and reports each broken rule with the resource and property path.

Register it next to AwsSolutionsChecks::

    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app), EksTrainingChecks(app))
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsii
from aws_cdk import (IPolicyValidationContext, IPolicyValidationPlugin, PolicyValidationPluginReport,
                     PolicyViolatingResource, PolicyViolation)
from constructs import IConstruct

PACK_NAME = "EksTraining"
ENVIRONMENT_TAG = "eks-training/environment"
CONTROL_PLANE_LOG_TYPES = ("api", "audit", "authenticator", "controllerManager", "scheduler")
#: Principals that mark a role as one that pods assume (EKS Pod Identity, or IRSA's web identity).
POD_IDENTITY_SERVICE = "pods.eks.amazonaws.com"

Resources = dict[str, dict[str, Any]]
#: A rule check: a template's resources -> (logical id, location) of each finding.
Check = Callable[[Resources], Iterator[tuple[str, str]]]


@dataclass(frozen=True)
class Rule:
    """One rule of the pack: its id, what it wants, how to fix it, and the check."""

    id: str
    description: str
    fix: str
    check: Check


def _props(resource: dict[str, Any]) -> dict[str, Any]:
    return resource.get("Properties") or {}


def _of_type(resources: Resources, type_: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for logical_id, resource in resources.items():
        if resource.get("Type") == type_:
            yield logical_id, _props(resource)


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _is_true(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.lower() == "true")


def _ref(value: Any) -> str | None:
    """The logical id that ``value`` points at through Ref or Fn::GetAtt, if it does."""
    if isinstance(value, dict):
        if "Ref" in value:
            return value["Ref"]
        if "Fn::GetAtt" in value:
            target = value["Fn::GetAtt"]
            return target[0] if isinstance(target, list) else str(target).split(".", 1)[0]
    return None


# --- EKS control plane -----------------------------------------------------------------------------

def _cluster_logging(resources: Resources) -> Iterator[tuple[str, str]]:
    for lid, props in _of_type(resources, "AWS::EKS::Cluster"):
        enabled = {t.get("Type") for t in (props.get("Logging") or {}).get("ClusterLogging", {}).get("EnabledTypes", [])
                   if isinstance(t, dict)}
        if not set(CONTROL_PLANE_LOG_TYPES) <= enabled:
            yield lid, "Properties/Logging/ClusterLogging/EnabledTypes"


def _cluster_secrets_encryption(resources: Resources) -> Iterator[tuple[str, str]]:
    for lid, props in _of_type(resources, "AWS::EKS::Cluster"):
        encrypted = any("secrets" in _as_list(c.get("Resources", [])) and (c.get("Provider") or {}).get("KeyArn")
                        for c in _as_list(props.get("EncryptionConfig") or []) if isinstance(c, dict))
        if not encrypted:
            yield lid, "Properties/EncryptionConfig"


def _environment(props: dict[str, Any]) -> str | None:
    for tag in props.get("Tags") or []:
        if isinstance(tag, dict) and tag.get("Key") == ENVIRONMENT_TAG:
            return tag.get("Value")
    return None


def _open_public_endpoint(production: Sequence[str]) -> Check:
    def check(resources: Resources) -> Iterator[tuple[str, str]]:
        for lid, props in _of_type(resources, "AWS::EKS::Cluster"):
            if _environment(props) not in production:
                continue
            vpc = props.get("ResourcesVpcConfig") or {}
            # EKS's default for EndpointPublicAccess is true, and for PublicAccessCidrs 0.0.0.0/0.
            public = vpc.get("EndpointPublicAccess", True)
            cidrs = vpc.get("PublicAccessCidrs") or ["0.0.0.0/0"]
            if _is_true(public) and "0.0.0.0/0" in cidrs:
                yield lid, "Properties/ResourcesVpcConfig/PublicAccessCidrs"
    return check


# --- EC2 launch templates --------------------------------------------------------------------------

def _launch_template_imdsv2(resources: Resources) -> Iterator[tuple[str, str]]:
    for lid, props in _of_type(resources, "AWS::EC2::LaunchTemplate"):
        metadata = (props.get("LaunchTemplateData") or {}).get("MetadataOptions") or {}
        if metadata.get("HttpTokens") != "required":
            yield lid, "Properties/LaunchTemplateData/MetadataOptions/HttpTokens"


def _launch_template_encrypted_volumes(resources: Resources) -> Iterator[tuple[str, str]]:
    for lid, props in _of_type(resources, "AWS::EC2::LaunchTemplate"):
        mappings = (props.get("LaunchTemplateData") or {}).get("BlockDeviceMappings") or []
        for i, mapping in enumerate(mappings):
            ebs = mapping.get("Ebs") if isinstance(mapping, dict) else None
            if ebs is not None and not _is_true(ebs.get("Encrypted")):
                yield lid, f"Properties/LaunchTemplateData/BlockDeviceMappings/{i}/Ebs/Encrypted"


# --- File systems ----------------------------------------------------------------------------------

def _fsx_kms(resources: Resources) -> Iterator[tuple[str, str]]:
    for lid, props in _of_type(resources, "AWS::FSx::FileSystem"):
        deployment = str((props.get("LustreConfiguration") or {}).get("DeploymentType", ""))
        # Scratch Lustre file systems are always encrypted with an FSx-owned key and take no KmsKeyId.
        scratch = props.get("FileSystemType") == "LUSTRE" and deployment.startswith("SCRATCH")
        if not scratch and not props.get("KmsKeyId"):
            yield lid, "Properties/KmsKeyId"


def _efs_kms(resources: Resources) -> Iterator[tuple[str, str]]:
    for lid, props in _of_type(resources, "AWS::EFS::FileSystem"):
        if not _is_true(props.get("Encrypted")):
            yield lid, "Properties/Encrypted"
        elif not props.get("KmsKeyId"):
            yield lid, "Properties/KmsKeyId"


# --- IAM -------------------------------------------------------------------------------------------

def _is_pod_role(props: dict[str, Any]) -> bool:
    for statement in _as_list((props.get("AssumeRolePolicyDocument") or {}).get("Statement", [])):
        principal = statement.get("Principal") or {}
        if POD_IDENTITY_SERVICE in _as_list(principal.get("Service", [])):
            return True
        if "sts:AssumeRoleWithWebIdentity" in _as_list(statement.get("Action", [])):
            return True
    return False


def _wildcard_action(action: Any) -> bool:
    return isinstance(action, str) and (action == "*" or action.endswith(":*"))


def _wildcard_statements(document: dict[str, Any]) -> Iterator[int]:
    for i, statement in enumerate(_as_list(document.get("Statement", []))):
        if statement.get("Effect") == "Allow" and any(map(_wildcard_action, _as_list(statement.get("Action", [])))):
            yield i


def _pod_role_wildcards(resources: Resources) -> Iterator[tuple[str, str]]:
    pod_roles = {lid for lid, props in _of_type(resources, "AWS::IAM::Role") if _is_pod_role(props)}
    for lid in sorted(pod_roles):
        for p, policy in enumerate(_props(resources[lid]).get("Policies") or []):
            for s in _wildcard_statements(policy.get("PolicyDocument") or {}):
                yield lid, f"Properties/Policies/{p}/PolicyDocument/Statement/{s}/Action"
    managed_on_pod_roles = {_ref(arn) for lid in pod_roles for arn in _props(resources[lid]).get("ManagedPolicyArns") or []}
    for type_ in ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"):
        for lid, props in _of_type(resources, type_):
            attached = {_ref(r) for r in props.get("Roles") or []} & pod_roles
            if attached or lid in managed_on_pod_roles:
                for s in _wildcard_statements(props.get("PolicyDocument") or {}):
                    yield lid, f"Properties/PolicyDocument/Statement/{s}/Action"


# --- S3 --------------------------------------------------------------------------------------------

def _bucket_kms(resources: Resources) -> Iterator[tuple[str, str]]:
    # S3 server access logs can only be delivered to a bucket with SSE-S3, so log targets are exempt.
    log_targets = {_ref((props.get("LoggingConfiguration") or {}).get("DestinationBucketName"))
                   for _, props in _of_type(resources, "AWS::S3::Bucket")}
    for lid, props in _of_type(resources, "AWS::S3::Bucket"):
        if lid in log_targets:
            continue
        rules = (props.get("BucketEncryption") or {}).get("ServerSideEncryptionConfiguration") or []
        algorithms = {(r.get("ServerSideEncryptionByDefault") or {}).get("SSEAlgorithm") for r in rules}
        if not algorithms & {"aws:kms", "aws:kms:dsse"}:
            yield lid, "Properties/BucketEncryption"


def _denies_plain_http(statement: dict[str, Any]) -> bool:
    secure = ((statement.get("Condition") or {}).get("Bool") or {}).get("aws:SecureTransport")
    return statement.get("Effect") == "Deny" and str(secure).lower() == "false"


def _bucket_tls_only(resources: Resources) -> Iterator[tuple[str, str]]:
    tls_only = {_ref(props.get("Bucket")) for _, props in _of_type(resources, "AWS::S3::BucketPolicy")
                if any(map(_denies_plain_http, _as_list((props.get("PolicyDocument") or {}).get("Statement", []))))}
    for lid, _ in _of_type(resources, "AWS::S3::Bucket"):
        if lid not in tls_only:
            yield lid, "Properties"


def rules(production_environments: Sequence[str] = ("prod",)) -> tuple[Rule, ...]:
    """The pack's rules; the public-endpoint rule applies to clusters tagged with a production environment."""
    return (
        Rule("EksTraining-EKS1", "EKS control-plane logging must enable all five types: " + ", ".join(CONTROL_PLANE_LOG_TYPES),
             "Set Logging.ClusterLogging.EnabledTypes to every control-plane log type.", _cluster_logging),
        Rule("EksTraining-EKS2", "EKS Kubernetes secrets must be envelope-encrypted with a KMS key",
             "Set EncryptionConfig with Resources [secrets] and a Provider.KeyArn.", _cluster_secrets_encryption),
        Rule("EksTraining-EKS3", "A production EKS endpoint must not be public to 0.0.0.0/0",
             "Use endpoint_access private, or list PublicAccessCidrs narrower than 0.0.0.0/0.",
             _open_public_endpoint(tuple(production_environments))),
        Rule("EksTraining-EC2IMDS", "Launch templates must require IMDSv2 (MetadataOptions.HttpTokens required)",
             "Set LaunchTemplateData.MetadataOptions.HttpTokens to 'required'.", _launch_template_imdsv2),
        Rule("EksTraining-EC2EBS", "Launch template EBS volumes must be encrypted",
             "Set Encrypted: true on every BlockDeviceMappings[].Ebs.", _launch_template_encrypted_volumes),
        Rule("EksTraining-FSX1", "FSx file systems (other than scratch Lustre) must name a KMS key",
             "Set KmsKeyId to a customer-managed key.", _fsx_kms),
        Rule("EksTraining-EFS1", "EFS file systems must be encrypted with a named KMS key",
             "Set Encrypted: true and KmsKeyId.", _efs_kms),
        Rule("EksTraining-IAM1", "Policies of Pod Identity / IRSA roles must not allow '*' or 'service:*' actions",
             "List the actions the workload needs.", _pod_role_wildcards),
        Rule("EksTraining-S3KMS", "S3 buckets (other than access-log targets) must be encrypted with SSE-KMS",
             "Set BucketEncryption with SSEAlgorithm aws:kms.", _bucket_kms),
        Rule("EksTraining-S3TLS", "S3 buckets must have a policy that denies requests without TLS",
             "Add a bucket policy statement Deny when aws:SecureTransport is false (enforceSSL).", _bucket_tls_only),
    )


@jsii.implements(IPolicyValidationPlugin)
class EksTrainingChecks:
    """cdk validation plugin for the platform's own security rules (ids ``EksTraining-*``).

    ``scope`` is accepted for the same constructor shape as cdk-nag's packs and not used: the rules read the
    synthesized templates. ``production_environments`` names the environments (the ``eks-training/environment``
    tag) whose cluster endpoint must not be open to 0.0.0.0/0.
    """

    def __init__(self, scope: IConstruct | None = None, *, production_environments: Sequence[str] = ("prod",)) -> None:
        self._production = tuple(production_environments)
        self._rules = rules(self._production)

    @property
    def name(self) -> str:
        return PACK_NAME

    @property
    def version(self) -> str:
        return "1.0.0"

    @property
    def rule_ids(self) -> list[str]:
        return [rule.id for rule in self._rules]

    def validate(self, context: IPolicyValidationContext) -> PolicyValidationPluginReport:
        violations = []
        templates = {path: json.loads(Path(path).read_text()) for path in context.template_paths}
        for rule in self._rules:
            offending = [PolicyViolatingResource(resource_logical_id=lid, template_path=path, locations=[location])
                         for path, template in templates.items()
                         for lid, location in rule.check(template.get("Resources") or {})]
            if offending:
                violations.append(PolicyViolation(rule_name=rule.id, description=rule.description, fix=rule.fix,
                                                  violating_resources=offending, severity="error"))
        return PolicyValidationPluginReport(success=not violations, violations=violations)
