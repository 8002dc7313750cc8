"""A team keeps its environment file in its own repository: synth, review, check, render and plan take it by
``--config`` (preflight: tests/test_preflight.py), from a folder outside the clone, with no copy in
infra/environments/."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from eks_training.infra.config import ENVIRONMENTS_DIR
from eks_training.infra.tools import review
from eks_training.infra.tools.cli import main

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def own_environment(tmp_path_factory) -> tuple[Path, Path]:
    """dev's settings as environment ``acme`` in a team's own folder, its Volcano queue given 96 CPUs instead of 64
    (a change to review), synthesized there by the package's app as
    `cdk synth --app "python -m eks_training.infra.app" -c config=FILE` runs it; (the file, the cloud assembly)."""
    root = tmp_path_factory.mktemp("outside-the-clone")
    own = root / "team-repo" / "environments" / "acme.yaml"
    own.parent.mkdir(parents=True)
    text = (ENVIRONMENTS_DIR / "dev.yaml").read_text().replace("name: dev", "name: acme", 1)
    assert "      cpu: 64\n" in text
    own.write_text(text.replace("      cpu: 64\n", "      cpu: 96\n", 1))
    assert not (ENVIRONMENTS_DIR / "acme.yaml").exists() and REPO not in own.parents
    outdir = root / "cdk.out"
    env = {**os.environ, "CDK_CONTEXT_JSON": json.dumps({"config": str(own), "nag": False}), "CDK_OUTDIR": str(outdir)}
    proc = subprocess.run([sys.executable, "-m", "eks_training.infra.app"], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return own, outdir


@pytest.mark.slow
def test_synth_review_check_render_and_plan_take_the_file(own_environment, capsys) -> None:
    own, outdir = own_environment
    template = outdir / "EksTraining-acme.template.json"
    assert template.is_file()

    assert review.main(["--config", str(own), "--out", str(outdir)]) == 0
    manifests = outdir / "manifests" / "acme"
    assert (manifests / "summary.json").is_file() and (manifests / "helm-releases.yaml").is_file()
    capsys.readouterr()

    assert main(["check", "--config", str(own), "--template", str(template)]) == 0
    report = capsys.readouterr().out
    assert report.rstrip().endswith("0 failures: PASS"), report[-2000:]

    assert main(["render", "pytorch-job", "--config", str(own), "--namespace", "training", "--name", "acme-first",
                 "--cdk-out", str(outdir), "--account", "111122223333", "--instance-type", "g5.12xlarge", "--nodes", "1", "--dataset", "wiki"]) == 0
    objects = [obj for obj in yaml.safe_load_all(capsys.readouterr().out) if obj]
    job = next(obj for obj in objects if obj["kind"] == "Job")
    assert job["metadata"]["name"] == "acme-first" and job["metadata"]["namespace"] == "training"
    # The image comes from the app synthesized from the file: the account given, the environment's region.
    images = {c["image"] for c in job["spec"]["template"]["spec"]["containers"]}
    assert images and all(i.startswith("111122223333.dkr.ecr.us-west-2.amazonaws.com/") for i in images), images

    # plan on the environment's capacity: the dev pool's g5.12xlarge, as many nodes as it provides (8 GPUs / 4).
    assert main(["plan", "--config", str(own), "--model", "1b", "--instance-type", "g5.12xlarge"]) == 0
    assert "devices: 2 x g5.12xlarge = 8" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "message"), [
    (["plan", "--model", "1b", "--config", "{own}"],
     "error: plan: --instance-type is required: environment 'acme' has g5.xlarge, g5.12xlarge"),
    (["plan", "--model", "1b", "--config", "{own}", "--instance-type", "p5.48xlarge"],
     "error: --instance-type: 'p5.48xlarge' is not in environment 'acme' (allowed: g5.xlarge, g5.12xlarge)"),
    (["plan", "--model", "1b", "--config", "{own}", "--instance-type", "g5.12xlarge", "--nodes", "3"],
     "error: --nodes: 3 is more g5.12xlarge nodes than environment 'acme' provides (at most 2)"),
    (["plan", "--model", "1b", "--instance-type", "g5.12xlarge"],
     "error: plan: --nodes is required (or --env NAME / --config FILE to plan on an environment's capacity)"),
    (["render", "pytorch-job", "--config", "{own}", "--env", "dev"],
     "error: render: --config='{own}' is not allowed: alone: give --env NAME or --config FILE, not both (--env dev "
     "given too)"),
    (["render", "pytorch-job"],
     "error: render: give --env NAME or --config FILE (an environment) or --app APP (any CDK app with a team), one of them"),
    (["check", "--config", "{own}", "--allow-name-mismatch", "--env", "dev"],
     "error: check: give exactly one of --env NAME, --config FILE or --app COMMAND"),
    (["render", "pytorch-job", "--env", "dev", "--allow-name-mismatch"],
     "error: render: --allow-name-mismatch goes with --config FILE"),
    (["plan", "--model", "1b", "--config", "{renamed}"], "error: renamed.yaml: name='acme' is not allowed: the file's"),
])
def test_environment_option_mistakes_are_one_line(tmp_path, capsys, argv, message) -> None:
    own = tmp_path / "acme.yaml"
    text = (ENVIRONMENTS_DIR / "dev.yaml").read_text().replace("name: dev", "name: acme", 1)
    own.write_text(text)
    (tmp_path / "renamed.yaml").write_text(text)
    paths = {"own": str(own), "renamed": str(tmp_path / "renamed.yaml")}
    assert main([arg.format(**paths) for arg in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message.format(**paths)) and err.count("\n") == 1, err


def test_the_package_app_carries_the_feature_flags_of_cdk_json() -> None:
    # `python -m eks_training.infra.app` in a folder with no cdk.json builds what the clone's `cdk synth` builds.
    from eks_training.infra.app_builder import APP_CONTEXT

    context = json.loads((REPO / "cdk.json").read_text())["context"]
    assert {key: value for key, value in context.items() if key.startswith("@")} == APP_CONTEXT


@pytest.mark.slow
def test_review_diff_shows_what_changes_object_by_object(own_environment, dev, tmp_path, capsys) -> None:
    """dev's review and acme's (dev with its Volcano queue's CPUs raised, under another name): two synths."""
    own, outdir = own_environment
    for template in [*dev.outdir.glob("*.template.json"), dev.outdir / "tree.json"]:
        shutil.copy(template, tmp_path / template.name)  # the session's folder stays untouched
    assert review.main(["--env", "dev", "--out", str(tmp_path)]) == 0
    assert review.main(["--config", str(own), "--out", str(outdir)]) == 0
    capsys.readouterr()
    assert main(["review-diff", str(tmp_path / "manifests" / "dev"), str(outdir / "manifests" / "acme")]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    queue = lines.index("~ Queue/-/ml-training-queue  (volcano-queues.yaml)")
    # The change made, after the prune label (whose hash covers the stack's name, so it differs too).
    assert lines[queue + 1:queue + 3] == [
        f"    metadata.labels.aws.cdk.eks/prune: {lines[queue + 1].split(': ')[1]}", "    spec.capability.cpu: 64 -> 96"], out
    # The rest differs by the environment's name (and CDK's prune label, whose hash covers the stack's name), field
    # by field: e.g. the cluster Karpenter serves, in its Helm release's values; never a whole object as one blob.
    release = lines.index("~ HelmRelease/kube-system/karpenter  (helm-releases.yaml)")
    assert "    values.settings.clusterName: eks-training-dev -> eks-training-acme" in lines[release + 1:release + 4], out
    assert all(len(line) < 400 for line in lines), max(lines, key=len)
    assert not any(line.startswith(("+ ", "- ")) for line in lines), out  # the same objects on both sides
    assert lines[-1].startswith("0 added, 0 removed, ") and lines[-1].endswith(" unchanged")


def test_make_synth_and_review_diff_take_the_file() -> None:
    from support.make_targets import CLI, dry_run

    own = "/elsewhere/team-repo/environments/acme.yaml"
    synth = dry_run("synth", f"CONFIG={own}")
    assert synth[0].startswith("node_modules/.bin/cdk synth ") and synth[0].endswith(f" -c config={own}")
    assert synth[1] == f".venv/bin/python -m eks_training.infra.tools.review --config {own} --out cdk.out"
    check = next(line for line in synth if line.startswith(f"{CLI} check "))
    assert check.startswith(f"{CLI} check --config {own} --template cdk.out/EksTraining-acme.template.json "
                            "> cdk.out/check-acme.txt")
    assert dry_run("review-diff", "OLD=review-deployed", f"CONFIG={own}")[-1] == (
        f"{CLI} review-diff review-deployed cdk.out/manifests/acme")
