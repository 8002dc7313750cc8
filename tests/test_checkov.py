"""checkov on prod's synthesized CloudFormation template and on every Kubernetes manifest it applies.

Any failed check that is not skipped below fails the test. A skip names the check (and, where the exception is
for one resource, the resource: a glob on checkov's ``Type.name`` / ``Kind.namespace.name``) and says why the
finding is not a defect here. A skip that no longer matches anything fails too, so none outlives its reason.

checkov 3.3.30 pins ``packaging<24`` and ``boto3==1.35.49``, which the test environment (pytest 9, our boto3 pin)
cannot share: it runs from its own virtual environment, as a subprocess, once per session:

    python -m venv .tools/checkov-venv && .tools/checkov-venv/bin/pip install checkov==3.3.30

(or point ``$CHECKOV`` at a checkov 3.3.30 executable).
"""

from __future__ import annotations

import fnmatch
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
#: The pin `make test` installs (requirements-checkov.txt): the skips below are reasoned for this version.
CHECKOV_VERSION = next(line.split("==")[1].strip() for line in (REPO / "requirements-checkov.txt").read_text().splitlines()
                       if line.startswith("checkov=="))

#: Check id -> why it does not apply to any resource of the platform.
SKIPS: dict[str, str] = {
    "CKV_K8S_11": "CPU limits: the platform sets CPU requests (quota'd per namespace) and deliberately no CPU limits: "
                  "CPU is compressible, and a limit only adds CFS throttling (data loaders, the API clients of jobs) "
                  "without protecting anything that requests and the quota do not already protect",
}

#: (check id, resource glob) -> why this one resource is an exception.
RESOURCE_SKIPS: dict[tuple[str, str], str] = {
    ("CKV_K8S_158", "ClusterRole.*.mpi-operator-installer"):
        "escalate is scoped by resourceNames to the four ClusterRoles of the MPI Operator's release manifest (the "
        "alternative is to hold the operator's own rights), and the installer deletes its bindings when done",
    ("CKV_K8S_38", "Job.mpi-operator-install.install-mpi-operator-*"):
        "the installer's whole job is calling the API (server-side apply, patch, rollout status): it needs its token",
    ("CKV_K8S_38", "Job.*.*-secret-generator"):
        "the secret generator creates the Slurm Secrets through the API: it needs its token",
    ("CKV_K8S_40", "StatefulSet.*.*-mariadb"):
        "the MariaDB image's mysql user (999) owns its data directory; the pod mounts no host path and shares no "
        "host namespace, so its UID grants nothing on the node",
    ("CKV_K8S_23", "Job.kube-system.fsx-workspaces-*"):
        "root owns the FSx file system's root directory, and creating the namespaces' workspaces under it needs uid 0; "
        "the pod drops every capability, cannot escalate, has a read-only root file system, mounts no host path, "
        "gets no API token and runs in kube-system, out of every team's reach",
    ("CKV_K8S_40", "Job.kube-system.fsx-workspaces-*"):
        "uid 0 on purpose, for the reason of CKV_K8S_23 above (a high UID could not create directories in the root)",
    ("CKV_AWS_115", "AWS::Lambda::Function.ClusterKubectlProvider*"):
        "the kubectl provider is aws-eks-v2's own custom-resource handler, invoked only by CloudFormation during a "
        "deploy; reserved concurrency would take capacity from the account and can make a deploy fail",
    ("CKV_AWS_116", "AWS::Lambda::Function.ClusterKubectlProvider*"):
        "CloudFormation invokes the custom-resource handler synchronously and gets its failure back (the stack "
        "rolls back): a dead-letter queue would never receive anything",
    ("CKV_AWS_173", "AWS::Lambda::Function.ClusterKubectlProvider*"):
        "the handler's only environment variable is AWS_STS_REGIONAL_ENDPOINTS=regional (no secret); Lambda "
        "encrypts it at rest with its service key",
    ("CKV_AWS_33", "AWS::KMS::Key.BucketsKey*"):
        "the wildcard principal is bounded by conditions: this account only, the FSx-for-Lustre-S3 service-linked "
        "role (whose name ends in a random suffix, so it cannot be named), and only through S3 in the region",
    ("CKV_AWS_27", "AWS::SQS::Queue.Karpenter*InterruptionQueue*"):
        "the queue is encrypted with SQS-managed SSE (SqsManagedSseEnabled, as Karpenter's reference template does; "
        "test_skipped_queue_is_encrypted holds it to that): checkov 3.3.30 only reads KmsMasterKeyId, and a KMS key "
        "would need a key policy that lets EventBridge deliver the interruption events",
    ("CKV_AWS_18", "AWS::S3::Bucket.BucketsAccessLogs*"):
        "this is the access-log bucket: logging its own access would log into itself",
}


def _checkov() -> str:
    candidates = [os.environ.get("CHECKOV"), str(REPO / ".tools" / "checkov-venv" / "bin" / "checkov"), shutil.which("checkov")]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return candidate
    pytest.skip(f"checkov {CHECKOV_VERSION} is not installed: it cannot share the test environment (see this "
                "module's docstring: python -m venv .tools/checkov-venv && .tools/checkov-venv/bin/pip install "
                f"checkov=={CHECKOV_VERSION}, or set CHECKOV)")


@pytest.fixture(scope="session")
def checkov_report(prod, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """check type -> checkov's report, for prod's template and its Kubernetes manifests, run once."""
    executable = _checkov()
    version = subprocess.run([executable, "--version"], capture_output=True, text=True, timeout=120).stdout.strip()
    assert version == CHECKOV_VERSION, f"checkov {version} at {executable}: the skips are reviewed for {CHECKOV_VERSION}"
    root = tmp_path_factory.mktemp("checkov")
    (root / "cloudformation").mkdir()
    (root / "cloudformation" / f"{prod.stack_name}.template.json").write_text(json.dumps(prod.template))
    (root / "kubernetes").mkdir()
    manifests = prod.kubernetes_manifests
    for logical_id, objects in manifests.items():
        (root / "kubernetes" / f"{logical_id}.yaml").write_text(yaml.safe_dump_all(objects, sort_keys=False))
    reports = []
    # One framework per folder: checkov's CloudFormation runner parses any YAML file that contains "Resources" (a
    # Kueue ClusterQueue's `coveredResources` does) and fails on a multi-document manifest.
    for framework in ("cloudformation", "kubernetes"):
        result = subprocess.run(
            [executable, "-d", str(root / framework), "--framework", framework, "--quiet", "--compact",
             # Offline: no guideline download from Prisma Cloud (it would only add links and wait on DNS).
             "--skip-download", "-o", "json"],
            capture_output=True, text=True, timeout=300, cwd=root)
        # checkov exits 1 when any check fails; anything else is a broken run.
        assert result.returncode in (0, 1), f"checkov exited {result.returncode}: {result.stderr[-2000:]}"
        report = json.loads(result.stdout)
        reports += report if isinstance(report, list) else [report]
    by_type = {r["check_type"]: r for r in reports}
    assert set(by_type) == {"cloudformation", "kubernetes"}, f"checkov reported {sorted(by_type)}"
    return by_type


def _skip_reason(check_id: str, resource: str) -> str | None:
    if check_id in SKIPS:
        return SKIPS[check_id]
    for (skip_id, pattern), reason in RESOURCE_SKIPS.items():
        if skip_id == check_id and fnmatch.fnmatchcase(resource, pattern):
            return reason
    return None


def _failed(report: dict[str, dict]) -> list[tuple[str, str, str, str]]:
    return [(kind, f["check_id"], f["resource"], f["check_name"])
            for kind, r in report.items() for f in r["results"]["failed_checks"]]


def test_checkov_scanned_the_template_and_every_manifest(checkov_report, prod) -> None:
    cloudformation, kubernetes = checkov_report["cloudformation"], checkov_report["kubernetes"]
    assert cloudformation["summary"]["parsing_errors"] == kubernetes["summary"]["parsing_errors"] == 0
    assert cloudformation["summary"]["resource_count"] == len(prod.template["Resources"])
    objects = [obj for _, obj in prod.kubernetes_objects()]
    assert kubernetes["summary"]["resource_count"] >= len(objects) > 0


def test_no_checkov_finding_outside_the_reasoned_skips(checkov_report) -> None:
    open_findings = [f"{kind} {check_id} {resource}: {name}" for kind, check_id, resource, name in _failed(checkov_report)
                     if _skip_reason(check_id, resource) is None]
    assert not open_findings, "checkov findings:\n" + "\n".join(open_findings)


def test_every_skip_still_matches_a_finding(checkov_report) -> None:
    failed = _failed(checkov_report)
    stale = [check_id for check_id in SKIPS if not any(f[1] == check_id for f in failed)]
    stale += [f"{check_id} {pattern}" for check_id, pattern in RESOURCE_SKIPS
              if not any(f[1] == check_id and fnmatch.fnmatchcase(f[2], pattern) for f in failed)]
    assert not stale, f"skips that match no finding any more (remove them): {stale}"


def test_skip_reasons_are_real_sentences() -> None:
    for key, reason in [*SKIPS.items(), *RESOURCE_SKIPS.items()]:
        assert len(reason.split()) >= 12, f"{key}: say why the finding is not a defect here"


def test_skipped_queue_is_encrypted(prod) -> None:
    queues = {lid: r for lid, r in prod.template["Resources"].items()
              if fnmatch.fnmatchcase(f"{r['Type']}.{lid}", "AWS::SQS::Queue.Karpenter*InterruptionQueue*")}
    assert queues, "the Karpenter interruption queue is gone: remove its CKV_AWS_27 skip"
    for lid, queue in queues.items():
        assert queue["Properties"].get("SqsManagedSseEnabled") is True or queue["Properties"].get("KmsMasterKeyId"), lid
