"""Synthesize the platform once per test session and give tests what they inspect.

`synthesize(config)` builds the CDK app in-process with cdk-nag (AwsSolutions + our own pack, the
same plugins `app.py` adds) and returns a :class:`Synthesized`: templates, `aws_cdk.assertions.Template`,
the validation report, the Kubernetes objects embedded in the templates and the Helm releases.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Iterator

import aws_cdk as cdk
from aws_cdk import assertions

from eks_training.core.cfn_text import cfn_text
from eks_training.infra.app_builder import build_app
from eks_training.infra.config import PlatformConfig

REPO = Path(__file__).resolve().parents[2]
KUBERNETES_RESOURCE = "Custom::AWSCDK-EKS-KubernetesResource"
HELM_CHART = "Custom::AWSCDK-EKS-HelmChart"
#: Stands in for a CloudFormation token (Ref, GetAtt, ...) inside an embedded manifest.
TOKEN_PLACEHOLDER = "cfn-token"


@dataclass
class Synthesized:
    """One synthesized environment."""

    config: PlatformConfig
    outdir: Path
    stack_name: str
    validation_report: dict[str, Any]
    error: str | None = None
    templates: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def read(cls, config: PlatformConfig, outdir: Path, *, stack_name: str, error: str | None) -> "Synthesized":
        """An environment another process synthesized into ``outdir`` (its templates and validation report)."""
        report_path = outdir / "validation-report.json"
        result = cls(config=config, outdir=outdir, stack_name=stack_name, error=error,
                     validation_report=json.loads(report_path.read_text()) if report_path.exists() else {})
        for path in outdir.glob("*.template.json"):
            result.templates[path.name.removesuffix(".template.json")] = json.loads(path.read_text())
        return result

    @property
    def template(self) -> dict[str, Any]:
        return self.templates[self.stack_name]

    @cached_property
    def assertions(self) -> assertions.Template:
        return assertions.Template.from_json(self.template)

    def resources(self, type_: str) -> dict[str, dict[str, Any]]:
        """Logical id -> resource, of one CloudFormation type, across all templates."""
        return {lid: r for t in self.templates.values() for lid, r in t.get("Resources", {}).items()
                if r.get("Type") == type_}

    def violations(self, plugin: str) -> list[dict[str, Any]]:
        return [v for p in self.validation_report.get("pluginReports", []) if p["pluginName"] == plugin
                for v in p["violations"]]

    @cached_property
    def kubernetes_manifests(self) -> dict[str, list[dict[str, Any]]]:
        """Logical id of each KubernetesResource -> the objects it applies (tokens replaced by placeholders)."""
        return {lid: json.loads(render_tokens(r["Properties"]["Manifest"]))
                for lid, r in self.resources(KUBERNETES_RESOURCE).items()}

    def kubernetes_objects(self) -> Iterator[tuple[str, dict[str, Any]]]:
        for lid, objects in self.kubernetes_manifests.items():
            for obj in objects:
                yield lid, obj

    @cached_property
    def helm_releases(self) -> dict[str, dict[str, Any]]:
        """Release name -> its properties (Chart, Version, Repository, Namespace, Values parsed)."""
        releases = {}
        for lid, r in self.resources(HELM_CHART).items():
            props = dict(r["Properties"])
            if "Values" in props:
                props["Values"] = json.loads(render_tokens(props["Values"]))
            props["LogicalId"] = lid
            releases[props["Release"]] = props
        return releases


def render_tokens(value: Any) -> str:
    """A CloudFormation string expression as text, each intrinsic replaced by :data:`TOKEN_PLACEHOLDER`."""
    return cfn_text(value, lambda _intrinsic: TOKEN_PLACEHOLDER)


def synthesize(config: PlatformConfig, *, outdir: Path | None = None, nag: bool = True) -> Synthesized:
    """Synthesize ``config``'s app into ``outdir`` (a temporary folder by default)."""
    outdir = outdir or Path(tempfile.mkdtemp(prefix=f"synth-{config.name}-"))
    # The same context (feature flags) that `cdk synth` reads from cdk.json.
    context = json.loads((REPO / "cdk.json").read_text())["context"]
    app = cdk.App(outdir=str(outdir), context={**context, "nag": nag})
    stack = build_app(app, config)
    error = None
    try:
        app.synth()
    except RuntimeError as err:  # a validation plugin found violations: the report says which
        error = str(err)
    return Synthesized.read(config, outdir, stack_name=stack.stack_name, error=error)


def cfn_lint(templates: list[Path], ignore: dict[str, str]) -> list[dict[str, Any]]:
    """cfn-lint findings (JSON) for ``templates``; ``ignore`` maps each ignored rule id to its reason."""
    cmd = [str(Path(sys.executable).with_name("cfn-lint")), "--format", "json"]
    if ignore:
        cmd += ["--ignore-checks", *ignore]
    proc = subprocess.run([*cmd, "--", *map(str, templates)], capture_output=True, text=True, check=False)
    if proc.returncode not in (0, 2, 4, 6, 8, 10, 12, 14) or not proc.stdout.strip():
        if proc.returncode == 0:
            return []
        raise RuntimeError(f"cfn-lint failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)
