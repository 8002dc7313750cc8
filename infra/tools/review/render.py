"""Reading a synthesized app for review: the templates, the Kubernetes objects and Helm releases they apply, with
every CloudFormation token shown as a readable ``${Token[...]}`` placeholder, and the review file names."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from eks_training.core.cfn_text import cfn_text
from eks_training.core.upstream import release_chart

KUBERNETES_RESOURCE = "Custom::AWSCDK-EKS-KubernetesResource"
HELM_CHART = "Custom::AWSCDK-EKS-HelmChart"
# CDK appends an 8-character hash of the construct path to every logical id.
_LOGICAL_ID_HASH = re.compile(r"[0-9A-F]{8}$")
_TOKEN = re.compile(r"\$\{Token\[[^\]]*\]\}")


class ReviewError(Exception):
    """A review that cannot be made (no synthesized template, a malformed manifest); one line."""


def readable_token(value: Any) -> str:
    """A placeholder that names a CloudFormation intrinsic: ``${Token[Ref:Cluster]}``, ``${Token[Queue.Arn]}``."""
    if isinstance(value, dict) and len(value) == 1:
        (function, argument), = value.items()
        if function == "Ref":
            return f"${{Token[Ref:{argument}]}}"
        if function == "Fn::GetAtt":
            target = ".".join(argument) if isinstance(argument, list) else str(argument)
            return f"${{Token[{target}]}}"
        if function == "Fn::Sub" and isinstance(argument, str):
            # Its own text names what is filled in (e.g. the image repository of the deploy account).
            return f"${{Token[Sub:{argument}]}}"
        return f"${{Token[{function}]}}"
    return "${Token[?]}"


def render_cfn_string(value: Any) -> str:
    """A CloudFormation string expression (a string or ``Fn::Join`` of parts) as text with readable tokens."""
    return cfn_text(value, readable_token)


def strip_tokens(value: Any, replacement: str) -> Any:
    """``value`` with every readable token placeholder inside its strings replaced by ``replacement``."""
    if isinstance(value, str):
        return _TOKEN.sub(replacement, value)
    if isinstance(value, list):
        return [strip_tokens(item, replacement) for item in value]
    if isinstance(value, dict):
        return {key: strip_tokens(item, replacement) for key, item in value.items()}
    return value


def load_templates(outdir: Path, environment: str) -> dict[str, dict[str, Any]]:
    """Stack name -> template of ``environment`` in ``outdir``, or a ReviewError that says to synthesize first."""
    main = outdir / f"EksTraining-{environment}.template.json"
    if not main.is_file():
        raise ReviewError(f"--out: {main} does not exist; run `cdk synth -c env={environment}` first")
    return {path.name.removesuffix(".template.json"): json.loads(path.read_text(encoding="utf-8"))
            for path in sorted(outdir.glob(f"EksTraining-{environment}*.template.json"))}


def resources_of_type(templates: dict[str, dict[str, Any]], type_: str) -> dict[str, dict[str, Any]]:
    """Logical id -> resource, for every resource of CloudFormation type ``type_`` in any of the templates."""
    return {lid: r for t in templates.values() for lid, r in t.get("Resources", {}).items() if r.get("Type") == type_}


def _parse_json(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ReviewError(f"{what}: not JSON once tokens are shown as text ({err.msg} at {err.pos})") from None


def kubernetes_manifests(templates: dict[str, dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Logical id of each KubernetesResource -> the objects it applies, tokens shown as placeholders."""
    return {lid: _parse_json(render_cfn_string(r["Properties"]["Manifest"]), f"{lid}.Manifest")
            for lid, r in resources_of_type(templates, KUBERNETES_RESOURCE).items()}


def helm_releases(templates: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Each Helm release: release, chart, repository, version, namespace and values (tokens as placeholders)."""
    releases = []
    for lid, resource in resources_of_type(templates, HELM_CHART).items():
        props = resource["Properties"]
        values = props.get("Values")
        releases.append({
            "release": props.get("Release", lid),
            "chart": release_chart(props)[0],
            "repository": props.get("Repository"),
            "version": release_chart(props)[1] or None,
            "namespace": props.get("Namespace", "default"),
            "values": _parse_json(render_cfn_string(values), f"{lid}.Values") if values else {},
        })
    return sorted(releases, key=lambda r: r["release"])


def _kebab(text: str) -> str:
    words = re.findall(r"[A-Z]+(?=[A-Z][a-z]|\d|\b|$)|[A-Z]?[a-z]+|[A-Z]+|\d+", text)
    return "-".join(w.lower() for w in words)


def readable_name(logical_id: str) -> str:
    """A readable name for a resource: ``ClusterKarpenterPools2803A785`` -> ``karpenter-pools``."""
    stem = _LOGICAL_ID_HASH.sub("", logical_id)
    # add_cdk8s_chart/add_manifest place the resource under the cluster: its id starts with "Cluster".
    return _kebab(stem.removeprefix("Cluster") or stem)


def manifest_construct_ids(outdir: Path) -> dict[str, str]:
    """Letters and digits of each KubernetesManifest's construct id -> that id, from ``tree.json``.

    A logical id keeps only the letters and digits of the construct path, so ``mpi-operator-install``
    becomes ``Clustermpioperatorinstall1F6D78FA``; the tree gives the words back.
    """
    tree_file = outdir / "tree.json"
    if not tree_file.is_file():
        return {}
    found: dict[str, str] = {}
    stack = [json.loads(tree_file.read_text(encoding="utf-8")).get("tree", {})]
    while stack:
        node = stack.pop()
        if node.get("constructInfo", {}).get("fqn", "").endswith("aws_eks_v2.KubernetesManifest"):
            found[re.sub(r"[^A-Za-z0-9]", "", node["id"])] = node["id"]
        stack.extend(node.get("children", {}).values())
    return found


def chart_file_name(logical_id: str, construct_ids: dict[str, str] | None = None) -> str:
    """The review file of a manifest resource: ``ClusterKarpenterPools2803A785`` -> ``karpenter-pools.yaml``.

    With ``construct_ids`` (see :func:`manifest_construct_ids`) the words of the construct id are kept:
    ``Clustermpioperatorinstall1F6D78FA`` -> ``mpi-operator-install.yaml``.
    """
    stem = _LOGICAL_ID_HASH.sub("", logical_id)
    for letters, construct_id in sorted((construct_ids or {}).items(), key=lambda kv: -len(kv[0])):
        if stem.endswith(letters):
            parts = construct_id.removeprefix("manifest-").split("-")
            return "-".join(_kebab(part) for part in parts if part) + ".yaml"
    return readable_name(logical_id) + ".yaml"
