"""The `data-prep` job kind: tokenize a corpus in the cluster into a dataset the training kinds read.

A batch Job on CPU (no accelerator is wasted on tokenizing) that runs `eks_training.training.data_prep` from the
training image and writes `train/` and `eval/` (token shards + meta.json) to the dataset's folder on FSx, where
`eks-training render ... --dataset NAME` points the trainer's `--data` and `--eval-data`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from eks_training.core.names import FSX_MOUNT_PATH, TRAINING_SERVICE_ACCOUNT, WORKSPACE_DATASET_PREFIX, dataset_paths
from eks_training.core.validation import invalid
from eks_training.workloads.fsx_volumes import fsx_mounts, fsx_pod_volumes
from eks_training.workloads.k8s_objects import check_dns_label, check_dns_subdomain, check_int, check_quantity
from eks_training.workloads.labels import common_labels

DATA_PREP_MODULE = "eks_training.training.data_prep"
COMPONENT = "data-prep"
_SOURCE = re.compile(r"^(s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/\S*)?|/\S+)$")


@dataclass(frozen=True)
class DataPrepJob:
    """Tokenize ``input`` (a folder on FSx or an s3:// prefix) with ``tokenizer`` into the namespace's workspace,
    where jobs read it as dataset ``workspace/<dataset>`` (the shared data path is read-only to pods)."""

    name: str
    namespace: str
    image: str
    input: str
    tokenizer: str
    dataset: str
    workers: int = 4
    memory: str = "8Gi"
    eval_fraction: str = "0.01"

    def __post_init__(self) -> None:
        check_dns_label("name", self.name)
        check_dns_label("namespace", self.namespace)
        check_dns_subdomain("dataset", self.dataset)
        for field in ("input", "tokenizer"):
            value = getattr(self, field)
            if not isinstance(value, str) or not _SOURCE.match(value):
                raise invalid(field, value, f"use s3://bucket/prefix or an absolute path (e.g. under {FSX_MOUNT_PATH})")
        check_int("workers", self.workers, minimum=1, maximum=64)
        check_quantity("memory", self.memory)

    @property
    def dataset_reference(self) -> str:
        """How training jobs name the output (``--dataset``)."""
        return f"{WORKSPACE_DATASET_PREFIX}{self.dataset}"

    @property
    def output(self) -> str:
        train, _ = dataset_paths(self.dataset_reference)
        return train.rsplit("/", 1)[0]

    def command(self) -> list[str]:
        return ["python", "-m", DATA_PREP_MODULE, "--input", self.input, "--tokenizer", self.tokenizer,
                "--output", self.output, "--workers", str(self.workers), "--eval-fraction", self.eval_fraction,
                "--no-progress", "--overwrite"]


def data_prep_job(job: DataPrepJob) -> dict:
    """The batch Job: one pod, ``workers`` CPUs, the FSx claim, the namespace's training identity (reads S3)."""
    labels = {**common_labels(COMPONENT), "eks-training/job": job.name}
    resources = {"cpu": str(job.workers), "memory": job.memory}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": job.name, "namespace": job.namespace, "labels": labels},
        "spec": {
            "backoffLimit": 2,
            "ttlSecondsAfterFinished": 86400,
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "serviceAccountName": TRAINING_SERVICE_ACCOUNT,
                    "restartPolicy": "Never",
                    "containers": [{
                        "name": "data-prep", "image": job.image, "command": job.command(),
                        "resources": {"requests": resources, "limits": dict(resources)},
                        "volumeMounts": fsx_mounts(),
                    }],
                    "volumes": fsx_pod_volumes(),
                },
            },
        },
    }
