"""The add-on registry: discovery by module, dependency order, one-line errors, and what each environment installs."""

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
            "cert-manager", "slinky", "jupyterhub"} <= set(names)
    for addon in addons:
        assert callable(addon.enabled) and callable(addon.install) and isinstance(addon.depends_on, tuple)


def test_install_order_puts_dependencies_first_whatever_the_discovery_order():
    a, b, c = Fake("a", ("b",)), Fake("b", ("c",)), Fake("c")
    assert [x.name for x in install_order([a, b, c])] == ["c", "b", "a"]
    assert [x.name for x in install_order([c, a, b])] == ["c", "b", "a"]
    real = [x.name for x in install_order(discover())]
    assert real.index("cert-manager") < real.index("slinky")


def test_cycles_and_unknown_dependencies_are_one_line_errors():
    with pytest.raises(ValueError, match=r"^add-on 'a' depends on itself"):
        install_order([Fake("a", ("b",)), Fake("b", ("a",))])
    with pytest.raises(ValueError, match=r"^add-on 'a' depends_on 'zz', which is no add-on \(known: a\)$"):
        install_order([Fake("a", ("zz",))])


@pytest.mark.parametrize(("name", "expected"), [
    ("dev", {"nvidia-device-plugin", "volcano", "kuberay", "mpi-operator"}),
    ("staging", {"nvidia-device-plugin", "neuron-device-plugin", "efa-device-plugin", "volcano", "kuberay",
                 "mpi-operator", "cert-manager", "slinky", "jupyterhub"}),
])
def test_each_environment_enables_what_its_config_and_capacity_ask_for(name, expected):
    from eks_training.infra.config import load_environment

    config = load_environment(name)
    enabled = {a.name for a in discover() if a.enabled(config)}
    assert expected <= enabled  # other add-ons (observability, security) may join the set
    optional = {"neuron-device-plugin", "efa-device-plugin", "cert-manager", "slinky", "jupyterhub"}
    assert not (optional - expected) & enabled


def test_the_stack_installs_every_enabled_addon_once(prod):
    releases = {p["Release"] for p in prod.helm_releases.values()}
    assert {"nvidia-device-plugin", "neuron-helm-chart", "aws-efa-k8s-device-plugin", "volcano", "kuberay-operator",
            "cert-manager", "slurm-operator-crds", "slurm-operator", "jupyterhub", "karpenter-crd", "karpenter"} == releases


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
