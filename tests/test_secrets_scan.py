"""No secret is written into any synthesized artifact, and the scanner is shown to catch each kind of secret.

Every file under each environment's synth folder is scanned as text: templates, asset manifests, the cloud
assembly manifest, tree.json, the embedded Kubernetes manifests and Helm values, and the handler code CDK
stages. Zipped assets (the kubectl/helm Lambda layers, built by aws-cdk-lib, not by us) are scanned member by
member, skipping binary members (they are tools, not values we write).
"""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

PATTERNS: dict[str, re.Pattern[str]] = {
    "private key": re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"),
    "AWS access key": re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "JWT": re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    # A password key with a literal value; a reference (${VAR}, {{ .Values }}, a secretKeyRef, a token) is fine.
    "password literal": re.compile(
        r"""(?i)\b[\w-]*pass(?:word|wd)\\?["']?\s*[:=]\s*\\?["']?(?![\s"'\\{$<,}]|cfn-token)([^\s"'\\,}]{4,})"""),
}
BASE64_BLOB = re.compile(r"^[A-Za-z0-9+/]{20,}={0,2}$")


def _texts(path: Path) -> Iterator[tuple[str, str]]:
    """(name, text) of ``path``, or of each text member of a zip."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            for member in archive.namelist():
                data = archive.read(member)
                if b"\0" not in data[:8192]:
                    yield f"{path.name}!{member}", data.decode("utf-8", "replace")
    else:
        yield path.name, path.read_bytes().decode("utf-8", "replace")


def scan_text(name: str, text: str) -> list[str]:
    """``kind in name: excerpt`` for each secret-like string in ``text``."""
    return [f"{kind} in {name}: {match.group(0)[:40]}" for kind, pattern in PATTERNS.items()
            for match in pattern.finditer(text)]


#: Secrets that hold configuration, not credentials, because the operator only reads that file from a Secret.
#: Their text is still scanned for secret patterns.
CONFIG_ONLY_SECRETS = {
    "sssd.conf": "Slinky's LoginSet reads sssd.conf only from a Secret; ours lists file users and holds no credential",
}


def scan_secret_objects(objects: Iterator[dict]) -> list[str]:
    """Kubernetes Secrets that carry their values (stringData, or base64 data longer than a placeholder)."""
    found = []
    for obj in objects:
        if obj.get("kind") != "Secret":
            continue
        name = obj.get("metadata", {}).get("name")
        for key, value in (obj.get("stringData") or {}).items():
            if key in CONFIG_ONLY_SECRETS:
                found += scan_text(f"{name}.{key}", value)
            else:
                found.append(f"stringData {name}.{key}")
        found += [f"base64 data {name}.{key}" for key, value in (obj.get("data") or {}).items()
                  if isinstance(value, str) and BASE64_BLOB.match(value)]
    return found


def is_vendored_tool_layer(path: Path) -> bool:
    """aws-cdk-lib's AWS CLI layer: it vendors the `rsa` library, whose docstrings show PEM headers as examples."""
    if path.suffix != ".zip":
        return False
    with zipfile.ZipFile(path) as archive:
        return any(name.endswith("awscli/__init__.py") for name in archive.namelist())


def docker_contexts(folder: Path) -> set[Path]:
    """The staged build contexts of Docker image assets (our own package source, copied by `cdk synth`)."""
    contexts = set()
    for manifest in folder.glob("*.assets.json"):
        for image in json.loads(manifest.read_text()).get("dockerImages", {}).values():
            contexts.add((folder / image["source"]["directory"]).resolve())
    return contexts


def scan_folder(folder: Path) -> list[str]:
    contexts = docker_contexts(folder)
    findings = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or is_vendored_tool_layer(path):
            continue
        # Python source in an image's build context names passwords in code ("password: GeneratedSecret"); keys,
        # tokens and credentials are still looked for there.
        source = path.suffix == ".py" and any(context in path.resolve().parents for context in contexts)
        for name, text in _texts(path):
            findings += [f for f in scan_text(name, text) if not (source and f.startswith("password literal"))]
    return findings


def test_environment_artifacts_hold_no_secrets(env) -> None:
    files = [p for p in env.outdir.rglob("*") if p.is_file()]
    assert any(p.name.endswith(".template.json") for p in files), f"nothing synthesized: {env.error}"
    assert scan_folder(env.outdir) == []
    assert scan_secret_objects(obj for _, obj in env.kubernetes_objects()) == []
    for release in env.helm_releases.values():
        assert scan_text(release["Release"], json.dumps(release.get("Values", {}))) == []


PLANTED = {
    "private key": "key: |\n  -----BEGIN RSA PRIVATE KEY-----\n  MIIEow...\n",
    "AWS access key": '{"Environment": {"AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE"}}',
    "JWT": "jwt: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzbHVybSJ9.c2lnbmF0dXJlLXZhbHVl",
    "password literal": '{"Values": "{\\"auth\\":{\\"dbPassword\\":\\"hunter2-prod\\"}}"}',
}


@pytest.mark.parametrize("kind", sorted(PLANTED))
def test_scanner_catches_planted_secret(tmp_path: Path, kind: str) -> None:
    (tmp_path / "planted.template.json").write_text(PLANTED[kind])
    findings = scan_folder(tmp_path)
    assert len(findings) == 1 and findings[0].startswith(f"{kind} in planted.template.json")


def test_scanner_reads_zipped_assets(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "asset.zip", "w") as archive:
        archive.writestr("handler/config.yaml", "password: s3cr3t-value\n")
    assert scan_folder(tmp_path) == ["password literal in asset.zip!handler/config.yaml: password: s3cr3t-value"]


@pytest.mark.parametrize("text", [
    "password: ${DB_PASSWORD}", "password: {{ .Values.pw }}", '"passwordSecretRef": {"name": "x"}',
    '{"password": "cfn-token"}', "password:", "-----BEGIN CERTIFICATE-----", "AKIA-not-a-key",
])
def test_scanner_ignores_references_and_public_material(text: str) -> None:
    assert scan_text("t", text) == []


def test_secret_objects_with_values_are_caught() -> None:
    objects = [
        {"kind": "Secret", "metadata": {"name": "slurm-key"}, "data": {"slurm.key": "c2x1cm0ta2V5LW1hdGVyaWFsLTEyMzQ="}},
        {"kind": "Secret", "metadata": {"name": "db"}, "stringData": {"password": "x"}},
        {"kind": "Secret", "metadata": {"name": "empty"}, "data": {}},
        {"kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"blob": "c2x1cm0ta2V5LW1hdGVyaWFsLTEyMzQ="}},
    ]
    assert scan_secret_objects(iter(objects)) == ["base64 data slurm-key.slurm.key", "stringData db.password"]


def test_image_build_contexts_are_still_scanned_for_keys(tmp_path: Path) -> None:
    context = tmp_path / "asset.abc"
    (context / "pkg").mkdir(parents=True)
    (tmp_path / "S.assets.json").write_text(json.dumps({"dockerImages": {"abc": {"source": {"directory": "asset.abc"}}}}))
    (context / "pkg" / "code.py").write_text("password: GeneratedSecret\nKEY = 'AKIAIOSFODNN7EXAMPLE'\n")
    (context / "pkg" / "values.yaml").write_text("password: hunter2-prod\n")
    assert scan_folder(tmp_path) == ["AWS access key in code.py: AKIAIOSFODNN7EXAMPLE",
                                     "password literal in values.yaml: password: hunter2-prod"]
