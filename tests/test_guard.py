"""AWS CloudFormation Guard, with the AWS Guard Rules Registry's rules, on every environment's synthesized template.

The rules are the upstream artifact ``upstream.GUARD_RULES`` (the registry's rules for the services our templates
hold: CIS, NIST 800-53 and Well-Architected map to them), run by ``cfn-guard-rs`` (Guard's own Rust engine, through
its PyPI bindings) on dev, staging and prod. A rule that FAILs fails the test unless it is skipped below with its
reason: for the whole rule (:data:`SKIPS`, the rule does not fit this platform) or for named resources
(:data:`RESOURCE_SKIPS`, a glob on ``Type.LogicalId``), in which case the rule is run again on the template without
those resources and must not fail there. A skip that no longer matches a failure fails too. Guard's own SKIP (the
rule's ``when`` found nothing of its type) is "not applicable", reported in the tallies.

cfn-guard-rs 0.3.3's non-verbose output is unreliable (SOURCES.md of the rules): the verbose tree is read, each
``RuleCheck`` node's status. The custom resources' payloads (Kubernetes manifests and Helm values: large JSON
strings) are replaced by a placeholder before Guard runs, which halves its time; no rule reads them (checked below).
"""

from __future__ import annotations

import copy
import fnmatch
import functools
import json
from collections import Counter
from pathlib import Path

import pytest
from cfn_guard_rs import cfn_guard_rs as guard  # requirements-dev.txt

from eks_training.core import upstream
from support.upstream_data import tree

#: Rule -> why it does not fit the platform at all.
SKIPS: dict[str, str] = {
    "S3_BUCKET_DEFAULT_LOCK_ENABLED":
        "Object Lock would forbid the deletes the platform relies on: the trainer keeps the last checkpoints and "
        "deletes older ones, and the access logs expire; versioning with noncurrent-version expiry is what recovers an "
        "overwritten or deleted object (for noncurrent_checkpoint_days), and prod retains its buckets",
    "S3_BUCKET_REPLICATION_ENABLED":
        "cross-Region replication would double the storage of data that is either prepared again from its source "
        "(datasets) or rotated (checkpoints); S3 keeps it durable within the Region, versioning undoes deletes, and an "
        "organisation that needs a second Region adds its own replication rule",
    "S3_BUCKET_NO_PUBLIC_RW_ACL":
        "the rule compares AccessControl, which no bucket here sets: BucketOwnerEnforced ownership turns ACLs off "
        "altogether and every public access block is on; Guard fails a comparison with a missing value, so the rule "
        "fails every bucket that has no ACL at all (the registry's test data only has buckets with one)",
    "S3_BUCKET_SSL_REQUESTS_ONLY":
        "the rule wants the JSON boolean false in aws:SecureTransport; CDK's enforceSSL writes the string \"false\", "
        "which IAM evaluates the same way; test_bucket_policies_deny_plain_http holds every bucket policy to its "
        "Deny statement",
}

#: (rule, glob on "Type.LogicalId") -> why these resources are an exception.
RESOURCE_SKIPS: dict[tuple[str, str], str] = {
    ("LAMBDA_CONCURRENCY_CHECK", "AWS::Lambda::Function.ClusterKubectlProvider*"):
        "aws-eks-v2's kubectl provider, invoked only by CloudFormation during a deploy; reserved concurrency would "
        "take capacity from the account's pool and can make a deploy fail",
    ("LAMBDA_CONCURRENCY_CHECK", "AWS::Lambda::Function.AWS679f53fac002430cb0da5b7982bd2287*"):
        "aws-cdk-lib's AwsCustomResource handler (the file system's root squash), invoked only by CloudFormation "
        "during a deploy; reserved concurrency would take capacity from the account's pool",
    ("LAMBDA_DLQ_CHECK", "AWS::Lambda::Function.ClusterKubectlProvider*"):
        "CloudFormation invokes the custom-resource handlers synchronously and gets their failure back (the stack "
        "rolls back): a dead-letter queue would never receive anything",
    ("LAMBDA_DLQ_CHECK", "AWS::Lambda::Function.AWS679f53fac002430cb0da5b7982bd2287*"):
        "CloudFormation invokes the custom-resource handler synchronously and gets its failure back (the stack rolls "
        "back): a dead-letter queue would never receive anything",
    ("LAMBDA_INSIDE_VPC", "AWS::Lambda::Function.ClusterKubectlProvider*"):
        "aws-eks-v2 places the kubectl provider in the VPC only when the endpoint is private; with a public endpoint "
        "it calls the API from Lambda's network, which the endpoint's public_access_cidrs and IAM still guard",
    ("LAMBDA_INSIDE_VPC", "AWS::Lambda::Function.AWS679f53fac002430cb0da5b7982bd2287*"):
        "the AwsCustomResource handler calls one AWS API (fsx:UpdateFileSystem on the platform's file system) and "
        "reaches nothing in the VPC; putting it there would only add ENIs and a NAT path to the same public endpoint",
    ("LAMBDA_CONCURRENCY_CHECK", "AWS::Lambda::Function.CustomS3AutoDeleteObjectsCustomResourceProviderHandler*"):
        "aws-cdk-lib's bucket-emptying handler (dev and staging buckets are deleted with the stack), invoked only by "
        "CloudFormation on delete; reserved concurrency would take capacity from the account's pool",
    ("LAMBDA_DLQ_CHECK", "AWS::Lambda::Function.CustomS3AutoDeleteObjectsCustomResourceProviderHandler*"):
        "CloudFormation invokes the bucket-emptying handler synchronously and gets its failure back (the delete "
        "fails and says so): a dead-letter queue would never receive anything",
    ("LAMBDA_INSIDE_VPC", "AWS::Lambda::Function.CustomS3AutoDeleteObjectsCustomResourceProviderHandler*"):
        "the bucket-emptying handler calls S3 on the stack's own buckets only (its role is limited to them) and "
        "reaches nothing in the VPC",
    ("SQS_QUEUE_KMS_MASTER_KEY_ID_RULE", "AWS::SQS::Queue.KarpenterControllerInterruptionQueue*"):
        "the queue is encrypted with SQS-managed SSE (SqsManagedSseEnabled, as Karpenter's reference template does; "
        "tests/test_checkov.py holds it to that): a KMS key would need a key policy that lets EventBridge deliver "
        "the interruption events, and the events hold no data of ours",
    ("S3_BUCKET_LOGGING_ENABLED", "AWS::S3::Bucket.BucketsAccessLogs*"):
        "this is the access-log bucket of the data and checkpoint buckets: logging its own access would log into itself",
    ("IAM_POLICYDOCUMENT_NO_WILDCARD_RESOURCE", "AWS::IAM::Policy.ClusterFsxCsiRoleDefaultPolicy*"):
        "fsx:DescribeFileSystems and iam:CreateServiceLinkedRole take no resource ARN (the latter is conditioned on "
        "the FSx service name); every statement that acts on a file system is conditioned on the stack's owner tag",
    ("IAM_POLICYDOCUMENT_NO_WILDCARD_RESOURCE", "AWS::IAM::Policy.KarpenterControllerControllerRoleDefaultPolicy*"):
        "Karpenter 1.14's reference policy: the EC2 Describe calls, pricing and the instance-profile listing take no "
        "resource ARN (Describe is conditioned on the region); the deploy check compares the policy with the reference",
    ("NO_UNRESTRICTED_ROUTE_TO_IGW", "AWS::EC2::Route.NetworkVpcpublicSubnet*DefaultRoute*"):
        "the public subnets hold the NAT gateways, whose route to the internet gateway is what NAT is; nothing there "
        "gets a public address (MapPublicIpOnLaunch is off) and workload namespaces cannot make load balancers",
    ("EKS_ENDPOINT_NO_PUBLIC_ACCESS", "AWS::EKS::Cluster.*"):
        "endpoint_access public_and_private is a choice of the environment file (dev's), and then admits only the "
        "networks in public_access_cidrs (the config refuses a public endpoint without them); the API authenticates "
        "every request",
    ("EC2_SECURITY_GROUP_EGRESS_OPEN_TO_WORLD_RULE", "AWS::EC2::SecurityGroup.LustreSecurityGroup*"):
        "the file servers reach the S3 data repositories on HTTPS only; S3's addresses are public and a security "
        "group cannot name a gateway endpoint, so 0.0.0.0/0 on 443 is the narrowest rule (all else is Lustre's "
        "ports to the file system's own group and its clients)",
    ("SECURITY_GROUP_EGRESS_ALL_PROTOCOLS_RULE", "AWS::EC2::SecurityGroupEgress.Network*EfaSelfEgress*"):
        "EFA's SRD traffic is neither TCP nor UDP: the EFA user guide requires all traffic to the group itself, and "
        "the rule names only that group",
    ("SECURITY_GROUP_INGRESS_ALL_PROTOCOLS_RULE",
     "AWS::EC2::SecurityGroupIngress.Network*EfaSecurityGroupfromEksTraining*Network*EfaSecurityGroup*ALLTRAFFIC*"):
        "EFA's SRD traffic is neither TCP nor UDP: the EFA user guide requires all traffic from the group itself, and "
        "the rule names only that group",
    ("SECURITY_GROUP_INGRESS_PORT_RANGE_RULE", "AWS::EC2::SecurityGroupIngress.*LustreSecurityGroup*10181023*"):
        "Lustre's LNet uses the ports 1018-1023 (FSx for Lustre user guide, file system access control): the range is "
        "the protocol's, between the file system's group and its clients' groups only",
    ("SECURITY_GROUP_EGRESS_PORT_RANGE_RULE", "AWS::EC2::SecurityGroupEgress.*LustreSecurityGroup*10181023*"):
        "Lustre's LNet uses the ports 1018-1023 (FSx for Lustre user guide): the range is the protocol's, to the file "
        "system's group or its clients' groups only",
    **{("SECURITY_GROUP_EGRESS_PORT_RANGE_RULE", f"AWS::EC2::SecurityGroup.{group}*"):
       "CDK's placeholder egress rule of a group that sends nothing (ICMP type 252, code 86: FromPort and ToPort hold "
       "the ICMP type and code, not a port range); the group's real rules are separate resources or none"
       for group in ("Network*EndpointSecurityGroup", "ModelsSecurityGroup", "Network*EfaSecurityGroup",
                     "ApiTunnelEndpointSecurityGroup", "ApiTunnelInstanceSecurityGroup")},
    ("EC2_INSTANCE_PROFILE_ATTACHED", "AWS::EC2::Instance.ApiTunnelInstance*"):
        "the API tunnel's instance holds no AWS identity on purpose: it only forwards an operator's SSH session to "
        "the API endpoint, and a role there would be held by everyone who may open the tunnel (tests/test_tenancy.py)",
    ("IAM_POLICYDOCUMENT_NO_WILDCARD_RESOURCE", "AWS::IAM::Policy.ClusterVpcCniRoleDefaultPolicy*"):
        "the VPC CNI's documented scope-down: EC2's describe calls take no resource ARN; every write names "
        "network-interface, subnet, security-group or instance ARNs held to this VPC or cluster by condition",
    ("IAM_POLICYDOCUMENT_NO_WILDCARD_RESOURCE", "AWS::IAM::ManagedPolicy.ApiTunnelOperatorPolicy*"):
        "ec2:DescribeInstances and ec2:DescribeInstanceConnectEndpoints take no resource ARN (the CLI looks the "
        "tunnel up); opening it names exactly the endpoint and the instance",
    ("SECURITY_GROUP_EGRESS_PORT_RANGE_RULE", "AWS::EC2::SecurityGroup.ClusterControlPlaneSecurityGroup*"):
        "the control plane calls the kubelet, the admission webhooks and pods (port-forward, proxy) on whatever port "
        "their charts pick, so TCP goes to every port, but of the VPC's range only (not the internet)",
}

ENVIRONMENTS = ("dev", "staging", "prod")
#: The custom resources whose payloads are replaced before Guard runs (no rule reads a Custom:: type).
_PAYLOADS = {"Custom::AWSCDK-EKS-KubernetesResource": ("Manifest",), "Custom::AWSCDK-EKS-HelmChart": ("Values",),
             "Custom::AWSCDK-EKS-KubernetesPatch": ("ApplyPatchJson", "RestorePatchJson")}


def _rules_root() -> Path:
    return tree(upstream.GUARD_RULES) / "rules" / "aws"


def rule_files() -> dict[str, str]:
    """Path below rules/aws -> the rule file's text, for every .guard file of the artifact."""
    root = _rules_root()
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*.guard"))}


def run_rules(template: dict, text: str) -> dict[str, str] | None:
    """Rule name -> PASS/FAIL/SKIP for one rule file on ``template`` (None: the file holds no rule)."""
    raw = guard.run_checks_rs(json.dumps(template), text, True)
    if not raw.strip():
        return None
    report = json.loads(raw)
    return {child["container"]["RuleCheck"]["name"]: child["container"]["RuleCheck"]["status"]
            for child in report.get("children", []) if "RuleCheck" in child.get("container", {})}


def for_guard(template: dict) -> dict:
    template = copy.deepcopy(template)
    for resource in template["Resources"].values():
        for key in _PAYLOADS.get(resource["Type"], ()):
            if key in resource.get("Properties", {}):
                resource["Properties"][key] = "(payload not read by Guard)"
    return template


def resource_names(template: dict) -> list[str]:
    return [f"{r['Type']}.{lid}" for lid, r in template["Resources"].items()]


@functools.lru_cache(maxsize=None)
def _results(env: str, template_json: str) -> dict[str, tuple[str, str]]:
    template = json.loads(template_json)
    results = {}
    for path, text in rule_files().items():
        for name, status in (run_rules(template, text) or {}).items():
            results[name] = (status, path)
    return results


@pytest.fixture(scope="module")
def guarded(dev, staging, prod) -> dict[str, tuple[dict, dict[str, tuple[str, str]]]]:
    """Environment -> (the template Guard ran on, rule -> (status, rule file))."""
    out = {}
    for env, synth in zip(ENVIRONMENTS, (dev, staging, prod)):
        template = for_guard(synth.template)
        out[env] = (template, _results(env, json.dumps(template)))
    return out


def _skipped_resources(rule: str, template: dict) -> set[str]:
    globs = [glob for (name, glob) in RESOURCE_SKIPS if name == rule]
    return {lid for lid, r in template["Resources"].items()
            if any(fnmatch.fnmatchcase(f"{r['Type']}.{lid}", g) for g in globs)}


def open_failures(env: str, template: dict, results: dict[str, tuple[str, str]]) -> list[str]:
    """Failing rules not explained by a skip: a rule skipped for some resources must pass (or not apply) without them."""
    files = rule_files()
    failures = []
    for rule, (status, path) in sorted(results.items()):
        if status != "FAIL" or rule in SKIPS:
            continue
        skipped = _skipped_resources(rule, template)
        if not skipped:
            failures.append(f"{env}: {rule} ({path})")
            continue
        rest = {**template, "Resources": {lid: r for lid, r in template["Resources"].items() if lid not in skipped}}
        if (run_rules(rest, files[path]) or {}).get(rule) == "FAIL":
            failures.append(f"{env}: {rule} ({path}) fails on resources no skip names")
    return failures


def test_guard_ran_every_rule_of_the_artifact(guarded) -> None:
    files = rule_files()
    empty = [path for path, text in files.items() if run_rules({"Resources": {}}, text) is None]
    # Two files of the registry's commit hold only their header comments (no rule to run).
    assert all(not [line for line in files[p].splitlines() if line.strip() and not line.lstrip().startswith("#")]
               for p in empty), empty
    for env, (_, results) in guarded.items():
        assert len(results) == 85 and len(files) - len(empty) == 83, (env, len(results), len(files), empty)
    assert not any("Custom::" in text for text in files.values()), "a rule reads custom resources: stop replacing payloads"


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_no_guard_failure_outside_the_reasoned_skips(guarded, env) -> None:
    template, results = guarded[env]
    tally = Counter(status for status, _ in results.values())
    print(f"\nGuard {env}: {tally['PASS']} pass / {tally['FAIL']} fail / {tally['SKIP']} not applicable")
    assert not open_failures(env, template, results), "Guard failures:\n" + "\n".join(open_failures(env, template, results))


def test_every_skip_still_matches_a_failure(guarded) -> None:
    failing = {env: {rule for rule, (status, _) in results.items() if status == "FAIL"}
               for env, (_, results) in guarded.items()}
    stale = [rule for rule in SKIPS if not any(rule in rules for rules in failing.values())]
    for rule, glob in RESOURCE_SKIPS:
        if not any(rule in failing[env] and any(fnmatch.fnmatchcase(name, glob) for name in resource_names(template))
                   for env, (template, _) in guarded.items()):
            stale.append(f"{rule} {glob}")
    assert not stale, f"skips that match no failure any more (remove them): {stale}"


def test_skip_reasons_are_real_sentences() -> None:
    for key, reason in [*SKIPS.items(), *RESOURCE_SKIPS.items()]:
        assert len(reason.split()) >= 12, f"{key}: say why the rule does not apply here"


def test_bucket_policies_deny_plain_http(prod) -> None:
    """What S3_BUCKET_SSL_REQUESTS_ONLY's skip relies on: every bucket policy denies requests without TLS."""
    policies = prod.resources("AWS::S3::BucketPolicy")
    assert len(policies) == 3
    for lid, policy in policies.items():
        statements = policy["Properties"]["PolicyDocument"]["Statement"]
        assert any(s["Effect"] == "Deny" and s["Action"] == "s3:*" and
                   s.get("Condition", {}).get("Bool", {}).get("aws:SecureTransport") == "false" for s in statements), lid


def test_guard_fails_what_it_should() -> None:
    """The harness reads Guard's verdicts: a bucket with versioning suspended fails the registry's versioning rule."""
    text = rule_files()["amazon_s3/s3_bucket_versioning_enabled.guard"]
    bucket = {"Type": "AWS::S3::Bucket", "Properties": {"VersioningConfiguration": {"Status": "Suspended"}}}
    assert run_rules({"Resources": {"B": bucket}}, text) == {"S3_BUCKET_VERSIONING_ENABLED": "FAIL"}
    bucket["Properties"]["VersioningConfiguration"]["Status"] = "Enabled"
    assert run_rules({"Resources": {"B": bucket}}, text) == {"S3_BUCKET_VERSIONING_ENABLED": "PASS"}
