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

from eks_training.core.version import CONFIG_SCHEMA_VERSION
import yaml

from eks_training.core.catalog import INSTANCE_TYPES, instance_facts
from eks_training.infra.config import ConfigError, load_config_file, load_environment, parse_config

REPO = Path(__file__).resolve().parent.parent
ALLOWED_TYPES = ", ".join(INSTANCE_TYPES)
DNS_PATTERN = "use lowercase letters, digits and '-', starting with a letter (e.g. gpu-h100)"
_DELETE = object()


def _staging_with(path: tuple[str, ...], value: Any) -> dict[str, Any]:
    """staging.yaml's settings with the one at ``path`` replaced by ``value`` (or removed)."""
    data = {**load_environment("staging").model_dump(mode="json"), "schema_version": CONFIG_SCHEMA_VERSION}
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


def _type_list(accelerator: str | None = None) -> str:
    return ", ".join(t for t, f in INSTANCE_TYPES.items() if accelerator is None or f.accelerator == accelerator)


BUCKET_RULE = ("use an S3 bucket name: 3-63 characters of lowercase letters, digits, '.' and '-', starting and ending "
               "with a letter or digit, no '..', not an IP address, no reserved prefix (xn--, sthree-, amzn-s3-demo-) "
               "or suffix (-s3alias, --ol-s3, .mrap, --x-s3, --table-s3)")
# (setting replaced, bad value, (the field the error names, the value it shows, what it says is allowed)):
# every case ends in the one format, "field=value is not allowed: what is allowed".
CONFIG_CASES = [
    (("region",), "us-west", ("region", "us-west", "use an AWS region name such as us-west-2")),
    (("availability_zones",), ["us-west-2a"],
     ("availability_zones", ["us-west-2a"], "name at least 2 zones (EKS needs two)")),
    (("availability_zones",), ["us-west-2a", "us-east-1b"],
     ("availability_zones[1]", "us-east-1b", "use a zone of region us-west-2, e.g. us-west-2a")),
    (("availability_zones",), ["us-west-2a", "us-west-2a"],
     ("availability_zones", ["us-west-2a", "us-west-2a"], "name each zone once")),
    (("training_az",), "us-west-2d",
     ("training_az", "us-west-2d", "use one of availability_zones ['us-west-2a', 'us-west-2b', 'us-west-2c']")),
    (("kubernetes_version",), "1.30", ("kubernetes_version", "1.30", "use one of 1.32, 1.33, 1.34, 1.35, 1.36")),
    (("account",), "12345", ("account", "12345", "use the 12-digit AWS account id")),
    (("name",), "Prod", ("name", "Prod", DNS_PATTERN)),
    (("network", "colour"), "blue",
     ("network.colour", "blue", "use a known key (check its spelling; see the config reference in README.md)")),
    (("network", "cidr"), "10.0.0.0/8", ("network.cidr", "10.0.0.0/8", "use an IPv4 network with a prefix from /16 to /24")),
    (("network", "cidr"), "8.8.0.0/16", ("network.cidr", "8.8.0.0/16", "use a private range (RFC 1918), e.g. 10.0.0.0/16")),
    (("network", "cidr"), "10.0.0.1/16",
     ("network.cidr", "10.0.0.1/16", "use an IPv4 network such as 10.0.0.0/16 (host bits zero)")),
    (("network", "nat_gateways"), 0, ("network.nat_gateways", 0, "should be greater than or equal to 1")),
    (("cluster", "endpoint_access"), "open",
     ("cluster.endpoint_access", "open", "should be 'public', 'private' or 'public_and_private'")),
    # No person could reach the cluster: its only other access entries are the kubectl handler's and the nodes'.
    (("cluster", "admin_role_arns"), [],
     ("cluster.admin_role_arns", [], "name at least one IAM role your people use to reach the cluster, e.g. "
      "arn:aws:iam::${AWS::AccountId}:role/eks-training-admin (the deploy account's)")),
    (("cluster", "admin_role_arns"), ["arn:aws:iam::123:user/bob"],
     ("cluster.admin_role_arns[0]", "arn:aws:iam::123:user/bob",
      "use an IAM role ARN such as arn:aws:iam::123456789012:role/NAME (or ${AWS::AccountId} for the deploy "
      "account's id)")),
    (("cluster", "public_access_cidrs"), ["203.0.113.0/33"],
     ("cluster.public_access_cidrs[0]", "203.0.113.0/33", "use a network such as 203.0.113.0/24")),
    (("cluster", "addon_versions"), {"cilium": "v1.0.0-eksbuild.1"},
     ("cluster.addon_versions key", "cilium",
      "use add-ons of vpc-cni, kube-proxy, coredns, eks-pod-identity-agent, aws-ebs-csi-driver, aws-efs-csi-driver, "
      "aws-fsx-csi-driver")),
    (("cluster", "addon_versions"), {"coredns": "1.11"},
     ("cluster.addon_versions['coredns']", "1.11", "use an EKS add-on version vX.Y.Z-eksbuild.N, e.g. v1.19.0-eksbuild.1")),
    (("system_nodes", "min_size"), 5, ("system_nodes.min_size", 5, "use at most max_size=4")),
    (("capacity", "gpu_node_groups"), _group(instance_type="p3.16xlarge"),
     ("capacity.gpu_node_groups[0].instance_type", "p3.16xlarge",
      f"use a supported accelerated instance type: {ALLOWED_TYPES}")),
    (("capacity", "gpu_node_groups"), _group(instance_type="trn1.32xlarge"),
     ("capacity.gpu_node_groups[0].instance_type", "trn1.32xlarge",
      f"use a type with nvidia accelerators ({_type_list('nvidia')}); this one has Trainium (neuron)")),
    (("capacity", "gpu_node_groups"), _group(instance_type="g5.xlarge"),
     ("capacity.gpu_node_groups[0].efa", True, "g5.xlarge has no EFA interfaces: set efa to false or pick EFA types")),
    (("capacity", "gpu_node_groups"), _group(capacity_type="capacity-block"),
     ("capacity.gpu_node_groups[0].capacity_reservation_id", None,
      "capacity_type='capacity-block' needs the reservation's cr- id, e.g. cr-0123456789abcdef0")),
    (("capacity", "gpu_node_groups"), _group(capacity_type="capacity-block", capacity_reservation_id="cr-123"),
     ("capacity.gpu_node_groups[0].capacity_reservation_id", "cr-123",
      "use an ODCR or Capacity Block id such as cr-0123456789abcdef0")),
    (("capacity", "gpu_node_groups"), _group(capacity_type="spot", capacity_reservation_id="cr-0123456789abcdef0"),
     ("capacity.gpu_node_groups[0].capacity_reservation_id", "cr-0123456789abcdef0",
      "only with capacity_type capacity-reservation or capacity-block (not 'spot')")),
    (("capacity", "gpu_node_groups"), _group(min_size=3, max_size=2),
     ("capacity.gpu_node_groups[0].min_size", 3, "use at most max_size=2")),
    (("capacity", "gpu_node_groups"), _group(min_size=1, desired_size=0, max_size=2),
     ("capacity.gpu_node_groups[0].desired_size", 0, "use from min_size=1 to max_size=2")),
    (("capacity", "gpu_node_groups"), [{"name": "G_1", "instance_type": "p5.48xlarge"}],
     ("capacity.gpu_node_groups[0].name", "G_1", DNS_PATTERN)),
    (("capacity", "gpu_node_groups"), [{"name": "a", "instance_type": "p5.48xlarge"}] * 2,
     ("capacity.node group names", ["a"], "give each node group a unique name")),
    (("capacity", "karpenter_pools"), [{"name": "mix", "instance_types": ["p5.48xlarge", "trn1.32xlarge"]}],
     ("capacity.karpenter_pools[0].instance_types", ["p5.48xlarge", "trn1.32xlarge"],
      "types of one accelerator kind: make one pool per kind (GPU or Neuron)")),
    (("capacity", "karpenter_pools"), [{"name": "g", "instance_types": ["p5.48xlarge", "g5.xlarge", "g6.xlarge"]}],
     ("capacity.karpenter_pools[0].efa", True,
      "g5.xlarge, g6.xlarge have no EFA interfaces: set efa to false or pick EFA types")),
    (("storage", "buckets", "data_bucket_name"), "My_Bucket",
     ("storage.buckets.data_bucket_name", "My_Bucket", BUCKET_RULE)),
    (("storage", "buckets", "checkpoint_bucket_name"), "192.168.1.1",
     ("storage.buckets.checkpoint_bucket_name", "192.168.1.1", BUCKET_RULE)),
    (("storage", "buckets"), {"data_bucket_name": "ml-data", "checkpoint_bucket_name": "ml-data"},
     ("storage.buckets.checkpoint_bucket_name", "ml-data", "a name other than data_bucket_name")),
    (("storage", "buckets", "noncurrent_checkpoint_days"), 0,
     ("storage.buckets.noncurrent_checkpoint_days", 0, "should be greater than or equal to 1")),
    (("storage", "fsx", "deployment_type"), "SCRATCH_1",
     ("storage.fsx.deployment_type", "SCRATCH_1", "should be 'PERSISTENT_2', 'PERSISTENT_1' or 'SCRATCH_2'")),
    (("tags",), {"aws:owner": "x"}, ("tags key", "aws:owner", "use 1-128 characters, not starting with 'aws:'")),
    (("tags",), {"team": "a|b"},
     ("tags['team']", "a|b", "use letters, digits, spaces and _ . : / = + - @ (the characters AWS takes)")),
    (("services", "slurm_partitions"), [{"name": "p", "instance_type": "m5.large"}],
     ("services.slurm_partitions[0].instance_type", "m5.large", f"use a supported accelerated instance type: {ALLOWED_TYPES}")),
    # core.fsx's rule, named as the environment file names the setting.
    (("storage", "fsx", "storage_capacity_gib"), 1000,
     ("storage.fsx.storage_capacity_gib", 1000, "use 1200, 2400 or a multiple of 2400 GiB (SSD storage)")),
    (("storage", "fsx", "per_unit_storage_throughput"), 300,
     ("storage.fsx.per_unit_storage_throughput", 300, "PERSISTENT_2 takes one of [125, 250, 500, 1000] MB/s/TiB")),
    (("storage", "fsx"), {"deployment_type": "SCRATCH_2", "per_unit_storage_throughput": 250},
     ("storage.fsx.per_unit_storage_throughput", 250, "SCRATCH_2 takes none; leave it None")),
    # Doors and settings that would silently mean something else (issue 14, point 6).
    (("cluster",), {"endpoint_access": "public_and_private"},
     ("cluster.public_access_cidrs", [], "with endpoint_access='public_and_private' name the client networks the "
      "public API endpoint admits (e.g. [203.0.113.0/24]), or use endpoint_access='private'")),
    (("cluster",), {"endpoint_access": "private", "public_access_cidrs": ["198.51.100.0/24"]},
     ("cluster.public_access_cidrs", ["198.51.100.0/24"], "none with endpoint_access='private' (it would be "
      "ignored): remove it or make the endpoint public_and_private")),
    (("services", "jupyterhub_sign_in"), None,
     ("services.jupyterhub_sign_in", None, "give one with services.jupyterhub: true, as JupyterHub's default "
      "authenticator lets anyone in (your OIDC provider's URLs, client id and an allow-list)")),
    (("services", "jupyterhub_sign_in", "authorize_url"), "http://login.example.com/authorize",
     ("services.jupyterhub_sign_in.authorize_url", "http://login.example.com/authorize",
      "use an https:// URL of your provider")),
    # The OidcSignIn workload's check, run by the config layer: a file that loads also synthesizes.
    (("services", "jupyterhub_sign_in", "allowed_groups"), [],
     ("services.jupyterhub_sign_in.allowed_users", [],
      "name who may sign in: at least one user, or a group in allowed_groups")),
    (("services", "jupyterhub_sign_in", "callback_url"), "https://hub.example.com/callback",
     ("services.jupyterhub_sign_in.callback_url", "https://hub.example.com/callback",
      "use the hub's http(s)://HOST/hub/oauth_callback URL")),
    (("images",), {"gpu_image": "registry.example/trainer:1"},
     ("images.gpu_image", "registry.example/trainer:1", "none while build_training_images is true (it would be "
      "ignored): set build_training_images: false to use your own image")),
    (("images",), {"build_training_images": False, "gpu_image": "registry.example/trainer:latest"},
     ("images.gpu_image", "registry.example/trainer:latest", "use a pinned registry/name:tag (not :latest), or "
      "registry/name:tag@sha256:<64 hex> to fix the digest too")),
    (("system_nodes", "instance_type"), "m6i.huge",
     ("system_nodes.instance_type", "m6i.huge", f"use an accelerated type ({ALLOWED_TYPES}) or a system type such as "
      "m6i.2xlarge: families m5, m5a, m6i, m6a, m7i, m7a, c5, c6i, c6a, c7i, c7a, r5, r6i, r6a, r7i, r7a, sizes large, "
      "xlarge, 2xlarge, 4xlarge, 8xlarge, 12xlarge, 16xlarge, 24xlarge")),
    (("observability", "log_retention_days"), 10,
     ("observability.log_retention_days", 10, "should be 1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, "
      "731, 1096, 1827, 2192, 2557, 2922, 3288 or 3653")),
    # The ObservabilityStack construct's checks, called by the config layer.
    (("observability", "metrics_namespace"), "AWS/Training",
     ("observability.metrics_namespace", "AWS/Training", "use 1-255 letters, digits or '._-/#:', not starting with 'AWS/'")),
    (("observability", "cloudwatch_addon_version"), "latest",
     ("observability.cloudwatch_addon_version", "latest",
      "use an EKS add-on version vX.Y.Z-eksbuild.N, e.g. v1.19.0-eksbuild.1")),
    (("observability", "alarm_jobs"), ["training/ok", "training"],
     ("observability.alarm_jobs[1]", "training", "use 'namespace/job', each 1-63 lowercase letters, digits or '-'")),
    (("observability", "idle_minutes"), 1441, ("observability.idle_minutes", 1441, "should be less than or equal to 1440")),
    # Teams: their members' roles and their quotas against their Kueue queue.
    (("training_namespaces",), [{"name": "training", "members": ["arn:aws:iam::123456789012:user/bob"]}],
     ("training_namespaces[0].members[0]", "arn:aws:iam::123456789012:user/bob",
      "use an IAM role ARN such as arn:aws:iam::123456789012:role/NAME (or ${AWS::AccountId} for the deploy "
      "account's id)")),
    (("training_namespaces",), [{"name": "training", "members": ["arn:aws:iam::123456789012:role/a"] * 2}],
     ("training_namespaces[0].members", ["arn:aws:iam::123456789012:role/a"] * 2, "name each role once")),
    (("training_namespaces",), [{"name": "training", "members": ["arn:aws:iam::${AWS::AccountId}:role/eks-training-admin"]}],
     ("training_namespaces[0].members[0]", "arn:aws:iam::${AWS::AccountId}:role/eks-training-admin",
      "a role that is not in cluster.admin_role_arns (an admin has the whole cluster already; a role has one access "
      "entry)")),
    (("training_namespaces",), [{"name": "training", "max_gpus": 16}],
     ("training_namespaces[0].max_gpus", 16, "at least 24, what its Kueue queue 'training' admits (gpu-g5-12xlarge 8, "
      "gpu-g5-48xlarge 8, gpu-g6 8); leave it unset to take that, or lower services.kueue_queues[0]'s quotas or "
      "borrowing_limit")),
]


@pytest.mark.parametrize(("path", "value", "expected"), CONFIG_CASES, ids=[".".join(c[0]) for c in CONFIG_CASES])
def test_bad_config_value(path: tuple[str, ...], value: Any, expected: tuple[str, Any, str]) -> None:
    field, shown, allowed = expected
    with pytest.raises(ConfigError) as caught:
        parse_config(_staging_with(path, value), source="env.yaml")
    # One line: the file, the field's full path, the bad value as Python writes it, and what is allowed.
    assert str(caught.value) == f"env.yaml: {field}={shown!r} is not allowed: {allowed}"


def test_missing_setting_names_it() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(_staging_with(("region",), _DELETE), source="env.yaml")
    assert str(caught.value) == "env.yaml: region: is required"


def test_more_errors_are_counted_after_the_first() -> None:
    data = _staging_with(("region",), "us-west")
    data["account"] = "12"
    with pytest.raises(ConfigError) as caught:
        parse_config(data, source="env.yaml")
    assert str(caught.value) == ("env.yaml: region='us-west' is not allowed: use an AWS region name such as "
                                 "us-west-2 (and 1 more error)")


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
    assert str(caught.value) == (f"ray_worker_instance_type='p3.16xlarge' is not allowed: use a supported accelerated "
                                 f"instance type: {ALLOWED_TYPES}")


@pytest.mark.parametrize(("path", "value", "message"), [
    (("network", "cidr"), "10.0.0.0/8", "error: env.yaml: network.cidr='10.0.0.0/8' is not allowed: use an IPv4 "
                                        "network with a prefix from /16 to /24"),
    (("training_az",), "us-west-2d", "error: env.yaml: training_az='us-west-2d' is not allowed: use one of "
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


# --- issue 23: the loader takes plain YAML only, and the inputs that slipped through get one line each ----------

def _write(tmp_path: Path, text: str, name: str = "staging.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _alias_bomb(levels: int) -> str:
    """The billion laughs in YAML: each level a list of nine aliases of the one before (9**levels leaves)."""
    lines = ['a0: &a0 ["lol"]']
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]")
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_is_refused_before_it_expands(tmp_path: Path) -> None:
    # 40 levels are 9**40 leaves: refused at the first anchor, before anything is built, or this never returns.
    text = yaml.safe_dump(_staging_with(("tags",), {})) + _alias_bomb(40)
    proc = subprocess.run([sys.executable, "-c", "import sys\nfrom eks_training.infra.config import ConfigError, "
                           "load_config_file\ntry:\n    load_config_file(sys.argv[1])\nexcept ConfigError as e:\n"
                           "    print(e)", str(_write(tmp_path, text))],
                          capture_output=True, text=True, timeout=120)  # a guard against a hang, not a speed check
    line = proc.stdout.strip()
    assert line.startswith("staging.yaml: line ") and line.endswith(
        "a0='&a0' is not allowed: write the value out: YAML anchors (&name) and aliases (*name) are not taken"), line


@pytest.mark.parametrize(("text", "message"), [
    ("name: staging\nregion: &r us-west-2\n",
     "staging.yaml: line 2: region='&r' is not allowed: write the value out: YAML anchors (&name) and aliases "
     "(*name) are not taken"),
    ("name: staging\nregion: us-west-2\nnetwork:\n  cidr: 10.20.0.0/16\n  cidr: 10.0.0.0/16\n",
     "staging.yaml: line 5: network.cidr='cidr' is not allowed: give each key once (YAML would keep only the last one)"),
    ("name: staging\n<<: {region: us-west-2}\n",
     "staging.yaml: line 2: top level key='<<' is not allowed: write the settings out: YAML merge keys are not taken"),
])
def test_yaml_constructs_the_loader_refuses(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config_file(_write(tmp_path, text))
    assert str(caught.value) == message


@pytest.mark.parametrize("word", ["no", "off", "yes", "on", "n", "y", "NO"])
def test_booleans_are_true_or_false_only(tmp_path: Path, word: str) -> None:
    text = yaml.safe_dump(_staging_with(("services", "slinky"), True)).replace("slinky: true", f"slinky: {word}")
    with pytest.raises(ConfigError) as caught:
        load_config_file(_write(tmp_path, text))
    assert str(caught.value) == f"staging.yaml: services.slinky={word!r} is not allowed: use true or false"


def test_true_and_false_still_read_as_booleans(tmp_path: Path) -> None:
    text = yaml.safe_dump(_staging_with(("services", "slinky"), False)).replace("slinky: false", "slinky: False")
    assert load_config_file(_write(tmp_path, text)).services.slinky is False


ISSUE_23_CASES = [
    # A public-only endpoint cannot be narrowed to networks (aws-eks-v2 refused it with a raw jsii error).
    (("cluster",), {"endpoint_access": "public", "public_access_cidrs": ["203.0.113.0/24"]},
     ("cluster.endpoint_access", "public", "public_and_private to admit only public_access_cidrs (a public-only "
      "endpoint cannot be restricted to networks), or private")),
    (("system_nodes", "max_size"), 100000,
     ("system_nodes.max_size", 100000, "use a whole number of nodes (EKS takes at most 450 per managed node group) "
      "from 1 to 450")),
    # The training subnet's size never follows capacity (tests/test_training_subnet.py): only a prefix that cannot
    # fit the VPC is refused.
    (("network", "cidr"), "10.20.0.0/18",
     ("network.training_subnet_prefix", None, "set one: the default /19 (the upper half of network.cidr) does not "
      "fit; a prefix from /21 to /28 fits network.cidr 10.20.0.0/18 beside 3 zones' public and private subnets")),
    (("storage", "fsx", "backup_retention_days"), 7,
     ("storage.fsx.backup_retention_days", 7, "0 or unset: FSx cannot back up SCRATCH_2 file systems")),
]


@pytest.mark.parametrize(("path", "value", "expected"), ISSUE_23_CASES, ids=[".".join(c[0]) for c in ISSUE_23_CASES])
def test_issue_23_bad_values(path: tuple[str, ...], value: Any, expected: tuple[str, Any, str]) -> None:
    data = _staging_with(path, value)
    if path[:2] == ("storage", "fsx"):
        data["storage"]["fsx"].update(deployment_type="SCRATCH_2", storage_capacity_gib=1200,
                                      per_unit_storage_throughput=None)
    field, shown, allowed = expected
    with pytest.raises(ConfigError) as caught:
        parse_config(data, source="env.yaml")
    assert str(caught.value) == f"env.yaml: {field}={shown!r} is not allowed: {allowed}"


@pytest.mark.parametrize("namespace", sorted(__import__("eks_training.core.names", fromlist=["x"]).PLATFORM_NAMESPACES))
def test_platform_namespaces_are_no_training_namespace(namespace: str) -> None:
    from eks_training.core.names import PLATFORM_NAMESPACES

    with pytest.raises(ConfigError) as caught:
        parse_config(_staging_with(("training_namespaces",), [{"name": namespace}]), source="env.yaml")
    assert str(caught.value) == (
        f"env.yaml: training_namespaces[0].name={namespace!r} is not allowed: a namespace of your own: {namespace} "
        f"belongs to {PLATFORM_NAMESPACES[namespace]} (reserved: {', '.join(PLATFORM_NAMESPACES)})")


def test_a_file_must_build_the_environment_it_is_named_after(tmp_path: Path) -> None:
    # A copy of dev.yaml that says name: prod would synthesize EksTraining-prod with dev's settings.
    copy_of_dev = (REPO / "infra" / "environments" / "dev.yaml").read_text().replace("name: dev", "name: prod")
    path = _write(tmp_path, copy_of_dev, "dev-copy.yaml")
    with pytest.raises(ConfigError) as caught:
        load_config_file(path)
    assert str(caught.value) == (
        "dev-copy.yaml: name='prod' is not allowed: the file's name, 'dev-copy' (the name picks the stack "
        "EksTraining-<name>: a file named dev-copy.yaml must not build another environment), or rename the file; to "
        "build 'prod' from it on purpose, pass -c allow_name_mismatch=true")
    assert load_config_file(path, name_matches_file=False).name == "prod"


def test_the_app_refuses_a_renamed_copy_unless_told(tmp_path: Path) -> None:
    copy_of_dev = (REPO / "infra" / "environments" / "dev.yaml").read_text().replace("name: dev", "name: prod")
    path = _write(tmp_path, copy_of_dev, "dev-copy.yaml")
    outdir = tmp_path / "cdk.out"
    env = {**os.environ, "CDK_CONTEXT_JSON": json.dumps({"config": str(path), "nag": False}), "CDK_OUTDIR": str(outdir)}
    proc = subprocess.run([sys.executable, str(REPO / "app.py")], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 2 and proc.stderr.strip().splitlines()[-1].startswith("error: dev-copy.yaml: name='prod'")
    assert not list(outdir.glob("*.template.json"))


CERTIFICATE = "arn:aws:acm:us-west-2:123456789012:certificate/12345678-1234-4234-8234-123456789012"
HTTPS_SIGN_IN = {"authorize_url": "https://idp.example.com/a", "token_url": "https://idp.example.com/t",
                 "userdata_url": "https://idp.example.com/u", "client_id": "hub", "allowed_groups": ["ml"],
                 "callback_url": "https://hub.example.com/hub/oauth_callback"}
# Issue 29: the internal load balancers of the hub and the Slurm login. What AWS would refuse an hour into a deploy
# (a certificate of another region) or a door it would open (every address) is refused when the file loads.
LOAD_BALANCER_CASES = [
    ({"jupyterhub_load_balancer": {"certificate_arn": CERTIFICATE.replace("us-west-2", "eu-west-1")}},
     ("services.jupyterhub_load_balancer.certificate_arn", CERTIFICATE.replace("us-west-2", "eu-west-1"),
      "a certificate of region us-west-2, where the load balancer is (ACM certificates are regional)")),
    ({"jupyterhub_load_balancer": {"certificate_arn": "arn:aws:iam::123456789012:server-certificate/hub"}},
     ("services.jupyterhub_load_balancer.certificate_arn", "arn:aws:iam::123456789012:server-certificate/hub",
      "use an ACM certificate ARN such as arn:aws:acm:us-west-2:123456789012:certificate/<uuid>")),
    ({"jupyterhub_load_balancer": {"certificate_arn": CERTIFICATE, "source_ranges": ["0.0.0.0/0"]}},
     ("services.jupyterhub_load_balancer.source_ranges", ["0.0.0.0/0"], "private client networks: together these "
      "admit every address, and the load balancer is for your networks only")),
    ({"jupyterhub_load_balancer": {"certificate_arn": CERTIFICATE}, "jupyterhub_sign_in": {
        **HTTPS_SIGN_IN, "callback_url": "http://localhost:8000/hub/oauth_callback"}},
     ("services.jupyterhub_sign_in.callback_url", "http://localhost:8000/hub/oauth_callback", "https://<the "
      "certificate's host name>/hub/oauth_callback with jupyterhub_load_balancer: the browser comes back through its "
      "TLS listener")),
    ({"jupyterhub": False, "jupyterhub_load_balancer": {"certificate_arn": CERTIFICATE}},
     ("services.jupyterhub_load_balancer", {"certificate_arn": CERTIFICATE, "source_ranges": ()},
      "none without services.jupyterhub: true (it would be ignored)")),
    ({"slurm_login_load_balancer": {"source_ranges": ["10.8.0.1/16"]}},
     ("services.slurm_login_load_balancer.source_ranges[0]", "10.8.0.1/16",
      "use an IPv4 network such as 10.8.0.0/16 (host bits zero)")),
    ({"slurm_partitions": [], "slurm_login_load_balancer": {}},
     ("services.slurm_login_load_balancer", {"source_ranges": ()},
      "none without services.slinky and services.slurm_partitions (it would be ignored)")),
]


@pytest.mark.parametrize(("services", "expected"), LOAD_BALANCER_CASES, ids=[str(i) for i in range(len(LOAD_BALANCER_CASES))])
def test_load_balancer_settings_refused_in_one_line(services: dict[str, Any], expected: tuple[str, Any, str]) -> None:
    data = _staging_with(("services", "jupyterhub_sign_in"), HTTPS_SIGN_IN)
    data["services"].update(services)
    field, shown, allowed = expected
    with pytest.raises(ConfigError) as caught:
        parse_config(data, source="env.yaml")
    assert str(caught.value) == f"env.yaml: {field}={shown!r} is not allowed: {allowed}"


def test_load_balancers_admit_the_vpc_unless_told_otherwise() -> None:
    data = _staging_with(("services", "jupyterhub_sign_in"), HTTPS_SIGN_IN)
    data["services"].update(jupyterhub_load_balancer={"certificate_arn": CERTIFICATE},
                            slurm_login_load_balancer={"source_ranges": ["10.8.0.0/16"]})
    from eks_training.infra.addons.network_policies import load_balancer_clients

    config = parse_config(data, source="env.yaml")
    assert load_balancer_clients(config, "jupyterhub") == (config.network.cidr,)
    assert load_balancer_clients(config, "slurm_login") == ("10.8.0.0/16",)
    assert load_balancer_clients(load_environment("staging"), "jupyterhub") == ()
