"""The lifecycle stage of `eks-training check`: what exists at the moment CloudFormation creates, deletes or updates
each resource.

CloudFormation creates a resource once everything it names (DependsOn, Ref, GetAtt, ``${...}`` in Fn::Sub) exists,
and deletes it only after everything that names it is gone; resources with no path between them go in parallel.
The stage walks that graph (:meth:`.snapshot.PlatformSnapshot.direct_dependencies`) and checks, from what the check
already read (rendered charts, our manifests, node sources, IAM), what must exist at each step:

Creation
  * nodes have pod networking when they join: their role carries ``AmazonEKS_CNI_Policy``, or the ``vpc-cni``
    add-on with its own identity (and, for Pod Identity, the agent add-on) is created before them;
  * a Helm release installed with ``wait`` waits only for pods whose namespace, ServiceAccount, Secrets, ConfigMaps
    and claims exist by then: rendered by the chart, made by a controller from an object the chart renders (a
    cert-manager Certificate's Secret, a pre-install hook Job's Secret), or applied by a resource it depends on;
    and no such pod pulls an image the deploy builds (several GB) inside that wait;
  * every object's namespace exists; the CRD of every custom object, and the webhooks that admit it, are ready
    before it; a static volume's directory exists (its data repository association is made first);
  * a Job a manifest applies is waited for (the manifest returns as soon as it is applied), so its failure fails
    the deploy, and what depends on the manifest waits for the Job too;
  * a principal outside the stack has an access entry: otherwise no person can use the cluster.

Deletion (the reverse order)
  * NodePools and NodeClaims, and the workloads that make Karpenter create nodes, go while Karpenter still has its
    release, its IAM policy and Pod Identity, its nodes' access entry, DNS (coredns) and pod networking (vpc-cni);
  * claims go before their CSI drivers and file systems;
  * a bucket CloudFormation deletes is emptied first (it deletes only empty buckets);
  * nothing retained keeps network interfaces in a subnet or security group the stack deletes (or the VPC stays).

Update
  * no node group forces a node out through a PodDisruptionBudget (``ForceUpdateEnabled``). That is all it protects:
    a change of Kubernetes version, AMI release or launch template still replaces every node of the group and evicts
    the pods no budget holds (running training pods among them); where a budget holds, the update fails after EKS's
    15 minutes. The stage notes the accelerated groups such a change would roll;
  * a node group whose size moves outside CloudFormation writes no ``DesiredSize``, which the next deploy that
    touches its scaling would reset.

Each finding names the resource, the step (``create, step 7 of 16``: the resource's place in CloudFormation's
order, steps running in parallel) and what is missing.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from eks_training.core.catalog import node_capacity
from eks_training.infra.tools.check.placement import Placement
from eks_training.infra.tools.check.snapshot import (KUBERNETES_RESOURCE, OBJECT_VALUE, PlatformSnapshot, Release,
                                                     awaited_job, references, text)

_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
AUTO_DELETE_OBJECTS = "Custom::S3AutoDeleteObjects"
CNI_POLICY = "AmazonEKS_CNI_Policy"
#: Helm's --timeout when the release sets none (the wait fails after it).
HELM_DEFAULT_TIMEOUT = "5m"
RETAINED = ("Retain", "RetainExceptOnCreate")
#: What each CSI provisioner's EKS add-on is called.
CSI_ADDONS = {"ebs.csi.aws.com": "aws-ebs-csi-driver", "efs.csi.aws.com": "aws-efs-csi-driver",
              "fsx.csi.aws.com": "aws-fsx-csi-driver"}
#: The namespaces every cluster has, and the (kind, name) objects Kubernetes makes in every namespace.
_BUILT_IN = {("namespace", None, n) for n in ("default", "kube-system", "kube-public", "kube-node-lease")}
_EVERY_NAMESPACE = (("serviceaccount", "default"), ("configmap", "kube-root-ca.crt"))
#: The options by which a chart's certificate-generating hook Job names the Secret it writes.
_SECRET_OPTIONS = ("--secret", "--secret-name")
#: API groups the API server serves itself (no CRD needed).
_BUILT_IN_GROUPS = {"", "apps", "batch", "policy", "autoscaling", "rbac.authorization.k8s.io", "networking.k8s.io",
                    "storage.k8s.io", "scheduling.k8s.io", "admissionregistration.k8s.io", "apiextensions.k8s.io",
                    "coordination.k8s.io", "discovery.k8s.io", "node.k8s.io", "certificates.k8s.io",
                    "flowcontrol.apiserver.k8s.io", "resource.k8s.io", "apiregistration.k8s.io"}
_CLUSTER_SCOPED = {"namespace", "node", "persistentvolume", "storageclass", "csidriver", "csinode", "clusterrole",
                   "clusterrolebinding", "customresourcedefinition", "mutatingwebhookconfiguration",
                   "validatingwebhookconfiguration", "validatingadmissionpolicy", "validatingadmissionpolicybinding",
                   "priorityclass", "runtimeclass", "ingressclass", "apiservice", "volumeattachment",
                   "certificatesigningrequest", "deviceclass"}
#: What Helm's --wait waits for: these kinds' pods (hook Jobs are waited for as hooks).
_WAITED_KINDS = ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Pod")
#: Types that hold network interfaces in the subnets and security groups they name.
_ENI_HOLDERS = ("AWS::FSx::FileSystem", "AWS::EFS::MountTarget", "AWS::EC2::Instance", "AWS::EC2::NetworkInterface",
                "AWS::EC2::VPCEndpoint", "AWS::RDS::DBInstance", "AWS::ElasticLoadBalancingV2::LoadBalancer")
#: A CDK Docker image asset: pushed to ECR by the deploy, tagged with its 64-hex source hash.
_BUILT_IMAGE = re.compile(r"\.dkr\.ecr\..*:[0-9a-f]{64}$")


@dataclass(frozen=True)
class LifecycleFinding:
    """What is missing (``message``) when CloudFormation reaches ``subject`` at ``step``."""

    subject: str
    step: str
    message: str


@dataclass
class LifecycleResult:
    findings: list[LifecycleFinding] = field(default_factory=list)
    #: What the stage could not see (shown under "Not checked:").
    notes: list[str] = field(default_factory=list)


def check_lifecycle(snap: PlatformSnapshot, rendered: Mapping[str, list[dict]], *,
                    placements: Sequence[Placement] = (), job_outputs: Mapping[tuple[str, str], list[dict]] | None = None,
                    chart_dirs: Mapping[str, Path] | None = None) -> LifecycleResult:
    """Walk ``snap``'s creation order, then its deletion order, then its update path.

    ``rendered``: release name -> the objects its chart renders (releases missing here are modelled or noted);
    ``placements``: the deploy check's pod placements (which workloads make Karpenter create nodes);
    ``job_outputs``: (namespace, Job name) -> the objects that Job applies (the MPI Operator's release manifest);
    ``chart_dirs``: release name -> its chart folder, whose ``crds/`` Helm installs before the templates.
    """
    stage = _Lifecycle(snap, rendered, placements, job_outputs or {}, chart_dirs or {})
    for rule in (stage.pod_networking, stage.helm_waits, stage.namespaces, stage.custom_resources, stage.webhooks,
                 stage.static_volumes, stage.one_shot_jobs, stage.access, stage.karpenter_teardown,
                 stage.claims_before_drivers, stage.buckets_emptied, stage.retained_network, stage.node_group_updates):
        rule()
    return stage.result


# --- Kubernetes objects -----------------------------------------------------------------------------------------


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def _group(obj: Mapping[str, Any]) -> str:
    api = str(obj.get("apiVersion") or "")
    return api.split("/", 1)[0] if "/" in api else ""


def _plural(kind: str) -> str:
    lower = kind.lower()
    if lower.endswith("y") and lower[-2:-1] not in "aeiou":
        return lower[:-1] + "ies"
    return lower + ("es" if lower.endswith(("s", "x", "ch")) else "s")


def _pod_specs(obj: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    kind, spec = obj.get("kind"), obj.get("spec") or {}
    if kind == "Pod":
        yield spec
    elif kind in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"):
        yield ((spec.get("template") or {}).get("spec")) or {}


def _hook(obj: Mapping[str, Any]) -> str:
    return (_meta(obj).get("annotations") or {}).get("helm.sh/hook", "")


@dataclass(frozen=True)
class _Need:
    kind: str
    name: str
    why: str


def _pod_needs(spec: Mapping[str, Any]) -> Iterator[_Need]:
    """What must exist in the pod's namespace before its containers start (optional references excluded)."""
    account = spec.get("serviceAccountName") or spec.get("serviceAccount") or "default"
    yield _Need("ServiceAccount", account, "serviceAccountName")
    containers = [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]
    for container in containers:
        for env in container.get("env") or []:
            source = env.get("valueFrom") or {}
            for key, kind in (("secretKeyRef", "Secret"), ("configMapKeyRef", "ConfigMap")):
                ref = source.get(key)
                if ref and not ref.get("optional"):
                    yield _Need(kind, ref.get("name"), f"env {env.get('name')} of container {container.get('name')}")
        for env_from in container.get("envFrom") or []:
            for key, kind in (("secretRef", "Secret"), ("configMapRef", "ConfigMap")):
                ref = env_from.get(key)
                if ref and not ref.get("optional"):
                    yield _Need(kind, ref.get("name"), f"envFrom of container {container.get('name')}")
    for volume in spec.get("volumes") or []:
        sources = [volume, *((volume.get("projected") or {}).get("sources") or [])]
        for source in sources:
            secret, config_map = source.get("secret"), source.get("configMap")
            if secret and not secret.get("optional"):
                yield _Need("Secret", secret.get("secretName") or secret.get("name"), f"volume {volume.get('name')}")
            if config_map and not config_map.get("optional"):
                yield _Need("ConfigMap", config_map.get("name"), f"volume {volume.get('name')}")
        claim = volume.get("persistentVolumeClaim")
        if claim:
            yield _Need("PersistentVolumeClaim", claim.get("claimName"), f"volume {volume.get('name')}")


def _selector_matches(selector: Mapping[str, Any] | None, labels: Mapping[str, str]) -> bool:
    """A label selector against the labels we know (an expression on a label we cannot see counts as matching)."""
    if not selector:
        return True
    if any(labels.get(k) != v for k, v in (selector.get("matchLabels") or {}).items() if k in labels):
        return False
    for expression in selector.get("matchExpressions") or []:
        key, operator, values = expression.get("key"), expression.get("operator"), expression.get("values") or []
        if key not in labels:
            continue
        if (operator == "In" and labels[key] not in values) or (operator == "NotIn" and labels[key] in values) \
                or operator == "DoesNotExist":
            return False
    return True


# --- the stage --------------------------------------------------------------------------------------------------


class _Lifecycle:
    def __init__(self, snap: PlatformSnapshot, rendered: Mapping[str, list[dict]], placements: Sequence[Placement],
                 job_outputs: Mapping[tuple[str, str], list[dict]], chart_dirs: Mapping[str, Path]) -> None:
        self.snap, self.rendered, self.placements = snap, rendered, placements
        self.job_outputs, self.chart_dirs = job_outputs, chart_dirs
        self.result = LifecycleResult()
        self.resources = snap.resources
        self.direct = {lid: snap.direct_dependencies(lid) for lid in self.resources}
        self._closure: dict[str, set[str]] = {}
        self.releases = {r.logical_id: r for r in snap.releases}

    # graph ----------------------------------------------------------------------------------------------------

    def deps(self, lid: str) -> set[str]:
        """Everything ``lid`` waits for on create (and outlives it on delete)."""
        if lid not in self._closure:
            self._closure[lid] = self.snap.dependencies(lid)
        return self._closure[lid]

    def after(self, later: str, earlier: str) -> bool:
        return earlier in self.deps(later)

    @cached_property
    def create_steps(self) -> dict[str, int]:
        steps: dict[str, int] = {}

        def step(lid: str) -> int:
            if lid not in steps:
                steps[lid] = 0  # a cycle (CloudFormation refuses those) cannot recurse forever
                steps[lid] = 1 + max((step(d) for d in self.direct[lid]), default=0)
            return steps[lid]

        for lid in self.resources:
            step(lid)
        return steps

    @cached_property
    def delete_steps(self) -> dict[str, int]:
        dependents: dict[str, set[str]] = {lid: set() for lid in self.resources}
        for lid, deps in self.direct.items():
            for dep in deps:
                dependents[dep].add(lid)
        steps: dict[str, int] = {}

        def step(lid: str) -> int:
            if lid not in steps:
                steps[lid] = 0
                steps[lid] = 1 + max((step(d) for d in dependents[lid]), default=0)
            return steps[lid]

        for lid in self.resources:
            step(lid)
        return steps

    def create(self, lid: str) -> str:
        if lid not in self.create_steps:  # known to the snapshot (a chart's release) but not a template resource
            return "create"
        return f"create, step {self.create_steps[lid]} of {max(self.create_steps.values())}"

    def delete(self, lid: str) -> str:
        return f"delete, step {self.delete_steps[lid]} of {max(self.delete_steps.values())}"

    def fail(self, subject: str, step: str, message: str) -> None:
        self.result.findings.append(LifecycleFinding(subject, step, message))

    def name(self, lid: str) -> str:
        if lid in self.releases:
            return f"helm release {self.releases[lid].release} ({lid})"
        if self.type(lid) == KUBERNETES_RESOURCE:
            return f"manifest {lid}"
        return f"{lid} ({self.type(lid)})"

    def node_group(self, lid: str) -> str:
        name = self.props(lid).get("NodegroupName")
        return f"node group {text(name)} ({lid})" if name else f"node group {lid}"

    def type(self, lid: str) -> str:
        return self.resources.get(lid, {}).get("Type", "")

    def props(self, lid: str) -> Mapping[str, Any]:
        return self.resources.get(lid, {}).get("Properties") or {}

    def of_type(self, type_: str) -> list[str]:
        return [lid for lid, r in self.resources.items() if r.get("Type") == type_]

    def ref(self, value: Any) -> str | None:
        """The logical id a Ref or GetAtt names."""
        if isinstance(value, dict) and isinstance(value.get("Ref"), str) and value["Ref"] in self.resources:
            return value["Ref"]
        if isinstance(value, dict) and "Fn::GetAtt" in value and value["Fn::GetAtt"][0] in self.resources:
            return value["Fn::GetAtt"][0]
        return None

    def addon(self, name: str) -> str | None:
        return next((lid for lid in self.of_type("AWS::EKS::Addon") if self.props(lid).get("AddonName") == name), None)

    # objects --------------------------------------------------------------------------------------------------

    @cached_property
    def objects(self) -> dict[str, list[dict]]:
        """What each resource puts in the cluster once it is created."""
        made: dict[str, list[dict]] = {lid: list(objs) for lid, objs in self.snap.manifests.items()}
        for lid, release in self.releases.items():
            objs = [*self._crds_folder(release), *self.rendered.get(release.release, []),
                    *_modelled_objects(release), *self._karpenter_crds(release)]
            if self.props(lid).get("CreateNamespace"):
                objs.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": release.namespace}})
            made[lid] = objs
        return made

    def _karpenter_crds(self, release: Release) -> list[dict]:
        """Karpenter's CRD chart when it is not at hand: upstream renders the CRDs of the controller chart's crds/
        folder at the same version, so that folder stands in for it."""
        if release.release in self.rendered or not release.chart.rstrip("/").endswith("/karpenter-crd"):
            return []
        controller = next((r for r in self.releases.values() if r.chart.rstrip("/").endswith("/karpenter")
                           and r.version == release.version and r.release in self.chart_dirs), None)
        return [dict(crd) for crd in _crd_folder_headers(Path(self.chart_dirs[controller.release]))] if controller else []

    def _crds_folder(self, release: Release) -> list[dict]:
        folder = self.chart_dirs.get(release.release)
        if folder is None or self.props(release.logical_id).get("SkipCrds"):
            return []  # --skip-crds: Helm leaves the chart's crds/ folder out
        return [dict(crd) for crd in _crd_folder_headers(Path(folder))]

    @cached_property
    def made_by_controllers(self) -> dict[str, list[tuple[dict, str]]]:
        """Objects a controller or hook makes from what a resource applies, with how: they exist once it is done."""
        made: dict[str, list[tuple[dict, str]]] = {}
        for lid, objs in self.objects.items():
            for obj in objs:
                ns = _meta(obj).get("namespace")
                if obj.get("kind") == "Certificate" and _group(obj) == "cert-manager.io":
                    secret = (obj.get("spec") or {}).get("secretName")
                    made.setdefault(lid, []).append(({"kind": "Secret", "metadata": {"namespace": ns, "name": secret}},
                                                     f"cert-manager from Certificate {_meta(obj).get('name')}"))
                if obj.get("kind") == "Job" and re.search(r"\bpre-(install|upgrade)\b", _hook(obj)):
                    # A pre-install hook Job given `--secret NAME` generates that Secret (Volcano's certificates).
                    for spec in _pod_specs(obj):
                        for container in spec.get("containers") or []:
                            words = [*(container.get("command") or []), *(container.get("args") or [])]
                            for option, name in zip(words, words[1:]):
                                if option in _SECRET_OPTIONS:
                                    made.setdefault(lid, []).append((
                                        {"kind": "Secret", "metadata": {"namespace": ns, "name": name}},
                                        f"pre-install hook Job {_meta(obj).get('name')}"))
        return made

    def key(self, obj: Mapping[str, Any], default_namespace: str | None = None) -> tuple[str, str | None, str]:
        kind = str(obj.get("kind") or "").lower()
        ns = None if self.cluster_scoped(obj) else (_meta(obj).get("namespace") or default_namespace or "default")
        return kind, ns, str(_meta(obj).get("name"))

    @cached_property
    def crds(self) -> dict[tuple[str, str], tuple[str, dict]]:
        """(group, kind) -> (the resource that applies its CRD, the CRD)."""
        found: dict[tuple[str, str], tuple[str, dict]] = {}
        for lid, objs in self.objects.items():
            for obj in objs:
                if obj.get("kind") == "CustomResourceDefinition":
                    spec = obj.get("spec") or {}
                    found.setdefault((spec.get("group"), (spec.get("names") or {}).get("kind")), (lid, obj))
        for (ns, job), objs in self.job_outputs.items():
            for obj in objs:
                if obj.get("kind") == "CustomResourceDefinition":
                    spec = obj.get("spec") or {}
                    found.setdefault((spec.get("group"), (spec.get("names") or {}).get("kind")), (f"job:{ns}/{job}", obj))
        return found

    def cluster_scoped(self, obj: Mapping[str, Any]) -> bool:
        kind = str(obj.get("kind") or "")
        if kind.lower() in _CLUSTER_SCOPED:
            return True
        crd = self.crds.get((_group(obj), kind))
        return bool(crd and (crd[1].get("spec") or {}).get("scope") == "Cluster")

    def existing(self, lid: str) -> dict[tuple[str, str | None, str], str]:
        """Every object that exists once ``lid``'s dependencies are created (and what made it), its own included."""
        found: dict[tuple[str, str | None, str], str] = {k: "the cluster" for k in _BUILT_IN}
        for source in (lid, *self.deps(lid)):
            default_ns = self.releases[source].namespace if source in self.releases else None
            for obj in self.objects.get(source, []):
                found.setdefault(self.key(obj, default_ns), self.name(source))
            for obj, how in self.made_by_controllers.get(source, []):
                found.setdefault(self.key(obj, default_ns), f"{how} ({self.name(source)})")
        for kind, ns, name in list(found):
            if kind == "namespace":
                for every_kind, every_name in _EVERY_NAMESPACE:
                    found.setdefault((every_kind, name, every_name), "the cluster")
        return found

    # creation -------------------------------------------------------------------------------------------------

    def node_sources(self) -> Iterator[tuple[str, str, str | None]]:
        """(resource, description, logical id of the node role) of every managed node group and EC2NodeClass."""
        for lid in self.of_type("AWS::EKS::Nodegroup"):
            yield lid, self.node_group(lid), self.ref(self.props(lid).get("NodeRole"))
        roles = {text(self.props(r).get("RoleName")): r for r in self.of_type("AWS::IAM::Role") if self.props(r).get("RoleName")}
        for lid, objs in self.snap.manifests.items():
            for obj in objs:
                if obj.get("kind") == "EC2NodeClass":
                    role = str((obj.get("spec") or {}).get("role") or "")
                    yield lid, f"Karpenter nodes of EC2NodeClass {_meta(obj).get('name')} (manifest {lid})", roles.get(role)

    def role_has_cni_policy(self, role: str | None) -> bool:
        return role is not None and any(text(arn).endswith(f"/{CNI_POLICY}")
                                        for arn in self.props(role).get("ManagedPolicyArns") or [])

    def pod_networking(self) -> None:
        cni = self.addon("vpc-cni")
        agent = self.addon("eks-pod-identity-agent")
        identity = None
        if cni:
            props = self.props(cni)
            identity = "pod identity" if props.get("PodIdentityAssociations") else \
                "irsa" if props.get("ServiceAccountRoleArn") else None
        for lid, description, role in self.node_sources():
            if self.role_has_cni_policy(role):
                continue
            role_name = role or "its node role"
            if cni is None or identity is None:
                what = "no vpc-cni add-on" if cni is None else f"the vpc-cni add-on {cni} with no identity of its own"
                self.fail(description, self.create(lid),
                          f"joins with {what}: aws-node runs with the node role {role_name}, which lacks {CNI_POLICY}, "
                          "so pods get no IPs and the nodes stay NotReady")
                continue
            if identity == "pod identity" and agent is None:
                self.fail(description, self.create(lid), "the vpc-cni add-on's Pod Identity needs the "
                          "eks-pod-identity-agent add-on, which the template lacks")
            missing = [a for a in (cni, agent if identity == "pod identity" else None) if a and not self.after(lid, a)]
            if missing:
                addons = " and ".join(f"{self.props(a).get('AddonName')} ({a}, {self.create(a)})" for a in missing)
                self.fail(description, self.create(lid),
                          f"joins before the add-on {addons} exists: aws-node has only the node role {role_name}, "
                          f"which lacks {CNI_POLICY}, so the nodes stay NotReady (a node group fails: "
                          "NodeCreationFailure)")

    def helm_waits(self) -> None:
        for lid, release in self.releases.items():
            if not self.props(lid).get("Wait") or release.release not in self.rendered:
                continue
            timeout = text(self.props(lid).get("Timeout") or "") or f"Helm's default {HELM_DEFAULT_TIMEOUT}"
            there = self.existing(lid)
            for obj in self.rendered[release.release]:
                if obj.get("kind") not in _WAITED_KINDS and not (obj.get("kind") == "Job" and _hook(obj)):
                    continue
                ns = _meta(obj).get("namespace") or release.namespace
                what = f"{obj.get('kind')} {_meta(obj).get('name')}"
                for spec in _pod_specs(obj):
                    for need in _pod_needs(spec):
                        if need.name and (need.kind.lower(), ns, need.name) not in there:
                            self.fail(self.name(lid), self.create(lid),
                                      f"waits ({timeout}) for {what}, whose pods need {need.kind} {ns}/{need.name} "
                                      f"({need.why}, not optional): neither the chart, a controller acting on it, nor "
                                      "anything the release depends on makes it, so the install times out")
                    built = sorted({str(c.get("image")) for c in [*(spec.get("initContainers") or []),
                                                                  *(spec.get("containers") or [])]
                                    if _BUILT_IMAGE.search(str(c.get("image") or ""))})
                    if built:
                        self.fail(self.name(lid), self.create(lid),
                                  f"waits ({timeout}) for {what}, which pulls {len(built)} image(s) this deploy builds "
                                  f"({', '.join(_short_image(i) for i in built)}; the training images are several GB) "
                                  "onto every node it lands on inside that wait")

    def namespaces(self) -> None:
        for lid, objs in self.objects.items():
            release = self.releases.get(lid)
            there = self.existing(lid)
            if release is not None and ("namespace", None, release.namespace) not in there:
                self.fail(self.name(lid), self.create(lid),
                          f"installs into namespace {release.namespace}, which neither the release (CreateNamespace) "
                          "nor anything it depends on creates: helm install fails")
            seen = set()
            for obj in objs:
                key = self.key(obj, release.namespace if release else None)
                if key[1] is None or key[1] in seen or ("namespace", None, key[1]) in there:
                    continue
                seen.add(key[1])
                self.fail(self.name(lid), self.create(lid),
                          f"writes {obj.get('kind')} {_meta(obj).get('name')} into namespace {key[1]}, which nothing "
                          "creates before it (the chart renders no such Namespace): the API server refuses it")

    def custom_resources(self) -> None:
        unrendered = [r for r in self.releases.values() if r.release not in self.rendered]
        for lid, objs in self.objects.items():
            own = lid in self.releases  # Helm installs a release's CRDs before its templates; kubectl apply does not
            for obj in objs:
                group = _group(obj)
                if group in _BUILT_IN_GROUPS:
                    continue
                crd = self.crds.get((group, obj.get("kind")))
                source = crd[0] if crd else None
                if source is not None and ((own and source == lid) or source in self.deps(lid)):
                    continue
                if source is not None and source.startswith("job:"):
                    if not any(self.job_waiter(source[4:], waiter) and waiter in self.deps(lid)
                               for waiter in self.of_type(OBJECT_VALUE)):
                        self.fail(self.name(lid), self.create(lid),
                                  f"applies {obj.get('kind')} {_meta(obj).get('name')}, whose CRD the Job {source[4:]} "
                                  "installs; nothing makes this resource wait for that Job")
                    continue
                if source is None and unrendered:
                    note = (f"lifecycle: no CRD for {obj.get('kind')} ({group}) among what the check could render; "
                            f"{', '.join(r.release for r in unrendered)} may bring it, so its order is not checked")
                    if note not in self.result.notes:
                        self.result.notes.append(note)
                    continue
                where = f"CloudFormation may apply it before {self.name(source)}, which installs the CRD" if source \
                    else "no resource of the stack installs that CRD"
                self.fail(self.name(lid), self.create(lid),
                          f"applies {obj.get('kind')} {_meta(obj).get('name')} ({obj.get('apiVersion')}): {where}")

    @cached_property
    def webhook_configs(self) -> list[tuple[str, dict, dict]]:
        """(resource, configuration, webhook) of every admission webhook the stack installs."""
        return [(lid, obj, hook) for lid, objs in self.objects.items() for obj in objs
                if obj.get("kind") in ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration")
                for hook in obj.get("webhooks") or []]

    def webhooks(self) -> None:
        for lid, objs in self.objects.items():
            problems: dict[tuple[str, str], list[str]] = {}
            for obj in objs:
                if obj.get("kind") in ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"):
                    continue
                for owner, config, hook in self.webhook_configs:
                    if not self._admits(hook, obj, lid):
                        continue
                    webhook = f"{config.get('kind')} {_meta(config).get('name')} (failurePolicy Fail)"
                    if owner == lid:
                        why = (f"in the same step as {webhook}, which admits them: its server cannot be serving yet")
                    elif not self.after(lid, owner):
                        why = f"which {webhook} admits, without waiting for {self.name(owner)}"
                    elif not self._serving(owner, config, hook, lid):
                        why = (f"as soon as {self.name(owner)} is installed, but nothing waits until {webhook}, which "
                               "admits them, can answer (its CA bundle is set at run time and no readiness probe gates "
                               "its server): the API server refuses them and the deploy fails")
                    else:
                        continue
                    what = f"{obj.get('kind')} {_meta(obj).get('name')}"
                    if what not in problems.setdefault((webhook, why), []):
                        problems[(webhook, why)].append(what)
            for (_, why), objects in problems.items():
                self.fail(self.name(lid), self.create(lid), f"applies {', '.join(objects)} {why}")

    def _admits(self, hook: Mapping[str, Any], obj: Mapping[str, Any], lid: str) -> bool:
        if hook.get("failurePolicy", "Fail") != "Fail":
            return False
        group, plural = _group(obj), self._plural_of(obj)
        rules = [r for r in hook.get("rules") or []
                 if any(g in ("*", group) for g in r.get("apiGroups") or [])
                 and any(res in ("*", "*/*", plural) for res in r.get("resources") or [])
                 and any(op in ("*", "CREATE") for op in r.get("operations") or [])]
        if not rules:
            return False
        if not self.cluster_scoped(obj):
            release = self.releases.get(lid)
            ns = _meta(obj).get("namespace") or (release.namespace if release else "default")
            if not _selector_matches(hook.get("namespaceSelector"), {"kubernetes.io/metadata.name": ns}):
                return False
        return _selector_matches(hook.get("objectSelector"), _meta(obj).get("labels") or {})

    def _plural_of(self, obj: Mapping[str, Any]) -> str:
        crd = self.crds.get((_group(obj), obj.get("kind")))
        if crd:
            return ((crd[1].get("spec") or {}).get("names") or {}).get("plural") or _plural(str(obj.get("kind")))
        return _plural(str(obj.get("kind")))

    def _serving(self, owner: str, config: Mapping[str, Any], hook: Mapping[str, Any], lid: str) -> bool:
        """Whether the webhook answers once ``owner`` is created and what ``lid`` waits for is done."""
        service = (hook.get("clientConfig") or {}).get("service") or {}
        for waiter in self.of_type(OBJECT_VALUE):
            props = self.props(waiter)
            if waiter in self.deps(lid) and "cabundle" in str(props.get("JsonPath", "")).lower() and \
                    str(props.get("ObjectType", "")).lower().rstrip("s") in ("validatingwebhookconfiguration",
                                                                             "mutatingwebhookconfiguration"):
                served = [(c, h) for o, c, h in self.webhook_configs if _meta(c).get("name") == props.get("ObjectName")]
                if any(((h.get("clientConfig") or {}).get("service") or {}).get("name") == service.get("name")
                       for _, h in served):
                    return True
        objs = self.objects.get(owner, [])
        if owner in self.releases and any(o.get("kind") == "Job" and "post-install" in _hook(o) for o in objs):
            return True  # Helm waits for the post-install hook (cert-manager's startupapicheck calls the webhook)
        static_ca = bool((hook.get("clientConfig") or {}).get("caBundle"))
        return static_ca and self.props(owner).get("Wait") and self._probed(objs, service)

    @staticmethod
    def _probed(objs: Iterable[Mapping[str, Any]], service: Mapping[str, Any]) -> bool:
        """Whether the Deployment behind ``service`` has a readiness probe (so Helm's wait means it serves)."""
        selector = next(((o.get("spec") or {}).get("selector") or {} for o in objs
                         if o.get("kind") == "Service" and _meta(o).get("name") == service.get("name")), None)
        if selector is None:
            return False
        for obj in objs:
            labels = (((obj.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels") or {}
            if obj.get("kind") == "Deployment" and all(labels.get(k) == v for k, v in selector.items()):
                return all(c.get("readinessProbe") for spec in _pod_specs(obj) for c in spec.get("containers") or [])
        return False

    def static_volumes(self) -> None:
        """A PersistentVolume that mounts a directory of a file system needs the association that makes it."""
        associations = [(lid, text(self.props(lid).get("FileSystemPath") or ""), self.ref(self.props(lid).get("FileSystemId")))
                        for lid in self.of_type("AWS::FSx::DataRepositoryAssociation")]
        for lid, objs in self.snap.manifests.items():
            unmade: dict[tuple[str, str, str], list[str]] = {}
            for obj in objs:
                csi = ((obj.get("spec") or {}).get("csi") or {}) if obj.get("kind") == "PersistentVolume" else {}
                handle = str(csi.get("volumeHandle") or "")
                if "::" not in handle:
                    continue
                file_system, path = handle.split("::", 1)
                for association, fs_path, fs in associations:
                    inside = path.rstrip("/") + "/"
                    if fs and file_system.endswith(f"Ref:{fs}") and inside.startswith(fs_path.rstrip("/") + "/") \
                            and not self.after(lid, association):
                        unmade.setdefault((association, fs_path, fs), []).append(f"{path} ({_meta(obj).get('name')})")
            for (association, fs_path, fs), paths in unmade.items():
                self.fail(self.name(lid), self.create(lid),
                          f"mounts {', '.join(paths)} of {fs} without waiting for the data repository association "
                          f"{association}, which makes {fs_path}: those mounts fail until it exists")

    def job_waiter(self, job: str, waiter: str) -> bool:
        """Whether the KubernetesObjectValue ``waiter`` waits for the Job ``namespace/name`` to succeed."""
        return awaited_job(self.props(waiter)) == job

    def one_shot_jobs(self) -> None:
        waiters = self.of_type(OBJECT_VALUE)
        for lid, objs in self.snap.manifests.items():
            jobs = [f"{_meta(o).get('namespace') or 'default'}/{_meta(o).get('name')}" for o in objs
                    if o.get("kind") == "Job" and _group(o) == "batch"]
            waited = {job: [w for w in waiters if self.job_waiter(job, w) and self.after(w, lid)] for job in jobs}
            all_waiters = {w for mine in waited.values() for w in mine}
            for job, mine in waited.items():
                if not mine:
                    self.fail(self.name(lid), self.create(lid),
                              f"applies Job {job} and returns at once: nothing waits for it to succeed (a "
                              "KubernetesObjectValue on its .status.succeeded), so its failure does not fail the deploy "
                              "and what needs its output finds nothing")
                    continue
                for dependent in self.resources:
                    if self.after(dependent, lid) and dependent not in all_waiters \
                            and not any(self.after(dependent, w) for w in mine):
                        self.fail(self.name(dependent), self.create(dependent),
                                  f"waits for manifest {lid} but not for its Job {job} ({', '.join(mine)} waits for it)")

    def access(self) -> None:
        entries = self.of_type("AWS::EKS::AccessEntry")
        outside = [e for e in entries if self.props(e).get("Type", "STANDARD") == "STANDARD"
                   and not set(_resource_refs(self.props(e).get("PrincipalArn"))) & set(self.resources)
                   and (self.props(e).get("AccessPolicies") or self.props(e).get("KubernetesGroups"))]
        if outside:
            return
        clusters = self.of_type("AWS::EKS::Cluster")
        inside = ", ".join(f"{e} ({_shown(self.props(e).get('PrincipalArn'))})" for e in entries) or "none"
        for cluster in clusters:
            self.fail(f"EKS cluster {cluster}", self.create(cluster),
                      f"no principal outside the stack has an access entry (the entries: {inside}): no person can use "
                      "the cluster; give your people's role one (TrainingCluster's admin_role_arns, cluster.admin_role_arns in "
                      "an environment file)")

    # deletion -------------------------------------------------------------------------------------------------

    def karpenter_teardown(self) -> None:
        pools = [lid for lid, objs in self.snap.manifests.items() if any(o.get("kind") == "NodePool" for o in objs)]
        if not pools:
            return
        lifeline = self._karpenter_lifeline()
        for lid in pools:
            missing = [f"{needed} ({what})" for needed, what in lifeline if not self.after(lid, needed)]
            if missing:
                self.fail(self.name(lid), self.delete(lid),
                          f"holds NodePools whose NodeClaims Karpenter drains and terminates on delete, but nothing "
                          f"orders {', '.join(missing)} after them: CloudFormation may delete those first, Karpenter "
                          "loses what it needs, the NodeClaims' finalizers never finish, the delete runs into the "
                          "kubectl handler's 15 minutes and the instances leak")
        for resource, owner in self._karpenter_workloads():
            if not any(self.after(resource, p) for p in pools):
                self.fail(self.name(resource), self.delete(resource),
                          f"{owner.split(': ', 1)[-1]} makes Karpenter create nodes, but the resource does not wait for the NodePools "
                          f"({', '.join(pools)}): it is created before they exist and deleted while they drain")

    def _karpenter_lifeline(self) -> list[tuple[str, str]]:
        """What Karpenter needs until its last NodeClaim is gone: (resource, why)."""
        needed: list[tuple[str, str]] = []
        release = next((r for r in self.releases.values() if r.chart.rstrip("/").endswith("/karpenter")), None)
        if release is not None:
            needed.append((release.logical_id, "the controller"))
            account = (release.values.get("serviceAccount") or {}).get("name") or "karpenter"
            for association in self.of_type("AWS::EKS::PodIdentityAssociation"):
                props = self.props(association)
                if props.get("ServiceAccount") == account and props.get("Namespace") == release.namespace:
                    needed.append((association, "its Pod Identity"))
                    role = self.ref(props.get("RoleArn"))
                    needed += [(policy, "its IAM policy") for policy in self.of_type("AWS::IAM::Policy")
                               if role in {self.ref(r) for r in self.props(policy).get("Roles") or []}]
        node_roles = {role for _, _, role in self.node_sources() if role}
        needed += [(entry, "its nodes' access entry") for entry in self.of_type("AWS::EKS::AccessEntry")
                   if self.ref(self.props(entry).get("PrincipalArn")) in node_roles
                   and self.props(entry).get("Type") == "EC2_LINUX"]
        for addon, what in (("coredns", "DNS"), ("vpc-cni", "pod networking"), ("eks-pod-identity-agent",
                                                                                 "the Pod Identity agent")):
            lid = self.addon(addon)
            if lid:
                needed.append((lid, what))
        return needed

    def _karpenter_workloads(self) -> list[tuple[str, str]]:
        """(resource, pod template) of pods that land only on Karpenter nodes (they make it create nodes)."""
        by_release = {r.release: lid for lid, r in self.releases.items()}
        found: dict[str, str] = {}
        for placement in self.placements:
            pod = placement.pod
            reachable = list(placement.reachable)
            if pod.daemonset or not reachable or not all(s.kind == "Karpenter pool" for s in reachable):
                continue
            source = pod.owner.split(":", 1)[0]
            kind, _, name = source.partition(" ")
            lid = by_release.get(name) if kind == "helm" else name if kind == "manifest" else None
            if lid in self.resources:
                found.setdefault(lid, pod.owner)
        return sorted(found.items())

    def claims_before_drivers(self) -> None:
        classes = {}
        volumes = {}
        for lid, objs in self.objects.items():
            for obj in objs:
                if obj.get("kind") == "StorageClass":
                    classes[_meta(obj).get("name")] = (lid, obj)
                if obj.get("kind") == "PersistentVolume":
                    volumes[_meta(obj).get("name")] = (lid, obj)
        default = next((c for c, (_, o) in classes.items() if (_meta(o).get("annotations") or {}).get(
            "storageclass.kubernetes.io/is-default-class") == "true"), None)
        for lid, objs in self.objects.items():
            for obj in objs:
                for claim, spec in self._claims(obj):
                    for needed, why in self._claim_needs(spec, classes, volumes, default):
                        if needed != lid and not self.after(lid, needed):
                            self.fail(self.name(lid), self.delete(lid),
                                      f"{claim} is not ordered before {self.name(needed)} ({why}): CloudFormation may "
                                      "delete that first, and the claim's volume is never released (it leaks, or its "
                                      "unmount hangs)")

    @staticmethod
    def _claims(obj: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
        spec = obj.get("spec") or {}
        name = f"{obj.get('kind')} {_meta(obj).get('name')}"
        if obj.get("kind") == "PersistentVolumeClaim":
            yield f"claim {_meta(obj).get('namespace')}/{_meta(obj).get('name')}", spec
        for template in spec.get("volumeClaimTemplates") or []:
            yield f"{name} claim {_meta(template).get('name')}", template.get("spec") or {}

    def _claim_needs(self, spec: Mapping[str, Any], classes, volumes, default) -> Iterator[tuple[str, str]]:
        if spec.get("volumeName"):
            volume = volumes.get(spec["volumeName"])
            if volume is None:
                return
            yield volume[0], f"PersistentVolume {spec['volumeName']}"
            csi = (volume[1].get("spec") or {}).get("csi") or {}
            driver = self.addon(CSI_ADDONS.get(csi.get("driver"), ""))
            if driver:
                yield driver, f"the {csi.get('driver')} driver"
            match = re.search(r"Ref:([A-Za-z0-9]+)", str(csi.get("volumeHandle") or ""))
            if match and match.group(1) in self.resources:
                yield match.group(1), "the file system"
            return
        name = spec.get("storageClassName", default)
        if not name or name not in classes:
            return
        class_lid, storage_class = classes[name]
        yield class_lid, f"StorageClass {name}"
        driver = self.addon(CSI_ADDONS.get(storage_class.get("provisioner"), ""))
        if driver:
            yield driver, f"the {storage_class.get('provisioner')} driver, which deletes the volume"

    def buckets_emptied(self) -> None:
        emptied = {self.ref(self.props(lid).get("BucketName")) for lid in self.of_type(AUTO_DELETE_OBJECTS)}
        for lid in self.of_type("AWS::S3::Bucket"):
            if self.resources[lid].get("DeletionPolicy") in RETAINED or lid in emptied:
                continue
            versioned = (self.props(lid).get("VersioningConfiguration") or {}).get("Status") == "Enabled"
            self.fail(f"bucket {lid}", self.delete(lid),
                      f"deleted with the stack but never emptied{' (versioned: every version counts)' if versioned else ''}: "
                      "CloudFormation deletes only empty buckets (BucketNotEmpty, DELETE_FAILED); empty it on delete "
                      "(autoDeleteObjects) or retain it")

    def retained_network(self) -> None:
        for lid, resource in self.resources.items():
            if resource.get("Type") not in _ENI_HOLDERS or resource.get("DeletionPolicy") not in RETAINED:
                continue
            network = [r for r in _resource_refs(resource.get("Properties", {}))
                       if self.type(r) in ("AWS::EC2::Subnet", "AWS::EC2::SecurityGroup")]
            network += [v for s in network if self.type(s) == "AWS::EC2::Subnet"
                        for v in [self.ref(self.props(s).get("VpcId"))] if v]
            deleted = sorted({r for r in network if self.resources[r].get("DeletionPolicy") not in RETAINED})
            if deleted:
                self.fail(f"{lid} ({resource['Type']})", self.delete(lid),
                          f"is retained with its network interfaces in {', '.join(deleted)}, which the stack deletes: "
                          "they cannot go while the interfaces exist (DependencyViolation), nor can the VPC")

    # update ---------------------------------------------------------------------------------------------------

    def node_group_updates(self) -> None:
        rolled = []
        for lid in self.of_type("AWS::EKS::Nodegroup"):
            props = self.props(lid)
            name = self.node_group(lid)
            accelerated = any(node_capacity(t).accelerator for t in props.get("InstanceTypes") or [])
            if accelerated:
                rolled.append(text(props.get("NodegroupName") or lid))
            if props.get("ForceUpdateEnabled"):
                held = "running training pods" if accelerated else "the controllers and webhooks"
                self.fail(name, "update", f"ForceUpdateEnabled: a change of Kubernetes version, AMI release or launch "
                          f"template replaces its nodes even where a PodDisruptionBudget holds {held}; without it "
                          "EKS stops and fails the update after 15 minutes instead")
            scaling = props.get("ScalingConfig") or {}
            if "DesiredSize" in scaling and scaling.get("MinSize") != scaling.get("MaxSize"):
                self.fail(name, "update",
                          f"writes DesiredSize {scaling['DesiredSize']} while its size may move between "
                          f"{scaling.get('MinSize')} and {scaling.get('MaxSize')} outside CloudFormation (by hand or an "
                          "autoscaler): the next deploy that changes its scaling resets it")
        if rolled:
            self.result.notes.append(
                f"update: a change of Kubernetes version, AMI release or launch template (a root volume, say) of node "
                f"groups {', '.join(rolled)} replaces each of their nodes and evicts the pods no PodDisruptionBudget "
                "holds, running jobs among them; compare with the deployed template (`--previous`) to see whether a "
                "change rolls one, and drain first (README, Change a running platform)")


@functools.lru_cache(maxsize=32)
def _crd_folder_headers(chart_dir: Path) -> tuple[Mapping[str, Any], ...]:
    """The CRDs of a chart's ``crds/`` folder, without their schemas (group, names, scope are what the stage reads).

    Cached per chart: the folders hold megabytes of schema, and tests check many variants of one app.
    """
    folder = chart_dir / "crds"
    if not folder.is_dir():
        return ()
    headers = []
    for path in sorted(folder.glob("*.y*ml")):
        for obj in yaml.load_all(path.read_text(), Loader=_YAML_LOADER):
            if isinstance(obj, dict) and obj.get("kind") == "CustomResourceDefinition":
                spec = obj.get("spec") or {}
                headers.append({"apiVersion": obj.get("apiVersion"), "kind": obj["kind"], "metadata": obj.get("metadata"),
                                "spec": {key: spec.get(key) for key in ("group", "names", "scope")}})
    return tuple(headers)


def _resource_refs(value: Any) -> Iterator[str]:
    """Logical ids ``value`` refers to (pseudo parameters such as AWS::AccountId are not resources)."""
    yield from (name for name in references(value) if not name.startswith("AWS::"))


def _shown(value: Any) -> str:
    """A template value as text, an Fn::Sub as the string it substitutes into."""
    if isinstance(value, dict) and isinstance(value.get("Fn::Sub"), str):
        return value["Fn::Sub"]
    return text(value)


def _short_image(image: str) -> str:
    """A built image by its asset hash (its repository is the deploy's asset repository)."""
    return f"asset image {image.rsplit(':', 1)[-1][:12]}"


def _modelled_objects(release: Release) -> list[dict]:
    """Objects of a chart that is not at hand, as far as the lifecycle depends on them."""
    name = release.chart.rstrip("/").rsplit("/", 1)[-1]
    if name == "neuron-helm-chart" and (release.values.get("npd") or {}).get("enabled"):
        # The chart's node problem detector goes into npd.namespaceOverride (its default: neuron-healthcheck-system,
        # a namespace the chart never creates).
        namespace = (release.values.get("npd") or {}).get("namespaceOverride") or NEURON_NPD_NAMESPACE
        return [{"apiVersion": "apps/v1", "kind": "DaemonSet",
                 "metadata": {"name": "node-problem-detector", "namespace": namespace}}]
    return []


#: The Neuron chart's default namespace for its node problem detector.
NEURON_NPD_NAMESPACE = "neuron-healthcheck-system"
