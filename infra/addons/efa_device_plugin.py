"""EFA device plugin: advertises vpc.amazonaws.com/efa on EFA nodes (pin: core.versions.EFA_DEVICE_PLUGIN)."""

from __future__ import annotations

from dataclasses import dataclass

from eks_training.core.names import LABEL_EFA
from eks_training.core.versions import EFA_DEVICE_PLUGIN


@dataclass(frozen=True)
class EfaDevicePlugin:
    name: str = "efa-device-plugin"
    depends_on: tuple[str, ...] = ()

    def enabled(self, config) -> bool:
        return config.services.efa_device_plugin and config.efa

    def install(self, ctx):
        # EFA nodes carry their accelerator's taint: tolerate every taint, select on the EFA label.
        return ctx.release(EFA_DEVICE_PLUGIN, {"nodeSelector": {LABEL_EFA: "true"}, "tolerations": [{"operator": "Exists"}]})


ADDON = EfaDevicePlugin()
