"""Values for the official JupyterHub Helm chart (Zero to JupyterHub), with accelerator notebook profiles.

The lead installs the chart with `add_helm_chart` at `JUPYTERHUB_CHART_VERSION`; this module only builds its
values. Profiles are KubeSpawner `profileList` entries: each pins an instance type, tolerates its accelerator
taint and asks for its devices (and EFA on multi-GPU profiles). No hub cookie secret, proxy token or password is
set: the chart generates and keeps those in the cluster.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from eks_training.core.catalog import (
    ACCELERATOR_RESOURCE,
    EFA_RESOURCE,
    accelerator_tolerations,
    instance_facts,
    whole_node_requests,
)
from eks_training.workloads.k8s_objects import check_dns_label, check_dns_subdomain, check_int, check_unique
from eks_training.core.names import SYSTEM_NODE_SELECTOR, system_placement
from eks_training.core.validation import check_certificate_arn, check_oidc_sign_in, invalid, split_pinned_image
from eks_training.core.versions import JUPYTERHUB
from eks_training.core.names import DATA_PATH, WORKSPACE_PATH
from eks_training.workloads.fsx_volumes import WORKSPACE_VOLUME, fsx_mounts, fsx_pod_volumes
from eks_training.workloads.internal_load_balancer import InternalLoadBalancer

JUPYTERHUB_CHART_VERSION = JUPYTERHUB.version
#: Claims a user cannot change at their provider (OIDC's subject identifier; Cognito's own copy of it).
STABLE_USERNAME_CLAIMS = ("sub", "cognito:username")
#: Each notebook mounts only its own folder of the namespace's workspace: KubeSpawner expands {pod_name} (the pod
#: is jupyter-<user>), the folder the file system exports to s3://<checkpoints>/jupyterhub/<pod name>/, the prefix
#: that pod's role session may use (constructs.buckets, per_pod).
NOTEBOOK_WORKSPACE_SUBPATH = "{pod_name}"

_INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
_SLUG = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
# KubeSpawner's byte strings: a number with an optional K, M, G or T (binary multiples).
_KUBESPAWNER_BYTES = re.compile(r"^\d+(\.\d+)?[KMGT]?$")
_KUBESPAWNER_BYTE_FACTORS = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


@dataclass(frozen=True)
class NotebookProfile:
    """One notebook choice on the spawn page.

    `accelerators` GPUs or Neuron devices of `instance_type` (whose kind picks the GPU or Neuron image);
    `efa` adds every EFA interface of the instance; `mount_fsx` mounts the FSx claims at /fsx (the data read-only, its own folder of the workspace).
    `cpu_guarantee` (cores) and `mem_guarantee` (KubeSpawner bytes such as "64G", also the limit) must stay
    below the instance's capacity.
    """

    slug: str
    display_name: str
    description: str
    instance_type: str
    accelerators: int
    cpu_guarantee: float
    mem_guarantee: str
    efa: bool = False
    mount_fsx: bool = False
    default: bool = False

    def __post_init__(self) -> None:
        where = f"profile {self.slug!r}"
        if not isinstance(self.slug, str) or len(self.slug) > 63 or not _SLUG.match(self.slug):
            raise invalid("profile slug", self.slug, "use 1-63 lowercase letters, digits or '-'")
        for field in ("display_name", "description"):
            if not isinstance(getattr(self, field), str) or not getattr(self, field).strip():
                raise invalid(f"{where}: {field}", getattr(self, field), "give a non-empty text")
        facts = instance_facts(self.instance_type, field=f"{where}: instance_type")
        check_int(f"{where}: accelerators", self.accelerators, minimum=1, maximum=facts.accelerators)
        if self.efa and not facts.efa_supported:
            raise invalid(f"{where}: efa", True, f"False: instance_type={self.instance_type!r} has no EFA")
        if isinstance(self.cpu_guarantee, bool) or not isinstance(self.cpu_guarantee, (int, float)) or not (
            0 < self.cpu_guarantee < facts.vcpus
        ):
            raise invalid(f"{where}: cpu_guarantee", self.cpu_guarantee,
                          f"use cores above 0 and below the {facts.vcpus} vCPUs of {self.instance_type}")
        if not isinstance(self.mem_guarantee, str) or not _KUBESPAWNER_BYTES.match(self.mem_guarantee):
            raise invalid(f"{where}: mem_guarantee", self.mem_guarantee, "use a number with K, M, G or T, e.g. '64G'")
        if _kubespawner_bytes(self.mem_guarantee) >= facts.memory_gib * 2**30:
            raise invalid(f"{where}: mem_guarantee", self.mem_guarantee,
                          f"stay below the {facts.memory_gib}G of {self.instance_type}")

    @property
    def accelerator(self) -> str:
        """"nvidia" or "neuron", from the instance type."""
        return instance_facts(self.instance_type).accelerator


def _kubespawner_bytes(text: str) -> float:
    suffix = text[-1] if text[-1] in _KUBESPAWNER_BYTE_FACTORS else ""
    return float(text[: len(text) - len(suffix)]) * _KUBESPAWNER_BYTE_FACTORS.get(suffix, 1)


#: The source document's three choices: one GPU to explore, a whole 8-GPU node with EFA and FSx for
#: multi-GPU work, and a whole Trainium node (16 Neuron devices) with FSx.
DEFAULT_NOTEBOOK_PROFILES: tuple[NotebookProfile, ...] = (
    NotebookProfile(
        slug="gpu-1",
        display_name="1x NVIDIA A10G GPU (g5.xlarge)",
        description="Interactive development on one GPU.",
        instance_type="g5.xlarge",
        accelerators=1,
        cpu_guarantee=3,
        mem_guarantee="12G",
        default=True,
    ),
    NotebookProfile(
        slug="gpu-8",
        display_name="8x NVIDIA A100 GPUs with EFA and FSx (p4d.24xlarge)",
        description="Multi-GPU development on a whole node; FSx for Lustre at /fsx.",
        instance_type="p4d.24xlarge",
        accelerators=8,
        cpu_guarantee=90,
        mem_guarantee="1000G",
        efa=True,
        mount_fsx=True,
    ),
    NotebookProfile(
        slug="trainium",
        display_name="16x AWS Trainium devices (trn1.32xlarge)",
        description="Neuron development on a whole Trainium node; FSx for Lustre at /fsx.",
        instance_type="trn1.32xlarge",
        accelerators=16,
        cpu_guarantee=120,
        mem_guarantee="480G",
        mount_fsx=True,
    ),
)


def profiles_for(instance_types: Sequence[str]) -> tuple[NotebookProfile, ...]:
    """One whole-node profile per instance type the environment can create on demand, smallest first (the default).

    A profile the platform cannot give a node to would spawn a notebook that stays Pending: derive the list from
    the capacity, never from a fixed catalogue.
    """
    profiles = []
    for instance_type in sorted(dict.fromkeys(instance_types), key=lambda t: (instance_facts(t).accelerators, t)):
        facts = instance_facts(instance_type)
        cpu, memory = whole_node_requests(instance_type)  # the notebook owns the node
        profiles.append(NotebookProfile(
            slug=instance_type.replace(".", "-"),
            display_name=f"{facts.accelerators}x {facts.accelerator_name} ({instance_type})",
            description=f"A whole {instance_type}: {facts.accelerators} {facts.accelerator_name}, shared data (read-only) at {DATA_PATH}, your own folder of the workspace at {WORKSPACE_PATH}.",
            instance_type=instance_type, accelerators=facts.accelerators, cpu_guarantee=int(cpu),
            mem_guarantee=memory.removesuffix("i"), efa=facts.efa_supported, mount_fsx=True, default=not profiles))
    return tuple(profiles)


def _profile_entry(profile: NotebookProfile, *, image: str) -> dict[str, Any]:
    facts = instance_facts(profile.instance_type)
    devices = {ACCELERATOR_RESOURCE[profile.accelerator]: str(profile.accelerators)}
    if profile.efa:
        # Without the EFA devices in the pod, NCCL silently falls back to TCP.
        devices[EFA_RESOURCE] = str(facts.efa_interfaces)
    # Dict-shaped volumes are merged into the chart's own (the home volume); lists would replace them.
    volumes: dict[str, Any] = {"shm": {"name": "shm", "emptyDir": {"medium": "Memory"}}}
    volume_mounts: dict[str, Any] = {"shm": {"name": "shm", "mountPath": "/dev/shm"}}
    if profile.mount_fsx:
        volumes.update({volume["name"]: volume for volume in fsx_pod_volumes()})
        volume_mounts.update({mount["name"]: mount for mount in fsx_mounts()})
        volume_mounts[WORKSPACE_VOLUME] = {**volume_mounts[WORKSPACE_VOLUME], "subPath": NOTEBOOK_WORKSPACE_SUBPATH}
    entry: dict[str, Any] = {
        "display_name": profile.display_name,
        "slug": profile.slug,
        "description": profile.description,
        "kubespawner_override": {
            "image": image,
            "node_selector": {_INSTANCE_TYPE_LABEL: profile.instance_type},
            # A list replaces the chart's user-node tolerations, which do not apply on accelerator nodes.
            "tolerations": accelerator_tolerations(profile.accelerator),
            "cpu_guarantee": profile.cpu_guarantee,
            "mem_guarantee": profile.mem_guarantee,
            "mem_limit": profile.mem_guarantee,
            # Extended resources need equal requests and limits.
            "extra_resource_guarantees": devices,
            "extra_resource_limits": dict(devices),
            "volumes": volumes,
            "volume_mounts": volume_mounts,
        },
    }
    if profile.default:
        entry["default"] = True
    return entry


#: Hub configuration (run after the chart's own): with no client secret in the hub's environment, no one is allowed
#: to sign in, admins included. `kubectl -n jupyterhub rollout restart deployment/hub` once the Secret exists.
REFUSE_SIGN_IN_WITHOUT_CLIENT_SECRET = """\
import os

if not os.environ.get("OAUTH_CLIENT_SECRET"):
    for setting in ("allowed_users", "allowed_groups", "admin_users"):
        setattr(c.GenericOAuthenticator, setting, set())
    c.GenericOAuthenticator.allow_all = False
    c.GenericOAuthenticator.allow_existing_users = False
"""


@dataclass(frozen=True)
class OidcSignIn:
    """Sign-in through an OpenID Connect provider (Amazon Cognito, Okta, Entra ID...) with an allow-list.

    The client secret never enters a template: ``client_secret_name`` names a Kubernetes Secret (key
    ``client-secret``) in the hub's namespace that the operator creates after the deploy (`kubectl create secret
    generic`, then restart the hub): until then the hub starts and refuses every sign-in.
    ``callback_url`` defaults to the hub reached by `kubectl port-forward svc/proxy-public 8000:80`.
    """

    authorize_url: str
    token_url: str
    userdata_url: str
    client_id: str
    client_secret_name: str
    allowed_users: tuple[str, ...] = ()
    allowed_groups: tuple[str, ...] = ()
    callback_url: str = "http://localhost:8000/hub/oauth_callback"
    #: The claim that names the user: ``sub``, the provider's stable, never reassigned id. ``email`` (or a name) can
    #: be changed by the user at some providers, which would hand them another user's notebook, folder and prefix.
    username_claim: str = "sub"

    def __post_init__(self) -> None:
        # core.validation's check, which the config layer runs on services.jupyterhub_sign_in too.
        check_oidc_sign_in(authorize_url=self.authorize_url, token_url=self.token_url, userdata_url=self.userdata_url,
                           callback_url=self.callback_url, client_id=self.client_id, allowed_users=self.allowed_users,
                           allowed_groups=self.allowed_groups, prefix="sign-in ")
        check_dns_subdomain("sign-in client_secret_name", self.client_secret_name)
        if self.username_claim not in STABLE_USERNAME_CLAIMS:
            raise invalid("sign-in username_claim", self.username_claim,
                          f"one of {', '.join(STABLE_USERNAME_CLAIMS)} (a claim the user cannot change: the username "
                          "picks the notebook, its folder and its S3 prefix)")

    def hub_values(self) -> dict[str, Any]:
        authenticator = {
            "client_id": self.client_id, "oauth_callback_url": self.callback_url,
            "authorize_url": self.authorize_url, "token_url": self.token_url, "userdata_url": self.userdata_url,
            "scope": ["openid", "email", "profile"], "username_claim": self.username_claim,
            **({"allowed_users": list(self.allowed_users)} if self.allowed_users else {}),
            **({"allowed_groups": list(self.allowed_groups), "claim_groups_key": "groups"} if self.allowed_groups else {}),
        }
        return {
            "config": {"JupyterHub": {"authenticator_class": "generic-oauth"}, "GenericOAuthenticator": authenticator},
            # OAuthenticator reads the secret from this variable: it stays in the cluster's Secret. Optional: the
            # Secret is made by a person after the deploy (the release's wait cannot wait for it), and until the hub
            # restarts with it, the extra config below lets nobody in.
            "extraEnv": {"OAUTH_CLIENT_SECRET": {"valueFrom": {"secretKeyRef": {
                "name": self.client_secret_name, "key": "client-secret", "optional": True}}}},
            "extraConfig": {"refuse-sign-in-without-client-secret": REFUSE_SIGN_IN_WITHOUT_CLIENT_SECRET},
        }


#: The z2jh chart's Service in front of the proxy (its name with the chart's default ``fullnameOverride: ""``).
PROXY_PUBLIC_SERVICE = "proxy-public"


@dataclass(frozen=True)
class HubLoadBalancer:
    """The hub reached by its users' browsers over HTTPS through an internal NLB (no kubectl, no Kubernetes identity:
    they sign in with the OIDC provider). ``certificate_arn``: the ACM certificate of the hub's host name (the one
    in the sign-in ``callback_url``), in the cluster's region; ``source_ranges``: the client networks it admits."""

    certificate_arn: str
    source_ranges: tuple[str, ...]

    def __post_init__(self) -> None:
        # Required: without a certificate the listener would be plain TCP, sign-in cookies in the clear.
        check_certificate_arn("hub load_balancer certificate_arn", self.certificate_arn)
        object.__setattr__(self, "source_ranges", self.internal_load_balancer().source_ranges)

    def internal_load_balancer(self) -> InternalLoadBalancer:
        # Targets: the system nodes, where the proxy runs (its nodeSelector below).
        return InternalLoadBalancer(tuple(self.source_ranges), dict(SYSTEM_NODE_SELECTOR),
                                    certificate_arn=self.certificate_arn, tls_port="https", where="hub load_balancer")


def _proxy_values(load_balancer: HubLoadBalancer | None) -> dict[str, Any]:
    chp = {**system_placement(), "networkPolicy": {"enabled": False}}
    if load_balancer is None:
        # ClusterIP: the chart's default LoadBalancer would be an internet-facing load balancer (kubectl
        # port-forward reaches it).
        return {"service": {"type": "ClusterIP"}, "chp": chp}
    nlb = load_balancer.internal_load_balancer()
    return {
        # "offload": the Service's https port (443) forwards to the proxy's plain http port, the NLB ends TLS; the
        # plain http port 80 is not on the Service at all.
        "https": {"enabled": True, "type": "offload"},
        "service": {"type": "LoadBalancer", "annotations": nlb.annotations(),
                    "loadBalancerSourceRanges": list(nlb.source_ranges), "disableHttpPort": True},
        "chp": chp,
    }


def jupyterhub_values(
    *,
    namespace: str,
    training_service_account: str,
    profiles: Sequence[NotebookProfile],
    gpu_image: str,
    neuron_image: str,
    sign_in: OidcSignIn | None = None,
    load_balancer: HubLoadBalancer | None = None,
) -> dict[str, Any]:
    """Values for the z2jh chart `JUPYTERHUB_CHART_VERSION`, to install as a release in `namespace`.

    The FSx claims (:mod:`eks_training.workloads.fsx_volumes`) and `training_service_account` must exist in
    `namespace` (the release's namespace, where notebook pods run): notebooks read the shared data and write only
    the namespace's workspace. The GPU image serves nvidia profiles and is the default image; the Neuron image serves
    Trainium profiles. ``sign_in`` replaces the chart's default (the dummy authenticator, which lets anyone in):
    without it the values keep the chart's default, which `eks-training check` reports as an open door.
    ``load_balancer`` puts the hub behind an internal NLB with TLS (:class:`HubLoadBalancer`); it needs ``sign_in``
    with an https:// callback on the certificate's host. Without it the hub is reached by `kubectl port-forward`.
    """
    check_dns_label("namespace", namespace)
    check_dns_subdomain("training_service_account", training_service_account)
    images = {"nvidia": gpu_image, "neuron": neuron_image}
    # The config layer holds images.*_image to the same rule, so a file that loads also synthesizes. z2jh pulls
    # f"{name}:{tag}": a digest rides in the tag ("tag@sha256:..."), which gives name:tag@sha256:... back.
    gpu_name, gpu_tag = split_pinned_image("gpu_image", gpu_image)
    split_pinned_image("neuron_image", neuron_image)
    profiles = list(profiles)
    if not profiles or not all(isinstance(p, NotebookProfile) for p in profiles):
        raise invalid("profiles", profiles, "give one or more NotebookProfile objects")
    check_unique("profile slugs", [p.slug for p in profiles])
    if load_balancer is not None:
        if not isinstance(load_balancer, HubLoadBalancer):
            raise invalid("load_balancer", load_balancer, "use a HubLoadBalancer")
        if sign_in is None or not sign_in.callback_url.startswith("https://"):
            raise invalid("sign-in callback_url", sign_in.callback_url if sign_in else None,
                          "https://<the hub's host name>/hub/oauth_callback with a load balancer: the provider sends "
                          "the browser back there, over the TLS listener")
    if sum(p.default for p in profiles) > 1:
        raise invalid("profiles default", [p.slug for p in profiles if p.default], "mark at most one default")
    return {
        # Hub and proxy are platform services: on the system nodes, never on accelerators. The chart's own
        # NetworkPolicies are off (hub, proxy, notebooks): they open egress to every private and public address and
        # to instance metadata, and policies only add up; the platform's (workloads.network_policies) allow exactly
        # hub <-> proxy <-> notebooks, DNS, HTTPS and the storage ports.
        "hub": {**system_placement(), "networkPolicy": {"enabled": False},
                **(sign_in.hub_values() if sign_in else {})},
        "proxy": _proxy_values(load_balancer),
        # Placeholders and the hook pre-puller would sit on system nodes (user pods go to accelerator nodes that
        # Karpenter creates per notebook): off. The user scheduler too: it packs user pods onto few nodes, which
        # Karpenter's consolidation does here, and z2jh 4.4.0 runs it as kube-scheduler v1.30, outside the supported
        # skew of our 1.31+ control planes; without it the cluster's own scheduler places notebooks. The continuous
        # pre-puller is a DaemonSet on every node, the system nodes too, that pulls every profile's image (the
        # multi-GB training images), and the release's wait would wait for those pulls: off too. A notebook's first
        # start on a fresh node pulls its image itself.
        "scheduling": {"userScheduler": {"enabled": False}, "userPlaceholder": {"enabled": False}},
        "prePuller": {"hook": {"enabled": False}, "continuous": {"enabled": False}},
        "singleuser": {
            # The chart's metadata block is a privileged NET_ADMIN init container, which the namespace's baseline
            # Pod Security level refuses: our NetworkPolicies close instance metadata instead.
            "cloudMetadata": {"blockWithIptables": False},
            "networkPolicy": {"enabled": False},
            "image": {"name": gpu_name, "tag": gpu_tag},
            "serviceAccountName": training_service_account,
            "profileList": [
                _profile_entry(p, image=images[p.accelerator]) for p in profiles
            ],
        },
    }
