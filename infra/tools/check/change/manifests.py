"""What the handlers aws-eks-v2 deploys do to Kubernetes objects when the stack changes.

The kubectl handler (aws-cdk-lib ``custom-resource-handlers/dist/aws-eks-v2/kubectl-handler/apply/__init__.py``)
serves ``Custom::AWSCDK-EKS-KubernetesResource``:

* Create: ``kubectl create --save-config -f <manifest>`` (``kubectl apply`` when ``Overwrite`` is true), so an
  object that already exists fails the create;
* Update: ``kubectl apply -f <new manifest> --prune -l <PruneLabel>`` (the label every object of the manifest
  carries). kubectl prunes only the kinds of its default allowlist (kubernetes/kubectl ``pkg/util/prune/prune.go``,
  ``defaultNamespacedPruneResources`` and ``defaultNonNamespacedPruneResources``, the same from v0.31 to v0.36),
  namespaced ones only in the namespaces the new manifest applies objects to (``pkg/cmd/apply/prune.go``,
  ``visitedNamespaces``), and only objects created by apply (``last-applied-configuration``, which ``--save-config``
  writes). Every other removed object is left in the cluster: orphaned, no longer managed;
* Delete: ``kubectl delete -f <old manifest>``, errors ignored. CloudFormation deletes a removed or renamed resource
  in its cleanup phase, after it created the new ones: objects a new manifest just applied under the same identity
  are deleted with the old manifest.

The Helm handler (``.../kubectl-handler/helm/__init__.py``) serves ``Custom::AWSCDK-EKS-HelmChart``: Create and
Update run ``helm upgrade --install <Release>``, Delete runs ``helm uninstall``.

An update that changes a field the API server keeps immutable fails the apply, and with it the deploy; the rules
below are Kubernetes' own update validation (kubernetes/kubernetes ``pkg/apis/*/validation``) and the
``PersistentVolumeClaimResize`` admission plugin.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from eks_training.core.cfn_text import cfn_text
from eks_training.infra.tools.check.change.findings import Change
from eks_training.infra.tools.check.change.template_diff import TemplateDiff
from eks_training.core.upstream import release_chart
from eks_training.infra.tools.check.snapshot import (HELM_CHART, KUBERNETES_RESOURCE, OBJECT_VALUE, PlatformSnapshot,
                                                     awaited_job, references, token_text)

#: kubectl's default prune allowlist (kubernetes/kubectl pkg/util/prune/prune.go): (API group, kind).
PRUNED_NAMESPACED = frozenset({
    ("", "ConfigMap"), ("", "Endpoints"), ("", "PersistentVolumeClaim"), ("", "Pod"), ("", "ReplicationController"),
    ("", "Secret"), ("", "Service"), ("batch", "Job"), ("batch", "CronJob"), ("networking.k8s.io", "Ingress"),
    ("apps", "DaemonSet"), ("apps", "Deployment"), ("apps", "ReplicaSet"), ("apps", "StatefulSet"),
})
PRUNED_CLUSTER_SCOPED = frozenset({("", "Namespace"), ("", "PersistentVolume")})

#: Kueue's API group (its ResourceFlavors and ClusterQueues).
_KUEUE_GROUP = "kueue.x-k8s.io"
#: What deleting an object of a kind takes with it (beyond the object).
_DELETION_LOSSES = {
    "Namespace": "everything in it",
    "PersistentVolumeClaim": "its binding (and its volume, where the reclaim policy is Delete)",
    "StatefulSet": "its pods (their claims stay)",
    "Deployment": "its pods", "DaemonSet": "its pods on every node", "ReplicaSet": "its pods",
    "Job": "its pods, running or not", "CronJob": "its schedule and its Jobs",
    "CustomResourceDefinition": "every object of that kind in the cluster",
    "NodePool": "its nodes: Karpenter drains and terminates them with the pods running there",
    "EC2NodeClass": "nothing while a NodePool uses it (its finalizer waits), then Karpenter's instance profile",
    "NodeSet": "its slurmd pods and the Slurm jobs running on them",
    "RayCluster": "its head and worker pods and the Ray jobs on them",
    "ClusterQueue": "its quota: workloads in its LocalQueues are no longer admitted",
    "LocalQueue": "the queue: its pending and admitted workloads lose their queue",
    "ServiceAccount": "the identity of the pods that run as it",
}
#: What a removed object left in the cluster keeps doing.
_ORPHAN_EFFECTS = {
    "NodePool": "Karpenter keeps launching nodes for it, outside the stack (and past a destroy)",
    "EC2NodeClass": "it keeps its instance profile and AMI selection for any NodePool that names it",
    "ClusterQueue": "it keeps its quota in its cohort",
    "LocalQueue": "it keeps accepting workloads",
    "ResourceFlavor": "queues may still name it",
    "NetworkPolicy": "it keeps allowing or denying the traffic it selects",
    "ResourceQuota": "it keeps limiting the namespace",
    "LimitRange": "it keeps defaulting and limiting the namespace's pods",
    "Role": "it keeps granting what it grants", "ClusterRole": "it keeps granting what it grants",
    "RoleBinding": "it keeps granting its role", "ClusterRoleBinding": "it keeps granting its role",
    "ServiceAccount": "pods may still run as it",
    "Queue": "it keeps its share of the cluster in Volcano",
    "PriorityClass": "pods may still name it",
}
#: The StatefulSet spec fields an update may change (pkg/apis/apps/validation ValidateStatefulSetUpdate).
_STATEFULSET_MUTABLE = frozenset({"replicas", "ordinals", "template", "updateStrategy", "revisionHistoryLimit",
                                  "persistentVolumeClaimRetentionPolicy", "minReadySeconds"})
#: The PersistentVolume spec fields that are not its volume source (ValidatePersistentVolumeUpdate: the source and
#: volumeMode are immutable).
_PV_NOT_SOURCE = frozenset({"capacity", "accessModes", "claimRef", "persistentVolumeReclaimPolicy", "mountOptions",
                            "storageClassName", "nodeAffinity", "volumeAttributesClassName"})
_NEW_AT_DEPLOY = " (new at deploy)"
#: Kinds an operator scales by hand, and what a deploy that applies their replicas again does to that scaling.
_SCALED_BY_HAND = {"NodeSet": "the slurmd pods (Slurm nodes) an operator added are removed with the jobs on them"}
#: Kinds left behind on purpose (their manifests never prune, see TrainingPlatformStack): what stays is named, and
#: removing it is a step of its own (README, "Rename or remove a namespace, pool, queue or node group").
_KEPT_ON_REMOVAL = {
    "Namespace": "delete it by hand once its work has moved (`kubectl delete namespace {name}`)",
    "PersistentVolume": "its storage stays bound to it; delete it by hand when no claim needs it",
    "PersistentVolumeClaim": "it keeps its volume; delete it by hand when nothing mounts it",
    # The deploy waited for each Job of our manifests to succeed: what stays is a finished Job.
    "Job": "the deploy that applied it waited for it to finish; delete it by hand (`kubectl delete job -n {namespace} "
           "{name}`)",
}


@dataclass(frozen=True)
class Identity:
    group: str
    kind: str
    namespace: str | None
    name: str

    def __str__(self) -> str:
        return f"{self.kind}/{self.namespace}/{self.name}" if self.namespace else f"{self.kind}/{self.name}"


def identity(obj: Mapping[str, Any]) -> Identity:
    api_version = str(obj.get("apiVersion") or "")
    meta = obj.get("metadata") or {}
    return Identity(api_version.split("/")[0] if "/" in api_version else "", str(obj.get("kind")),
                    meta.get("namespace"), str(meta.get("name")))


@dataclass
class Manifests:
    """Every KubernetesResource's objects, by logical ID, as one template applies them."""

    objects: dict[str, dict[Identity, dict]] = field(default_factory=dict)
    props: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    #: The Helm releases' properties, by logical ID (set where what a namespace holds is needed).
    releases: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    #: ``namespace/name`` of every Job the template waits for to succeed (a KubernetesObjectValue on its
    #: ``.status.succeeded``): deployed, such a Job has finished.
    awaited_jobs: set[str] = field(default_factory=set)

    def holder(self, ident: Identity, *, besides: str) -> str | None:
        return next((lid for lid, objs in self.objects.items() if lid != besides and ident in objs), None)


def read_manifests(template: Mapping[str, Any], diff: TemplateDiff | None = None) -> Manifests:
    """The objects of every manifest of ``template``; with ``diff``, a value that names a replaced resource (or an
    attribute an update moves) reads differently from the deployed one, as it will at deploy time."""
    replaced = diff.replaced if diff else set()
    moved = diff.moved_attributes() if diff else set()

    def token(intrinsic: Any) -> str:
        text = token_text(intrinsic)
        if isinstance(intrinsic, dict):
            if isinstance(intrinsic.get("Ref"), str) and intrinsic["Ref"] in replaced:
                return text + _NEW_AT_DEPLOY
            if "Fn::GetAtt" in intrinsic:
                resource, attribute = intrinsic["Fn::GetAtt"]
                if resource in replaced or (resource, attribute) in moved:
                    return text + _NEW_AT_DEPLOY
            if "Fn::Sub" in intrinsic and set(references(intrinsic)) & replaced:
                return text + _NEW_AT_DEPLOY
        return text

    found = Manifests()
    for lid, resource in (template.get("Resources") or {}).items():
        if resource.get("Type") == OBJECT_VALUE and (job := awaited_job(resource.get("Properties") or {})):
            found.awaited_jobs.add(job)
        if resource.get("Type") != KUBERNETES_RESOURCE:
            continue
        props = resource.get("Properties") or {}
        objects = json.loads(cfn_text(props.get("Manifest", "[]"), token))
        found.objects[lid] = {identity(obj): obj for obj in objects}
        found.props[lid] = props
    return found


def manifest_changes(old: Mapping[str, Any], new: Mapping[str, Any], diff: TemplateDiff,
                     snap: PlatformSnapshot) -> list[Change]:
    """Every object the kubectl handler deletes, prunes, orphans or fails to update, and what each release's removal
    or rename does (``snap``: the new template, for the order of updates)."""
    before, after = read_manifests(old), read_manifests(new, diff)
    before.releases = {lid: r.get("Properties") or {} for lid, r in (old.get("Resources") or {}).items()
                       if r.get("Type") == HELM_CHART}
    changes: list[Change] = []
    storage_classes = {i.name: o for objs in (*before.objects.values(), *after.objects.values())
                       for i, o in objs.items() if i.kind == "StorageClass"}
    gone = _namespaces_gone(before, after)
    for lid in sorted(set(before.objects) | set(after.objects)):
        old_objs, new_objs = before.objects.get(lid, {}), after.objects.get(lid, {})
        if lid not in after.objects:
            changes += _deleted_manifest(lid, old_objs, after, before, snap)
        elif lid not in before.objects:
            changes += _created_manifest(lid, new_objs, after, before)
        elif old_objs != new_objs:
            changes += _updated_manifest(lid, before, after, snap, storage_classes, gone)
    changes += release_changes(old, new)
    return changes


def _namespaces_gone(before: Manifests, after: Manifests) -> set[str]:
    """Namespaces the deployed stack applies and the new one does not: deleted or pruned with what is in them."""
    applied = {i.name for objs in after.objects.values() for i in objs if (i.group, i.kind) == ("", "Namespace")}
    return {i.name for objs in before.objects.values() for i in objs
            if (i.group, i.kind) == ("", "Namespace") and i.name not in applied}


def _deleted_manifest(lid: str, old_objs: Mapping[Identity, dict], after: Manifests, before: Manifests,
                      snap: PlatformSnapshot) -> list[Change]:
    changes = []
    for ident, obj in old_objs.items():
        reapplied = after.holder(ident, besides=lid)
        if reapplied:
            changes.append(Change("delete", str(ident), (
                f"{ident} is applied by {reapplied}, then deleted: CloudFormation deletes the removed {lid} in its "
                f"cleanup, after the update, and its handler runs `kubectl delete` on the old manifest, which names "
                f"the same object{_loss(ident, obj, before)}"), destructive=True))
        elif _finished_job(ident, before):
            changes.append(Change("delete", str(ident), f"{ident} is deleted with the removed {lid} (`kubectl delete` "
                                                         f"of its manifest){_FINISHED_JOB_LOSS}"))
        else:
            changes.append(Change("delete", str(ident), f"{ident} is deleted with the removed {lid} (`kubectl delete` "
                                                         f"of its manifest){_loss(ident, obj, before)}", destructive=True))
    return changes


def _created_manifest(lid: str, new_objs: Mapping[Identity, dict], after: Manifests, before: Manifests) -> list[Change]:
    overwrite = str(after.props[lid].get("Overwrite", "false")).lower() == "true"
    existing = [ident for ident in new_objs if before.holder(ident, besides=lid)]
    if existing and not overwrite:
        shown = ", ".join(map(str, existing[:3])) + (", ..." if len(existing) > 3 else "")
        return [Change("fail", lid, f"the new manifest {lid} creates {shown}, which exist already (applied by "
                                    f"{before.holder(existing[0], besides=lid)}): `kubectl create` fails with "
                                    "AlreadyExists and the deploy rolls back", destructive=True)]
    return [Change("create", lid, f"manifest {lid} applies {len(new_objs)} objects ({_kinds(new_objs)})")]


def _updated_manifest(lid: str, before: Manifests, after: Manifests, snap: PlatformSnapshot,
                      storage_classes: Mapping[str, dict], gone: set[str]) -> list[Change]:
    """``gone``: namespaces deleted in this deploy, whose objects go with them (not orphaned)."""
    old_objs, new_objs = before.objects[lid], after.objects[lid]
    prune_label = after.props[lid].get("PruneLabel")
    visited = {i.namespace or "default" for i in new_objs if i.namespace is not None or _namespaced_prunable(i)}
    changes: list[Change] = []
    for ident, obj in old_objs.items():
        if ident in new_objs:
            for refusal in update_refusals(obj, new_objs[ident], storage_classes):
                changes.append(Change("fail", str(ident), f"{ident}: `kubectl apply` of {lid} is refused: {refusal}; "
                                                          "the deploy fails and rolls back", destructive=True))
            replicas = (new_objs[ident].get("spec") or {}).get("replicas")
            if ident.kind in _SCALED_BY_HAND and replicas is not None and obj != new_objs[ident]:
                changes.append(Change("update", str(ident), (
                    f"{ident}: `kubectl apply` of {lid} writes spec.replicas: {replicas} over the live object, "
                    f"undoing any hand scaling: {_SCALED_BY_HAND[ident.kind]}"), destructive=True))
            continue
        pruned = (isinstance(prune_label, str) and prune_label in ((obj.get("metadata") or {}).get("labels") or {})
                  and _pruned(ident, visited))
        elsewhere = after.holder(ident, besides=lid)
        if elsewhere:
            changes.append(_moved(ident, obj, lid, elsewhere, pruned, before, snap))
        elif ident.namespace in gone and not pruned:
            continue  # deleted with its namespace, which its own finding names
        elif pruned and _finished_job(ident, before):
            changes.append(Change("prune", str(ident), f"{ident} is deleted: removed from {lid}, whose update runs "
                                                       f"`kubectl apply --prune`{_FINISHED_JOB_LOSS}"))
        elif pruned:
            changes.append(Change("prune", str(ident), f"{ident} is deleted: removed from {lid}, whose update runs "
                                                       f"`kubectl apply --prune`, and {ident.kind} is in kubectl's "
                                                       f"default prune list{_loss(ident, obj, before)}", destructive=True))
        elif not isinstance(prune_label, str) and ident.kind in _KEPT_ON_REMOVAL and ident.group in ("", "batch"):
            contents = (f" with everything in it: {namespace_contents(ident.name, before)}"
                        if ident.kind == "Namespace" else "")
            changes.append(Change("orphan", str(ident), (
                f"{ident} is left behind{contents}: removed from {lid}, whose updates never prune; "
                f"{_KEPT_ON_REMOVAL[ident.kind].format(name=ident.name, namespace=ident.namespace)}")))
        else:
            why = ("the manifest has no prune label" if not isinstance(prune_label, str) else
                   f"{ident.kind} is not in kubectl's default prune list" if not _prunable_kind(ident) else
                   f"kubectl prunes {ident.kind} only in the namespaces the new manifest still applies to")
            effect = (_orphaned_flavor(ident.name, after) if (ident.group, ident.kind) == (_KUEUE_GROUP, "ResourceFlavor")
                      else _ORPHAN_EFFECTS.get(ident.kind, "it stays as it is, no longer managed"))
            changes.append(Change("orphan", str(ident), f"{ident} stays in the cluster: removed from {lid}, but {why}; "
                                                        f"{effect}", destructive=True))
    added = [i for i in new_objs if i not in old_objs]
    changed = [i for i in new_objs if i in old_objs and old_objs[i] != new_objs[i]]
    if added or changed:
        parts = [f"{len(changed)} changed ({_kinds({i: None for i in changed})})" if changed else "",
                 f"{len(added)} added ({_kinds({i: None for i in added})})" if added else ""]
        changes.append(Change("update", lid, f"manifest {lid}: `kubectl apply` of {', '.join(p for p in parts if p)}"))
    return changes


def _orphaned_flavor(name: str, after: Manifests) -> str:
    """What a Kueue ResourceFlavor left behind (renamed or removed from a shared manifest) still does, and how to
    remove it: the ClusterQueues of the new template that name it."""
    users = sorted({i.name for objs in after.objects.values() for i, obj in objs.items()
                    if (i.group, i.kind) == (_KUEUE_GROUP, "ClusterQueue")
                    and any(flavor.get("name") == name for group in (obj.get("spec") or {}).get("resourceGroups") or ()
                            for flavor in group.get("flavors") or ())})
    if users:
        return f"ClusterQueue {', '.join(users)} still name it, and keep their quota on it"
    return ("no ClusterQueue the stack applies names it any more: once no queue made by hand does either (`kubectl get "
            "clusterqueues -o jsonpath='{.items[*].spec.resourceGroups[*].flavors[*].name}'`), delete it "
            f"(`kubectl delete resourceflavor {name}`)")


def _moved(ident: Identity, obj: dict, old_lid: str, new_lid: str, pruned: bool, before: Manifests,
           snap: PlatformSnapshot) -> Change:
    if not pruned:
        return Change("move", str(ident), f"{ident} moves from {old_lid} to {new_lid}, which applies it (kubectl does "
                                          f"not prune {ident.kind} from {old_lid})")
    if old_lid in snap.dependencies(new_lid):
        return Change("move", str(ident), f"{ident} moves from {old_lid} to {new_lid}: {old_lid} prunes it first, "
                                          f"then {new_lid} (which waits for it) creates it again"
                                          f"{_loss(ident, obj, before)}", destructive=True)
    if new_lid in snap.dependencies(old_lid):
        return Change("move", str(ident), f"{ident} moves from {old_lid} to {new_lid}, which applies it first (with "
                                          f"its own prune label), so {old_lid}'s prune passes it by")
    return Change("move", str(ident), f"{ident} moves from {old_lid} to {new_lid}, which nothing orders: if "
                                      f"{old_lid} updates first it prunes the object and {new_lid} creates it again"
                                      f"{_loss(ident, obj, before)}", destructive=True)


_FINISHED_JOB_LOSS = ("; it has finished (the deployed stack waited for it to succeed), so only its record and its "
                      "completed pods go")


def _finished_job(ident: Identity, deployed: Manifests) -> bool:
    """Whether ``ident`` is a Job the deployed stack waited for: it succeeded, and deleting it stops nothing."""
    return (ident.group, ident.kind) == ("batch", "Job") and f"{ident.namespace or 'default'}/{ident.name}" in \
        deployed.awaited_jobs


def _prunable_kind(ident: Identity) -> bool:
    return (ident.group, ident.kind) in PRUNED_NAMESPACED | PRUNED_CLUSTER_SCOPED


def _namespaced_prunable(ident: Identity) -> bool:
    return (ident.group, ident.kind) in PRUNED_NAMESPACED


def _pruned(ident: Identity, visited: set[str]) -> bool:
    if (ident.group, ident.kind) in PRUNED_CLUSTER_SCOPED:
        return True
    return _namespaced_prunable(ident) and (ident.namespace or "default") in visited


def _loss(ident: Identity, obj: Mapping[str, Any], now: Manifests) -> str:
    """", with X" naming what the deletion takes with it (``now``: what the deployed template applies)."""
    if ident.kind == "Namespace":
        return f", with everything in it: {namespace_contents(ident.name, now)}"
    if ident.kind == "PersistentVolume":
        policy = (obj.get("spec") or {}).get("persistentVolumeReclaimPolicy", "Retain")
        kept = ("the storage behind it is kept (reclaim policy Retain) but its claim loses it" if policy == "Retain"
                else f"the storage behind it is deleted (reclaim policy {policy})")
        return f"; {kept}"
    loss = _DELETION_LOSSES.get(ident.kind)
    return f", with {loss}" if loss else ""


def namespace_contents(namespace: str, now: Manifests) -> str:
    """What a namespace holds: what the deployed stack put there (manifests, Helm releases) and what runs there."""
    objects = [f"{ident.kind} {ident.name}" for objs in now.objects.values() for ident in objs
               if ident.namespace == namespace]
    releases = [f"Helm release {r.get('Release')}" for r in now.releases.values()
                if r.get("Namespace", "default") == namespace]
    listed = releases + objects
    shown = ", ".join(listed[:6]) + (f" and {len(listed) - 6} more" if len(listed) > 6 else "")
    return (f"{shown + '; ' if shown else ''}every job, pod, claim and Secret created there at run time")


def _kinds(objs: Iterable[Identity]) -> str:
    counts: dict[str, int] = {}
    for ident in objs:
        counts[ident.kind] = counts.get(ident.kind, 0) + 1
    return ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))


# --- Kubernetes' update validation ------------------------------------------------------------------------------


def update_refusals(old: Mapping[str, Any], new: Mapping[str, Any], storage_classes: Mapping[str, dict]) -> list[str]:
    """Why the API server refuses to update ``old`` to ``new`` (empty: it accepts)."""
    kind, old_spec, new_spec = new.get("kind"), old.get("spec") or {}, new.get("spec") or {}
    found: list[str] = []
    if kind == "PersistentVolumeClaim":
        found += _claim_refusals(old_spec, new_spec, storage_classes)
    elif kind == "PersistentVolume":
        changed = sorted(k for k in set(old_spec) | set(new_spec)
                         if k not in _PV_NOT_SOURCE and old_spec.get(k) != new_spec.get(k))
        if changed:
            found.append(f"spec.{changed[0]} changes, and a volume's source is immutable after creation "
                         "(ValidatePersistentVolumeUpdate)")
    elif kind == "StatefulSet":
        changed = sorted(k for k in set(old_spec) | set(new_spec)
                         if k not in _STATEFULSET_MUTABLE and old_spec.get(k) != new_spec.get(k))
        if changed:
            found.append(f"spec.{changed[0]} changes, and a StatefulSet's spec is immutable but for "
                         f"{', '.join(sorted(_STATEFULSET_MUTABLE))} (ValidateStatefulSetUpdate)")
    elif kind == "Job" and "ttlSecondsAfterFinished" not in old_spec:  # with a TTL the finished Job is gone
        for key in ("template", "selector", "completionMode"):
            if key in old_spec and old_spec.get(key) != new_spec.get(key):
                found.append(f"spec.{key} changes, and it is immutable in a Job (ValidateJobSpecUpdate)")
                break
    elif kind in ("Deployment", "DaemonSet", "ReplicaSet"):
        if old_spec.get("selector") != new_spec.get("selector"):
            found.append(f"spec.selector changes, and it is immutable in a {kind} (apps/v1 validation)")
    elif kind == "StorageClass":
        for key in ("provisioner", "parameters", "reclaimPolicy", "volumeBindingMode"):
            if old.get(key) != new.get(key):
                found.append(f"{key} changes, and it is immutable in a StorageClass (ValidateStorageClassUpdate)")
                break
    elif kind in ("RoleBinding", "ClusterRoleBinding"):
        if old.get("roleRef") != new.get("roleRef"):
            found.append(f"roleRef changes, and it is immutable in a {kind} (ValidateRoleBindingUpdate)")
    elif kind in ("ConfigMap", "Secret") and old.get("immutable"):
        if any(old.get(k) != new.get(k) for k in ("data", "stringData", "binaryData")):
            found.append(f"its data changes, and the {kind} is immutable")
    return found


def _claim_refusals(old: Mapping[str, Any], new: Mapping[str, Any], storage_classes: Mapping[str, dict]) -> list[str]:
    """ValidatePersistentVolumeClaimUpdate: the spec is immutable but for the storage request, which may only grow;
    the PersistentVolumeClaimResize admission plugin lets it grow only for a claim whose (non-empty) StorageClass
    has ``allowVolumeExpansion``."""
    def request(spec: Mapping[str, Any]) -> Any:
        return ((spec.get("resources") or {}).get("requests") or {}).get("storage")

    def without_request(spec: Mapping[str, Any]) -> dict:
        copy = json.loads(json.dumps(spec))
        copy.get("resources", {}).get("requests", {}).pop("storage", None)
        return copy

    if without_request(old) != without_request(new):
        return ["its spec changes beyond resources.requests, and a claim's spec is immutable after creation "
                "(ValidatePersistentVolumeClaimUpdate)"]
    before, after = request(old), request(new)
    if before == after:
        return []
    if _quantity(after) < _quantity(before):
        return [f"resources.requests.storage shrinks ({before} -> {after}), which is forbidden"]
    class_name = new.get("storageClassName")
    expandable = bool(class_name) and bool((storage_classes.get(class_name) or {}).get("allowVolumeExpansion"))
    if not expandable:
        which = ("a claim bound to a static volume (storageClassName \"\")" if not class_name
                 else f"StorageClass {class_name} does not set allowVolumeExpansion")
        return [f"resources.requests.storage grows ({before} -> {after}), but only a dynamically provisioned claim "
                f"whose StorageClass allows expansion may grow, and this is {which} (PersistentVolumeClaimResize "
                "admission)"]
    return []


_SUFFIXES = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "k": 10**3, "M": 10**6, "G": 10**9,
             "T": 10**12, "P": 10**15}


def _quantity(value: Any) -> float:
    text = str(value)
    for suffix, factor in sorted(_SUFFIXES.items(), key=lambda item: -len(item[0])):
        if text.endswith(suffix):
            try:
                return float(text[: -len(suffix)]) * factor
            except ValueError:
                return 0.0
    try:
        return float(text)
    except ValueError:
        return 0.0


# --- Helm releases ----------------------------------------------------------------------------------------------


def release_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    """What the Helm handler does to each release: uninstall on removal, a second release on rename."""
    old_charts = {lid: r.get("Properties") or {} for lid, r in (old.get("Resources") or {}).items()
                  if r.get("Type") == HELM_CHART}
    new_charts = {lid: r.get("Properties") or {} for lid, r in (new.get("Resources") or {}).items()
                  if r.get("Type") == HELM_CHART}
    changes = []
    for lid in sorted(set(old_charts) | set(new_charts)):
        before, after = old_charts.get(lid), new_charts.get(lid)
        if after is None:
            changes.append(Change("delete", lid, (
                f"Helm release {before.get('Release')} ({before.get('Namespace', 'default')}) is uninstalled with the "
                f"removed {lid} (`helm uninstall`): every object it installed is deleted but those annotated "
                "helm.sh/resource-policy: keep, a CRD among them with every object of its kind (Helm never deletes "
                "its crds/)"), destructive=True))
        elif before is None:
            changes.append(Change("create", lid, f"Helm release {after.get('Release')} is installed "
                                                 f"({_chart(after)})"))
        elif (before.get("Release"), before.get("Namespace")) != (after.get("Release"), after.get("Namespace")):
            changes.append(Change("fail", lid, (
                f"Helm release {before.get('Release')} ({before.get('Namespace', 'default')}) becomes "
                f"{after.get('Release')} ({after.get('Namespace', 'default')}): `helm upgrade --install` installs a "
                "second release beside the old one, which stays installed and unmanaged, and Helm refuses objects the "
                "old release owns"), destructive=True))
        elif before != after:
            what = ("chart " + f"{_chart(before)} -> {_chart(after)}" if _chart(before) != _chart(after)
                    else "values")
            changes.append(Change("update", lid, f"Helm release {after.get('Release')}: `helm upgrade` ({what})"))
    return changes


def _chart(props: Mapping[str, Any]) -> str:
    chart, version = release_chart(props)
    chart = str(chart or props.get("ChartAssetURL") or "?").rstrip("/").rsplit("/", 1)[-1]
    return f"{chart} {version}".strip()
