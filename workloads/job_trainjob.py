"""Kubeflow Trainer v2 (`trainer.kubeflow.org/v1alpha1`): a ClusterTrainingRuntime per GPU instance type that runs
our trainer, and the `trainjob` kind's TrainJob that uses it.

The runtime is the pod a node of its type runs: the same training pod every other kind builds (every GPU and EFA
interface, the FSx claims, a RAM /dev/shm, the `training` ServiceAccount), the single-node health check as an init
gate, and a JobSet failure policy that restarts the whole job a bounded number of times. Trainer runs a TrainJob as
a JobSet from it: one indexed Job (`node`) of `numNodes` pods, each given `PET_NNODES`, `PET_NPROC_PER_NODE`,
`PET_NODE_RANK`, `PET_MASTER_ADDR` and `PET_MASTER_PORT` by Trainer's torch plugin, which torchrun reads as its
rendezvous flags; the TrainJob brings the image, the torchrun command and the node count.

A restart is a JobSet restart: every pod of the job is deleted and created again (restartStrategy Recreate), so
all ranks start together and resume from the newest complete checkpoint, the way torchrun's static rendezvous needs
them. A pod failure fails its Job at once (backoffLimit 0: a lost rank breaks every collective), which the JobSet
counts against `maxRestarts`. A node whose accelerators fail the health check fails its pod in the gate, before the
trainer starts on it.
"""

from __future__ import annotations

import copy

from eks_training.core.catalog import instance_facts
from eks_training.core.validation import invalid
from eks_training.workloads.job_healthcheck import health_check_init_container
from eks_training.core.preemption import EXIT_RESUME
from eks_training.workloads.job_pods import (
    TrainingJob,
    disruption_budget,
    resumable,
    torchrun_command,
    training_container,
    training_pod_metadata,
    training_pod_spec,
)
from eks_training.workloads.job_queueing import TRAINJOB_NODE_JOB
from eks_training.workloads.k8s_objects import check_int
from eks_training.workloads.labels import common_labels

COMPONENT = "kubeflow-trainer"
TRAINER_API = "trainer.kubeflow.org/v1alpha1"
#: The container of the trainer pods: Trainer overrides its image and command from the TrainJob, and its torch plugin
#: injects the PET_* rendezvous variables into it.
TRAINER_CONTAINER = "node"
#: Labels Trainer reads on a runtime: the step a replicated job runs, and the ML framework.
ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"
FRAMEWORK_LABEL = "trainer.kubeflow.org/framework"
#: The label JobSet puts on every pod of the JobSet Trainer makes for a TrainJob (named as the TrainJob).
JOBSET_NAME_LABEL = "jobset.sigs.k8s.io/jobset-name"
#: Env the TrainJob sets itself (Trainer refuses PET_* there: its torch plugin owns them).
_JOB_NAME_ENV = "JOB_NAME"


def runtime_name(instance_type: str) -> str:
    """The ClusterTrainingRuntime of one instance type: `eks-training-p5-48xlarge`."""
    return f"eks-training-{instance_type.replace('.', '-')}"


def _stand_in(instance_type: str) -> TrainingJob:
    # The runtime is shared by every job on its type: the job-specific fields (name, nodes) come from the TrainJob,
    # and the image is set afterwards (a CDK app's image URI is a token, which TrainingJob's check would refuse).
    return TrainingJob(name="trainjob", namespace="default", instance_type=instance_type, nodes=1,
                       image="runtime.invalid/image:stand-in")


def cluster_training_runtime(*, instance_type: str, image: str, max_restarts: int) -> dict:
    """The ClusterTrainingRuntime that runs our trainer on whole ``instance_type`` nodes, restarting the whole job
    up to ``max_restarts`` times."""
    facts = instance_facts(instance_type)
    if facts.accelerator != "nvidia":
        raise invalid("instance_type", instance_type, "a GPU instance type (trainjob runs torchrun on GPUs; Trainium "
                      "jobs use the neuron-job kind)")
    check_int("max_restarts", max_restarts, minimum=0, maximum=100)
    if not isinstance(image, str) or not image:
        raise invalid("image", image, "the training image's URI")
    job = _stand_in(instance_type)
    node = training_container(job, ["torchrun"], name=TRAINER_CONTAINER)
    gate = health_check_init_container(job)
    for container in (node, gate):  # the stand-in's name is no job's: the TrainJob names its own
        container["image"] = image
        container["env"] = [e for e in container["env"] if e["name"] != _JOB_NAME_ENV]
    pod_spec = training_pod_spec(job, [node], restart_policy="Never", init_containers=[gate])
    return {
        "apiVersion": TRAINER_API,
        "kind": "ClusterTrainingRuntime",
        "metadata": {"name": runtime_name(instance_type),
                     "labels": {**common_labels(COMPONENT), FRAMEWORK_LABEL: "torch"}},
        "spec": {
            "mlPolicy": {"numNodes": 1, "torch": {}},
            "template": {"spec": {
                "failurePolicy": {
                    "maxRestarts": max_restarts, "restartStrategy": "Recreate",
                    # A node Job failed by its podFailurePolicy (the trainers saved and stopped, or the pod was
                    # evicted): restart the whole JobSet, not counted against maxRestarts.
                    "rules": [{"name": "resume", "action": "RestartJobSetAndIgnoreMaxRestarts",
                               "onJobFailureReasons": ["PodFailurePolicy"]}],
                },
                "replicatedJobs": [{
                    "name": TRAINJOB_NODE_JOB,
                    "template": {
                        "metadata": {"labels": {ANCESTOR_LABEL: "trainer"}},
                        # One failed pod fails its Job, so the JobSet restarts every rank together.
                        "spec": {"backoffLimit": 0, "podFailurePolicy": _resume_fails_the_job(),
                                 "template": {"metadata": training_pod_metadata(common_labels(COMPONENT)),
                                              "spec": pod_spec}},
                    },
                }],
            }},
        },
    }


def _resume_fails_the_job() -> dict:
    """The node Job's podFailurePolicy: a saved stop (exit 75) or an eviction fails the Job with reason
    PodFailurePolicy, which the JobSet's `resume` rule restarts without using up maxRestarts."""
    return {"rules": [{"action": "FailJob", "onExitCodes": {"containerName": TRAINER_CONTAINER, "operator": "In",
                                                           "values": [EXIT_RESUME]}},
                      {"action": "FailJob", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}]}


def trainjob_disruption_budget(job: TrainingJob) -> dict:
    """The PodDisruptionBudget of the TrainJob's pods (see :func:`disruption_budget`)."""
    return disruption_budget(job, {JOBSET_NAME_LABEL: job.name}, COMPONENT)


def train_job(job: TrainingJob) -> dict:
    """The TrainJob for ``job`` on its instance type's runtime: ``job.nodes`` nodes, one process per GPU."""
    facts = job.require_accelerator("trainjob", "nvidia")
    if job.checkpoint_s3_uri is not None:
        raise invalid("checkpoint_s3_uri", job.checkpoint_s3_uri, "None for trainjob: its pods are the runtime's, "
                      "which has no per-job sidecar (the workspace's FSx export copies checkpoints to S3)")
    if job.health_check:
        raise invalid("health_check", True, "left out for trainjob: its runtime runs the node health check before "
                      "every start")
    return {
        "apiVersion": TRAINER_API,
        "kind": "TrainJob",
        "metadata": {"name": job.name, "namespace": job.namespace, "labels": common_labels(COMPONENT)},
        "spec": {
            "runtimeRef": {"apiGroup": "trainer.kubeflow.org", "kind": "ClusterTrainingRuntime",
                           "name": runtime_name(job.instance_type)},
            "trainer": {
                "image": job.image,
                "numNodes": job.nodes,
                "numProcPerNode": facts.accelerators,
                # Rendezvous flags come from the PET_* variables Trainer sets (rank 0's host, the node rank).
                "command": resumable(torchrun_command(job)),
                "env": [{"name": _JOB_NAME_ENV, "value": job.name}],
            },
        },
    }


def trainjob_pod_spec(trainjob: dict, runtime: dict) -> dict:
    """The trainer pods' spec Trainer makes from ``trainjob`` and its ``runtime``: the runtime's pod with the
    TrainJob's image, command and env in the `node` container, and the pod-level fields of runtime patches
    (what Kueue and our topology request write there). What the checks place and the contract test reads."""
    replicated = next(r for r in runtime["spec"]["template"]["spec"]["replicatedJobs"]
                      if r["name"] == TRAINJOB_NODE_JOB)
    template = copy.deepcopy(replicated["template"]["spec"]["template"])
    spec = template["spec"]
    trainer = trainjob["spec"].get("trainer") or {}
    for container in spec["containers"]:
        if container["name"] != TRAINER_CONTAINER:
            continue
        for field in ("image", "command", "args"):
            if field in trainer:
                container[field] = list(trainer[field]) if isinstance(trainer[field], list) else trainer[field]
        env = {e["name"]: e for e in container.get("env") or []}
        env.update({e["name"]: e for e in trainer.get("env") or []})
        container["env"] = list(env.values())
        if trainer.get("resourcesPerNode"):
            container["resources"] = copy.deepcopy(trainer["resourcesPerNode"])
    for patch in trainjob["spec"].get("runtimePatches") or []:
        for job in patch.get("trainingRuntimeSpec", {}).get("template", {}).get("spec", {}).get("replicatedJobs", []):
            if job.get("name") != TRAINJOB_NODE_JOB:
                continue
            patched = (job.get("template") or {}).get("spec", {}).get("template") or {}
            for key, value in ((patched.get("metadata") or {}).get("annotations") or {}).items():
                template.setdefault("metadata", {}).setdefault("annotations", {})[key] = value
            pod = patched.get("spec") or {}
            if "nodeSelector" in pod:
                spec["nodeSelector"] = {**spec.get("nodeSelector", {}), **pod["nodeSelector"]}
            if "tolerations" in pod:
                spec["tolerations"] = [*spec.get("tolerations", []), *pod["tolerations"]]
            if "affinity" in pod:
                spec["affinity"] = pod["affinity"]
    return template
