"""An internal Network Load Balancer in front of one Service, made by the AWS cloud provider EKS already runs.

People who are not Kubernetes users (a notebook user, a Slurm user) reach the hub and the Slurm login pods
through it: no kubeconfig, no ``kubectl port-forward``, no access entry.

Why this path and not the AWS Load Balancer Controller: EKS runs the AWS cloud provider's Service controller
(cloud-provider-aws, ``pkg/providers/v1``) in its control plane, and it serves ``type: LoadBalancer`` Services
annotated ``aws-load-balancer-type: nlb``. Nothing to install, so no chart, image or IAM policy that a deploy
would fetch and we could not verify offline. The cost: AWS calls that controller legacy and gives it critical
fixes only; instance targets (the node port) instead of pod addresses. What each setting makes it do (its
``EnsureLoadBalancer``):

* ``aws-load-balancer-type: nlb``: a Network Load Balancer with instance targets (the Service's node port).
* ``aws-load-balancer-internal: "true"``: scheme internal, in the subnets tagged ``kubernetes.io/role/internal-elb``
  (the VPC's private subnets). Without it: internet-facing, in the public subnets.
* ``spec.loadBalancerSourceRanges``: the only client networks it opens, on the target nodes' security group
  for the node port (and on the NLB's own group where it manages one). Without it: 0.0.0.0/0. Always set here.
* ``aws-load-balancer-target-node-labels``: only nodes with these labels are targets, so only their security
  group gets those rules: the nodes the Service's pods run on, never the accelerated or team nodes.
* ``aws-load-balancer-ssl-cert`` + ``-ssl-ports`` + ``-ssl-negotiation-policy``: a TLS listener on the named port
  with the ACM certificate; the load balancer ends TLS and forwards plain TCP inside the VPC.

The Service admission policy (:mod:`eks_training.workloads.service_exposure`) admits a LoadBalancer Service in a
workload namespace only with exactly this shape (:data:`REQUIRED_ANNOTATIONS`, source ranges within the ones named
here), and only the Services the platform names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from eks_training.core.validation import check_certificate_arn, check_client_cidrs, invalid
from eks_training.workloads.k8s_objects import check_dns_label, check_labels

ANNOTATION_PREFIX = "service.beta.kubernetes.io/aws-load-balancer-"
TYPE_ANNOTATION = ANNOTATION_PREFIX + "type"
INTERNAL_ANNOTATION = ANNOTATION_PREFIX + "internal"
TARGET_NODE_LABELS_ANNOTATION = ANNOTATION_PREFIX + "target-node-labels"
CERTIFICATE_ANNOTATION = ANNOTATION_PREFIX + "ssl-cert"
TLS_PORTS_ANNOTATION = ANNOTATION_PREFIX + "ssl-ports"
TLS_POLICY_ANNOTATION = ANNOTATION_PREFIX + "ssl-negotiation-policy"
#: What makes the cloud provider build an internal NLB (and not an internet-facing Classic Load Balancer).
REQUIRED_ANNOTATIONS = {TYPE_ANNOTATION: "nlb", INTERNAL_ANNOTATION: "true"}
#: TLS 1.3 and 1.2 only (an ELBv2 security policy name).
TLS_POLICY = "ELBSecurityPolicy-TLS13-1-2-2021-06"


@dataclass(frozen=True)
class InternalLoadBalancer:
    """An internal NLB for one Service: ``source_ranges`` are the client networks it admits (required: the cloud
    provider would open 0.0.0.0/0); ``target_node_labels`` the nodes it forwards to (those the pods run on);
    ``certificate_arn`` an ACM certificate for a TLS listener on the Service port named ``tls_port`` (None: plain
    TCP, as for SSH, which is encrypted end to end by itself)."""

    source_ranges: tuple[str, ...]
    target_node_labels: Mapping[str, str]
    certificate_arn: str | None = None
    tls_port: str = "https"
    where: str = field(default="load balancer", compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "source_ranges", check_client_cidrs(f"{self.where} source_ranges", self.source_ranges))
        if not check_labels(f"{self.where} target_node_labels", self.target_node_labels):
            raise invalid(f"{self.where} target_node_labels", {}, "the labels of the nodes its pods run on (empty "
                          "would make every node a target and open the node port on all of them)")
        if self.certificate_arn is not None:
            check_certificate_arn(f"{self.where} certificate_arn", self.certificate_arn)
            check_dns_label(f"{self.where} tls_port", self.tls_port)

    def annotations(self) -> dict[str, str]:
        """The Service's annotations (see the module docstring for what each does)."""
        annotations = {**REQUIRED_ANNOTATIONS, TARGET_NODE_LABELS_ANNOTATION: ",".join(
            f"{key}={value}" for key, value in sorted(self.target_node_labels.items()))}
        if self.certificate_arn:
            annotations |= {CERTIFICATE_ANNOTATION: self.certificate_arn, TLS_PORTS_ANNOTATION: self.tls_port,
                            TLS_POLICY_ANNOTATION: TLS_POLICY}
        return annotations


def is_internal_nlb(annotations: Mapping[str, str] | None, source_ranges: object) -> bool:
    """Whether a LoadBalancer Service's annotations and source ranges make an internal NLB limited to networks."""
    annotations = annotations or {}
    return (all(annotations.get(k) == v for k, v in REQUIRED_ANNOTATIONS.items())
            and isinstance(source_ranges, (list, tuple)) and bool(source_ranges))
