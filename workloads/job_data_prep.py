"""The `data-prep` job kind: tokenize a corpus in the cluster into a dataset the training kinds read.

A batch Job on CPU (no accelerator is wasted on tokenizing) that runs `eks_training.training.data_prep` from the
training image and writes `train/` and `eval/` (token shards + meta.json) to the dataset's folder on FSx, where
`eks-training render ... --dataset NAME` points the trainer's `--data` and `--eval-data`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from eks_training.core.names import TRAINING_SERVICE_ACCOUNT, WORKSPACE_DATASET_PREFIX, dataset_paths
from eks_training.core.validation import invalid
from eks_training.workloads.fsx_volumes import fsx_mounts, fsx_pod_volumes
from eks_training.workloads.job_pods import restricted
from eks_training.workloads.k8s_objects import check_dns_label, check_dns_subdomain, check_int, check_quantity
from eks_training.workloads.labels import JOB_LABEL, common_labels

DATA_PREP_MODULE = "eks_training.training.data_prep"
COMPONENT = "data-prep"
_S3_SOURCE = re.compile(r"^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/\S*)?$")
#: The folders the pod mounts: a path anywhere else under /fsx, or outside it, does not exist there.
READABLE_PATHS = tuple(mount["mountPath"] for mount in fsx_mounts())
TXT_DOCUMENTS = ("file", "line")


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
    #: Share of documents held out in eval/ (0: none); at least one is whenever there are two.
    eval_fraction: float = 0.01
    #: What a document is in a .txt file: the whole file, or each non-empty line.
    txt_document: str = "file"

    def __post_init__(self) -> None:
        check_dns_label("name", self.name)
        check_dns_label("namespace", self.namespace)
        check_dns_subdomain("dataset", self.dataset)
        for field in ("input", "tokenizer"):
            value = getattr(self, field)
            if not isinstance(value, str) or not (_S3_SOURCE.match(value) or _readable_in_pod(value)):
                raise invalid(field, value, "use s3://bucket/prefix or a path the pod mounts: under "
                              + " or ".join(f"{path}/" for path in READABLE_PATHS))
        check_int("workers", self.workers, minimum=1, maximum=64)
        check_quantity("memory", self.memory)
        if isinstance(self.eval_fraction, bool) or not isinstance(self.eval_fraction, (int, float)) \
                or not 0 <= self.eval_fraction < 1:
            raise invalid("eval_fraction", self.eval_fraction, "use a number >= 0 and < 1 (0: no eval split)")
        if self.txt_document not in TXT_DOCUMENTS:
            raise invalid("txt_document", self.txt_document, f"use one of {', '.join(TXT_DOCUMENTS)}")

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
                "--output", self.output, "--workers", str(self.workers), "--eval-fraction", f"{self.eval_fraction:g}",
                "--txt-document", self.txt_document, "--no-progress", "--overwrite"]


def _readable_in_pod(path: str) -> bool:
    parts = path.split("/")
    return (".." not in parts and "\\" not in path and not any(c.isspace() for c in path)
            and any(path.startswith(root + "/") and len(path) > len(root) + 1 for root in READABLE_PATHS))


def data_prep_job(job: DataPrepJob) -> dict:
    """The batch Job: one pod, ``workers`` CPUs, the FSx claim, the namespace's training identity (reads S3)."""
    labels = {**common_labels(COMPONENT), JOB_LABEL: job.name}
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
                "spec": restricted({
                    "serviceAccountName": TRAINING_SERVICE_ACCOUNT,
                    "restartPolicy": "Never",
                    "containers": [{
                        "name": "data-prep", "image": job.image, "command": job.command(),
                        "resources": {"requests": resources, "limits": dict(resources)},
                        "volumeMounts": fsx_mounts(),
                    }],
                    "volumes": fsx_pod_volumes(),
                }),
            },
        },
    }
