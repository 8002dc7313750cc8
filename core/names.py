"""Names the platform gives the things jobs use, in one place: charts, the stack and the job builders agree on them."""

from __future__ import annotations

#: PersistentVolumeClaim of the FSx for Lustre file system in every training namespace (mounted at /shared or /fsx).
FSX_CLAIM_NAME = "fsx-lustre"
#: PersistentVolumeClaim of the EFS model store in every training namespace.
MODELS_CLAIM_NAME = "models"
#: ServiceAccount of training pods in every training namespace (Pod Identity: read data, read/write checkpoints).
TRAINING_SERVICE_ACCOUNT = "training"
#: Where pods mount the FSx claim.
FSX_MOUNT_PATH = "/fsx"

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
