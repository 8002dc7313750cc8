"""What a reviewer reads after ``cdk synth``: the Kubernetes objects as YAML, the Helm releases, a cost summary.

``python -m eks_training.infra.tools.review --env prod --out cdk.out`` reads ``cdk.out/EksTraining-prod.template.json``
and writes, under ``cdk.out/manifests/prod/``:

* one YAML file per Kubernetes manifest the stack applies (``karpenter-pools.yaml``, ...), with each
  CloudFormation token shown as a readable ``${Token[...]}`` placeholder;
* ``helm-releases.yaml``: every Helm release (chart, repository, version, namespace, values);
* ``summary.json``: stacks, resources by type, node capacity, storage, operators and the estimated hourly
  on-demand cost at idle and at full scale (prices from ``infra/tools/data/prices.json``);
* ``argocd/``: Argo CD Applications, when the environment's ``gitops.enabled`` is set.

It also prints the summary as a short table.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any, Sequence

import yaml

from eks_training.infra.config import ConfigError, PlatformConfig
from eks_training.infra.tools.environment_option import add_environment_arguments, environment_from_args
from eks_training.infra.tools.review.render import (
    KUBERNETES_RESOURCE,
    ReviewError,
    chart_file_name,
    helm_releases,
    kubernetes_manifests,
    load_templates,
    manifest_construct_ids,
)
from eks_training.infra.tools.review.summary import Prices, format_summary, summarize
from eks_training.workloads.gitops import environment_applications


def write_review(outdir: Path, config: PlatformConfig, *, prices: Prices | None = None) -> dict[str, Any]:
    """Write ``outdir/manifests/<env>/`` (see the module doc) and return the summary."""
    templates = load_templates(outdir, config.name)
    folder = outdir / "manifests" / config.name
    if folder.exists():
        shutil.rmtree(folder)  # stale files of an earlier synth would mislead a reviewer
    folder.mkdir(parents=True)
    names: dict[str, str] = {}
    construct_ids = manifest_construct_ids(outdir)
    for lid, objects in sorted(kubernetes_manifests(templates).items()):
        name = chart_file_name(lid, construct_ids)
        if name in names.values():
            name = name.removesuffix(".yaml") + f"-{lid[-8:].lower()}.yaml"
        names[lid] = name
        header = f"# Applied by CloudFormation resource {lid} ({KUBERNETES_RESOURCE})\n"
        (folder / name).write_text(header + yaml.safe_dump_all(objects, sort_keys=False), encoding="utf-8")
    (folder / "helm-releases.yaml").write_text(
        "# Helm releases installed by CloudFormation (Custom::AWSCDK-EKS-HelmChart)\n"
        + yaml.safe_dump({"releases": helm_releases(templates)}, sort_keys=False), encoding="utf-8")
    if config.gitops.enabled:
        (folder / "argocd").mkdir()
        applications = environment_applications(config.name, repo_url=config.gitops.repo_url,
                                                revision=config.gitops.revision, path_prefix=config.gitops.path_prefix)
        for application in applications:
            (folder / "argocd" / f"{application['metadata']['name']}.yaml").write_text(
                yaml.safe_dump(application, sort_keys=False), encoding="utf-8")
    summary = summarize(templates, config, prices=prices)
    summary["manifest_files"] = names
    (folder / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``--env NAME`` or ``--config FILE``, ``--out CDK_OUT``; a mistake prints one line and exits 2."""
    parser = argparse.ArgumentParser(prog="python -m eks_training.infra.tools.review", description=__doc__.split("\n")[0])
    add_environment_arguments(parser)
    parser.add_argument("--out", default="cdk.out", type=Path, help="the cdk synth output folder")
    args = parser.parse_args(argv)
    try:
        config = environment_from_args(args, "review")
        summary = write_review(args.out, config)
    except (ConfigError, ReviewError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(format_summary(summary))
    print(f"review files: {args.out / 'manifests' / config.name}")
    return 0
