"""JupyterHub (Zero to JupyterHub) with one notebook profile per instance type the environment creates on demand."""

from __future__ import annotations

from dataclasses import dataclass

from eks_training.core.names import TRAINING_SERVICE_ACCOUNT
from eks_training.core.versions import JUPYTERHUB
from eks_training.workloads.jupyterhub import OidcSignIn, jupyterhub_values, profiles_for


@dataclass(frozen=True)
class JupyterHub:
    name: str = "jupyterhub"
    depends_on: tuple[str, ...] = ()

    def enabled(self, config) -> bool:
        return config.services.jupyterhub

    def install(self, ctx):
        config = ctx.config
        sign_in = config.services.jupyterhub_sign_in
        values = jupyterhub_values(
            sign_in=OidcSignIn(**sign_in.model_dump()) if sign_in else None,
            namespace=JUPYTERHUB.namespace, training_service_account=TRAINING_SERVICE_ACCOUNT,
            profiles=profiles_for(config.on_demand_instance_types()),
            gpu_image=ctx.images.get("gpu") or ctx.image("neuron"), neuron_image=ctx.images.get("neuron") or ctx.image("gpu"))
        return ctx.release(JUPYTERHUB, values, ctx.namespaces_manifest, ctx.storage_manifest, create_namespace=False)


ADDON = JupyterHub()
