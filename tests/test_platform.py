"""The synthesized platform of each environment: clean under cfn-lint and cdk-nag, valid manifests, right capacity."""

from __future__ import annotations

import json
import re
from datetime import date

import pytest
from support.k8s_schemas import validate_k8s_object
from support.synth import KUBERNETES_RESOURCE, cfn_lint, synthesize

from eks_training.core.versions import DEFAULT_ADDONS, KUBERNETES_RELEASES, addon_version, creatable_versions
from eks_training.core.catalog import INSTANCE_TYPES
from eks_training.infra.config import load_environment

#: cfn-lint rules we ignore, each with its reason.
CFN_LINT_IGNORED = {
    "W3010": "availability zones are explicit config so synth needs no lookups and EFA gets one fixed training AZ",
    "W3005": "aws-cdk-lib's aws_eks_v2 repeats subnet dependencies in DependsOn to order deletion; harmless",
}
CFN_TEMPLATE_LIMIT = 1_000_000


def test_synth_has_no_unacknowledged_findings(env):
    assert env.error is None, env.error
    assert env.violations("AwsSolutions") == []
    assert env.violations("CloudFormation Validate") == []


def test_cfn_lint_reports_nothing_beyond_named_ignores(env):
    findings = cfn_lint(sorted(env.outdir.glob("*.template.json")), CFN_LINT_IGNORED)
    assert [(f["Rule"]["Id"], f["Message"]) for f in findings] == []


def test_templates_fit_cloudformation_limits(env):
    for path in env.outdir.glob("*.template.json"):
        assert path.stat().st_size < CFN_TEMPLATE_LIMIT, path.name
    assert len(env.template["Resources"]) < 500


def test_embedded_kubernetes_objects_validate(env):
    objects = list(env.kubernetes_objects())
    assert objects, "the platform applies Kubernetes objects"
    for _, obj in objects:
        validate_k8s_object(obj)
    assert not any(obj["kind"] == "CustomResourceDefinition" for _, obj in objects), "CRDs come from operator charts"


def launch_templates_by_type(synth) -> dict[str, dict]:
    """Instance type of each accelerated node group -> its launch template data."""
    templates = synth.resources("AWS::EC2::LaunchTemplate")
    found = {}
    for group in synth.resources("AWS::EKS::Nodegroup").values():
        spec = group["Properties"].get("LaunchTemplate")
        if spec:
            lt = templates[spec["Id"]["Ref"]]["Properties"]["LaunchTemplateData"]
            found[group["Properties"]["InstanceTypes"][0]] = {"data": lt, "group": group["Properties"]}
    return found


@pytest.mark.parametrize("instance_type,cards", [("p5.48xlarge", 32), ("trn1.32xlarge", 8)])
def test_prod_launch_template_has_one_efa_interface_per_card(prod, instance_type, cards):
    data = launch_templates_by_type(prod)[instance_type]["data"]
    interfaces = data["NetworkInterfaces"]
    assert [i["NetworkCardIndex"] for i in interfaces] == list(range(cards))
    assert cards == INSTANCE_TYPES[instance_type].efa_interfaces
    assert interfaces[0]["InterfaceType"] == "efa" and interfaces[0]["DeviceIndex"] == 0
    assert {i["InterfaceType"] for i in interfaces[1:]} == {"efa-only"}
    assert all(len(i["Groups"]) == 2 for i in interfaces)


def test_prod_accelerated_groups_sit_in_one_subnet_and_a_cluster_placement_group(prod):
    # The system node group has a launch template too (IMDS pinned), in the private subnets.
    groups = {t: found for t, found in launch_templates_by_type(prod).items() if t != prod.config.system_nodes.instance_type}
    placement = prod.resources("AWS::EC2::PlacementGroup")
    assert len(groups) == 2
    for instance_type, found in groups.items():
        assert len(found["group"]["Subnets"]) == 1, instance_type
        assert found["group"]["Subnets"][0]["Ref"].startswith("NetworkTrainingSubnet")
        ref = found["data"]["Placement"]["GroupName"]["Ref"]
        assert placement[ref]["Properties"]["Strategy"] == "cluster"
        assert found["group"]["ScalingConfig"]["MinSize"] == 0
        assert found["group"]["AmiType"] == ("AL2023_x86_64_NVIDIA" if instance_type.startswith("p") else "AL2023_x86_64_NEURON")
        taints = {t["Key"] for t in found["group"]["Taints"]}
        assert taints == {"nvidia.com/gpu" if instance_type.startswith("p") else "aws.amazon.com/neuron"}


def test_every_launch_template_requires_imdsv2_and_encrypts_its_root_volume(env):
    templates = env.resources("AWS::EC2::LaunchTemplate")
    for lid, lt in templates.items():
        data = lt["Properties"]["LaunchTemplateData"]
        assert data["MetadataOptions"]["HttpTokens"] == "required", lid
        for mapping in data.get("BlockDeviceMappings", []):
            assert mapping["Ebs"]["Encrypted"] is True, lid


def test_prod_karpenter_pools_follow_the_training_rules(prod):
    objects = [obj for _, obj in prod.kubernetes_objects()]
    pools = [o for o in objects if o["kind"] == "NodePool"]
    classes = {o["metadata"]["name"]: o for o in objects if o["kind"] == "EC2NodeClass"}
    # The config's pools, and one of its own per Slurm partition (issue 23).
    assert {p["metadata"]["name"] for p in pools} == {"gpu-a100", "gpu-h100", "trn1", "trn1n", "slurm-gpu-a100",
                                                     "slurm-gpu-h100", "slurm-trainium"}
    for pool in pools:
        spec = pool["spec"]
        zones = [r for r in spec["template"]["spec"]["requirements"] if r["key"] == "topology.kubernetes.io/zone"]
        assert zones == [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": [prod.config.training_az]}]
        assert spec["disruption"]["consolidationPolicy"] == "WhenEmpty"
        node_class = classes[spec["template"]["spec"]["nodeClassRef"]["name"]]
        assert node_class["spec"]["amiSelectorTerms"][0]["alias"].startswith("al2023@")
        assert "userData" not in node_class["spec"]
        slurm = pool["metadata"]["name"].startswith("slurm-")
        assert node_class["spec"]["role"] == f"eks-training-prod-{'slurm' if slurm else 'karpenter'}-node"


def test_karpenter_pools_are_applied_after_the_controller(prod):
    manifests = prod.resources("Custom::AWSCDK-EKS-KubernetesResource")
    helm = prod.helm_releases["karpenter"]
    assert helm["Version"] == "1.14.1" and helm["Chart"].startswith("oci://public.ecr.aws/karpenter")
    pools = [lid for lid, r in manifests.items() if "NodePool" in json.dumps(r["Properties"]["Manifest"])]
    assert pools and all(helm["LogicalId"] in manifests[lid]["DependsOn"] for lid in pools)


def test_training_subnet_is_sized_for_prod_capacity(prod):
    subnet = next(r for lid, r in prod.resources("AWS::EC2::Subnet").items() if lid.startswith("NetworkTrainingSubnet"))
    prefix = int(subnet["Properties"]["CidrBlock"].split("/")[1])
    nodes = 8 + 8 + 128 // 8 + 64 // 8 + 256 // 16 + 128 // 16
    assert 2 ** (32 - prefix) - 5 >= nodes * 111


#: What may differ between environments that differ only in their Kubernetes version: (resource type, property).
VERSIONED_PROPERTIES = {("AWS::EKS::Cluster", "Version"), ("AWS::Lambda::LayerVersion", "Content"),
                        ("AWS::Lambda::LayerVersion", "Description"), ("AWS::EKS::Nodegroup", "Version"),
                        ("AWS::EKS::Addon", "AddonVersion")}


def _manifest_text(resource: dict) -> str:
    return json.dumps(resource).replace('\\"', '"')


def _kubectl_image(resource: dict) -> str:
    (image,) = set(re.findall(r'"image":"(docker.io/alpine/k8s:[^"]+)"', _manifest_text(resource)))
    return image


@pytest.mark.parametrize("version", creatable_versions(date.today()))
def test_each_kubernetes_version_synthesizes_cleanly(version, tmp_path, dev):
    config = dev.config.model_copy(update={"kubernetes_version": version})
    # cdk-nag and cfn-lint judge the shipped template (dev's own tests); this one must equal it but for the version.
    synth = synthesize(config, outdir=tmp_path, nag=False)
    assert synth.error is None, synth.error
    cluster = next(iter(synth.resources("AWS::EKS::Cluster").values()))
    assert cluster["Properties"]["Version"] == version
    # An upgrade moves everything: every node group carries the version, every add-on the build recorded for it.
    assert {r["Properties"]["Version"] for r in synth.resources("AWS::EKS::Nodegroup").values()} == {version}
    assert {r["Properties"]["AddonName"]: r["Properties"].get("AddonVersion")
            for r in synth.resources("AWS::EKS::Addon").values() if r["Properties"]["AddonName"] in DEFAULT_ADDONS} == {
        name: addon_version(name, version) for name in DEFAULT_ADDONS}
    layers = synth.resources("AWS::Lambda::LayerVersion")
    assert any(f"kubectl v{version}" in r["Properties"].get("Description", "") or "kubectl" in json.dumps(r)
               for r in layers.values())
    ours, shipped = synth.template["Resources"], dev.template["Resources"]
    assert set(ours) == set(shipped)
    changed = {(ours[lid]["Type"], key) for lid in ours if ours[lid] != shipped[lid]
               for key in {*ours[lid].get("Properties", {}), *shipped[lid].get("Properties", {})}
               if ours[lid].get("Properties", {}).get(key) != shipped[lid].get("Properties", {}).get(key)}
    for lid in [lid for lid in ours if ours[lid]["Type"] == KUBERNETES_RESOURCE and "MpiOperatorInstall" in lid]:
        # The installer Job runs a kubectl within the cluster version's skew: that image is all that may differ.
        image, shipped_image = _kubectl_image(ours[lid]), _kubectl_image(shipped[lid])
        assert _manifest_text(ours[lid]).replace(image, "") == _manifest_text(shipped[lid]).replace(shipped_image, "")
        changed.discard((KUBERNETES_RESOURCE, "Manifest"))
    assert changed <= VERSIONED_PROPERTIES, sorted(changed - VERSIONED_PROPERTIES)
    assert {k for k in {*synth.template, *dev.template} if k != "Resources"
            and synth.template.get(k) != dev.template.get(k)} == set()
    metadata = json.loads((tmp_path / f"{synth.stack_name}.metadata.json").read_text())
    warnings = [m for entries in metadata.values() for m in entries if m["type"] == "aws:cdk:warning"]
    support = KUBERNETES_RELEASES[version].support_status(date.today())
    extended = [w for w in warnings if "left EKS" in str(w["data"])]
    assert bool(extended) == (support in ("extended", "ended"))
    unrecorded = [w for w in warnings if "not recorded" in str(w["data"])]
    assert bool(unrecorded) == (support == "unrecorded")
    if support == "extended":
        assert str(KUBERNETES_RELEASES[version].end_of_extended_support) in str(extended[0]["data"])


#: Custom resource API group -> the Helm release (or installer chart) that brings its CRDs.
OPERATOR_OF_GROUP = {"karpenter.sh": "karpenter", "karpenter.k8s.aws": "karpenter", "batch.volcano.sh": "volcano",
                     "scheduling.volcano.sh": "volcano", "ray.io": "kuberay-operator",
                     "slinky.slurm.net": "slurm-operator", "kueue.x-k8s.io": "kueue",
                     "trainer.kubeflow.org": "kubeflow-trainer"}


def test_every_custom_resource_manifest_depends_on_its_operator_release(prod):
    manifests = prod.resources("Custom::AWSCDK-EKS-KubernetesResource")
    checked = set()
    for lid, objects in prod.kubernetes_manifests.items():
        for obj in objects:
            group = obj["apiVersion"].rpartition("/")[0]
            if group in OPERATOR_OF_GROUP:
                release = prod.helm_releases[OPERATOR_OF_GROUP[group]]
                assert release["LogicalId"] in manifests[lid].get("DependsOn", []), (lid, obj["kind"])
                checked.add(group)
    assert checked == set(OPERATOR_OF_GROUP) - {"batch.volcano.sh"}


def test_prod_installs_every_operator_at_its_pinned_version(prod):
    versions = {name: r["Version"] for name, r in prod.helm_releases.items()}
    assert versions == {"karpenter-crd": "1.14.1", "karpenter": "1.14.1", "volcano": "1.15.1",
                        "kuberay-operator": "1.7.0", "cert-manager": "v1.21.1", "slurm-operator-crds": "1.2.1",
                        "slurm-operator": "1.2.1",
                        "nvidia-device-plugin": "0.20.0", "neuron-helm-chart": "1.9.0",
                        "aws-efa-k8s-device-plugin": "v0.5.30", "jupyterhub": "4.4.0", "kueue": "0.19.2",
                        "jobset": "0.12.0", "kubeflow-trainer": "2.3.0"}
    mpi = [obj for _, obj in prod.kubernetes_objects() if obj["kind"] == "Job" and "mpi-operator" in obj["metadata"]["name"]]
    env = {e["name"]: e["value"] for e in mpi[0]["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["MANIFEST_URL"].endswith("/v0.8.0/deploy/v2beta1/mpi-operator.yaml") and len(env["MANIFEST_SHA256"]) == 64


def test_no_invented_slinky_kinds_anywhere(env):
    text = "\n".join(path.read_text() for path in env.outdir.glob("*.template.json"))
    for invented in ("SlurmCluster", "SlurmNodeSet", "slinky.slurm.net/v1alpha1"):
        assert invented not in text


def test_training_subnet_too_small_is_refused_in_one_line():
    import aws_cdk as cdk

    from eks_training.constructs.network import TrainingNetwork

    stack = cdk.Stack(cdk.App(), "Net", env=cdk.Environment(region="us-west-2"))
    with pytest.raises(ValueError) as err:
        TrainingNetwork(stack, "Network", availability_zones=["us-west-2a", "us-west-2b"], training_az="us-west-2a",
                        training_ips=3000, training_prefix=24)
    assert str(err.value) == ("training_prefix=24 is not allowed: use /20 or lower, or fewer nodes: /24 holds 251 "
                              "addresses but the accelerated capacity needs 3000")


def test_a_reserved_pool_in_the_environment_file_reaches_the_node_class(tmp_path):
    # capacity_reservation_ids travel from the file to the EC2NodeClass, so a reserved pool that loads also launches.
    import yaml

    from eks_training.infra.config import ENVIRONMENTS_DIR, parse_config

    data = yaml.safe_load((ENVIRONMENTS_DIR / "dev.yaml").read_text())
    pool = data["capacity"]["karpenter_pools"][0]
    pool.update(capacity_types=["reserved", "on-demand"], capacity_reservation_ids=["cr-0123456789abcdef0"])
    synth = synthesize(parse_config(data, source="dev.yaml"), outdir=tmp_path)
    assert synth.error is None, synth.error
    classes = {o["metadata"]["name"]: o for _, o in synth.kubernetes_objects() if o["kind"] == "EC2NodeClass"}
    pools = {o["metadata"]["name"]: o for _, o in synth.kubernetes_objects() if o["kind"] == "NodePool"}
    assert classes[pool["name"]]["spec"]["capacityReservationSelectorTerms"] == [{"id": "cr-0123456789abcdef0"}]
    (types,) = [r["values"] for r in pools[pool["name"]]["spec"]["template"]["spec"]["requirements"]
                if r["key"] == "karpenter.sh/capacity-type"]
    assert sorted(types) == ["on-demand", "reserved"]


def test_prod_is_protected_from_deletion_and_replacement_keeps_its_data(prod, dev):
    def protected(synth) -> bool:
        artifact = json.loads((synth.outdir / "manifest.json").read_text())["artifacts"][synth.stack_name]
        return bool(artifact["properties"].get("terminationProtection"))
    assert protected(prod) and not protected(dev)  # dev.yaml turns it off: a throwaway environment
    (prod_fsx,) = prod.resources("AWS::FSx::FileSystem").values()
    (dev_fsx,) = dev.resources("AWS::FSx::FileSystem").values()
    # A replacement keeps prod's file system and its files; dev (retain: false) lets it go.
    assert prod_fsx["UpdateReplacePolicy"] == "Retain" and dev_fsx["UpdateReplacePolicy"] == "Delete"
    for bucket in prod.resources("AWS::S3::Bucket").values():
        assert bucket["DeletionPolicy"] == "Retain"


def test_a_new_environment_keeps_its_data_and_its_stack_unless_its_file_says_otherwise():
    from eks_training.infra.config import parse_config

    config = parse_config({"name": "new", "region": "us-west-2", "availability_zones": ["us-west-2a", "us-west-2b"],
                           "training_az": "us-west-2a", "kubernetes_version": "1.36",
                           "cluster": {"admin_role_arns": ["arn:aws:iam::111122223333:role/admin"]}})
    assert config.storage.buckets.retain and config.termination_protection
