"""A team: what `eks-training render`'s jobs need in a namespace of any cluster, and the team's people.

The job contract a rendered job relies on is the team's namespace (quota, container defaults, Pod Security), its
``training`` ServiceAccount (and ``ray`` where KubeRay runs) with the team's IAM role through Pod Identity (the data
bucket read-only, checkpoints under ``<namespace>/``), its FSx claims (``fsx-data`` read-only, ``fsx-workspace``),
NetworkPolicies (default deny, what jobs need) and a Kueue LocalQueue. :class:`TrainingTeam` makes all of it, and
gives the team's members namespace-scoped access (:mod:`eks_training.workloads.team_access`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import cdk8s
from aws_cdk import Fn
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct, IConstruct

from eks_training.constructs.buckets import TrainingBuckets
from eks_training.constructs.cluster import TrainingCluster
from eks_training.constructs.storage import LustreStorage
from eks_training.core.names import RAY_SERVICE_ACCOUNT, TRAINING_SERVICE_ACCOUNT
from eks_training.core.validation import DEPLOY_ACCOUNT, check_role_arn, invalid
from eks_training.core.versions import KUBERAY
from eks_training.infra.addons import ClusterAddon
from eks_training.workloads.fsx_volumes import FsxVolume, add_workspace_setup, namespace_volumes
from eks_training.workloads.k8s_objects import check_dns_subdomain, emit
from eks_training.workloads.namespaces import OPERATORS, NamespaceQuota, TrainingNamespace, add_namespace
from eks_training.workloads.network_policies import (WorkloadEgress, WorkloadNamespaces, add_namespace_policies,
                                                     platform_policies)
from eks_training.workloads.storage import models_claim
from eks_training.workloads.team_access import member_access_objects, member_group
from eks_training.workloads.training_identity import add_service_account


class TrainingTeam(ClusterAddon):
    """A team's namespace on a :class:`TrainingCluster`, with everything its rendered jobs need, and its members.

    * ``namespace``: the team's namespace (a DNS label; none of Kubernetes' own).
    * ``members``: IAM role ARNs of the team's people (``${AWS::AccountId}`` names the deploy account). Each gets an
      EKS access entry with no access policy, in the Kubernetes group :func:`member_group` whose Role lets them
      submit, watch and delete the job kinds `render` writes, read their pods' logs and events and exec into them,
      in this namespace only (no Secrets, RBAC, NetworkPolicies, quota, nothing cluster-wide). A role has one access
      entry per cluster: give it to one team, and not to an admin. Default: none.
    * ``quota``: the namespace's ResourceQuota (:class:`NamespaceQuota`). Default: none.
    * ``operators``: the operators whose objects the namespace holds (``volcano``, ``kuberay``, ``mpi-operator``):
      the namespace's labels; with ``kuberay`` the team gets the ``ray`` ServiceAccount (same AWS role) and the
      KubeRay operator may reach its Ray dashboards. Default: none.
    * ``buckets``: the team's role reads the data bucket and reads and writes checkpoints under ``<namespace>/``
      only (:meth:`TrainingBuckets.grant_training_access`). Default None: the role gets no bucket.
    * ``fsx``: the file system (:class:`LustreStorage` or an :class:`FsxVolume`) whose shared data (read-only) and
      team workspace the jobs mount; a Job in kube-system creates the workspace directories (it runs as root on the
      system nodes: give ``LustreStorage(no_squash_nids=...)`` their subnets). The cluster needs the FSx CSI driver
      (the ``aws-fsx-csi-driver`` add-on): name it in ``after``. Default: none.
    * ``models_storage_class``: the EFS model store's StorageClass (the platform's ``efs-models``): the team gets a
      ``models`` claim there. Default: none.
    * ``kueue``: the :class:`~eks_training.infra.addons.kueue.Kueue` add-on one of whose queues names this
      namespace: Kueue makes the team's LocalQueue there, after the namespace. Default: none (jobs are not queued).
    * ``network_policies``: default deny and the flows jobs need (:mod:`eks_training.workloads.network_policies`).
      Default: whether the cluster enforces them (``TrainingCluster(network_policy=...)``).
    * ``vpc_cidr``: where FSx and EFS are (the policies allow their ports there). Default: the cluster's.
    * ``egress``: where its pods may send traffic beyond the cluster (:class:`WorkloadEgress`). Default: HTTPS to
      the VPC only (its endpoints and the API server), nothing else.
    * ``shared``: the namespace, quota, ServiceAccounts, volumes and NetworkPolicies are applied by the platform's
      shared manifests (``TrainingPlatformStack``, where a deployed platform already holds them), and the team
      applies only its members' Role and RoleBinding; ``kubernetes_objects`` lists what the platform must apply.
      Default False: the team applies everything in one manifest of its own.

    The role, its Pod Identity associations and its bucket grant are made through the cluster's verbs
    (:meth:`TrainingCluster.pod_identity_role`, :meth:`TrainingCluster.grant_pod_identity`), so their construct
    paths are the cluster's, wherever the team is.

    Attributes: ``namespace``, ``role`` (the IAM role of its pods), ``service_accounts``, ``group`` (its members'
    Kubernetes group), ``access_entries`` (role ARN -> CfnAccessEntry), ``local_queue`` (the LocalQueue its jobs
    name, or None), ``kubernetes_objects`` (the namespace's objects, as the team or the platform applies them),
    ``namespace_spec`` (:class:`TrainingNamespace`), ``manifest`` (its own KubernetesManifest).
    """

    def __init__(self, scope: Construct, id: str, *, cluster: TrainingCluster, namespace: str,
                 members: Sequence[str] = (), quota: NamespaceQuota | None = None, operators: Sequence[str] = (),
                 buckets: TrainingBuckets | None = None, fsx: LustreStorage | FsxVolume | None = None,
                 models_storage_class: str | None = None, kueue: Construct | None = None,
                 network_policies: bool | None = None, vpc_cidr: str | None = None,
                 egress: WorkloadEgress = WorkloadEgress(), shared: bool = False,
                 after: Sequence[IConstruct] = ()) -> None:
        super().__init__(scope, id, cluster=cluster, after=after)
        where = self.node.path
        if isinstance(members, (str, bytes)):
            raise invalid(f"{where}: members", members, "use a list of IAM role ARNs")
        for i, arn in enumerate(members):
            check_role_arn(f"{where}: members[{i}]", arn)
        if len(set(members)) != len(members):
            raise invalid(f"{where}: members", list(members), "name each role once")
        if isinstance(operators, str):
            raise invalid(f"{where}: operators", operators, f"use a list of {', '.join(OPERATORS)}")
        self.namespace_spec = TrainingNamespace(name=namespace, operators=tuple(operators), quota=quota)
        self.namespace = namespace
        self.group = member_group(namespace)
        ray = "kuberay" in operators
        self.service_accounts = (TRAINING_SERVICE_ACCOUNT, *((RAY_SERVICE_ACCOUNT,) if ray else ()))
        self.network_policies = cluster.network_policy if network_policies is None else network_policies
        self.vpc_cidr = vpc_cidr or cluster.vpc_cidr
        self.egress = egress
        if self.network_policies and self.vpc_cidr is None:
            raise invalid(f"{where}: vpc_cidr", None, "the VPC's range as text (e.g. 10.0.0.0/16), here or as "
                          "TrainingCluster(vpc_cidr=...): the NetworkPolicies open FSx and EFS there")
        self.fsx = _volume(where, fsx)
        self.models_storage_class = models_storage_class
        self.local_queue = self._queue_of(kueue)

        # AWS: the pods' identity, its bucket prefix, its associations; the members' access entries.
        self.role = cluster.pod_identity_role(f"Training-{namespace}", namespace=namespace,
                                              service_accounts=self.service_accounts)
        if buckets is not None:
            buckets.grant_training_access(self.role, checkpoint_prefix=namespace)
        self.pod_identities = [cluster.grant_pod_identity(f"{'Ray' if account == RAY_SERVICE_ACCOUNT else 'Training'}-"
                                                          f"{namespace}", namespace=namespace, service_account=account,
                                                          role=self.role) for account in self.service_accounts]
        self.access_entries: dict[str, eks.CfnAccessEntry] = {}
        for arn in members:
            self.access_entries[arn] = self.grant_member(arn)

        # Kubernetes: the namespace's objects (applied here, or by the platform), the members' Role always here.
        self.kubernetes_objects = self._namespace_objects()
        chart = cdk8s.Chart(self.k8s, f"{self.node.path}/team")
        for obj in (*([] if shared else self.kubernetes_objects), *member_access_objects(namespace)):
            emit(chart, obj)
        if not shared and self.fsx is not None:
            # The workspace Job and the root claim it mounts, in kube-system: one per team.
            add_workspace_setup(chart, self.fsx, [namespace], root_claim=f"fsx-root-{namespace}")
        # Its volumes mount folders the data repository associations make (and the FSx CSI driver: pass it in after).
        self.manifest = self.add_chart("team", chart, after=[] if shared else getattr(fsx, "associations", ()))
        if kueue is not None:
            # Kueue's LocalQueue for this namespace waits for it (and goes before it on destroy).
            kueue.queue_manifests.node.add_dependency(self.manifest)

    def grant_member(self, role_arn: str) -> eks.CfnAccessEntry:
        """An access entry for ``role_arn`` in the team's group, with no access policy: RBAC alone authorizes it."""
        check_role_arn(f"{self.node.path}: role_arn", role_arn)
        principal = Fn.sub(role_arn) if DEPLOY_ACCOUNT in role_arn else role_arn
        # Keyed by the role, not its position: reordering members moves no access entry.
        return eks.CfnAccessEntry(self, f"Member{hashlib.sha256(role_arn.encode()).hexdigest()[:10]}",
                                  cluster_name=self.cluster.cluster.cluster_name, principal_arn=principal,
                                  kubernetes_groups=[self.group], type="STANDARD")

    def _queue_of(self, kueue: Construct | None) -> str | None:
        if kueue is None:
            return None
        queues = getattr(kueue, "queues", None)
        if queues is None:
            raise invalid(f"{self.node.path}: kueue", kueue.node.path, "the Kueue add-on (eks_training.addons.Kueue)")
        serving = [q.name for q in queues if self.namespace in q.namespaces]
        if not serving:
            raise invalid(f"{self.node.path}: kueue", kueue.node.path, f"a Kueue whose queues name namespace "
                          f"{self.namespace!r} (TeamQueue(namespaces=...)): its LocalQueue is made there")
        return serving[0]

    def _namespace_objects(self) -> list[dict]:
        """The namespace, its quota and container defaults, ServiceAccounts, FSx claims and NetworkPolicies."""
        scratch = cdk8s.App()
        chart = cdk8s.Chart(scratch, "objects")
        add_namespace(chart, self.namespace_spec)
        for account in self.service_accounts:
            add_service_account(chart, account, self.namespace)
        if self.fsx is not None:
            for obj in namespace_volumes(self.fsx, self.namespace):
                emit(chart, obj)
        if self.models_storage_class is not None:
            emit(chart, models_claim(self.namespace, check_dns_subdomain("models_storage_class",
                                                                         self.models_storage_class)))
        if self.network_policies:
            kuberay = KUBERAY.namespace if "kuberay" in self.namespace_spec.operators else None
            (policy,) = platform_policies(WorkloadNamespaces(training=(self.namespace,), kuberay_operator=kuberay))
            add_namespace_policies(chart, policy, vpc_cidr=self.vpc_cidr, egress_limits=self.egress)
        return chart.to_json()


def _volume(where: str, fsx: LustreStorage | FsxVolume | None) -> FsxVolume | None:
    if fsx is None or isinstance(fsx, FsxVolume):
        return fsx
    if isinstance(fsx, LustreStorage):
        return FsxVolume(fsx.file_system_id, fsx.dns_name, fsx.mount_name, fsx.capacity_gib)
    raise invalid(f"{where}: fsx", type(fsx).__name__, "a LustreStorage or an FsxVolume")

