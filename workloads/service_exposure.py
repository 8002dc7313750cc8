"""No Service in a workload namespace is reachable from outside the cluster: a ValidatingAdmissionPolicy refuses
``LoadBalancer`` and ``NodePort`` Services there, and ``externalIPs`` and ``ExternalName`` Services (:data:`VALIDATIONS`).

Why: the public subnets carry ``kubernetes.io/role/elb``, so a ``LoadBalancer`` Service (a RayCluster with
``serviceType: LoadBalancer``, a notebook's proxy, a login Service) gets an internet-facing load balancer, and a
``NodePort`` opens a port on every node. The Ray dashboard runs any job it is sent and has no authentication; the
namespace's NetworkPolicies stop pods, not a load balancer's health-checked traffic arriving on a node port.

ValidatingAdmissionPolicy (``admissionregistration.k8s.io/v1``, GA in Kubernetes 1.30) is built into the API
server: no webhook, no component to run or keep available. The policy holds three CEL rules; the binding applies them,
in Deny mode, to Services of the namespaces named here (matched by ``kubernetes.io/metadata.name``, which the API
server sets and nobody can change). Cluster admins can still expose something on purpose: in a namespace of their
own, or by editing the binding.

The platform's own doors, an internal NLB in front of the JupyterHub proxy and of the Slurm login pods
(:mod:`eks_training.workloads.internal_load_balancer`), are let through by name (:class:`ExposedService`): that
namespace and Service name only, type LoadBalancer with the internal NLB annotations, no ``loadBalancerClass`` nor
``externalIPs``, and
source ranges that are a non-empty subset of the ones named. Any other LoadBalancer, a NodePort, or one of these
Services made internet-facing or opened to other networks is refused.

Written as plain objects (``k8s_objects.emit``): cdk8s-plus-28 has no class for them, and the generated
``cdk8s`` imports stop at Kubernetes 1.28, where the API was still ``v1beta1``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cdk8s
import constructs

from eks_training.core.validation import check_client_cidrs, invalid
from eks_training.workloads.internal_load_balancer import REQUIRED_ANNOTATIONS
from eks_training.workloads.k8s_objects import check_dns_label, check_unique, emit
from eks_training.workloads.labels import common_labels
from eks_training.workloads.namespaces import api_objects_of

COMPONENT = "service-exposure"
POLICY_NAME = "eks-training-no-external-services"
API_VERSION = "admissionregistration.k8s.io/v1"
#: Service types that reach past the cluster network: a cloud load balancer, or a port on every node.
REFUSED_TYPES = ("LoadBalancer", "NodePort")
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
#: True when the Service may stay. spec.type is defaulted (ClusterIP) before validation; has() covers a request
#: that reaches the policy without it. (Written so that it does not start with "!": YAML readers of the manifests,
#: checkov's among them, take a leading "!" for a tag.)
EXPRESSION = ("has(object.spec.type) ? !(object.spec.type in [" + ", ".join(f"'{t}'" for t in REFUSED_TYPES)
              + "]) : true")
MESSAGE = ("Services in this namespace must be ClusterIP: LoadBalancer and NodePort would expose them outside the "
           "cluster (use kubectl port-forward; the platform's own internal load balancers are the only exceptions)")
#: externalIPs: kube-proxy on every node then forwards traffic for those addresses to the Service's pods, whatever the
#: type, and claims them for the whole cluster (CVE-2020-8554: anyone who may create a Service intercepts traffic
#: to any address). ExternalName: a cluster DNS name that points anywhere, which proxies and ingresses follow on the
#: creator's behalf (CVE-2021-25740); a pod that needs an outside name resolves it itself.
EXTERNAL_IPS_EXPRESSION = "has(object.spec.externalIPs) ? size(object.spec.externalIPs) == 0 : true"
EXTERNAL_IPS_MESSAGE = ("Services in this namespace may not set externalIPs: kube-proxy would take those addresses "
                        "over for every node of the cluster")
EXTERNAL_NAME_EXPRESSION = "has(object.spec.type) ? object.spec.type != 'ExternalName' : true"
EXTERNAL_NAME_MESSAGE = ("Services in this namespace may not be ExternalName: a cluster DNS name that points outside "
                         "the cluster (resolve the outside name in the pod instead)")
#: Every rule the policy holds, each with its own message: a Service is admitted when all hold.
VALIDATIONS = ((EXPRESSION, MESSAGE), (EXTERNAL_IPS_EXPRESSION, EXTERNAL_IPS_MESSAGE),
               (EXTERNAL_NAME_EXPRESSION, EXTERNAL_NAME_MESSAGE))


@dataclass(frozen=True)
class ExposedService:
    """A Service the platform puts behind an internal NLB: ``namespace``/``name``, admitting only clients of
    ``source_ranges``."""

    namespace: str
    name: str
    source_ranges: tuple[str, ...]

    def __post_init__(self) -> None:
        check_dns_label("exposed service namespace", self.namespace)
        check_dns_label("exposed service name", self.name)
        object.__setattr__(self, "source_ranges", check_client_cidrs(
            f"exposed service {self.namespace}/{self.name} source_ranges", self.source_ranges))


def _cel_list(items: Sequence[str]) -> str:
    return "[" + ", ".join(f"'{item}'" for item in items) + "]"


def _internal_nlb_of(service: ExposedService) -> str:
    """True for exactly ``service`` as an internal NLB limited to (a subset of) its source ranges."""
    annotations = " && ".join(f"'{key}' in object.metadata.annotations && object.metadata.annotations['{key}'] == "
                              f"'{value}'" for key, value in sorted(REQUIRED_ANNOTATIONS.items()))
    return (f"(request.namespace == '{service.namespace}' && object.metadata.name == '{service.name}'"
            " && has(object.spec.type) && object.spec.type == 'LoadBalancer' && !has(object.spec.loadBalancerClass)"
            " && !has(object.spec.externalIPs)"
            f" && has(object.metadata.annotations) && {annotations}"
            " && has(object.spec.loadBalancerSourceRanges) && size(object.spec.loadBalancerSourceRanges) > 0"
            f" && object.spec.loadBalancerSourceRanges.all(r, r in {_cel_list(service.source_ranges)}))")


def exposure_expression(exposed: Sequence[ExposedService] = ()) -> str:
    """The policy's rule: :data:`EXPRESSION`, or one of the ``exposed`` Services in its one allowed shape."""
    return " || ".join([f"({EXPRESSION})", *(_internal_nlb_of(s) for s in exposed)]) if exposed else EXPRESSION


def _validations(exposed: Sequence[ExposedService]) -> tuple[tuple[str, str], ...]:
    """:data:`VALIDATIONS`, the type rule widened to the ``exposed`` internal NLBs."""
    return ((exposure_expression(exposed), MESSAGE), *VALIDATIONS[1:])


def service_exposure_objects(namespaces: Sequence[str], exposed: Sequence[ExposedService] = ()) -> list[dict]:
    """The policy and its Deny binding for Services of ``namespaces``; ``exposed``: the internal NLBs allowed."""
    if isinstance(namespaces, (str, bytes)) or not namespaces:
        raise invalid("namespaces", namespaces, "a non-empty list of the workload namespaces")
    names = [check_dns_label("namespaces", n) for n in namespaces]
    check_unique("namespaces", names)
    exposed = list(exposed)
    if not all(isinstance(s, ExposedService) for s in exposed):
        raise invalid("exposed", exposed, "use a list of ExposedService")
    check_unique("exposed services", [f"{s.namespace}/{s.name}" for s in exposed])
    for service in exposed:
        if service.namespace not in names:
            raise invalid("exposed service namespace", service.namespace, f"one of the workload namespaces {names}")
    labels = common_labels(COMPONENT)
    policy = {
        "apiVersion": API_VERSION, "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": POLICY_NAME, "labels": labels},
        "spec": {
            # An error evaluating the rule refuses the Service rather than letting it through.
            "failurePolicy": "Fail",
            "matchConstraints": {"resourceRules": [{
                "apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
                "resources": ["services"]}]},
            "validations": [{"expression": expression, "message": message, "reason": "Forbidden"}
                            for expression, message in _validations(exposed)],
        },
    }
    binding = {
        "apiVersion": API_VERSION, "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": POLICY_NAME, "labels": labels},
        "spec": {
            "policyName": POLICY_NAME, "validationActions": ["Deny"],
            "matchResources": {"namespaceSelector": {"matchExpressions": [
                {"key": NAMESPACE_NAME_LABEL, "operator": "In", "values": names}]}},
        },
    }
    return [policy, binding]


class ServiceExposureChart(cdk8s.Chart):
    """The ValidatingAdmissionPolicy that keeps ``namespaces``' Services ClusterIP (see the module docstring)."""

    def __init__(self, scope: constructs.Construct, id: str, *, namespaces: Sequence[str],
                 exposed: Sequence[ExposedService] = ()) -> None:
        super().__init__(scope, id)
        for obj in service_exposure_objects(namespaces, exposed):
            emit(self, obj)

    @property
    def api_objects(self) -> list[cdk8s.ApiObject]:
        return api_objects_of(self)
