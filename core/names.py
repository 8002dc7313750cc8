"""Names the platform gives the things jobs use, in one place: charts, the stack and the job builders agree on them."""

from __future__ import annotations

#: PersistentVolumeClaim of the FSx for Lustre file system in every training namespace (mounted at /shared or /fsx).
FSX_CLAIM_NAME = "fsx-lustre"
#: PersistentVolumeClaim of the EFS model store in every training namespace.
MODELS_CLAIM_NAME = "models"
#: ServiceAccount of training pods in every training namespace (Pod Identity: read data, read/write checkpoints).
TRAINING_SERVICE_ACCOUNT = "training"
#: ServiceAccount of MPIJob launchers in every training namespace (read-only on its pods); the MPI Operator
#: support chart creates it, the MPIJob builders name it.
MPI_LAUNCHER_SERVICE_ACCOUNT = "mpi-launcher"
#: Where every pod (jobs, notebooks, Ray, Slurm) mounts the FSx claim.
FSX_MOUNT_PATH = "/fsx"
#: Datasets on FSx: the data bucket's objects, imported by the `/data` data repository association. A dataset
#: prepared with `eks-training data prepare --output s3://<data bucket>/<name>` lands at DATA_PATH/<name>/{train,eval}.
DATA_PATH = f"{FSX_MOUNT_PATH}/data"
#: Checkpoints on FSx, exported to the checkpoint bucket by the `/checkpoints` association: <namespace>/<job>/step-N.
CHECKPOINTS_PATH = f"{FSX_MOUNT_PATH}/checkpoints"


def dataset_paths(dataset: str) -> tuple[str, str]:
    """(train, eval) folders of a prepared dataset as pods see them."""
    return f"{DATA_PATH}/{dataset}/train", f"{DATA_PATH}/{dataset}/eval"


def checkpoint_path(namespace: str, job: str) -> str:
    """A job's checkpoint folder: per namespace, so two teams' jobs of one name never share it."""
    return f"{CHECKPOINTS_PATH}/{namespace}/{job}"

#: Namespace of the Slurm cluster (Slinky objects, login and worker pods).
SLURM_NAMESPACE = "slurm"

#: The system node group's label: every controller, webhook and operator selects it (never taints alone).
LABEL_ROLE = "eks-training/role"
SYSTEM_NODE_SELECTOR = {LABEL_ROLE: "system"}

#: Node labels every accelerated node carries, from node groups and Karpenter pools alike.
LABEL_ACCELERATOR = "eks-training/accelerator"
LABEL_FAMILY = "eks-training/instance-family"
LABEL_EFA = "eks-training/efa"
LABEL_POOL = "eks-training/pool"
LABEL_INSTANCE_TYPE = "node.kubernetes.io/instance-type"
#: Subnet tag of the EFA-ready training subnet (the network sets it, Karpenter's EFA pools select on it).
EFA_SUBNET_TAG = ("eks-training/efa", "true")
