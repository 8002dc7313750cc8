"""The add-ons: constructs any app puts on a TrainingCluster, and the registry the platform stack builds them from
(discovery by module, dependency order, one-line errors, what each environment installs)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from eks_training.infra.addons import discover, install_order


@dataclass(frozen=True)
class Fake:
    name: str
    depends_on: tuple[str, ...] = ()


def test_every_module_defines_one_addon_with_a_unique_name():
    addons = discover()
    names = [a.name for a in addons]
    assert len(names) == len(set(names))
    assert {"nvidia-device-plugin", "neuron-device-plugin", "efa-device-plugin", "volcano", "kuberay", "mpi-operator",
            "cert-manager", "slinky", "jupyterhub", "kueue", "jobset", "kubeflow-trainer"} <= set(names)
    for addon in addons:
        assert callable(addon.enabled) and callable(addon.build) and isinstance(addon.depends_on, tuple)


def test_install_order_puts_dependencies_first_whatever_the_discovery_order():
    a, b, c = Fake("a", ("b",)), Fake("b", ("c",)), Fake("c")
    assert [x.name for x in install_order([a, b, c])] == ["c", "b", "a"]
    assert [x.name for x in install_order([c, a, b])] == ["c", "b", "a"]
    real = [x.name for x in install_order(discover())]
    assert real.index("cert-manager") < real.index("slinky")
    assert real.index("jobset") < real.index("kubeflow-trainer")


def test_cycles_and_unknown_dependencies_are_one_line_errors():
    with pytest.raises(ValueError, match=r"^add-on 'a' depends on itself"):
        install_order([Fake("a", ("b",)), Fake("b", ("a",))])
    with pytest.raises(ValueError, match=r"^add-on 'a' depends_on 'zz', which is no add-on \(known: a\)$"):
        install_order([Fake("a", ("zz",))])


@pytest.mark.parametrize(("name", "expected"), [
    ("dev", {"nvidia-device-plugin", "volcano", "kuberay", "mpi-operator", "kueue", "jobset", "kubeflow-trainer"}),
    ("staging", {"nvidia-device-plugin", "neuron-device-plugin", "efa-device-plugin", "volcano", "kuberay",
                 "mpi-operator", "cert-manager", "slinky", "jupyterhub", "kueue", "jobset", "kubeflow-trainer"}),
])
def test_each_environment_enables_what_its_config_and_capacity_ask_for(name, expected):
    from eks_training.infra.config import load_environment

    config = load_environment(name)
    enabled = {a.name for a in discover() if a.enabled(config)}
    assert expected <= enabled  # other add-ons (observability, security) may join the set
    optional = {"neuron-device-plugin", "efa-device-plugin", "cert-manager", "slinky", "jupyterhub", "kueue", "jobset",
                "kubeflow-trainer"}
    assert not (optional - expected) & enabled


def test_the_stack_installs_every_enabled_addon_once(prod):
    releases = {p["Release"] for p in prod.helm_releases.values()}
    assert {"nvidia-device-plugin", "neuron-helm-chart", "aws-efa-k8s-device-plugin", "volcano", "kuberay-operator",
            "cert-manager", "slurm-operator-crds", "slurm-operator", "jupyterhub", "karpenter-crd", "karpenter", "kueue",
            "jobset", "kubeflow-trainer"} == releases


def test_the_observability_addon_lands_in_prod_with_node_repair_everywhere(prod):
    addons = {r["Properties"]["AddonName"]: r for r in prod.resources("AWS::EKS::Addon").values()}
    assert {"amazon-cloudwatch-observability", "eks-node-monitoring-agent"} <= set(addons)
    assert prod.resources("AWS::CloudWatch::Dashboard") and len(prod.resources("AWS::CloudWatch::Alarm")) >= 2
    # The agent's role comes through the add-on's own Pod Identity association.
    assert addons["amazon-cloudwatch-observability"]["Properties"]["PodIdentityAssociations"][0]["ServiceAccount"]
    groups = prod.resources("AWS::EKS::Nodegroup").values()
    assert groups and all(g["Properties"].get("NodeRepairConfig") == {"Enabled": True} for g in groups)


def test_the_observability_addon_follows_its_config_switch():
    from eks_training.infra.addons.observability import ADDON
    from eks_training.infra.config import load_environment

    prod = load_environment("prod")
    assert ADDON.enabled(prod)
    assert not ADDON.enabled(prod.model_copy(update={"observability": prod.observability.model_copy(update={"enabled": False})}))


def test_karpenter_and_neuron_repair_follow_observability(prod):
    values = {r["Release"]: r.get("Values", {}) for r in prod.helm_releases.values()}
    assert values["karpenter"]["settings"]["featureGates"]["nodeRepair"] is True
    assert values["neuron-helm-chart"]["npd"]["enabled"] is True


# --- the add-ons as constructs of another app ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def other_app():
    """Another team's stack: our cluster construct, then add-ons with their own props, no PlatformConfig anywhere."""
    import aws_cdk as cdk

    from eks_training.constructs.cluster import TrainingCluster
    from eks_training.constructs.network import TrainingNetwork
    from eks_training.infra.addons.cert_manager import CertManager
    from eks_training.infra.addons.efa_device_plugin import EfaDevicePlugin
    from eks_training.infra.addons.kuberay import KubeRay
    from eks_training.infra.addons.nvidia_device_plugin import NvidiaDevicePlugin
    from eks_training.infra.addons.volcano import Volcano
    from eks_training.infra.addons.jobset import JobSet
    from eks_training.infra.addons.kubeflow_trainer import KubeflowTrainer
    from eks_training.infra.addons.kueue import Kueue
    from eks_training.addons import NamespaceQuota, TrainingTeam
    from eks_training.workloads.kueue import Flavor, Quota, TeamQueue
    from eks_training.workloads.volcano import VolcanoQueue

    app = cdk.App(context={"@aws-cdk/aws-eks:defaultToAL2023": True})
    stack = cdk.Stack(app, "Other", env=cdk.Environment(region="eu-west-1"))
    net = TrainingNetwork(stack, "Net", availability_zones=["eu-west-1a", "eu-west-1b"], training_az="eu-west-1a",
                          vpc_endpoints=False)
    cluster = TrainingCluster(stack, "Cluster", vpc=net.vpc, version="1.36", system_min_size=1, system_desired_size=1)
    made = {
        "cert": CertManager(stack, "CertManager", cluster=cluster),
        "volcano": Volcano(stack, "Volcano", cluster=cluster, queues=[VolcanoQueue(name="team-a", weight=3)],
                           node_selector={"pool": "ops"}),
        "nvidia": NvidiaDevicePlugin(stack, "Nvidia", cluster=cluster, node_selector={"gpu": "yes"},
                                     tolerations=[{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]),
        "efa": EfaDevicePlugin(stack, "Efa", cluster=cluster),
        "ray": KubeRay(stack, "KubeRay", cluster=cluster),
    }
    made["after"] = Volcano(stack, "Volcano2", cluster=cluster, after=[made["cert"]])
    made["kueue"] = Kueue(stack, "Kueue", cluster=cluster, node_selector={"pool": "ops"},
                          flavors=[Flavor("ops", {"pool": "ops"})],
                          queues=[TeamQueue("team-a", ("team-a",), (Quota("ops", {"cpu": 8, "memory": "32Gi"}),))])
    made["jobset"] = JobSet(stack, "JobSet", cluster=cluster)
    made["trainer"] = KubeflowTrainer(stack, "Trainer", cluster=cluster, instance_types=["g6e.12xlarge"],
                                      image="registry.example/trainer:1", max_restarts=5, after=[made["jobset"]])
    made["team"] = TrainingTeam(stack, "TeamA", cluster=cluster, namespace="team-a", operators=("kuberay",),
                                members=["arn:aws:iam::${AWS::AccountId}:role/team-a"], kueue=made["kueue"],
                                quota=NamespaceQuota(nvidia_gpus=8), vpc_cidr="10.0.0.0/16")
    template = app.synth().get_stack_by_name("Other").template
    return stack, cluster, made, template


def _resource(stack, template: dict, construct) -> tuple[str, dict]:
    import aws_cdk as cdk

    element = construct
    while not isinstance(element, cdk.CfnElement):
        element = element.node.default_child  # HelmChart -> CustomResource -> CfnResource
    lid = stack.get_logical_id(element)
    return lid, template["Resources"][lid]


def test_add_ons_take_typed_props_and_write_them_into_their_releases(other_app) -> None:
    import json

    stack, cluster, made, template = other_app
    _, volcano = _resource(stack, template, made["volcano"].release)
    # The admission webhooks see only namespaces labelled for Volcano (issue 23), by default.
    # Its pods tolerate the system nodes' taint wherever the selector puts them (any platform pod may run there).
    assert json.loads(volcano["Properties"]["Values"]) == {"custom": {"default_ns": {"pool": "ops"},
                                                                      "default_tolerations": [
        {"key": "CriticalAddonsOnly", "operator": "Exists"}],
                                                                      "webhooks_namespace_selector_expressions": [
        {"key": "eks-training/uses-volcano", "operator": "In", "values": ["true"]}]},
                                                           "basic": {"image_pull_policy": "IfNotPresent"}}
    _, queues = _resource(stack, template, made["volcano"].queues_manifest)
    assert '"name":"team-a"' in json.dumps(queues["Properties"]["Manifest"]).replace(" ", "").replace('\\"', '"')
    assert made["after"].queues_manifest is None  # no queues given, no manifest
    _, nvidia = _resource(stack, template, made["nvidia"].release)
    values = json.loads(nvidia["Properties"]["Values"])
    assert values["nodeSelector"] == {"gpu": "yes"}
    assert values["tolerations"] == [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]
    terms = values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [{"matchExpressions": [{"key": "gpu", "operator": "In", "values": ["yes"]}]}]
    assert made["volcano"].release is made["volcano"].releases["volcano"] and made["ray"].ray_cluster_manifest is None


def test_every_release_waits_for_the_system_nodes_and_for_what_it_is_told_to_follow(other_app) -> None:
    stack, cluster, made, template = other_app
    system, _ = _resource(stack, template, cluster.system_nodegroup)
    for name in ("volcano", "nvidia", "efa", "ray", "cert"):
        _, resource = _resource(stack, template, made[name].release)
        assert system in resource.get("DependsOn", []), name
        assert resource["Properties"]["Version"] and resource["Properties"]["Wait"] is True, name
    _, later = _resource(stack, template, made["after"].release)
    cert, _ = _resource(stack, template, made["cert"].release)
    assert cert in later["DependsOn"]


def test_an_add_on_refuses_a_cluster_that_is_not_ours_in_one_line() -> None:
    import aws_cdk as cdk

    from eks_training.infra.addons.volcano import Volcano

    stack = cdk.Stack(cdk.App(), "S")
    with pytest.raises(ValueError, match=r"^S/Volcano: cluster='str' is not allowed: a TrainingCluster"):
        Volcano(stack, "Volcano", cluster="my-cluster")  # type: ignore[arg-type]


def test_kueue_manages_only_its_queues_namespaces_and_trainer_runs_on_the_jobset_release(other_app) -> None:
    import json

    import yaml

    stack, cluster, made, template = other_app
    _, kueue = _resource(stack, template, made["kueue"].release)
    values = json.loads(kueue["Properties"]["Values"])
    assert values["controllerManager"]["nodeSelector"] == {"pool": "ops"}
    assert values["controllerManager"]["manager"]["image"] == {"repository": "registry.k8s.io/kueue/kueue",
                                                               "tag": "v0.19.2", "pullPolicy": "IfNotPresent"}
    config = yaml.safe_load(values["managerConfig"]["controllerManagerConfigYaml"])
    assert config["managedJobsNamespaceSelector"]["matchExpressions"] == [
        {"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["team-a"]}]
    assert "trainer.kubeflow.org/trainjob" in config["integrations"]["frameworks"]
    release_id, _ = _resource(stack, template, made["kueue"].release)
    _, queues = _resource(stack, template, made["kueue"].queues_manifest)
    assert release_id in queues["DependsOn"]
    jobset_id, _ = _resource(stack, template, made["jobset"].release)
    trainer_id, trainer = _resource(stack, template, made["trainer"].release)
    assert jobset_id in trainer["DependsOn"]
    assert json.loads(trainer["Properties"]["Values"])["jobset"] == {"install": False}
    _, runtimes = _resource(stack, template, made["trainer"].runtimes_manifest)
    assert trainer_id in runtimes["DependsOn"]
    text = json.dumps(runtimes["Properties"]["Manifest"])
    assert "eks-training-g6e-12xlarge" in text and '\\"maxRestarts\\":5' in text.replace(" ", "")


def test_a_team_of_its_own_applies_what_its_jobs_need_and_its_members_reach_only_that(other_app) -> None:
    import json

    stack, cluster, made, template = other_app
    team = made["team"]
    team_id, manifest = _resource(stack, template, team.manifest)
    objects = {(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"])
               for o in json.loads(manifest["Properties"]["Manifest"])}
    assert {("Namespace", None, "team-a"), ("ResourceQuota", "team-a", "training-quota"),
            ("LimitRange", "team-a", "training-defaults"), ("ServiceAccount", "team-a", "training"),
            ("ServiceAccount", "team-a", "ray"), ("NetworkPolicy", "team-a", "default-deny"),
            ("NetworkPolicy", "team-a", "allow-ray-dashboard-from-kuberay"), ("Role", "team-a", "eks-training-member"),
            ("RoleBinding", "team-a", "eks-training-member")} <= objects
    # Kueue's LocalQueue for the team goes into its namespace once that exists.
    _, queue = _resource(stack, template, made["kueue"].manifests["kueue-queue/LocalQueue-team-a"])
    assert team_id in queue["DependsOn"] and team.local_queue == "team-a"
    (entry,) = [r["Properties"] for r in template["Resources"].values() if r["Type"] == "AWS::EKS::AccessEntry"
                and r["Properties"].get("KubernetesGroups")]
    assert entry["KubernetesGroups"] == ["eks-training:team-a:members"] and entry["Type"] == "STANDARD"
    assert "AccessPolicies" not in entry and entry["PrincipalArn"] == {"Fn::Sub": "arn:aws:iam::${AWS::AccountId}:role/team-a"}
    accounts = sorted(r["Properties"]["ServiceAccount"] for r in template["Resources"].values()
                      if r["Type"] == "AWS::EKS::PodIdentityAssociation" and r["Properties"]["Namespace"] == "team-a")
    assert accounts == ["ray", "training"]


def test_a_team_refuses_what_would_not_work_in_one_line(other_app) -> None:
    from eks_training.addons import TrainingTeam

    stack, cluster, made, _ = other_app
    with pytest.raises(ValueError, match=r"^Other/Bad: members\[0\]='bob' is not allowed: use an IAM role ARN"):
        TrainingTeam(stack, "Bad", cluster=cluster, namespace="team-b", members=["bob"], vpc_cidr="10.0.0.0/16")
    with pytest.raises(ValueError, match=r"^Other/Unqueued: kueue='Other/Kueue' is not allowed: a Kueue whose queues "
                                         r"name namespace 'team-b'"):
        TrainingTeam(stack, "Unqueued", cluster=cluster, namespace="team-b", kueue=made["kueue"], vpc_cidr="10.0.0.0/16")


def test_the_add_ons_public_path_and_the_old_one_are_the_same_classes() -> None:
    import importlib
    import inspect
    import pkgutil

    import eks_training.addons as public
    import eks_training.infra.addons as registry
    from eks_training.infra.addons.volcano import Volcano  # the path apps used before, which keeps working

    assert public.Volcano is Volcano
    defined = set()
    for info in pkgutil.iter_modules(registry.__path__):
        module = importlib.import_module(f"{registry.__name__}.{info.name}")
        defined |= {obj for obj in vars(module).values() if inspect.isclass(obj) and issubclass(obj, registry.ClusterAddon)
                    and obj is not registry.ClusterAddon and obj.__module__ == module.__name__}
    assert defined == set(public.ADDONS)  # every add-on has its public name
    assert all(getattr(public, cls.__name__) is cls for cls in defined)
