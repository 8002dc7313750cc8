"""Any CDK app's synthesized stacks, for `eks-training check --app`: run the app as the CDK CLI would, read its cloud
assembly (``manifest.json``), and hand back each stack's template with its account and region.

The app runs from the current folder with that folder's ``cdk.json`` context, as ``cdk synth --app`` runs it, and
writes into a temporary folder (``CDK_OUTDIR``). An existing assembly folder (``cdk.out``) is read as it is.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eks_training.core.validation import invalid

_SYNTH_TIMEOUT_S = 900


@dataclass(frozen=True)
class AssemblyStack:
    name: str
    template: dict[str, Any]
    account: str | None
    region: str | None

    @property
    def has_cluster(self) -> bool:
        return any(r.get("Type") == "AWS::EKS::Cluster" for r in (self.template.get("Resources") or {}).values())


@contextmanager
def app_assembly(app: str) -> Iterator[Path]:
    """The cloud assembly of ``app``: an existing folder holding ``manifest.json``, or a command that synthesizes."""
    folder = Path(app).expanduser()
    if folder.is_dir():
        if not (folder / "manifest.json").is_file():
            raise invalid("--app", app, "a command that synthesizes a CDK app, or a cloud assembly folder (manifest.json)")
        yield folder
        return
    with tempfile.TemporaryDirectory(prefix="eks-training-app-") as outdir:
        env = {**os.environ, "CDK_OUTDIR": outdir}
        cdk_json = Path.cwd() / "cdk.json"  # what `cdk synth --app` reads from the folder it runs in
        if cdk_json.is_file():
            try:
                env["CDK_CONTEXT_JSON"] = json.dumps(json.loads(cdk_json.read_text()).get("context", {}))
            except ValueError as err:
                raise invalid("cdk.json", str(cdk_json), f"valid JSON ({err})") from None
        try:
            done = subprocess.run(shlex.split(app), env=env, capture_output=True, text=True, timeout=_SYNTH_TIMEOUT_S,
                                  check=False)
        except (OSError, ValueError) as err:
            raise invalid("--app", app, f"a command that runs here ({err})") from None
        except subprocess.TimeoutExpired:
            raise invalid("--app", app, f"a command that synthesizes within {_SYNTH_TIMEOUT_S} s") from None
        if done.returncode != 0:
            last = next((line for line in reversed(done.stderr.splitlines()) if line.strip()), "no message")
            raise invalid("--app", app, f"a command that synthesizes: it exited {done.returncode} ({last.strip()})")
        if not (Path(outdir) / "manifest.json").is_file():
            raise invalid("--app", app, "a CDK app that calls app.synth() (it wrote no cloud assembly to CDK_OUTDIR)")
        yield Path(outdir)


def stacks(assembly: Path) -> list[AssemblyStack]:
    """Every CloudFormation stack of the assembly, nested stages included, in manifest order."""
    manifest = json.loads((assembly / "manifest.json").read_text())
    found = []
    for name, artifact in (manifest.get("artifacts") or {}).items():
        properties = artifact.get("properties") or {}
        if artifact.get("type") == "aws:cloudformation:stack":
            template = json.loads((assembly / properties["templateFile"]).read_text())
            account, region = _environment(artifact.get("environment", ""))
            found.append(AssemblyStack(properties.get("stackName", name), template, account, region))
        elif artifact.get("type") == "cdk:cloud-assembly":
            found += stacks(assembly / properties["directoryName"])
    return found


def _environment(environment: str) -> tuple[str | None, str | None]:
    """``aws://ACCOUNT/REGION`` with CDK's "unknown-" placeholders as None."""
    account, _, region = environment.removeprefix("aws://").partition("/")
    return (None if account.startswith("unknown-") or not account else account,
            None if region.startswith("unknown-") or not region else region)
