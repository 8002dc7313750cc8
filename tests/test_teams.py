"""The platform's teams are TrainingTeam add-ons: each applies, through the stack's shared manifests, exactly what a
team of its own applies, and every resource a deployed platform already holds keeps its logical ID."""

from __future__ import annotations

import json

import pytest

#: Resources of the teams' namespaces in the prod template main synthesized before teams were constructs (logical id,
#: type): a deployed platform holds them, and a new id would replace them (a manifest's replacement deletes its
#: objects after the new one applied them; a Pod Identity association's cannot even be created beside the old one).
DEPLOYED = {
    "ClusterNamespaces7E7CD827": "Custom::AWSCDK-EKS-KubernetesResource",
    "ClustermanifestTrainingServiceAccounts2F10A22B": "Custom::AWSCDK-EKS-KubernetesResource",
    "ClusterStorage2E0629EC": "Custom::AWSCDK-EKS-KubernetesResource",
    "ServicesNetworkPolicies8DABAD2E": "Custom::AWSCDK-EKS-KubernetesResource",
    "ServicesKueueKueueQueues45810573": "Custom::AWSCDK-EKS-KubernetesResource",
    "ClusterTrainingtrainingRoleAFE59ED7": "AWS::IAM::Role",
    "ClusterTrainingtrainingRoleDefaultPolicy8FBE3B28": "AWS::IAM::Policy",
    "ClusterTrainingairesearchRole76F9B6BD": "AWS::IAM::Role",
    "ClusterTrainingairesearchRoleDefaultPolicy130F4349": "AWS::IAM::Policy",
    "ClusterTrainingtrainingPodIdentityC071FA65": "AWS::EKS::PodIdentityAssociation",
    "ClusterTrainingairesearchPodIdentityE6CA8478": "AWS::EKS::PodIdentityAssociation",
    "ClusterRaytrainingPodIdentity0BDC7E06": "AWS::EKS::PodIdentityAssociation",
    "ClusterRayairesearchPodIdentityBA44739C": "AWS::EKS::PodIdentityAssociation",
}
#: The shared manifests a team's objects go into in the stack.
SHARED = ("ClusterNamespaces7E7CD827", "ClustermanifestTrainingServiceAccounts2F10A22B", "ClusterStorage2E0629EC",
          "ServicesNetworkPolicies8DABAD2E")
FAKE_FSX = ("fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com", "fs-0123456789abcdef0", "abcdefgh")


def test_every_resource_a_deployed_platform_holds_for_its_teams_keeps_its_logical_id(prod) -> None:
    resources = prod.template["Resources"]
    assert {lid: resources.get(lid, {}).get("Type") for lid in DEPLOYED} == DEPLOYED


@pytest.fixture(scope="module")
def teams_of_their_own(prod):
    """prod's teams, each made as a TrainingTeam of its own in a scratch app (same props, a stand-in file system)."""
    import aws_cdk as cdk

    from eks_training.addons import NamespaceQuota, TrainingTeam
    from eks_training.constructs.cluster import TrainingCluster
    from eks_training.constructs.network import TrainingNetwork
    from eks_training.infra.addons.network_policies import egress_of
    from eks_training.workloads.fsx_volumes import FsxVolume

    config = prod.config
    stack = cdk.Stack(cdk.App(context={"@aws-cdk/aws-eks:defaultToAL2023": True}), "Scratch",
                      env=cdk.Environment(region="us-west-2"))
    network = TrainingNetwork(stack, "Net", availability_zones=["us-west-2a", "us-west-2b"], training_az="us-west-2a",
                              vpc_endpoints=False)
    cluster = TrainingCluster(stack, "Cluster", vpc=network.vpc, version=config.kubernetes_version,
                              vpc_cidr=config.network.cidr)
    fsx = FsxVolume(FAKE_FSX[1], FAKE_FSX[0], FAKE_FSX[2], config.storage.fsx.storage_capacity_gib)
    teams = {}
    for team in config.training_namespaces:
        quota = config.namespace_quota(team.name)
        teams[team.name] = TrainingTeam(
            stack, team.name, cluster=cluster, namespace=team.name, members=team.members, fsx=fsx,
            models_storage_class="efs-models", egress=egress_of(config),
            operators=("volcano", "kuberay", "mpi-operator"),
            quota=NamespaceQuota(cpu=quota["max_cpu"], memory=f"{quota['max_memory_gib']}Gi",
                                 nvidia_gpus=quota["max_gpus"], neuron_devices=quota["max_neuron_devices"],
                                 pods=quota["max_pods"]))
    return teams


def _normalized(obj: dict) -> str:
    labels = obj["metadata"].get("labels") or {}
    # The label each manifest resource puts on its objects to prune them: the manifest's, not the object's.
    obj = {**obj, "metadata": {**obj["metadata"], "labels": {k: v for k, v in labels.items()
                                                             if not k.startswith("aws.cdk.eks/prune-")}}}
    text = json.dumps(obj, sort_keys=True)
    for literal in FAKE_FSX:  # the stand-in file system's names, where prod's template has its tokens
        text = text.replace(literal, "cfn-token")
    return text


def _key(obj: dict) -> tuple:
    return obj["kind"], obj["metadata"].get("namespace"), obj["metadata"]["name"]


@pytest.mark.parametrize("namespace", ["training", "ai-research"])
def test_a_team_in_the_stack_is_applied_as_a_team_of_its_own_would_be(prod, teams_of_their_own, namespace) -> None:
    own = {_key(o): _normalized(o) for o in teams_of_their_own[namespace].kubernetes_objects}
    # What the stack's shared manifests apply of this namespace (its Namespace, what lives in it, the PVs bound to it).
    shared = {}
    for lid in SHARED:
        for obj in prod.kubernetes_manifests[lid]:
            meta = obj["metadata"]
            claimed = ((obj.get("spec") or {}).get("claimRef") or {}).get("namespace")
            if namespace in (meta.get("namespace"), claimed) or (obj["kind"] == "Namespace" and meta["name"] == namespace):
                shared[_key(obj)] = _normalized(obj)
    assert len(own) >= 15 and own == shared
    # What is new with teams as constructs, in a manifest of the team's own: its members' Role and RoleBinding.
    (lid,) = [lid for lid in prod.kubernetes_manifests if lid.startswith(f"Team{namespace.replace('-', '')}")]
    assert {_key(o) for o in prod.kubernetes_manifests[lid]} == {("Role", namespace, "eks-training-member"),
                                                                ("RoleBinding", namespace, "eks-training-member")}


def test_each_member_role_has_an_access_entry_in_its_teams_group_and_no_policy(prod) -> None:
    entries = {json.dumps(r["Properties"]["PrincipalArn"]): r["Properties"]
               for r in prod.resources("AWS::EKS::AccessEntry").values() if r["Properties"].get("KubernetesGroups")}
    for team in prod.config.training_namespaces:
        for arn in team.members:
            entry = entries[json.dumps({"Fn::Sub": arn})]
            assert entry["KubernetesGroups"] == [f"eks-training:{team.name}:members"] and entry["Type"] == "STANDARD"
            assert not entry.get("AccessPolicies")
    assert len(entries) == sum(len(t.members) for t in prod.config.training_namespaces) == 2
