"""Volcano queues and training priority classes."""

from __future__ import annotations

import cdk8s
import pytest

from eks_training.workloads.volcano import QueueResources, VolcanoQueue, VolcanoQueuesChart, volcano_queue
from support.k8s_schemas import chart_objects, validate_k8s_objects

# The source document's queue: weight 100, 128 GPUs, 1000 CPUs, 8000Gi memory.
SOURCE_QUEUE = VolcanoQueue(
    name="ml-training-queue",
    weight=100,
    capability=QueueResources(cpu="1000", memory="8000Gi", nvidia_gpus=128),
)


def _render(**options) -> list[dict]:
    app = cdk8s.App()
    return chart_objects(VolcanoQueuesChart(app, "volcano", **options))


def test_source_document_queue_and_priority_classes_are_valid() -> None:
    objects = validate_k8s_objects(_render(queues=[SOURCE_QUEUE]))
    queue = next(o for o in objects if o["kind"] == "Queue")
    assert queue["apiVersion"] == "scheduling.volcano.sh/v1beta1"
    assert "namespace" not in queue["metadata"]
    assert queue["spec"] == {
        "weight": 100,
        "reclaimable": True,
        "capability": {"cpu": "1000", "memory": "8000Gi", "nvidia.com/gpu": "128"},
    }
    priorities = {o["metadata"]["name"]: o for o in objects if o["kind"] == "PriorityClass"}
    assert set(priorities) == {"training-high", "training-default", "training-low"}
    assert not any(p["globalDefault"] for p in priorities.values())
    assert priorities["training-high"]["value"] > priorities["training-default"]["value"] > priorities["training-low"]["value"]
    assert all(p["value"] < 1_000_000_000 for p in priorities.values()), "values above 1e9 are reserved for system pods"
    assert priorities["training-low"]["preemptionPolicy"] == "Never"
    for obj in objects:
        assert obj["metadata"]["labels"] == {"app.kubernetes.io/part-of": "eks-training", "app.kubernetes.io/component": "volcano"}


def test_queue_with_every_resource_guarantee_and_deserved_is_valid() -> None:
    queue = VolcanoQueue(
        name="trainium",
        weight=3,
        reclaimable=False,
        capability=QueueResources(cpu=512, memory="4Ti", neuron_devices=64, nvidia_gpus=0),
        deserved=QueueResources(neuron_devices=32, memory="2048Gi"),
        guarantee=QueueResources(neuron_devices=16, cpu="64"),
    )
    objects = validate_k8s_objects(_render(queues=[queue, SOURCE_QUEUE], priority_classes=False))
    assert [o["kind"] for o in objects] == ["Queue", "Queue"]
    spec = volcano_queue(queue)["spec"]
    assert spec["guarantee"] == {"resource": {"cpu": "64", "aws.amazon.com/neuron": "16"}}
    assert spec["deserved"] == {"memory": "2048Gi", "aws.amazon.com/neuron": "32"}
    assert spec["reclaimable"] is False


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "ML_Queue"}, r"queue name='ML_Queue' is not allowed: use lowercase letters, digits, '-' and '\.' \(at most 253\)"),
        ({"name": "default"}, r"queue name='default' is not allowed: choose another name \(Volcano creates this queue itself\)"),
        ({"name": "q", "weight": 0}, r"queue 'q' weight=0 is not allowed: use an integer from 1 to 65535"),
        ({"name": "q", "reclaimable": "yes"}, r"reclaimable='yes' is not allowed: use true or false"),
        ({"name": "q", "capability": {"cpu": 1}}, r"capability=\{'cpu': 1\} is not allowed: use a QueueResources"),
        ({"name": "q", "capability": QueueResources()}, r"queue 'q' capability sets no resource"),
        ({"name": "q", "capability": QueueResources(memory="8 GB")},
         r"capability memory='8 GB' is not allowed: use a non-negative Kubernetes quantity"),
        (
            {"name": "q", "capability": QueueResources(memory="1Ti"), "deserved": QueueResources(memory="2000Gi")},
            r"deserved memory=2000Gi exceeds capability memory=1Ti",
        ),
        (
            {"name": "q", "deserved": QueueResources(nvidia_gpus=8), "guarantee": QueueResources(nvidia_gpus=16)},
            r"guarantee nvidia.com/gpu=16 exceeds deserved nvidia.com/gpu=8",
        ),
    ],
)
def test_bad_queue_inputs_raise_one_line_errors(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message) as caught:
        VolcanoQueue(**kwargs)
    assert "\n" not in str(caught.value)


def test_bad_chart_inputs_raise() -> None:
    with pytest.raises(ValueError, match=r"queue names='ml-training-queue' is not allowed: each must be unique"):
        _render(queues=[SOURCE_QUEUE, SOURCE_QUEUE])
    with pytest.raises(ValueError, match=r"queues=\[\] is not allowed: use a non-empty list of VolcanoQueue"):
        _render(queues=[])
