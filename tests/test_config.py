"""Environment configs: the shipped ones validate, and every bad input ends in one line that says why."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from eks_training.infra.config import (ConfigError, PlatformConfig, environment_names, load_config_file,
                                       load_environment, parse_config)

REPO = Path(__file__).resolve().parent.parent
DEV = yaml.safe_load((REPO / "infra" / "environments" / "dev.yaml").read_text())


def mutate(path: str, value) -> dict:
    """A copy of dev.yaml with ``path`` (dots, [i] for list items) set to ``value``; ``...`` deletes it."""
    data = copy.deepcopy(DEV)
    parts = path.replace("[", ".[").split(".")
    node = data
    for part in parts[:-1]:
        node = node[int(part[1:-1])] if part.startswith("[") else node.setdefault(part, {})
    last = parts[-1]
    key = int(last[1:-1]) if last.startswith("[") else last
    if value is ...:
        del node[key]
    else:
        node[key] = value
    return data


def test_shipped_environments_validate_and_are_frozen():
    assert environment_names() == ["dev", "prod", "staging"]
    for name in environment_names():
        config = load_environment(name)
        assert isinstance(config, PlatformConfig) and config.name == name
        with pytest.raises(Exception):
            config.region = "eu-west-1"  # frozen


def test_prod_has_the_accelerated_capacity_the_platform_promises():
    prod = load_environment("prod")
    assert [g.instance_type for g in prod.capacity.gpu_node_groups] == ["p5.48xlarge"]
    assert [g.instance_type for g in prod.capacity.trainium_node_groups] == ["trn1.32xlarge"]
    assert all(g.min_size == 0 for g in prod.accelerated_node_groups)
    pools = {t for p in prod.capacity.karpenter_pools for t in p.instance_types}
    assert {"p4d.24xlarge", "p5.48xlarge", "trn1.32xlarge", "trn1n.32xlarge"} <= pools


BAD_CONFIGS = [
    # (mutation path, bad value, (field the one-line error names, the value it shows, text of what is allowed))
    ("region", "us-west", ("region", "us-west", "use an AWS region name such as us-west-2")),
    ("kubernetes_version", "1.30", ("kubernetes_version", "1.30", "use one of 1.32, 1.33, 1.34, 1.35, 1.36")),
    ("kubernetes_version", 1.33, ("kubernetes_version", 1.33, 'quote it: "1.33"')),
    ("training_az", "us-west-2d", ("training_az", "us-west-2d", "use one of availability_zones ['us-west-2a', 'us-west-2b']")),
    ("availability_zones", ["us-west-2a"], ("availability_zones", ["us-west-2a"], "name at least 2 zones")),
    ("availability_zones", ["us-west-2a", "us-east-1b"],
     ("availability_zones[1]", "us-east-1b", "use a zone of region us-west-2, e.g. us-west-2a")),
    ("network.cidr", "10.0.0.0/33", ("network.cidr", "10.0.0.0/33", "use an IPv4 network such as 10.0.0.0/16")),
    ("network.cidr", "8.8.0.0/16", ("network.cidr", "8.8.0.0/16", "use a private range (RFC 1918)")),
    ("network.nat_gateways", 0, ("network.nat_gateways", 0, "should be greater than or equal to 1")),
    ("system_nodes.min_size", 5, ("system_nodes.min_size", 5, "use at most max_size=3")),
    ("system_nodes.desired_size", 4, ("system_nodes.desired_size", 4, "use from min_size=2 to max_size=3")),
    ("system_nodes.max_size", "many", ("system_nodes.max_size", "many", "should be a valid integer")),
    ("capacity.karpenter_pools[0].instance_types", ["g5.xlarge", "x9.huge"],
     ("capacity.karpenter_pools[0].instance_types[1]", "x9.huge", "use a supported accelerated instance type: p4d.24xlarge")),
    ("capacity.karpenter_pools[0].instance_types", ["g5.xlarge", "trn1.32xlarge"],
     ("capacity.karpenter_pools[0].instance_types", ["g5.xlarge", "trn1.32xlarge"], "types of one accelerator kind")),
    ("capacity.karpenter_pools[0].efa", True, ("capacity.karpenter_pools[0].efa", True, "g5.xlarge has no EFA interfaces")),
    ("capacity.karpenter_pools[0].max_accelerators", 0,
     ("capacity.karpenter_pools[0].max_accelerators", 0, "should be greater than or equal to 1")),
    ("capacity.karpenter_pools[0].colour", "red", ("capacity.karpenter_pools[0].colour", "red", "use a known key")),
    # A reserved pool without its reservations would load and then fail at synth; ids without "reserved" do nothing.
    ("capacity.karpenter_pools[0].capacity_types", ["reserved"],
     ("capacity.karpenter_pools[0].capacity_reservation_ids", [], "capacity type 'reserved' needs the reservations' cr- ids")),
    ("capacity.karpenter_pools[0].capacity_reservation_ids", ["cr-0123456789abcdef0"],
     ("capacity.karpenter_pools[0].capacity_reservation_ids", ["cr-0123456789abcdef0"], "only with 'reserved' in capacity_types")),
    ("capacity.karpenter_pools[0].capacity_types", ["spot", "cheap"],
     ("capacity.karpenter_pools[0].capacity_types[1]", "cheap", "on-demand")),
    ("capacity.gpu_node_groups", [{"name": "trn", "instance_type": "trn1.32xlarge", "max_size": 2}],
     ("capacity.gpu_node_groups[0].instance_type", "trn1.32xlarge", "use a type with nvidia accelerators (p4d.24xlarge")),
    ("capacity.trainium_node_groups", [{"name": "gpu", "instance_type": "p5.48xlarge", "max_size": 2}],
     ("capacity.trainium_node_groups[0].instance_type", "p5.48xlarge", "this one has H100 (nvidia)")),
    ("capacity.gpu_node_groups", [{"name": "g", "instance_type": "g5.xlarge", "max_size": 2, "efa": True}],
     ("capacity.gpu_node_groups[0].efa", True, "g5.xlarge has no EFA interfaces")),
    ("capacity.gpu_node_groups", [{"name": "g", "instance_type": "p5.48xlarge", "capacity_type": "capacity-block"}],
     ("capacity.gpu_node_groups[0].capacity_reservation_id", None, "capacity_type='capacity-block' needs the reservation's cr- id")),
    ("capacity.gpu_node_groups", [{"name": "g", "instance_type": "p5.48xlarge", "capacity_type": "capacity-block",
                                   "capacity_reservation_id": "cr-123"}],
     ("capacity.gpu_node_groups[0].capacity_reservation_id", "cr-123", "such as cr-0123456789abcdef0")),
    ("capacity.gpu_node_groups", [{"name": "Bad_Name", "instance_type": "p5.48xlarge"}],
     ("capacity.gpu_node_groups[0].name", "Bad_Name", "use lowercase letters, digits and '-'")),
    ("storage.buckets.data_bucket_name", "My_Bucket", ("storage.buckets.data_bucket_name", "My_Bucket", "use an S3 bucket name")),
    ("storage.buckets.checkpoint_bucket_name", "192.168.1.1",
     ("storage.buckets.checkpoint_bucket_name", "192.168.1.1", "not an IP address")),
    ("tags", {"aws:owner": "me"}, ("tags key", "aws:owner", "not starting with 'aws:'")),
    ("cluster.admin_role_arns", ["arn:aws:iam::123:role/x"],
     ("cluster.admin_role_arns[0]", "arn:aws:iam::123:role/x", "use an IAM role ARN")),
    ("cluster.addon_versions", {"vpc-cni": "1.2"},
     ("cluster.addon_versions['vpc-cni']", "1.2", "use an EKS add-on version")),
    ("cluster.addon_versions", {"vpc-cni": "latest"},
     ("cluster.addon_versions['vpc-cni']", "latest", "a build vX.Y.Z-eksbuild.N (latest pins nothing")),
    ("cluster.addon_versions", {"istio": "v1.0.0-eksbuild.1"},
     ("cluster.addon_versions key", "istio", "use add-ons of vpc-cni")),
    ("account", "12345", ("account", "12345", "use the 12-digit AWS account id")),
    ("training_namespaces", [{"name": "a"}, {"name": "a"}],
     ("training_namespaces names", ["a", "a"], "give each namespace a unique name")),
    ("storage.fsx.deployment_type", "SCRATCH_1", ("storage.fsx.deployment_type", "SCRATCH_1", "should be")),
    # dev has no VPC endpoints: restricted egress would leave pods without S3, ECR and STS.
    ("network.restrict_egress", True, ("network.restrict_egress", True, "false with vpc_endpoints: false")),
    ("network.egress_allowed", [{"name": "mirror", "cidr": "203.0.113.7/24"}],
     ("network.egress_allowed[0].cidr", "203.0.113.7/24", "use an IPv4 network such as 203.0.113.0/24")),
    ("network.egress_allowed", [{"name": "mirror", "cidr": "203.0.113.0/24", "ports": [0]}],
     ("network.egress_allowed[0].ports[0]", 0, "greater than or equal to 1")),
    ("network.egress_allowed", [{"name": "a", "cidr": "203.0.113.0/24"}, {"name": "a", "cidr": "198.51.100.0/24"}],
     ("network.egress_allowed names", ["a"], "give each destination a unique name")),
    # Pods mount /data and /workspaces/<namespace>: links that leave them without their bucket would mislead.
    ("storage.fsx.data_repository_associations", [{"file_system_path": "/data", "bucket": "data"},
                                                  {"file_system_path": "/checkpoints", "bucket": "checkpoints"}],
     ("storage.fsx.data_repository_associations", ["/data", "/checkpoints"],
      "keep /workspaces linked to the checkpoints bucket with s3_prefix ''")),
    ("storage.fsx.data_repository_associations", [{"file_system_path": "/data", "bucket": "data", "s3_prefix": "raw/"},
                                                  {"file_system_path": "/workspaces", "bucket": "checkpoints"}],
     ("storage.fsx.data_repository_associations", ["/data", "/workspaces"],
      "keep /data linked to the data bucket with s3_prefix ''")),
]


@pytest.mark.parametrize("path,value,expected", BAD_CONFIGS, ids=[f"{p}={v!r}"[:60] for p, v, _ in BAD_CONFIGS])
def test_bad_config_gives_one_line_error(path, value, expected):
    field, shown, allowed = expected
    with pytest.raises(ConfigError) as err:
        parse_config(mutate(path, value), source="dev.yaml")
    message = str(err.value)
    assert "\n" not in message
    head = f"dev.yaml: {field}={shown!r} is not allowed: "
    assert message.startswith(head), message
    assert allowed in message[len(head):]


def test_missing_key_is_required():
    data = mutate("name", ...)
    with pytest.raises(ConfigError, match=r"^dev\.yaml: name: is required$"):
        parse_config(data, source="dev.yaml")


def test_bad_files_give_one_line_errors(tmp_path):
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ConfigError, match=r"config file .*nope.yaml does not exist"):
        load_config_file(missing)
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: dev\nregion: [us-west-2\n")
    with pytest.raises(ConfigError, match=r"broken.yaml: not valid YAML at line 3, column 1"):
        load_config_file(broken)
    scalar = tmp_path / "scalar.yaml"
    scalar.write_text("just a string\n")
    with pytest.raises(ConfigError, match="the file must hold a mapping of settings, found str"):
        load_config_file(scalar)
    with pytest.raises(ConfigError, match=r"^env='qa' is not allowed: use one of the environments dev, prod, staging$"):
        load_environment("qa")


def run_app(context: dict, outdir: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "CDK_CONTEXT_JSON": json.dumps({**context, "nag": False}), "CDK_OUTDIR": str(outdir)}
    return subprocess.run([sys.executable, "app.py"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("context,expected", [
    ({"env": "qa"}, "error: env='qa' is not allowed: use one of the environments dev, prod, staging"),
    ({"config": "missing.yaml"}, "error: config file missing.yaml does not exist"),
    ({"config": "BAD"}, "error: BAD.yaml: network.cidr='10.0.0.0/8' is not allowed: use an IPv4 network with a prefix "
                        "from /16 to /24"),
])
def test_app_exits_with_one_line_and_no_traceback(context, expected, tmp_path):
    if context.get("config") == "BAD":
        bad = tmp_path / "BAD.yaml"
        bad.write_text(yaml.safe_dump(mutate("network.cidr", "10.0.0.0/8")))
        context = {"config": str(bad)}
    proc = run_app(context, tmp_path / "out")
    assert not list((tmp_path / "out").glob("*.template.json"))
    lines = [line for line in proc.stderr.splitlines() if line.strip() and "!!" not in line]
    assert lines == [expected]
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 2
