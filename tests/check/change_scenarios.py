"""The change stage on the changes a platform team makes for years, one table.

Each scenario is a copy of a shipped environment file with one field changed (or, for an upgrade, the shipped file
as the new template over a copy with the older version as the deployed one; for a chart upgrade, the shipped template
over itself with the chart's earlier pin written into the deployed copy). Both are synthesized, the whole
`eks-training check` runs on the new one with the other as ``--previous``, and the table says what the change
stage predicts: the findings counted per verb, the verdict (in place, or refused with its destructive lines).

    .venv/bin/python tests/check/change_scenarios.py [NAME ...]

(``EKS_TRAINING_MIRROR`` set, as for the tests; about 10 s per scenario.)
"""

from __future__ import annotations

import copy
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from eks_training.infra.config import ENVIRONMENTS_DIR, ConfigError, parse_config, read_yaml
from eks_training.infra.tools.check.change.stage import Previous
from eks_training.infra.tools.check.deploy_check import run_check, synthesize_template

Edit = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Scenario:
    name: str
    environment: str
    #: Applied to the shipped file to make the new template (None: the shipped file is the new one).
    change: Edit | None = None
    #: Applied to the shipped file to make the deployed template (None: the shipped file is deployed).
    deployed: Edit | None = None
    #: Applied to the deployed template itself, for what no environment field sets (a chart's version).
    deployed_template: Edit | None = None


def _set(path: str, value: Any) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = data
        for key in parents:
            node = node[int(key)] if key.isdigit() else node[key]
        node[int(last) if last.isdigit() else last] = value
    return edit


def _pool(name: str, data: dict[str, Any]) -> dict[str, Any]:
    return next(p for p in data["capacity"]["karpenter_pools"] if p["name"] == name)


def _halve_pool(data: dict[str, Any]) -> None:
    # The teams' quotas on the pool halve with it (the config refuses quotas beyond what the pool can hold).
    _pool("gpu-a100", data)["max_accelerators"] //= 2
    for queue in data["services"].get("kueue_queues") or []:
        for quota in queue["quotas"]:
            if quota.get("flavor") == "gpu-a100":
                quota["accelerators"] //= 2


def _double_dev_pool(data: dict[str, Any]) -> None:
    _pool("gpu-g5", data)["max_accelerators"] *= 2


def _remove_pool(data: dict[str, Any]) -> None:
    # The pool and the one quota that names it as a flavor (the config refuses a quota on a missing flavor).
    data["capacity"]["karpenter_pools"] = [p for p in data["capacity"]["karpenter_pools"] if p["name"] != "trn1n"]
    for queue in data["services"].get("kueue_queues") or []:
        queue["quotas"] = [q for q in queue["quotas"] if q.get("flavor") != "trn1n"]


def _halve_partition(data: dict[str, Any]) -> None:
    data["services"]["slurm_partitions"][0]["max_nodes"] //= 2


def _rename_namespace(data: dict[str, Any]) -> None:
    for namespace in data["training_namespaces"]:
        if namespace["name"] == "ai-research":
            namespace["name"] = "research"
    for queue in data["services"].get("kueue_queues") or []:
        queue["namespaces"] = ["research" if n == "ai-research" else n for n in queue["namespaces"]]


def _kueue_off(data: dict[str, Any]) -> None:
    data["services"]["kueue"] = False
    data["services"].pop("kueue_queues", None)


def _cert_manager_at(version: str) -> Edit:
    def edit(template: dict[str, Any]) -> None:
        for resource in template["Resources"].values():
            if (resource.get("Properties") or {}).get("Release") == "cert-manager":
                resource["Properties"]["Version"] = version
    return edit


def _double_root_volume(data: dict[str, Any]) -> None:
    group = data["capacity"]["gpu_node_groups"][0]
    group["root_volume"] = {**group.get("root_volume", {}), "size_gib": 2 * group.get("root_volume", {}).get("size_gib", 500)}


def _persistent_1(data: dict[str, Any]) -> None:
    # PERSISTENT_1 offers 50, 100 or 200 MB/s/TiB: the throughput moves with the type.
    data["storage"]["fsx"].update(deployment_type="PERSISTENT_1", per_unit_storage_throughput=200)


SCENARIOS = (
    Scenario("prod: Kubernetes 1.35 -> 1.36", "prod", deployed=_set("kubernetes_version", "1.35")),
    Scenario("prod: Kubernetes 1.34 -> 1.36", "prod", deployed=_set("kubernetes_version", "1.34")),
    Scenario("prod: FSx capacity 4800 -> 7200", "prod", _set("storage.fsx.storage_capacity_gib", 7200)),
    Scenario("prod: Karpenter pool gpu-a100's limit halved", "prod", _halve_pool),
    Scenario("prod: Karpenter pool trn1n removed", "prod", _remove_pool),
    Scenario("prod: Slurm partition gpu-a100's max nodes halved", "prod", _halve_partition),
    Scenario("prod: namespace ai-research renamed research", "prod", _rename_namespace),
    Scenario("prod: Kueue turned off", "prod", _kueue_off),
    Scenario("prod: node group p5-nodes' root volume doubled", "prod", _double_root_volume),
    Scenario("prod: node group p5-nodes p5.48xlarge -> p5e.48xlarge", "prod",
             _set("capacity.gpu_node_groups.0.instance_type", "p5e.48xlarge")),
    Scenario("prod: VPC CIDR 10.0.0.0/16 -> 10.1.0.0/16", "prod", _set("network.cidr", "10.1.0.0/16")),
    Scenario("dev: GPU pool gpu-g5's limit doubled", "dev", _double_dev_pool),
    Scenario("prod: cert-manager chart v1.19.1 -> v1.21.1", "prod", deployed_template=_cert_manager_at("v1.19.1")),
    # What `cdk diff` calls an update in place (nested create-only properties), and a switch that arms deletion.
    Scenario("prod: FSx deployment type PERSISTENT_2 -> PERSISTENT_1", "prod", _persistent_1),
    Scenario("prod: FSx per-unit throughput 500 -> 1000", "prod", _set("storage.fsx.per_unit_storage_throughput", 1000)),
    Scenario("prod: cluster creator's bootstrap admin off -> on", "prod", _set("cluster.bootstrap_creator_admin", True)),
    Scenario("prod: buckets.retain true -> false", "prod", _set("storage.buckets.retain", False)),
)


def _template(environment: str, edit: Edit | None, cache: dict) -> tuple[Any, dict[str, Any]]:
    data = read_yaml((ENVIRONMENTS_DIR / f"{environment}.yaml").read_text(), source=f"{environment}.yaml")
    if edit is not None:
        data = copy.deepcopy(data)
        edit(data)
    config = parse_config(data, source=f"{environment}.yaml")
    if edit is None:
        if environment not in cache:
            cache[environment] = synthesize_template(config)
        return config, cache[environment]
    return config, synthesize_template(config)


def run(scenario: Scenario, cache: dict) -> tuple[str, str, list[str]]:
    """(counts per verb, verdict, the destructive lines and every replacement; for a chart upgrade its CRD lines)."""
    try:
        _, deployed = _template(scenario.environment, scenario.deployed, cache)
        config, new = _template(scenario.environment, scenario.change, cache)
        if scenario.deployed_template is not None:
            deployed = copy.deepcopy(deployed)
            scenario.deployed_template(deployed)
    except ConfigError as err:
        return "-", "config refused", [str(err)]
    report = run_check(new, config=config, previous=Previous(deployed, "the shipped template"))
    change = report.change
    counts = ", ".join(f"{verb} {n}" for verb, n in change.counts().items()) or "none"
    shown = [line for line in change.lines() if line.startswith("!") or "[replace:" in line
             or (scenario.deployed_template is not None and "CustomResourceDefinition/" in line)]
    return counts, change.verdict, shown


def main(names: list[str]) -> int:
    chosen = [s for s in SCENARIOS if not names or any(n in s.name for n in names)]
    cache: dict = {}
    print(f"{'SCENARIO':58} {'VERDICT':10} FINDINGS (per verb)")
    for scenario in chosen:
        started = time.monotonic()
        counts, verdict, lines = run(scenario, cache)
        print(f"{scenario.name:58} {verdict:10} {counts}  ({time.monotonic() - started:.0f} s)")
        for line in lines:
            print(f"    {line}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
