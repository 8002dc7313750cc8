"""Names the platform gives the things jobs use, in one place: charts, the stack and the job builders agree on them."""

from __future__ import annotations

import hashlib

#: The FSx for Lustre file system's layout. Each directory is one data repository association:
#: FSX_DATA_DIR imports the whole data bucket (shared datasets, read-only to every pod), FSX_WORKSPACES_DIR is
#: linked both ways to the checkpoint bucket, and namespace <ns> owns FSX_WORKSPACES_DIR/<ns> ==
#: s3://<checkpoint bucket>/<ns>/, the same prefix its IAM role is confined to.
FSX_DATA_DIR = "/data"
FSX_WORKSPACES_DIR = "/workspaces"
#: Sub-directories every namespace workspace gets (created before any pod mounts it: a Lustre sub-directory mount
#: of a missing directory fails).
WORKSPACE_SUBDIRS = ("checkpoints", "datasets", "logs", "ray-results")

#: PersistentVolumeClaims in every training namespace, each bound to a PersistentVolume that mounts only a
#: sub-directory of the file system (no pod ever mounts its root): the shared data, read-only, and the namespace's
#: own workspace, read-write.
FSX_DATA_CLAIM_NAME = "fsx-data"
FSX_WORKSPACE_CLAIM_NAME = "fsx-workspace"
#: PersistentVolumeClaim of the EFS model store in every training namespace.
MODELS_CLAIM_NAME = "models"
#: ServiceAccount of training pods in every training namespace (Pod Identity: read data, read/write checkpoints).
#: It mounts no Kubernetes API token: nothing that runs as it calls the API.
TRAINING_SERVICE_ACCOUNT = "training"
#: ServiceAccount of Ray heads and workers in every training namespace: the same AWS identity as `training`, and the
#: account KubeRay binds its in-tree autoscaler's Role to (pods, RayCluster patch). A separate account keeps those
#: rights away from every other pod of the namespace.
RAY_SERVICE_ACCOUNT = "ray"
#: ServiceAccount of MPIJob launchers in every training namespace (read-only on its pods); the MPI Operator
#: support chart creates it, the MPIJob builders name it.
MPI_LAUNCHER_SERVICE_ACCOUNT = "mpi-launcher"
#: Where every pod (jobs, notebooks, Ray, Slurm) sees FSx: DATA_PATH and WORKSPACE_PATH below it.
FSX_MOUNT_PATH = "/fsx"
#: Shared datasets (read-only): a dataset prepared with `eks-training data prepare --output s3://<data bucket>/<name>`
#: lands at DATA_PATH/<name>/{train,eval}.
DATA_PATH = f"{FSX_MOUNT_PATH}/data"
#: The pod's namespace workspace (read-write): FSX_WORKSPACES_DIR/<namespace> on the file system.
WORKSPACE_PATH = f"{FSX_MOUNT_PATH}/workspace"
#: Checkpoints, <job>/step-N, exported to s3://<checkpoint bucket>/<namespace>/checkpoints/<job>/step-N.
CHECKPOINTS_PATH = f"{WORKSPACE_PATH}/checkpoints"
#: Datasets the namespace prepared in the cluster (the data-prep job kind); jobs name them "workspace/<name>".
WORKSPACE_DATASETS_PATH = f"{WORKSPACE_PATH}/datasets"
WORKSPACE_DATASET_PREFIX = "workspace/"
#: Slurm batch logs and Ray Train results of the namespace.
LOGS_PATH = f"{WORKSPACE_PATH}/logs"
RAY_RESULTS_PATH = f"{WORKSPACE_PATH}/ray-results"
#: Jobs' stop folders (training/ray_stop.py's marks): an MPIJob's launcher, stopped itself, asks its trainers there to
#: save (created on first use; its own folder so that no job name meets another job's checkpoint folder).
STOP_REQUESTS_PATH = f"{WORKSPACE_PATH}/stop-requests"
#: Set to "1" in the pods of a GPU job that requests EFA interfaces: the trainer then refuses to train unless NCCL
#: uses the EFA plugin (training.fabric), which it reads from NCCL's debug file.
REQUIRE_EFA_ENV = "EKS_TRAINING_REQUIRE_EFA"
#: NCCL's variable naming the file its debug log goes to, and the file such a pod's processes write (NCCL expands
#: %h to the host name and %p to the process id: one file per process).
NCCL_DEBUG_FILE_ENV = "NCCL_DEBUG_FILE"
NCCL_DEBUG_FILE_PATTERN = "/tmp/nccl-%h-%p.log"
#: The tag a node group launched into a capacity reservation or Capacity Block puts on its instances (the
#: reservation's id): what the reservation-end drain finds them by. Karpenter labels its nodes with the same id itself
#: (KARPENTER_RESERVATION_LABEL).
RESERVATION_TAG = "eks-training/capacity-reservation-id"
KARPENTER_RESERVATION_LABEL = "karpenter.k8s.aws/capacity-reservation-id"


def workspace_dir(namespace: str) -> str:
    """The namespace's workspace directory on the file system (what its workspace volume mounts)."""
    return f"{FSX_WORKSPACES_DIR}/{namespace}"


def dataset_paths(dataset: str) -> tuple[str, str]:
    """(train, eval) folders of a prepared dataset as pods see them: "<name>" is a shared dataset under DATA_PATH,
    "workspace/<name>" one the namespace prepared in the cluster."""
    if dataset.startswith(WORKSPACE_DATASET_PREFIX):
        root = f"{WORKSPACE_DATASETS_PATH}/{dataset[len(WORKSPACE_DATASET_PREFIX):]}"
    else:
        root = f"{DATA_PATH}/{dataset}"
    return f"{root}/train", f"{root}/eval"


def checkpoint_path(job: str) -> str:
    """A job's checkpoint folder in its namespace's workspace (two teams' jobs of one name never share it)."""
    return f"{CHECKPOINTS_PATH}/{job}"


def stop_request_path(job: str) -> str:
    """The folder where a job's launcher asks its trainers to save and stop (one per job of the namespace)."""
    return f"{STOP_REQUESTS_PATH}/{job}"


def checkpoint_key_prefix(namespace: str, job: str) -> str:
    """Where the checkpoint bucket holds a job's checkpoints: the workspace export of checkpoint_path(job)."""
    return f"{namespace}/checkpoints/{job}"

#: Namespace of the Slurm cluster (Slinky objects, login and worker pods).
SLURM_NAMESPACE = "slurm"

#: Every namespace the platform, Kubernetes or EKS owns, and whose it is. None may be a training namespace: the
#: platform would write a second Namespace object over it (other labels, another Pod Security level), a
#: default-deny policy that cuts its webhooks, and an S3 role into an operator's namespace. A test holds this to
#: every namespace a pin, an add-on or a chart of ours names.
PLATFORM_NAMESPACES: dict[str, str] = {
    "default": "Kubernetes",
    "kube-system": "Kubernetes (and Karpenter, the EFA and Neuron device plugins)",
    "kube-public": "Kubernetes",
    "kube-node-lease": "Kubernetes",
    "amazon-cloudwatch": "the CloudWatch Observability EKS add-on",
    "volcano-system": "Volcano",
    "kuberay-system": "the KubeRay operator",
    "mpi-operator": "the MPI Operator",
    "mpi-operator-install": "the MPI Operator's installer",
    "cert-manager": "cert-manager",
    "slinky": "the Slinky (Slurm) operator",
    SLURM_NAMESPACE: "the Slurm cluster",
    "jupyterhub": "JupyterHub",
    "nvidia-device-plugin": "the NVIDIA device plugin",
    "neuron-healthcheck-system": "the Neuron node problem detector",
    "kueue-system": "Kueue",
    "jobset-system": "JobSet",
    "kubeflow-system": "Kubeflow Trainer",
    "argocd": "Argo CD (the GitOps Applications)",
}

#: Prefix of the Pod Security Admission namespace labels (``<prefix>/enforce``, ``/warn``, ``/audit``).
POD_SECURITY_LABEL = "pod-security.kubernetes.io"

#: The system node group's label: every controller, webhook and operator selects it (never taints alone).
LABEL_ROLE = "eks-training/role"
SYSTEM_NODE_SELECTOR = {LABEL_ROLE: "system"}
#: The system nodes' taint: only the platform's own pods tolerate it, so no team's code (a data-prep job, an MPI
#: launcher, a Ray head, a Slurm login pod) runs beside Karpenter, the operators and the hub, on nodes exempt from
#: Lustre root squash. The key EKS's own add-ons (CoreDNS, the CSI controllers) and Karpenter's chart already
#: tolerate, and what EKS Auto Mode's system pool carries.
SYSTEM_NODE_TAINT = {"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"}
#: What every platform pod tolerates to run on the system nodes (any value, any effect of the key, as EKS writes it).
SYSTEM_NODE_TOLERATIONS = ({"key": SYSTEM_NODE_TAINT["key"], "operator": "Exists"},)
#: The team CPU nodes' label: pods of the teams that need no accelerator (data preparation, MPI launchers, Ray heads,
#: Slurm login pods) land there, in the training subnet, whose clients Lustre squashes.
TEAM_NODE_SELECTOR = {LABEL_ROLE: "team"}
#: The Kueue ResourceFlavor of the team CPU nodes (what a queue's CPU quota names).
CPU_FLAVOR = "cpu"


def system_placement(node_selector=None) -> dict:
    """``nodeSelector`` and ``tolerations`` of a platform pod on the system nodes (what most charts take as values)."""
    return {"nodeSelector": dict(SYSTEM_NODE_SELECTOR if node_selector is None else node_selector),
            "tolerations": [dict(t) for t in SYSTEM_NODE_TOLERATIONS]}

#: Node labels every accelerated node carries, from node groups and Karpenter pools alike.
LABEL_ACCELERATOR = "eks-training/accelerator"
LABEL_FAMILY = "eks-training/instance-family"
LABEL_EFA = "eks-training/efa"
LABEL_POOL = "eks-training/pool"
LABEL_INSTANCE_TYPE = "node.kubernetes.io/instance-type"
#: Taint of the Slurm partitions' own nodes (value: the partition): only its slurmd pods (and node agents) tolerate
#: it, so no other workload shares a node with a privileged slurmd.
SLURM_PARTITION_TAINT = "slurm.schedmd.com/partition"
#: The tag of the Slurm partitions' own EFA security group (its value: the cluster name).
SLURM_EFA_GROUP_TAG = "eks-training/slurm-efa"


def node_group_name(name: str, instance_type: str, capacity_type: str) -> str:
    """The EKS name of a managed node group: its config ``name`` and a short digest of what EKS cannot change in place.

    EKS replaces a node group whose instance types or capacity type change (they are create-only), and CloudFormation
    creates the replacement before it deletes the old group: under one fixed name the two would collide and the
    deploy fail. With the digest the replacement has a name of its own; any other change keeps the name.
    """
    digest = hashlib.sha256(f"{instance_type}/{capacity_type}".encode()).hexdigest()[:8]
    return f"{name}-{digest}"


def slurm_pool_name(partition: str) -> str:
    """The Karpenter pool (and its ``eks-training/pool`` node label) that serves one Slurm partition."""
    return f"slurm-{partition}"


#: Subnet tag of the EFA-ready training subnet (the network sets it, Karpenter's EFA pools select on it).
EFA_SUBNET_TAG = ("eks-training/efa", "true")

#: The ServiceAccount Karpenter's controller runs as (its Pod Identity association names it; the deploy check finds
#: the controller's role through that association).
KARPENTER_SERVICE_ACCOUNT = "karpenter"
