"""Kueue in the environment file: flavors come from the capacity, every quota names one of them and fits what its
nodes can ever hold, every training namespace has a queue; each mistake is one line."""

from __future__ import annotations

import copy

import pytest
import yaml

from eks_training.core.catalog import node_capacity
from eks_training.infra.config import ENVIRONMENTS_DIR, ConfigError, parse_config

PROD = yaml.safe_load((ENVIRONMENTS_DIR / "prod.yaml").read_text())


def _prod(change) -> dict:
    data = copy.deepcopy(PROD)
    change(data["services"])
    return data


def _error(data: dict) -> str:
    with pytest.raises(ConfigError) as raised:
        parse_config(data, source="prod.yaml")
    message = str(raised.value)
    assert "\n" not in message
    return message


def test_flavors_follow_the_capacity_and_only_node_groups_place_by_topology():
    config = parse_config(PROD)
    flavors = {f.name: f for f in config.kueue_flavors()}
    assert list(flavors) == ["p5-nodes", "trn1-nodes", "gpu-a100", "gpu-h100", "trn1", "trn1n", "cpu"]
    # Node groups of types EC2 labels with three network layers; Karpenter pools are quota-only.
    assert {n: f.topology_layers for n, f in flavors.items() if f.topology_layers} == {"p5-nodes": 3, "trn1-nodes": 3}
    assert (flavors["gpu-h100"].max_nodes, flavors["gpu-h100"].source_accelerators) == (8, 64)
    dev = parse_config(yaml.safe_load((ENVIRONMENTS_DIR / "dev.yaml").read_text()))
    # A pool of two types: one flavor per type, sharing the pool's 8 GPUs.
    assert [(f.name, f.instance_type, f.max_nodes, f.source_accelerators) for f in dev.kueue_flavors()][:2] == [
        ("gpu-g5-xlarge", "g5.xlarge", 8, 8), ("gpu-g5-12xlarge", "g5.12xlarge", 2, 8)]


def test_cpu_and_memory_default_to_the_whole_nodes_the_accelerators_come_with():
    config = parse_config(PROD)
    flavor = next(f for f in config.kueue_flavors() if f.name == "gpu-h100")
    quota = config.kueue_queue("ai-research").quotas[1]
    node = node_capacity("p5.48xlarge")
    # 32 H100s are 4 p5 nodes: their allocatable CPU and memory, and their 4 x 32 EFA interfaces.
    assert flavor.resources(quota) == {"accelerators": 32, "cpu": 4 * int(node.allocatable_cpu),
                                       "memory_gib": 4 * int(node.allocatable_memory / 2**30), "efa": 128}
    assert config.kueue_queue("training").name == "training" and config.kueue_queue("nowhere") is None


@pytest.mark.parametrize(("change", "message"), [
    (lambda s: s["kueue_queues"][0]["quotas"].__setitem__(0, {"flavor": "gpu-v100", "accelerators": 8}),
     "services.kueue_queues[0].quotas[0].flavor='gpu-v100' is not allowed: a flavor of the environment: p5-nodes, "
     "trn1-nodes, gpu-a100, gpu-h100, trn1, trn1n, cpu"),
    (lambda s: s["kueue_queues"][1]["quotas"][0].__setitem__("accelerators", 100),
     "services.kueue_queues accelerators on gpu-a100=164 is not allowed: at most 128, what Karpenter pool gpu-a100 "
     "can ever hold (queues ai-research, training add up to 164)"),
    (lambda s: s["kueue_queues"][1]["quotas"][2].__setitem__("cpu", 100),
     "services.kueue_queues cpu on cpu=116 is not allowed: at most 42 vCPUs, what the team CPU nodes can ever hold"),
    (lambda s: s["kueue_queues"].pop(),
     "services.kueue_queues=['training'] is not allowed: a queue for every training namespace (ai-research has none"),
    (lambda s: s["kueue_queues"][1]["namespaces"].append("training"),
     "services.kueue_queues[1].namespaces='training' is not allowed: one queue per namespace ('training' submits to "
     "'training')"),
    (lambda s: s["kueue_queues"][1]["namespaces"].append("analytics"),
     "services.kueue_queues[1].namespaces='analytics' is not allowed: a training namespace: training, ai-research"),
    (lambda s: s.__setitem__("kueue", False),
     "services.kueue_queues=['training', 'ai-research'] is not allowed: none while services.kueue is false"),
    (lambda s: s["kueue_queues"][1]["quotas"][2].update(accelerators=8),
     "services.kueue_queues[1].quotas[2].flavor='cpu' is not allowed: cpu with cpu and memory_gib and no "
     "accelerators"),
    (lambda s: s["kueue_queues"][1]["quotas"].append({"flavor": "gpu-a100", "accelerators": 8}),
     "services.kueue_queues[1].quotas[3].flavor='gpu-a100' is not allowed: one quota per flavor in a queue"),
])
def test_queue_mistakes_are_one_line(change, message):
    assert message in _error(_prod(change))


def test_a_node_group_named_like_the_cpu_flavor_is_refused():
    data = copy.deepcopy(PROD)
    data["capacity"]["gpu_node_groups"][0]["name"] = "cpu"
    assert "capacity names=['cpu'] is not allowed" in _error(data)


def test_a_teams_namespace_quota_is_what_its_queue_admits_with_borrowing():
    config = parse_config(PROD)
    # ai-research: gpu-a100 64 and no borrowing limit (the cohort holds 64 + 64 there), gpu-h100 32 + at most 16;
    # Trainium only what it borrows from training (trn1 256, trn1n 128).
    quota = config.namespace_quota("ai-research")
    assert (quota["max_gpus"], quota["max_neuron_devices"]) == (128 + 48, 256 + 128)
    # training borrows without limit: every GPU and Neuron device of the cohort.
    quota = config.namespace_quota("training")
    assert (quota["max_gpus"], quota["max_neuron_devices"]) == (128 + 64, 256 + 128)
    # Without Kueue, an unset quota is the platform's default, and a set one is taken as it is.
    unqueued = copy.deepcopy(PROD)
    unqueued["services"].update(kueue=False, kueue_queues=[])
    unqueued["training_namespaces"][1]["max_gpus"] = 8
    config = parse_config(unqueued)
    assert config.namespace_quota("training")["max_gpus"] == 64 and config.namespace_quota("ai-research")["max_gpus"] == 8


def test_a_quota_below_what_the_queue_admits_and_a_role_in_two_teams_are_refused():
    low = copy.deepcopy(PROD)
    low["training_namespaces"][1]["max_gpus"] = 64  # what the shipped prod had: its queue admits 176
    assert _error(low) == (
        "prod.yaml: training_namespaces[1].max_gpus=64 is not allowed: at least 176, what its Kueue queue 'ai-research' "
        "admits (gpu-a100 64 + 64 borrowed from cohort training, gpu-h100 32 + 16 borrowed from cohort training); leave "
        "it unset to take that, or lower services.kueue_queues[1]'s quotas or borrowing_limit")
    shared = copy.deepcopy(PROD)
    role = "arn:aws:iam::123456789012:role/alice"
    shared["training_namespaces"][0]["members"] = [role]
    shared["training_namespaces"][1]["members"] = [role]
    assert _error(shared) == (
        f"prod.yaml: training_namespaces[1].members[0]='{role}' is not allowed: a role of one team ('training' names it "
        "already): give a person in two teams a role per team")


def test_render_refuses_a_job_beyond_its_teams_quota():
    from eks_training.infra.tools.job_render import RenderError, render_job

    data = copy.deepcopy(PROD)
    # ai-research without Trainium: its namespace says 0, and its queue borrows none of training's.
    data["training_namespaces"][1]["max_neuron_devices"] = 0
    data["services"]["kueue_queues"][1]["quotas"] += [{"flavor": "trn1", "borrowing_limit": 0},
                                                       {"flavor": "trn1n", "borrowing_limit": 0}]
    config = parse_config(data)
    job = {"dataset": "wiki", "image": "registry.example/trainer:1", "nodes": 1}
    with pytest.raises(RenderError) as refused:
        render_job(config, "neuron-job", namespace="ai-research", **job)
    assert str(refused.value) == (
        "--nodes: 1 trn1.32xlarge node (16 Neuron devices) is beyond the quota of team 'ai-research', 0 Neuron devices "
        "(training_namespaces[1].max_neuron_devices): at most 0 such nodes")
    assert render_job(config, "neuron-job", namespace="training", **job)  # the other team's quota holds it
