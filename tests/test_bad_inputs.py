"""Catalogue of bad inputs: each ends in its exact one-line error, never a traceback or a template."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from eks_training.core.catalog import INSTANCE_TYPES, instance_facts
from eks_training.infra.config import ConfigError, load_config_file, load_environment, parse_config

REPO = Path(__file__).resolve().parent.parent
ALLOWED_TYPES = ", ".join(INSTANCE_TYPES)
DNS_PATTERN = "not allowed: use lowercase letters, digits and '-', starting with a letter (e.g. gpu-h100)"
_DELETE = object()


def _staging_with(path: tuple[str, ...], value: Any) -> dict[str, Any]:
    """staging.yaml's settings with the one at ``path`` replaced by ``value`` (or removed)."""
    data = load_environment("staging").model_dump(mode="json")
    node = data
    for key in path[:-1]:
        node = node[key]
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = copy.deepcopy(value)
    return data


def _group(**fields: Any) -> list[dict[str, Any]]:
    return [{"name": "g", "instance_type": "p5.48xlarge", **fields}]


CONFIG_CASES = [
    (("region",), "us-west", "region = 'us-west': 'us-west' is not an AWS region name such as us-west-2"),
    (("availability_zones",), ["us-west-2a"],
     "availability_zones = ['us-west-2a']: Tuple should have at least 2 items after validation, not 1"),
    (("availability_zones",), ["us-west-2a", "us-east-1b"],
     "availability_zones: 'us-east-1b' is not a zone of region us-west-2 (e.g. us-west-2a)"),
    (("availability_zones",), ["us-west-2a", "us-west-2a"],
     "availability_zones: ['us-west-2a', 'us-west-2a'] repeats a zone"),
    (("training_az",), "us-west-2d",
     "training_az: 'us-west-2d' is not one of availability_zones ['us-west-2a', 'us-west-2b', 'us-west-2c']"),
    (("kubernetes_version",), "1.30",
     "kubernetes_version = '1.30': Input should be '1.31', '1.32', '1.33', '1.34', '1.35' or '1.36'"),
    (("account",), "12345", "account = '12345': not allowed: use the 12-digit AWS account id"),
    (("name",), "Prod", f"name = 'Prod': {DNS_PATTERN}"),
    (("region",), _DELETE, "region: is required"),
    (("network", "colour"), "blue", "network.colour = 'blue': unknown key (check its spelling; see the config reference in README.md)"),
    (("network", "cidr"), "10.0.0.0/8", "network.cidr = '10.0.0.0/8': must be an IPv4 network with a prefix from /16 to /24"),
    (("network", "cidr"), "8.8.0.0/16", "network.cidr = '8.8.0.0/16': must be a private range (RFC 1918), e.g. 10.0.0.0/16"),
    (("network", "cidr"), "10.0.0.1/16", "network.cidr = '10.0.0.1/16': must be an IPv4 network such as 10.0.0.0/16"),
    (("network", "nat_gateways"), 0, "network.nat_gateways = 0: Input should be greater than or equal to 1"),
    (("cluster", "endpoint_access"), "open",
     "cluster.endpoint_access = 'open': Input should be 'public', 'private' or 'public_and_private'"),
    (("cluster", "admin_role_arns"), ["arn:aws:iam::123:user/bob"],
     "cluster.admin_role_arns = ['arn:aws:iam::123:user/bob']: 'arn:aws:iam::123:user/bob' is not an IAM role ARN "
     "(arn:aws:iam::123456789012:role/NAME)"),
    (("cluster", "public_access_cidrs"), ["203.0.113.0/33"],
     "cluster.public_access_cidrs = ['203.0.113.0/33']: '203.0.113.0/33' is not a network such as 203.0.113.0/24"),
    (("cluster", "addon_versions"), {"cilium": "latest"},
     "cluster.addon_versions: unknown add-on 'cilium' (allowed: vpc-cni, coredns, kube-proxy, eks-pod-identity-agent, aws-ebs-csi-driver)"),
    (("cluster", "addon_versions"), {"coredns": "1.11"},
     "cluster.addon_versions: add-on 'coredns' version '1.11' must be 'latest' or like v1.19.0-eksbuild.1"),
    (("system_nodes", "min_size"), 5, "system_nodes: needs min_size <= desired_size <= max_size, got 5 <= 2 <= 4"),
    (("capacity", "gpu_node_groups"), _group(instance_type="p3.16xlarge"),
     f"capacity.gpu_node_groups[0].instance_type = 'p3.16xlarge': 'p3.16xlarge' is not a supported accelerated "
     f"instance type (allowed: {ALLOWED_TYPES})"),
    (("capacity", "gpu_node_groups"), _group(instance_type="trn1.32xlarge"),
     "capacity: gpu_node_groups[0].instance_type: 'trn1.32xlarge' is a Trainium (neuron) type, not a GPU type"),
    (("capacity", "gpu_node_groups"), _group(instance_type="g5.xlarge"),
     "capacity.gpu_node_groups[0]: efa: g5.xlarge has no EFA interfaces; set efa: false or pick an EFA type"),
    (("capacity", "gpu_node_groups"), _group(capacity_type="capacity-block"),
     "capacity.gpu_node_groups[0]: capacity_type 'capacity-block' needs capacity_reservation_id (cr-...)"),
    (("capacity", "gpu_node_groups"), _group(capacity_type="capacity-block", capacity_reservation_id="cr-123"),
     "capacity.gpu_node_groups[0]: capacity_reservation_id 'cr-123' must look like cr-0123456789abcdef0"),
    (("capacity", "gpu_node_groups"), _group(min_size=3, max_size=2),
     "capacity.gpu_node_groups[0]: needs min_size <= desired_size <= max_size, got 3 <= 0 <= 2"),
    (("capacity", "gpu_node_groups"), [{"name": "G_1", "instance_type": "p5.48xlarge"}],
     f"capacity.gpu_node_groups[0].name = 'G_1': {DNS_PATTERN}"),
    (("capacity", "karpenter_pools"), [{"name": "mix", "instance_types": ["p5.48xlarge", "trn1.32xlarge"]}],
     "capacity.karpenter_pools[0].instance_types = ['p5.48xlarge', 'trn1.32xlarge']: mixes GPU and Neuron types "
     "['p5.48xlarge', 'trn1.32xlarge']; make one pool per accelerator kind"),
    (("storage", "buckets", "data_bucket_name"), "My_Bucket",
     "storage.buckets.data_bucket_name = 'My_Bucket': 'My_Bucket' is not a valid S3 bucket name "
     "(3-63 lowercase letters, digits, '.', '-')"),
    (("storage", "buckets", "checkpoint_bucket_name"), "192.168.1.1",
     "storage.buckets.checkpoint_bucket_name = '192.168.1.1': '192.168.1.1' is a name S3 reserves "
     "(IP-like, xn-- prefix or -s3alias suffix)"),
    (("storage", "buckets", "noncurrent_checkpoint_days"), 0,
     "storage.buckets.noncurrent_checkpoint_days = 0: Input should be greater than or equal to 1"),
    (("storage", "fsx", "deployment_type"), "SCRATCH_1",
     "storage.fsx.deployment_type = 'SCRATCH_1': Input should be 'PERSISTENT_2', 'PERSISTENT_1' or 'SCRATCH_2'"),
    (("tags",), {"aws:owner": "x"}, "tags: tag key 'aws:owner' must be 1-128 characters and not start with 'aws:'"),
    (("tags",), {"team": "a|b"},
     "tags: tag 'team' uses characters AWS refuses (allowed: letters, digits, spaces, _ . : / = + - @)"),
    (("services", "slurm_partitions"), [{"name": "p", "instance_type": "m5.large"}],
     f"services.slurm_partitions[0].instance_type = 'm5.large': instance_type: 'm5.large' is not a supported "
     f"accelerated instance type (allowed: {ALLOWED_TYPES})"),
    (("storage", "fsx", "storage_capacity_gib"), 1000,
     "storage.fsx: capacity_gib=1000 is not allowed: use 1200, 2400 or a multiple of 2400 GiB (SSD storage)"),
    (("storage", "fsx", "per_unit_storage_throughput"), 300,
     "storage.fsx: per_unit_throughput=300 is not allowed: PERSISTENT_2 takes one of [125, 250, 500, 1000] MB/s/TiB"),
    (("storage", "fsx"), {"deployment_type": "SCRATCH_2", "per_unit_storage_throughput": 250},
     "storage.fsx: per_unit_throughput=250 is not allowed: SCRATCH_2 takes none; leave it None"),
    # Doors and settings that would silently mean something else (issue 14, point 6).
    (("cluster",), {"endpoint_access": "public_and_private"},
     "cluster: cluster.public_access_cidrs = [] with endpoint_access = 'public_and_private': a public API endpoint must "
     "name the client networks it admits (e.g. [203.0.113.0/24]), or use private"),
    (("cluster",), {"endpoint_access": "private", "public_access_cidrs": ["198.51.100.0/24"]},
     "cluster: cluster.public_access_cidrs = ['198.51.100.0/24'] is ignored with endpoint_access = 'private': remove it "
     "or make the endpoint public_and_private"),
    (("services", "jupyterhub_sign_in"), None,
     "services.jupyterhub_sign_in is required with services.jupyterhub = true: JupyterHub's default authenticator lets "
     "anyone in (give your OIDC provider's URLs, client id and an allow-list)"),
    (("services", "jupyterhub_sign_in", "authorize_url"), "http://login.example.com/authorize",
     "services.jupyterhub_sign_in.authorize_url = 'http://login.example.com/authorize': not allowed: use an https:// URL "
     "of your provider"),
    (("images",), {"gpu_image": "registry.example/trainer:1"},
     "images: images.gpu_image='registry.example/trainer:1' is ignored while images.build_training_images is true: set "
     "build_training_images: false to use your own image"),
    (("images",), {"build_training_images": False, "gpu_image": "registry.example/trainer:latest"},
     "images: images.gpu_image='registry.example/trainer:latest' is not allowed: use a pinned registry/name:tag or "
     "@sha256 digest"),
    (("system_nodes", "instance_type"), "m6i.huge",
     f"system_nodes.instance_type = 'm6i.huge': instance_type: 'm6i.huge' is not a known instance type (allowed: the "
     f"accelerated types {ALLOWED_TYPES}, or a system type such as m6i.2xlarge: families m5, m5a, m6i, m6a, m7i, m7a, c5, "
     "c6i, c6a, c7i, c7a, r5, r6i, r6a, r7i, r7a, sizes large, xlarge, 2xlarge, 4xlarge, 8xlarge, 12xlarge, 16xlarge, "
     "24xlarge)"),
    (("observability", "log_retention_days"), 10,
     "observability.log_retention_days = 10: Input should be 1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, "
     "731, 1096, 1827, 2192, 2557, 2922, 3288 or 3653"),
]


@pytest.mark.parametrize(("path", "value", "message"), CONFIG_CASES)
def test_bad_config_value(path: tuple[str, ...], value: Any, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(_staging_with(path, value), source="env.yaml")
    error = str(caught.value)
    assert "\n" not in error
    assert error == f"env.yaml: {message}" or (message.count(" ") == 0 and error.startswith(f"env.yaml: {message}"))


@pytest.mark.parametrize(("text", "message"), [
    ("name: [unclosed\n", "env.yaml: not valid YAML at line 2, column 1: expected ',' or ']', but got '<stream end>'"),
    ("- just\n- a list\n", "env.yaml: the file must hold a mapping of settings, found list"),
])
def test_bad_config_file(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "env.yaml").write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config_file(tmp_path / "env.yaml")
    assert str(caught.value) == message


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^config file .*/nope\.yaml does not exist$"):
        load_config_file(tmp_path / "nope.yaml")


def test_unknown_instance_type_in_catalogue() -> None:
    with pytest.raises(ValueError) as caught:
        instance_facts("p3.16xlarge", field="ray_worker_instance_type")
    assert str(caught.value) == (f"ray_worker_instance_type: 'p3.16xlarge' is not a supported accelerated instance "
                                 f"type (allowed: {ALLOWED_TYPES})")


@pytest.mark.parametrize(("path", "value", "message"), [
    (("network", "cidr"), "10.0.0.0/8", "error: env.yaml: network.cidr = '10.0.0.0/8': must be an IPv4 network "
                                        "with a prefix from /16 to /24"),
    (("training_az",), "us-west-2d", "error: env.yaml: training_az: 'us-west-2d' is not one of "
                                     "availability_zones ['us-west-2a', 'us-west-2b', 'us-west-2c']"),
])
def test_app_exits_2_with_one_line(tmp_path: Path, path: tuple[str, ...], value: Any, message: str) -> None:
    config = tmp_path / "env.yaml"
    config.write_text(yaml.safe_dump(_staging_with(path, value)))
    outdir = tmp_path / "cdk.out"
    env = {**os.environ, "CDK_CONTEXT_JSON": json.dumps({"config": str(config), "nag": False}), "CDK_OUTDIR": str(outdir)}
    proc = subprocess.run([sys.executable, str(REPO / "app.py")], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.strip().splitlines() == [message]
    assert not list(outdir.glob("*.template.json"))
