"""Where the change stage gets the deployed template and how a deploy runs it: ``--previous-stack`` against
CloudFormation (moto, in-process), a first deploy, a stack CloudFormation will not update, no credentials; and the
command lines of ``make deploy`` and ``make change``.
"""

from __future__ import annotations

import argparse
import json
import subprocess

import boto3
import pytest
from moto import mock_aws
from support.make_targets import REPO, cli_argv, dry_run

from eks_training.infra.tools.check import deploy_check
from eks_training.infra.tools.check.change.deployed_stack import DeployedStack, DeployedStackError, read_deployed_stack
from eks_training.infra.tools.check.deploy_check import CheckReport, format_report

TEMPLATE = {"Resources": {"Topic": {"Type": "AWS::SNS::Topic", "Properties": {}}}}
REGION = "us-west-2"


@pytest.fixture
def cloudformation(monkeypatch):
    for name in ("AWS_PROFILE", "AWS_DEFAULT_REGION", "AWS_REGION"):
        monkeypatch.delenv(name, raising=False)
    with mock_aws():
        yield boto3.client("cloudformation", region_name=REGION)


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    deploy_check.add_arguments(parser)
    return parser.parse_args(["--env", "prod", *argv])


def test_the_deployed_template_comes_from_the_stack_and_a_missing_stack_is_a_first_deploy(cloudformation):
    cloudformation.create_stack(StackName="EksTraining-prod", TemplateBody=json.dumps(TEMPLATE))
    previous = deploy_check._previous(_args("--previous-stack", "EksTraining-prod", "--acknowledge", "delete:Topic"),
                                      "EksTraining-prod", REGION)
    assert previous.template == TEMPLATE and previous.name == f"stack EksTraining-prod ({REGION})"
    assert previous.acknowledged == {"delete:Topic"} and previous.refusal is None

    first = deploy_check._previous(_args("--previous-stack", "EksTraining-dev"), "EksTraining-dev", REGION)
    assert first.template is None and "first deploy" in first.absent
    report = CheckReport("dev", "1.36")
    deploy_check._check_changes(None, report, first, [], deploy_check.CheckTarget("dev"), {})
    assert report.ok and report.change.verdict == "first deploy"
    assert "CHANGES from stack EksTraining-dev (us-west-2): first deploy, nothing to compare" in format_report(report)


def test_a_stack_cloudformation_will_not_update_fails_the_stage_in_one_line():
    stuck = DeployedStack("EksTraining-prod", REGION, TEMPLATE, "UPDATE_ROLLBACK_FAILED")
    assert "continue-update-rollback" in stuck.refused
    assert DeployedStack("s", REGION, TEMPLATE, "UPDATE_IN_PROGRESS").refused.endswith("until that operation ends")
    assert DeployedStack("s", REGION, TEMPLATE, "UPDATE_ROLLBACK_COMPLETE").refused is None
    report = CheckReport("prod", "1.36")
    previous = deploy_check.Previous(None, "stack EksTraining-prod", refusal=stuck.refused)
    deploy_check._check_changes(None, report, previous, [], deploy_check.CheckTarget("prod"), {})
    assert [f.subject for f in report.failures] == ["stack/stack EksTraining-prod"]


def test_without_credentials_the_stage_says_what_it_needs(monkeypatch, tmp_path):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
                 "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_WEB_IDENTITY_TOKEN_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    with pytest.raises(DeployedStackError) as caught:
        read_deployed_stack("EksTraining-prod", REGION)
    message = str(caught.value)
    assert "\n" not in message and "no AWS credentials" in message and "cloudformation:GetTemplate" in message
    with pytest.raises(ValueError, match="either --previous PATH or --previous-stack NAME"):
        deploy_check._previous(_args("--previous", "x.json", "--previous-stack", "s"), "s", REGION)


# --- make ------------------------------------------------------------------------------------------------------


def test_make_deploy_runs_the_change_stage_against_the_stack_before_deploying_what_it_checked():
    lines = dry_run("deploy", "ENV=prod", "ACK=replace:Fs prune:Namespace/slurm", "ACK_FILE=reviewed.txt")
    synth = next(i for i, line in enumerate(lines) if " synth " in line)
    check = next(i for i, line in enumerate(lines) if " check " in line)
    deploy = next(i for i, line in enumerate(lines) if " deploy " in line)
    assert synth < check < deploy
    assert "-c env=prod" in lines[synth]
    assert cli_argv(lines[check]) == [
        "check", "--env", "prod", "--template", "cdk.out/EksTraining-prod.template.json",
        "--previous-stack", "EksTraining-prod", "--acknowledge", "replace:Fs", "--acknowledge", "prune:Namespace/slurm",
        "--acknowledgements", "reviewed.txt"]
    assert lines[deploy].endswith("--app cdk.out EksTraining-prod")  # the assembly the check read, not a new synth

    own = dry_run("deploy", "CONFIG=teams/research.yaml")
    assert any("-c config=teams/research.yaml" in line for line in own)
    assert any("--config teams/research.yaml" in line and "--previous-stack EksTraining-research" in line for line in own)


def test_make_change_runs_the_stage_offline_and_needs_the_kept_template():
    (line,) = [line for line in dry_run("change", "ENV=dev", "PREVIOUS=deployed/dev.template.json") if " check " in line]
    assert cli_argv(line) == ["check", "--env", "dev", "--previous", "deployed/dev.template.json"]
    done = subprocess.run(["make", "-o", ".venv/.stamp-runtime", "-o", ".venv/.stamp-node", "-o", ".venv/.stamp-bytecode",
                           "-o", "node_modules/.stamp", "change"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "PREVIOUS=path/to/deployed.template.json is required" in done.stderr
