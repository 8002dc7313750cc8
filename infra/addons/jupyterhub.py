"""JupyterHub (Zero to JupyterHub) with one notebook profile per instance type the environment creates on demand."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from constructs import Construct, IConstruct

from eks_training.constructs.cluster import TrainingCluster
from eks_training.core.names import TRAINING_SERVICE_ACCOUNT
from eks_training.core.versions import JUPYTERHUB
from eks_training.infra.addons import AddonEntry, ClusterAddon
from eks_training.infra.addons.network_policies import load_balancer_clients
from eks_training.workloads.jupyterhub import (HubLoadBalancer, NotebookProfile, OidcSignIn, jupyterhub_values,
                                               profiles_for)


class JupyterHub(ClusterAddon):
    """A JupyterHub whose notebooks run on the platform's nodes with its storage and identity.

    * ``profiles``: the notebook profiles users pick from (:func:`profiles_for` makes one per instance type).
    * ``gpu_image``, ``neuron_image``: the notebook images of GPU and Neuron profiles.
    * ``sign_in``: the OIDC provider users sign in through (:class:`OidcSignIn`). Default: none, which the deploy
      check fails (the chart's default lets anyone in).
    * ``load_balancer``: the hub over HTTPS through an internal NLB (:class:`HubLoadBalancer`), so notebook users need
      no Kubernetes access. Default: none (the proxy is a ClusterIP Service, reached by `kubectl port-forward`).
    * ``namespace``: where the hub and the notebooks run; it must exist with the FSx claims and
      ``training_service_account`` (pass what makes them in ``after``). Default: ``jupyterhub``.
    * ``training_service_account``: the notebooks' ServiceAccount. Default: ``training``.

    Attributes: ``release`` (the Helm release).
    """

    def __init__(self, scope: Construct, id: str, *, cluster: TrainingCluster, profiles: Sequence[NotebookProfile],
                 gpu_image: str, neuron_image: str, sign_in: OidcSignIn | None = None,
                 load_balancer: HubLoadBalancer | None = None,
                 namespace: str = JUPYTERHUB.namespace, training_service_account: str = TRAINING_SERVICE_ACCOUNT,
                 after: Sequence[IConstruct] = ()) -> None:
        super().__init__(scope, id, cluster=cluster, after=after)
        values = jupyterhub_values(sign_in=sign_in, load_balancer=load_balancer, namespace=namespace, training_service_account=training_service_account,
                                   profiles=list(profiles), gpu_image=gpu_image, neuron_image=neuron_image)
        self.release = self.add_release(dataclasses.replace(JUPYTERHUB, namespace=namespace), values,
                                        create_namespace=False)


def _build(scope, parts, after) -> JupyterHub:
    config = parts.config
    sign_in, balancer = config.services.jupyterhub_sign_in, config.services.jupyterhub_load_balancer
    return JupyterHub(
        scope, "JupyterHub", cluster=parts.cluster, sign_in=OidcSignIn(**sign_in.model_dump()) if sign_in else None,
        profiles=profiles_for(config.on_demand_instance_types()),
        load_balancer=HubLoadBalancer(balancer.certificate_arn, load_balancer_clients(config, "jupyterhub"))
        if balancer else None,
        gpu_image=parts.images.get("gpu") or parts.image("neuron"),
        neuron_image=parts.images.get("neuron") or parts.image("gpu"),
        after=[*after, *(m for m in (parts.namespaces_manifest, parts.storage_manifest) if m)])


# Its pods start under their namespace's NetworkPolicies (strict mode denies a pod until they exist).
ADDON = AddonEntry("jupyterhub", enabled=lambda config: config.services.jupyterhub, build=_build,
                   after_enabled=("network-policies",))
