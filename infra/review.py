"""What a reviewer reads after ``cdk synth``: the Kubernetes objects as YAML, the Helm releases, a cost summary.

``python -m eks_training.infra.review --env prod --out cdk.out`` reads ``cdk.out/EksTraining-prod.template.json``
and writes, under ``cdk.out/manifests/prod/``:

* one YAML file per Kubernetes manifest the stack applies (``karpenter-pools.yaml``, ...), with each
  CloudFormation token shown as a readable ``${Token[...]}`` placeholder;
* ``helm-releases.yaml``: every Helm release (chart, repository, version, namespace, values);
* ``summary.json``: stacks, resources by type, node capacity, storage, operators and the estimated hourly
  on-demand cost at idle and at full scale (prices from ``infra/data/prices.json``);
* ``argocd/``: Argo CD Applications, when the environment's ``gitops.enabled`` is set.

It also prints the summary as a short table.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import sys
from collections import Counter
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Sequence

import yaml

from eks_training.core.cfn_text import cfn_text
from eks_training.core.versions import KUBERNETES_RELEASES
from eks_training.core.catalog import ACCELERATOR_RESOURCE, INSTANCE_TYPES
from eks_training.infra.config import ConfigError, PlatformConfig, load_environment
from eks_training.workloads.gitops import environment_applications

KUBERNETES_RESOURCE = "Custom::AWSCDK-EKS-KubernetesResource"
HELM_CHART = "Custom::AWSCDK-EKS-HelmChart"
PRICES_FILE = Path(__file__).resolve().parent / "data" / "prices.json"
#: Resource types shown in the printed table (the JSON has them all).
TOP_RESOURCE_TYPES = 8
# CDK appends an 8-character hash of the construct path to every logical id.
_LOGICAL_ID_HASH = re.compile(r"[0-9A-F]{8}$")
_TOKEN = re.compile(r"\$\{Token\[[^\]]*\]\}")


class ReviewError(Exception):
    """A review that cannot be made (no synthesized template, a malformed manifest); one line."""


# ---------------------------------------------------------------- CloudFormation tokens as text

def readable_token(value: Any) -> str:
    """A placeholder that names a CloudFormation intrinsic: ``${Token[Ref:Cluster]}``, ``${Token[Queue.Arn]}``."""
    if isinstance(value, dict) and len(value) == 1:
        (function, argument), = value.items()
        if function == "Ref":
            return f"${{Token[Ref:{argument}]}}"
        if function == "Fn::GetAtt":
            target = ".".join(argument) if isinstance(argument, list) else str(argument)
            return f"${{Token[{target}]}}"
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


# ---------------------------------------------------------------- reading the synthesized app

def load_templates(outdir: Path, environment: str) -> dict[str, dict[str, Any]]:
    """Stack name -> template of ``environment`` in ``outdir``, or a ReviewError that says to synthesize first."""
    main = outdir / f"EksTraining-{environment}.template.json"
    if not main.is_file():
        raise ReviewError(f"--out: {main} does not exist; run `cdk synth -c env={environment}` first")
    return {path.name.removesuffix(".template.json"): json.loads(path.read_text(encoding="utf-8"))
            for path in sorted(outdir.glob(f"EksTraining-{environment}*.template.json"))}


def _resources(templates: dict[str, dict[str, Any]], type_: str) -> dict[str, dict[str, Any]]:
    return {lid: r for t in templates.values() for lid, r in t.get("Resources", {}).items() if r.get("Type") == type_}


def _parse_json(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ReviewError(f"{what}: not JSON once tokens are shown as text ({err.msg} at {err.pos})") from None


def kubernetes_manifests(templates: dict[str, dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Logical id of each KubernetesResource -> the objects it applies, tokens shown as placeholders."""
    return {lid: _parse_json(render_cfn_string(r["Properties"]["Manifest"]), f"{lid}.Manifest")
            for lid, r in _resources(templates, KUBERNETES_RESOURCE).items()}


def helm_releases(templates: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Each Helm release: release, chart, repository, version, namespace and values (tokens as placeholders)."""
    releases = []
    for lid, resource in _resources(templates, HELM_CHART).items():
        props = resource["Properties"]
        values = props.get("Values")
        releases.append({
            "release": props.get("Release", lid),
            "chart": props.get("Chart"),
            "repository": props.get("Repository"),
            "version": props.get("Version"),
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


# ---------------------------------------------------------------- the summary

@dataclass(frozen=True)
class Prices:
    """The one price table (``infra/data/prices.json``)."""

    table: dict[str, Any]

    @classmethod
    def load(cls, path: Path = PRICES_FILE) -> "Prices":
        return cls(json.loads(path.read_text(encoding="utf-8")))

    def instance_hour(self, instance_type: str) -> float | None:
        return self.table["instance_hour"].get(instance_type)

    def fsx_hour(self, deployment_type: str, throughput: int | None, capacity_gib: int) -> float | None:
        key = deployment_type if throughput is None else f"{deployment_type}/{throughput}"
        per_gb_month = self.table["fsx_lustre_gb_month"].get(key)
        return None if per_gb_month is None else per_gb_month * capacity_gib / self.table["hours_per_month"]


def _capacity(templates: dict[str, dict[str, Any]], manifests: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Node groups (from the template) and Karpenter NodePools (from the manifests), with accelerator counts."""
    rows = []
    for lid, resource in _resources(templates, "AWS::EKS::Nodegroup").items():
        props = resource["Properties"]
        types = list(props.get("InstanceTypes", []))
        scaling = props.get("ScalingConfig", {})
        per_node = max((INSTANCE_TYPES[t].accelerators for t in types if t in INSTANCE_TYPES), default=0)
        rows.append({
            "name": props["NodegroupName"] if isinstance(props.get("NodegroupName"), str) else readable_name(lid),
            "kind": "node group" if per_node else "system node group",
            "instance_types": types,
            "min_nodes": scaling.get("MinSize", 0), "max_nodes": scaling.get("MaxSize", 0),
            "accelerators_per_node": per_node,
            "max_accelerators": per_node * scaling.get("MaxSize", 0),
            "efa": props.get("Labels", {}).get("eks-training/efa") == "true",
        })
    for objects in manifests.values():
        for obj in objects:
            if obj.get("kind") != "NodePool" or not obj.get("apiVersion", "").startswith("karpenter.sh/"):
                continue
            spec = obj["spec"]
            requirements = spec["template"]["spec"].get("requirements", [])
            types = next((r["values"] for r in requirements if r["key"] == "node.kubernetes.io/instance-type"), [])
            limits = spec.get("limits", {})
            limit = sum(int(limits[r]) for r in ACCELERATOR_RESOURCE.values() if r in limits)
            rows.append({
                "name": obj["metadata"]["name"], "kind": "karpenter pool", "instance_types": list(types),
                "min_nodes": 0,
                "max_nodes": max((math.ceil(limit / INSTANCE_TYPES[t].accelerators) for t in types
                                  if t in INSTANCE_TYPES), default=0),
                "accelerators_per_node": min((INSTANCE_TYPES[t].accelerators for t in types if t in INSTANCE_TYPES),
                                             default=0),
                "max_accelerators": limit,
                "efa": spec["template"].get("metadata", {}).get("labels", {}).get("eks-training/efa") == "true",
            })
    return rows


def _storage(templates: dict[str, dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    fsx = []
    for lid, resource in _resources(templates, "AWS::FSx::FileSystem").items():
        props = resource["Properties"]
        lustre = props.get("LustreConfiguration", {})
        fsx.append({"id": lid, "type": props.get("FileSystemType"), "deployment_type": lustre.get("DeploymentType"),
                    "capacity_gib": props.get("StorageCapacity"),
                    "per_unit_throughput": lustre.get("PerUnitStorageThroughput")})
    associations = [{"id": lid, "file_system_path": r["Properties"].get("FileSystemPath"),
                     "data_repository_path": render_cfn_string(r["Properties"].get("DataRepositoryPath", ""))}
                    for lid, r in _resources(templates, "AWS::FSx::DataRepositoryAssociation").items()]
    buckets = [{"id": lid, "name": render_cfn_string(r["Properties"].get("BucketName", readable_name(lid))),
                "versioned": r["Properties"].get("VersioningConfiguration", {}).get("Status") == "Enabled"}
               for lid, r in _resources(templates, "AWS::S3::Bucket").items()]
    efs = [{"id": lid, "encrypted": bool(r["Properties"].get("Encrypted"))}
           for lid, r in _resources(templates, "AWS::EFS::FileSystem").items()]
    return {"fsx": fsx, "fsx_s3_associations": associations, "buckets": buckets, "efs": efs}


def _kubernetes_version(templates: dict[str, dict[str, Any]], today: date) -> dict[str, str]:
    versions = [r["Properties"].get("Version") for r in _resources(templates, "AWS::EKS::Cluster").values()]
    version = next((v for v in versions if isinstance(v, str)), "")
    release = KUBERNETES_RELEASES.get(version)
    return {"version": version, "support": release.support_status(today) if release else "unknown"}


def estimate_cost(capacity: list[dict[str, Any]], storage: dict[str, list[dict[str, Any]]], *, nat_gateways: int,
                  clusters: int, support: str, prices: Prices) -> dict[str, Any]:
    """Hourly on-demand cost at idle (no accelerated node, every group at its minimum) and at full scale.

    Idle counts the control plane, NAT gateways, provisioned storage (FSx) and every node group at its
    ``min_nodes`` (Karpenter pools start empty). Full scale counts every group at ``max_nodes`` and every
    Karpenter pool filled to its accelerator limit with its dearest type per accelerator. EFS and S3 bill per
    GB stored, zero when created, so they are not in either figure.
    """
    unpriced: set[str] = set()
    fixed = {"eks_control_plane": clusters * prices.table["eks_cluster_hour"].get(support, prices.table["eks_cluster_hour"]["extended"]),
             "nat_gateways": nat_gateways * prices.table["nat_gateway_hour"]}
    for fs in storage["fsx"]:
        hourly = prices.fsx_hour(fs["deployment_type"], fs["per_unit_throughput"], fs["capacity_gib"] or 0)
        if hourly is None:
            unpriced.add(f"FSx {fs['deployment_type']}/{fs['per_unit_throughput']}")
        fixed[f"fsx:{fs['id']}"] = hourly or 0.0

    def nodes_cost(row: dict[str, Any], count_of: str) -> float:
        costs = []
        for instance_type in row["instance_types"]:
            hourly = prices.instance_hour(instance_type)
            if hourly is None:
                unpriced.add(instance_type)
                continue
            if row["kind"] == "karpenter pool":
                per_node = INSTANCE_TYPES[instance_type].accelerators
                nodes = 0 if count_of == "min_nodes" else math.ceil(row["max_accelerators"] / per_node)
            else:
                nodes = row[count_of]
            costs.append(nodes * hourly)
        return max(costs, default=0.0)

    def scenario(count_of: str) -> dict[str, Any]:
        items = dict(fixed)
        accelerators = 0
        for row in capacity:
            items[f"nodes:{row['name']}"] = nodes_cost(row, count_of)
            if row["kind"] == "karpenter pool":
                accelerators += 0 if count_of == "min_nodes" else row["max_accelerators"]
            else:
                accelerators += row[count_of] * row["accelerators_per_node"]
        return {"per_hour": round(sum(items.values()), 2), "accelerators": accelerators,
                "items": {k: round(v, 4) for k, v in items.items()}}

    idle, full = scenario("min_nodes"), scenario("max_nodes")
    return {"region": prices.table["region"], "prices_as_of": prices.table["as_of"], "currency": prices.table["currency"],
            "idle": idle, "full_scale": full, "unpriced": sorted(unpriced)}


def summarize(templates: dict[str, dict[str, Any]], config: PlatformConfig, *, prices: Prices | None = None,
              today: date | None = None) -> dict[str, Any]:
    """The review summary of one synthesized environment (what ``summary.json`` holds)."""
    manifests = kubernetes_manifests(templates)
    counts = Counter(r.get("Type") for t in templates.values() for r in t.get("Resources", {}).values())
    capacity = _capacity(templates, manifests)
    storage = _storage(templates)
    kubernetes = _kubernetes_version(templates, today or date.today())
    operators = [{k: r[k] for k in ("release", "chart", "version", "namespace")} for r in helm_releases(templates)]
    addons = sorted(({"name": r["Properties"].get("AddonName"), "version": r["Properties"].get("AddonVersion", "latest")}
                     for r in _resources(templates, "AWS::EKS::Addon").values()), key=lambda a: str(a["name"]))
    cost = estimate_cost(capacity, storage, nat_gateways=counts.get("AWS::EC2::NatGateway", 0),
                         clusters=counts.get("AWS::EKS::Cluster", 0), support=kubernetes["support"],
                         prices=prices or Prices.load())
    return {
        "environment": config.name, "region": config.region, "stacks": sorted(templates),
        "kubernetes": kubernetes, "resources_total": sum(counts.values()),
        "resources_by_type": dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
        "kubernetes_objects": sum(len(objs) for objs in manifests.values()),
        "capacity": capacity, "storage": storage, "operators": operators, "eks_addons": addons, "cost": cost,
    }


def format_summary(summary: dict[str, Any], top: int = TOP_RESOURCE_TYPES) -> str:
    """The summary as a short plain-text table for the terminal."""
    lines = [f"eks-training {summary['environment']} ({summary['region']}), stacks: {', '.join(summary['stacks'])}, "
             f"Kubernetes {summary['kubernetes']['version']} ({summary['kubernetes']['support']} support)",
             f"resources: {summary['resources_total']} ({summary['kubernetes_objects']} Kubernetes objects); top types:"]
    lines += [f"  {n:4d}  {t}" for t, n in list(summary["resources_by_type"].items())[:top]]
    lines.append("capacity:")
    lines += [f"  {r['kind']:<18} {r['name']:<20} {','.join(r['instance_types']):<28} nodes {r['min_nodes']}-"
              f"{r['max_nodes']:<4} max accelerators {r['max_accelerators']:<5} efa {'yes' if r['efa'] else 'no'}"
              for r in summary["capacity"]]
    storage = summary["storage"]
    lines.append("storage:")
    lines += [f"  FSx {f['deployment_type']} {f['capacity_gib']} GiB, {f['per_unit_throughput'] or '-'} MB/s/TiB"
              for f in storage["fsx"]]
    lines += [f"  FSx <-> S3 {a['file_system_path']} -> {a['data_repository_path']}" for a in storage["fsx_s3_associations"]]
    lines.append(f"  S3 buckets: {len(storage['buckets'])}, EFS file systems: {len(storage['efs'])}")
    lines.append("operators (helm): " + (", ".join(f"{o['release']} {o['version']}" for o in summary["operators"]) or "none"))
    cost = summary["cost"]
    lines.append(f"estimated on-demand cost ({cost['region']} list prices of {cost['prices_as_of']}):"
                 f" idle {cost['idle']['per_hour']:.2f} {cost['currency']}/h ({cost['idle']['accelerators']} accelerators),"
                 f" full scale {cost['full_scale']['per_hour']:.2f} {cost['currency']}/h"
                 f" ({cost['full_scale']['accelerators']} accelerators)")
    if cost["unpriced"]:
        lines.append(f"  not priced (add to infra/data/prices.json): {', '.join(cost['unpriced'])}")
    return "\n".join(lines)


# ---------------------------------------------------------------- writing the review folder

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
    """Command line: ``--env NAME --out CDK_OUT``; a mistake prints one line and exits 2."""
    parser = argparse.ArgumentParser(prog="python -m eks_training.infra.review", description=__doc__.split("\n")[0])
    parser.add_argument("--env", required=True, help="environment name (infra/environments/NAME.yaml)")
    parser.add_argument("--out", default="cdk.out", type=Path, help="the cdk synth output folder")
    args = parser.parse_args(argv)
    try:
        config = load_environment(args.env)
        summary = write_review(args.out, config)
    except (ConfigError, ReviewError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(format_summary(summary))
    print(f"review files: {args.out / 'manifests' / config.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
