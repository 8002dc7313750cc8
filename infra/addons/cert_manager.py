"""cert-manager: the Slinky operator's webhook certificates (pin: core.versions.CERT_MANAGER)."""

from __future__ import annotations

from dataclasses import dataclass

from eks_training.core.names import SYSTEM_NODE_SELECTOR
from eks_training.core.versions import CERT_MANAGER


@dataclass(frozen=True)
class CertManager:
    name: str = "cert-manager"
    depends_on: tuple[str, ...] = ()

    def enabled(self, config) -> bool:
        # Only Slinky needs it here.
        return config.services.slinky and bool(config.services.slurm_partitions)

    def install(self, ctx):
        system = dict(SYSTEM_NODE_SELECTOR)
        # Each component has its own selector; the top-level one places only the controller.
        return ctx.release(CERT_MANAGER, {"crds": {"enabled": True}, "nodeSelector": system,
                                          **{part: {"nodeSelector": system}
                                             for part in ("webhook", "cainjector", "startupapicheck")}})


ADDON = CertManager()
