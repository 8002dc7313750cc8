"""The review summary of a synthesized environment: resources, node capacity, storage, operators, and the hourly
on-demand cost at idle and at full scale, priced from the one price table ``infra/tools/data/prices.json``."""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from eks_training.core.catalog import ACCELERATOR_RESOURCE, INSTANCE_TYPES
from eks_training.core.versions import KUBERNETES_RELEASES
from eks_training.infra.config import PlatformConfig
from eks_training.infra.tools.review.render import helm_releases, kubernetes_manifests, readable_name, render_cfn_string, resources_of_type

PRICES_FILE = Path(__file__).resolve().parent.parent / "data" / "prices.json"
#: Resource types shown in the printed table (the JSON has them all).
TOP_RESOURCE_TYPES = 8


@dataclass(frozen=True)
class Prices:
    """The one price table (``infra/tools/data/prices.json``)."""

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
    for lid, resource in resources_of_type(templates, "AWS::EKS::Nodegroup").items():
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
    for lid, resource in resources_of_type(templates, "AWS::FSx::FileSystem").items():
        props = resource["Properties"]
        lustre = props.get("LustreConfiguration", {})
        fsx.append({"id": lid, "type": props.get("FileSystemType"), "deployment_type": lustre.get("DeploymentType"),
                    "capacity_gib": props.get("StorageCapacity"),
                    "per_unit_throughput": lustre.get("PerUnitStorageThroughput")})
    associations = [{"id": lid, "file_system_path": r["Properties"].get("FileSystemPath"),
                     "data_repository_path": render_cfn_string(r["Properties"].get("DataRepositoryPath", ""))}
                    for lid, r in resources_of_type(templates, "AWS::FSx::DataRepositoryAssociation").items()]
    buckets = [{"id": lid, "name": render_cfn_string(r["Properties"].get("BucketName", readable_name(lid))),
                "versioned": r["Properties"].get("VersioningConfiguration", {}).get("Status") == "Enabled"}
               for lid, r in resources_of_type(templates, "AWS::S3::Bucket").items()]
    efs = [{"id": lid, "encrypted": bool(r["Properties"].get("Encrypted"))}
           for lid, r in resources_of_type(templates, "AWS::EFS::FileSystem").items()]
    return {"fsx": fsx, "fsx_s3_associations": associations, "buckets": buckets, "efs": efs}


def _kubernetes_version(templates: dict[str, dict[str, Any]], today: date) -> dict[str, str]:
    versions = [r["Properties"].get("Version") for r in resources_of_type(templates, "AWS::EKS::Cluster").values()]
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
                     for r in resources_of_type(templates, "AWS::EKS::Addon").values()), key=lambda a: str(a["name"]))
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
        lines.append(f"  not priced (add to infra/tools/data/prices.json): {', '.join(cost['unpriced'])}")
    return "\n".join(lines)
