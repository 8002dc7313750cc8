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

Written as plain objects (``k8s_objects.emit``): cdk8s-plus-28 has no class for them, and the generated
``cdk8s`` imports stop at Kubernetes 1.28, where the API was still ``v1beta1``.
"""

from __future__ import annotations

from collections.abc import Sequence

import cdk8s
import constructs

from eks_training.core.validation import invalid
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
           "cluster (use kubectl port-forward, or ask an admin for an internal load balancer)")
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


def service_exposure_objects(namespaces: Sequence[str]) -> list[dict]:
    """The policy and its Deny binding for Services of ``namespaces``."""
    if isinstance(namespaces, (str, bytes)) or not namespaces:
        raise invalid("namespaces", namespaces, "a non-empty list of the workload namespaces")
    names = [check_dns_label("namespaces", n) for n in namespaces]
    check_unique("namespaces", names)
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
                            for expression, message in VALIDATIONS],
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

    def __init__(self, scope: constructs.Construct, id: str, *, namespaces: Sequence[str]) -> None:
        super().__init__(scope, id)
        for obj in service_exposure_objects(namespaces):
            emit(self, obj)

    @property
    def api_objects(self) -> list[cdk8s.ApiObject]:
        return api_objects_of(self)
