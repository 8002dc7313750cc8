"""TrainingPlatformStack: one environment of the platform, built in order from a validated config.

network -> cluster -> node capacity -> storage -> cluster services. Each step is a construct from
``eks_training.constructs`` or a chart from ``eks_training.workloads``, given plain values from the config.
"""

from __future__ import annotations

import cdk8s
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import Acknowledgment, CfnOutput, Environment, Fn, RemovalPolicy, Stack, Tags, Validations
from constructs import Construct


from eks_training.constructs.api_tunnel import ApiTunnel
from eks_training.constructs.buckets import TrainingBuckets
from eks_training.constructs.cluster import TrainingCluster
from eks_training.constructs.observability import retention_from_days
from eks_training.core.catalog import INSTANCE_TYPES
from eks_training.constructs.network import TrainingNetwork
from eks_training.constructs.node_groups import AcceleratedNodeGroup
from eks_training.constructs.reservation_drain import ReservationDrain
from eks_training.constructs.training_images import TrainingImages
from eks_training.constructs.storage import DataRepositoryAssociation, LustreStorage, ModelStore, lustre_nid_range
from eks_training.core.names import SLURM_EFA_GROUP_TAG, SLURM_NAMESPACE, SLURM_PARTITION_TAINT, slurm_pool_name
from eks_training.core.validation import DEPLOY_ACCOUNT
from eks_training.infra.addons.karpenter import Karpenter
from eks_training.infra.addons.network_policies import egress_of, load_balancer_clients
from eks_training.infra.addons.team import TrainingTeam
from eks_training.infra.cluster_services import ClusterServices
from eks_training.infra.config import PlatformConfig
from eks_training.core.versions import JUPYTERHUB
from eks_training.workloads.karpenter import KarpenterPool, NodeTaint
from eks_training.workloads.namespaces import NamespaceQuota, TrainingNamespace, TrainingNamespacesChart
from eks_training.core.names import RAY_SERVICE_ACCOUNT, TRAINING_SERVICE_ACCOUNT
from eks_training.infra.addons.slinky import slurm_cluster_name
from eks_training.workloads.jupyterhub import PROXY_PUBLIC_SERVICE
from eks_training.workloads.service_exposure import ExposedService, ServiceExposureChart
from eks_training.workloads.slinky import login_service_name
from eks_training.workloads.fsx_volumes import add_workspace_directories_job
from eks_training.workloads.storage import EFS_STORAGE_CLASS, FsxVolume, StorageChart
from eks_training.workloads.training_identity import TrainingServiceAccountsChart

#: AWS managed policies the CSI drivers' documentation prescribes for their controllers.
_CSI_DRIVERS = {
    # None: a policy of our own (LustreStorage.grant_csi_driver), narrower than AmazonFSxFullAccess.
    "aws-fsx-csi-driver": ("FsxCsi", "fsx-csi-controller-sa", None),
    "aws-efs-csi-driver": ("EfsCsi", "efs-csi-controller-sa", "service-role/AmazonEFSCSIDriverPolicy"),
}


class TrainingPlatformStack(Stack):
    """The whole platform of one environment. Attributes: ``config``, ``network``, ``cluster``."""

    def __init__(self, scope: Construct, id: str, *, config: PlatformConfig) -> None:
        super().__init__(scope, id, env=Environment(account=config.account, region=config.region),
                         description=f"eks-training platform, environment {config.name}",
                         termination_protection=config.termination_protection)
        self.config = config
        for key, value in {"eks-training/environment": config.name, **config.tags}.items():
            Tags.of(self).add(key, value)
        Validations.of(self).acknowledge(Acknowledgment(
            id="CloudFormation-Validate::W3010",
            reason="Availability zones are explicit config: synth makes no lookups (runs offline) and EFA needs one fixed training AZ"))
        removal = RemovalPolicy.RETAIN if config.storage.buckets.retain else RemovalPolicy.DESTROY
        cluster_name = f"eks-training-{config.name}"

        self.network = TrainingNetwork(
            self, "Network", availability_zones=config.availability_zones, training_az=config.training_az,
            cidr=config.network.cidr, nat_gateways=config.network.nat_gateways,
            vpc_endpoints=config.network.vpc_endpoints, training_prefix=config.training_prefix(),
            cluster_name=cluster_name,
            # The audit trail (flow logs here, the control plane's below) is kept its own time, past a destroy where
            # the environment retains its data.
            flow_log_retention=retention_from_days(config.cluster.audit_log_retention_days),
            flow_log_removal_policy=removal)
        self.cluster = TrainingCluster(
            self, "Cluster", vpc=self.network.vpc, version=config.kubernetes_version, cluster_name=cluster_name,
            endpoint_access=config.cluster.endpoint_access, public_access_cidrs=config.cluster.public_access_cidrs,
            admin_role_arns=config.cluster.admin_role_arns, addon_versions=config.cluster.addon_versions,
            system_instance_type=config.system_nodes.instance_type, system_min_size=config.system_nodes.min_size,
            system_desired_size=config.system_nodes.desired_size, system_max_size=config.system_nodes.max_size,
            system_disk_gib=config.system_nodes.disk_gib, removal_policy=RemovalPolicy.DESTROY,
            network_policy=config.services.network_policies, vpc_cidr=config.network.cidr,
            bootstrap_creator_admin=config.cluster.bootstrap_creator_admin,
            control_plane_log_retention=retention_from_days(config.cluster.audit_log_retention_days),
            log_removal_policy=removal)
        if config.cluster.has_api_tunnel:
            self.api_tunnel = ApiTunnel(self, "ApiTunnel", vpc=self.network.vpc,
                                        api_security_group=self.cluster.control_plane_security_group)
            for name, value, what in (
                    ("ApiTunnelInstanceId", self.api_tunnel.instance.ref, "the API tunnel's instance (README: Reach a "
                     "private cluster)"),
                    ("ApiTunnelEndpointId", self.api_tunnel.endpoint.attr_id, "the EC2 Instance Connect Endpoint of the "
                     "API tunnel"),
                    ("ApiTunnelOperatorPolicyArn", self.api_tunnel.operator_policy.managed_policy_arn, "attach to the "
                     "roles that may open the API tunnel")):
                CfnOutput(self, name, value=value, description=what)
        # One cdk8s app holds every chart this stack applies to the cluster (the add-ons make theirs there too).
        self.k8s = self.cluster.k8s_app
        self._add_node_groups()
        team = config.team_nodes
        self.cluster.add_team_node_group(subnets=[self.network.training_subnet], instance_type=team.instance_type,
                                         min_size=team.min_size, desired_size=team.desired_size,
                                         max_size=team.max_size, disk_gib=team.disk_gib)
        self._add_karpenter(cluster_name)
        self._add_reservation_drain()
        self._add_data(removal)
        self._add_teams()
        self._add_namespaces()
        self._add_storage()
        self.images = self._add_images()
        self.services = ClusterServices(self, "Services", config=config, cluster=self.cluster, images=self.images,
                                        pod_identity_agent=self.cluster.addons["eks-pod-identity-agent"],
                                        namespaces_manifest=self.namespaces_manifest,
                                        storage_manifest=self.storage_manifest, node_pools=self.node_pools)

    def _add_images(self) -> dict[str, str]:
        """The image of each variant the environment runs: built by `cdk deploy` from `training/`, or from config."""
        config, images = self.config, self.config.images
        needed = [v for v, used in (("gpu", "nvidia" in config.accelerators()), ("neuron", "neuron" in config.accelerators()),
                                    ("ray", config.services.kuberay),
                                    ("slurmd", config.services.slinky and bool(config.services.slurm_partitions))) if used]
        if not images.build_training_images:
            return {v: getattr(images, f"{v}_image") for v in needed if getattr(images, f"{v}_image")}
        if not needed:
            return {}
        built = TrainingImages(self, "TrainingImages", variants=needed)
        for variant, uri in built.image_uris.items():
            CfnOutput(self, f"{variant.capitalize()}ImageUri", value=uri,
                      description=f"the {variant} training image (eks-training render uses it)")
        return dict(built.image_uris)

    def _workload_namespaces(self) -> list[str]:
        """Namespaces where pods use the platform's storage and training identity."""
        names = [n.name for n in self.config.training_namespaces]
        services = self.config.services
        if services.slinky and services.slurm_partitions:
            names.append(SLURM_NAMESPACE)
        if services.jupyterhub:
            names.append(JUPYTERHUB.namespace)
        return names

    def _add_teams(self) -> None:
        """A :class:`TrainingTeam` per training namespace: its pods' role and bucket prefix, its members' access. Its
        namespace, accounts, volumes and policies go into the platform's shared manifests (``shared``), which hold
        them on every platform deployed before teams were constructs: moving them to other manifests would delete
        them (CloudFormation deletes the old manifest, kubectl the objects, after the new one applied them)."""
        services = self.config.services
        operators = tuple(name for name, on in (("volcano", services.volcano), ("kuberay", services.kuberay),
                                                ("mpi-operator", services.mpi_operator)) if on)
        self.teams: dict[str, TrainingTeam] = {}
        for team in self.config.training_namespaces:
            quota = self.config.namespace_quota(team.name)
            self.teams[team.name] = TrainingTeam(
                self, f"Team-{team.name}", cluster=self.cluster, namespace=team.name, members=team.members,
                operators=operators, buckets=self.buckets, fsx=self.lustre, shared=True,
                models_storage_class=EFS_STORAGE_CLASS if self.models else None,
                network_policies=services.network_policies, vpc_cidr=self.config.network.cidr,
                egress=egress_of(self.config),
                quota=NamespaceQuota(cpu=quota["max_cpu"], memory=f"{quota['max_memory_gib']}Gi",
                                     nvidia_gpus=quota["max_gpus"], neuron_devices=quota["max_neuron_devices"],
                                     pods=quota["max_pods"]))

    def _add_namespaces(self) -> None:
        namespaces = [team.namespace_spec for team in self.teams.values()]
        extra = {SLURM_NAMESPACE: ("slinky",), JUPYTERHUB.namespace: ("jupyterhub",)}
        namespaces += [TrainingNamespace(name=n, operators=extra[n]) for n in self._workload_namespaces() if n in extra]
        chart = TrainingNamespacesChart(self.k8s, "namespaces", namespaces=namespaces)
        # Never pruned: the kubectl handler updates with `kubectl apply --prune`, and Namespace is in kubectl's
        # default prune list, so a namespace renamed, removed or turned off (Slurm, JupyterHub) would be deleted with
        # every job, claim and Secret in it. It is left behind instead, and the change stage names it (its quota
        # and limits, the manifest's other kinds, are not in the prune list either).
        self.namespaces_manifest = self.cluster.cluster.add_cdk8s_chart("Namespaces", chart, prune=False)
        for team in self.teams.values():  # their members' Roles go into their namespaces
            team.manifest.node.add_dependency(self.namespaces_manifest)
        # No LoadBalancer or NodePort Service in a workload namespace (workloads.service_exposure), but the internal
        # load balancers of the hub and the Slurm login, each in its one allowed shape.
        exposure = ServiceExposureChart(self.k8s, "service-exposure", namespaces=[n.name for n in namespaces],
                                        exposed=self._exposed_services())
        self.service_exposure_manifest = self.cluster.cluster.add_cdk8s_chart("ServiceExposure", exposure)

    def _exposed_services(self) -> list[ExposedService]:
        config, exposed = self.config, []
        if clients := load_balancer_clients(config, "jupyterhub"):
            exposed.append(ExposedService(JUPYTERHUB.namespace, PROXY_PUBLIC_SERVICE, clients))
        if clients := load_balancer_clients(config, "slurm_login"):
            exposed.append(ExposedService(SLURM_NAMESPACE, login_service_name(slurm_cluster_name(config)), clients))
        return exposed

    def _add_data(self, removal: RemovalPolicy) -> None:
        """The buckets and file systems (their in-cluster side comes with the namespaces, :meth:`_add_storage`)."""
        config, storage = self.config, self.config.storage
        self.buckets = TrainingBuckets(
            self, "Buckets", data_bucket_name=storage.buckets.data_bucket_name,
            checkpoint_bucket_name=storage.buckets.checkpoint_bucket_name, retain=storage.buckets.retain,
            noncurrent_checkpoint_expiry_days=storage.buckets.noncurrent_checkpoint_days,
            # Data only through the VPC's S3 endpoints, where it has them; the admins also from their own machines.
            vpc_only=self.network.vpc if config.network.vpc_endpoints else None,
            unrestricted_principal_arns=[Fn.sub(arn) if DEPLOY_ACCOUNT in arn else arn
                                         for arn in config.cluster.admin_role_arns] if config.network.vpc_endpoints else ())
        peers = [self.cluster.cluster.cluster_security_group, self.network.efa_security_group]
        # The tag the scratch StorageClass puts on the file systems the FSx CSI driver creates: its role may touch
        # those and no other file system of the account.
        self.scratch_owner_tag = ("eks-training/scratch-of", f"eks-training-{self.config.name}")
        csi_addons = []
        self.lustre = self.models = None
        if storage.fsx.enabled:
            buckets = {"data": self.buckets.data_bucket, "checkpoints": self.buckets.checkpoint_bucket}
            self.lustre = LustreStorage(
                self, "Lustre", vpc=self.network.vpc, subnet=self.network.training_subnet, peer_security_groups=peers,
                capacity_gib=storage.fsx.storage_capacity_gib, deployment_type=storage.fsx.deployment_type,
                per_unit_throughput=storage.fsx.per_unit_storage_throughput,
                # Deleted with the stack even where data is retained: every directory a pod writes (its namespace's
                # workspace) exports to the checkpoint bucket and /data comes from the data bucket (the config keeps
                # both links), so the retained buckets hold the data. A retained file system would keep its network
                # interfaces in the training subnet and its security group, so neither they nor the VPC could go.
                removal_policy=RemovalPolicy.DESTROY,
                # Where data is retained, a replacement (an acknowledged change of a create-only setting) keeps the
                # old file system and its files instead of deleting them.
                retain_on_replacement=storage.buckets.retain,
                backup_retention_days=storage.fsx.backup_retention_days,
                # Root squash for every client but the system nodes, where the workspace Job creates the namespaces'
                # directories (only platform pods run there: the nodes are tainted for them); a root on any
                # accelerated, Slurm or team CPU node (all in the training subnet) is nobody.
                no_squash_nids=[lustre_nid_range(s.ipv4_cidr_block) for s in self.network.private_subnets],
                data_repository_associations=[DataRepositoryAssociation(
                    file_system_path=a.file_system_path, bucket_name=buckets[a.bucket].bucket_name, prefix=a.s3_prefix,
                    auto_import_events=a.auto_import, auto_export_events=a.auto_export)
                    for a in storage.fsx.data_repository_associations])
            csi_addons.append("aws-fsx-csi-driver")
        if storage.efs.enabled:
            self.models = ModelStore(self, "Models", vpc=self.network.vpc, subnets=self.network.private_subnets,
                                     peer_security_groups=peers[:1], removal_policy=removal,
                                     backups=storage.efs.backups)
            csi_addons.append("aws-efs-csi-driver")
        self.csi_addons = csi_addons

    def _add_storage(self) -> None:
        storage = self.config.storage
        addons = []
        for name in self.csi_addons:
            id, service_account, policy = _CSI_DRIVERS[name]
            role = self.cluster.pod_identity_role(id, [policy] if policy else [], namespace="kube-system",
                                                  service_accounts=[service_account])
            if name == "aws-fsx-csi-driver":
                self.lustre.grant_csi_driver(role, owner_tag=self.scratch_owner_tag)
            addons.append(self.cluster.add_addon(name, pod_identity_associations=[
                {"roleArn": role.role_arn, "serviceAccount": service_account}]))

        # One identity per workload namespace: it reads the data bucket and reads/writes checkpoints under
        # `<namespace>/` only, so one team's jobs (or a notebook) cannot read or delete another's checkpoints. Each
        # team made its own (TrainingTeam); Slurm and JupyterHub get theirs here, through the same cluster verbs.
        namespaces = self._workload_namespaces()
        ray_namespaces = [ns for ns, team in self.teams.items() if RAY_SERVICE_ACCOUNT in team.service_accounts]
        self.training_roles = {ns: team.role for ns, team in self.teams.items()}
        for ns in namespaces:
            if ns in self.teams:
                continue
            role = self.cluster.pod_identity_role(f"Training-{ns}", namespace=ns,
                                                  service_accounts=[TRAINING_SERVICE_ACCOUNT])
            # Notebooks belong to people: each reaches only its own pod's prefix (workloads.jupyterhub mounts the
            # same folder of the workspace, which the file system exports there).
            self.buckets.grant_training_access(role, checkpoint_prefix=ns, per_pod=ns == JUPYTERHUB.namespace)
            self.training_roles[ns] = role
        # add_manifest named its resource "manifest-<id>", add_cdk8s_chart names it "<id>": the old name keeps the
        # logical ID, so CloudFormation updates the manifest in place. A new ID would replace it, and deleting the
        # old manifest (after the new one is applied) would delete the very ServiceAccounts the new one applied.
        # Ray runs in the training namespaces (its jobs and the shared RayCluster), as its own account: KubeRay binds
        # the autoscaler's rights to it (workloads.training_identity).
        accounts = self.cluster.cluster.add_cdk8s_chart(
            "manifest-TrainingServiceAccounts",
            TrainingServiceAccountsChart(self.k8s, "training-service-accounts", namespaces=namespaces,
                                         ray_namespaces=ray_namespaces))
        accounts.node.add_dependency(self.namespaces_manifest)
        for ns in namespaces:
            if ns not in self.teams:
                self.cluster.grant_pod_identity(f"Training-{ns}", namespace=ns,
                                                service_account=TRAINING_SERVICE_ACCOUNT, role=self.training_roles[ns])

        # Always: the default gp3 StorageClass serves claims that name no class (hub and controller state).
        fsx = self.lustre
        chart = StorageChart(
            self.k8s, "storage", namespaces=namespaces,
            fsx=FsxVolume(fsx.file_system_id, fsx.dns_name, fsx.mount_name, storage.fsx.storage_capacity_gib) if fsx else None,
            efs_file_system_id=self.models.file_system_id if self.models else None,
            scratch_storage_class=bool(fsx), scratch_subnet_id=self.network.training_subnet.subnet_id if fsx else None,
            scratch_security_group_ids=[fsx.security_group.security_group_id] if fsx else (),
            scratch_tags=dict([self.scratch_owner_tag]) if fsx else None, workspace_job=False)
        # Never pruned, for its PersistentVolumes and claims (kubectl's prune list has both): a namespace left
        # behind keeps its volumes, and the change stage names what stays.
        self.storage_manifest = self.cluster.cluster.add_cdk8s_chart("Storage", chart, prune=False)
        # The volumes mount directories the data repository associations make, through the CSI drivers (the gp3
        # default class's EBS driver too): all exist first and, on destroy, outlive every claim of the stack.
        self.storage_manifest.node.add_dependency(self.namespaces_manifest, *addons,
                                                  self.cluster.addons["aws-ebs-csi-driver"],
                                                  *(self.lustre.associations if self.lustre else ()))
        if fsx:
            self._add_workspace_job(namespaces)

    def _add_workspace_job(self, namespaces: list[str]) -> None:
        """The Job that makes each namespace's workspace directories, in a manifest of its own that prunes: its
        name follows what it renders, so a changed Job is a new one and the update's prune deletes the finished
        old one (the storage manifest must never prune). A child of the storage manifest, so that whatever waits
        for the storage waits for the Job (and its waiter) too; the deploy waits for it to succeed."""
        chart = cdk8s.Chart(self.k8s, "storage-workspaces")
        add_workspace_directories_job(chart, namespaces)
        manifest = eks.KubernetesManifest(self.storage_manifest, "WorkspaceDirectories", cluster=self.cluster.cluster,
                                          manifest=chart.to_json(), prune=True)
        manifest.node.add_dependency(self.storage_manifest.node.find_child("Resource"))  # its root claim
        self.cluster.wait_for_jobs(manifest, chart.to_json())

    def _add_node_groups(self) -> None:
        config = self.config
        self.node_groups: dict[str, AcceleratedNodeGroup] = {}
        for accelerator, groups in (("nvidia", config.capacity.gpu_node_groups),
                                    ("neuron", config.capacity.trainium_node_groups)):
            for group in groups:
                self.node_groups[group.name] = AcceleratedNodeGroup(
                    self, f"NodeGroup-{group.name}", cluster=self.cluster, instance_type=group.instance_type,
                    accelerator=accelerator, subnet=self.network.training_subnet, node_role=self.cluster.node_role,
                    efa_security_group=self.network.efa_security_group, efa=group.efa, min_size=group.min_size,
                    desired_size=group.desired_size, max_size=group.max_size, capacity_type=group.capacity_type,
                    capacity_reservation_id=group.capacity_reservation_id, nodegroup_name=group.eks_name,
                    root_volume_gib=group.root_volume.size_gib, root_volume_iops=group.root_volume.iops,
                    root_volume_throughput=group.root_volume.throughput_mibps)

    def _add_reservation_drain(self) -> None:
        """Where a node source launches into a capacity reservation or Capacity Block, its nodes are drained before
        the reservation ends."""
        capacity = self.config.capacity
        reservations = [*(g.capacity_reservation_id for g in (*capacity.gpu_node_groups, *capacity.trainium_node_groups)
                          if g.capacity_reservation_id),
                        *(r for pool in capacity.karpenter_pools for r in pool.capacity_reservation_ids)]
        self.reservation_drain = ReservationDrain(self, "ReservationDrain", cluster=self.cluster,
                                                  reservation_ids=reservations) if reservations else None

    def _add_karpenter(self, cluster_name: str) -> None:
        config = self.config
        self.karpenter = self.node_pools = None
        slurm = config.services.slurm_partitions if config.services.slinky else ()
        if not (config.services.karpenter and (config.capacity.karpenter_pools or slurm)):
            return
        self.network.tag_for_karpenter(cluster_name)
        pools = [KarpenterPool(
            name=pool.name, accelerator=pool.accelerator, instance_types=pool.instance_types, zone=config.training_az,
            accelerator_limit=pool.max_accelerators, capacity_types=pool.capacity_types,
            capacity_reservation_ids=pool.capacity_reservation_ids, efa=pool.efa,
            local_nvme=all(INSTANCE_TYPES[t].local_nvme_gb > 0 for t in pool.instance_types))
            for pool in config.capacity.karpenter_pools]
        # slurmd runs privileged, so its pod is root on its node: each partition gets nodes of its own, tainted so that
        # nothing else lands there, under a node role of their own (EKS worker and ECR pulls only), with an EFA group
        # of their own (EFA bypasses NetworkPolicies: a Slurm root reaches no team node's EFA interfaces).
        slurm_efa_tag = (SLURM_EFA_GROUP_TAG, cluster_name)
        if slurm:
            self.slurm_efa_security_group = self.network.add_efa_group(
                "SlurmEfa", tag=slurm_efa_tag, description="EFA among the nodes of the Slurm partitions only")
        for partition in slurm:
            facts = INSTANCE_TYPES[partition.instance_type]
            pools.append(KarpenterPool(
                name=slurm_pool_name(partition.name), accelerator=facts.accelerator,
                instance_types=(partition.instance_type,), zone=config.training_az,
                accelerator_limit=max(partition.replicas, partition.max_nodes) * facts.accelerators,
                efa=facts.efa_supported, local_nvme=facts.local_nvme_gb > 0, node_role_name=f"{cluster_name}-slurm-node",
                taints=(NodeTaint(SLURM_PARTITION_TAINT, value=partition.name),), security_group_tag=slurm_efa_tag))
        # Node repair reads the node monitoring agent's conditions: on with the observability add-on.
        self.karpenter = Karpenter(self, "Karpenter", cluster=self.cluster, cluster_name=cluster_name, pools=pools,
                                   node_repair=config.observability.enabled,
                                   ami_version=config.capacity.karpenter_ami_release)
        self.node_pools = self.karpenter.pools_manifest

    @property
    def availability_zones(self) -> list[str]:
        # Explicit zones from config: synth never looks them up, so it runs offline with no credentials.
        return list(self.config.availability_zones)
