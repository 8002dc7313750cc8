"""What a resource holds, and so what its replacement or deletion loses: one entry per resource type.

A type listed here holds something a user would miss (data, running jobs, the cluster, people's access, the network
everything else sits in): replacing or deleting one is destructive. A type not listed (security group rules, IAM
policies, route tables, ...) holds nothing that a re-creation does not restore; its replacement is listed, routine.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Holding:
    #: "data" | "jobs" | "cluster" | "access" | "network"
    kind: str
    #: What is lost with it, as a finding ends: "loses <what>".
    what: str


HOLDINGS: dict[str, Holding] = {
    "AWS::EKS::Cluster": Holding("cluster", "the cluster: every Kubernetes object, node and running job in it"),
    "AWS::EKS::Nodegroup": Holding("jobs", "its nodes, drained and terminated with every pod running on them"),
    "AWS::EKS::Addon": Holding("cluster", "the add-on on every node (vpc-cni: pod networking, coredns: DNS, the CSI "
                                          "drivers: volume mounts)"),
    "AWS::EKS::AccessEntry": Holding("access", "that principal's access to the cluster"),
    "AWS::EKS::PodIdentityAssociation": Holding("access", "the AWS credentials of the pods of that ServiceAccount"),
    "AWS::FSx::FileSystem": Holding("data", "its files (what is not exported to S3 is gone) and its backups"),
    "AWS::FSx::DataRepositoryAssociation": Holding("data", "the link of its file system path to the S3 prefix "
                                                           "(files not yet exported to S3 stop being exported)"),
    "AWS::EFS::FileSystem": Holding("data", "its files"),
    "AWS::S3::Bucket": Holding("data", "its objects"),
    "AWS::EC2::Volume": Holding("data", "the volume's data"),
    "AWS::KMS::Key": Holding("data", "the key: once its deletion waiting period ends, nothing it encrypted can be read"),
    "AWS::Logs::LogGroup": Holding("data", "its log history"),
    "AWS::ECR::Repository": Holding("data", "its images"),
    "AWS::SQS::Queue": Holding("data", "the messages in it"),
    "AWS::EC2::VPC": Holding("network", "the VPC and every address in it: nodes, file systems, endpoints"),
    "AWS::EC2::Subnet": Holding("network", "the subnet: every node, file system and endpoint with an address in it "
                                           "must leave it first"),
}


def holding(type_name: str) -> Holding | None:
    return HOLDINGS.get(type_name)
