"""The source document's BioNeMo job: one GPU node, a model cache, data, and a config from a ConfigMap.

Differences from the document: the image is a parameter (BioNeMo releases move fast), data comes from the
platform's FSx claim, the model cache from its EFS `models` claim, and /dev/shm is a RAM volume.
"""

from __future__ import annotations

from eks_training.workloads.job_pods import TrainingJob, training_container, training_pod_spec
from eks_training.core.validation import invalid
from eks_training.workloads.k8s_objects import check_dns_subdomain
from eks_training.workloads.labels import common_labels
from eks_training.core.names import MODELS_CLAIM_NAME

COMPONENT = "bionemo"
DEFAULT_MODULE = "bionemo.model.molecule.megamolbart.infer"
DEFAULT_CONFIG_NAME = "megamolbart_inference"
CONFIG_PATH = "/configs"


def bionemo_job(job: TrainingJob, *, config_map_name: str | None = None, config_name: str = DEFAULT_CONFIG_NAME,
                module: str = DEFAULT_MODULE, models_claim_name: str = MODELS_CLAIM_NAME) -> dict:
    """A batch Job that runs BioNeMo `module` on all GPUs of one node, configured from a ConfigMap."""
    job.require_accelerator("bionemo", "nvidia")
    if job.nodes != 1:
        raise invalid("nodes", job.nodes, "1: bionemo runs on exactly 1 node")
    config_map_name = check_dns_subdomain("config_map_name", config_map_name or f"{job.name}-config")
    check_dns_subdomain("models_claim_name", models_claim_name)
    if not isinstance(module, str) or not module.replace(".", "").replace("_", "").isalnum():
        raise invalid("module", module, f"use a Python module path, e.g. {DEFAULT_MODULE!r}")
    if not isinstance(config_name, str) or not config_name.strip() or "/" in config_name:
        raise invalid("config_name", config_name, f"use a config file name, e.g. {DEFAULT_CONFIG_NAME!r}")
    command = ["python", "-m", module, f"--config-path={CONFIG_PATH}", f"--config-name={config_name}"]
    mounts = [{"name": "model-cache", "mountPath": "/models"}, {"name": "fsx", "mountPath": "/data", "subPath": "data"},
              {"name": "configs", "mountPath": CONFIG_PATH}]
    volumes = [{"name": "model-cache", "persistentVolumeClaim": {"claimName": models_claim_name}},
               {"name": "configs", "configMap": {"name": config_map_name}}]
    # One node: GPUs talk over NVLink, not EFA, so the node's EFA interfaces stay free for other pods.
    container = training_container(job, command, name="bionemo", extra_mounts=mounts, with_efa=False)
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": job.name, "namespace": job.namespace, "labels": common_labels(COMPONENT)},
        "spec": {
            "backoffLimit": 2,
            "template": {
                "metadata": {"labels": common_labels(COMPONENT)},
                "spec": training_pod_spec(job, [container], restart_policy="OnFailure", extra_volumes=volumes),
            },
        },
    }
