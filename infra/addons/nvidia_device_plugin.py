"""NVIDIA device plugin: advertises nvidia.com/gpu on GPU nodes (pin: core.versions.NVIDIA_DEVICE_PLUGIN)."""

from __future__ import annotations

from dataclasses import dataclass

from eks_training.core.names import LABEL_ACCELERATOR
from eks_training.core.versions import NVIDIA_DEVICE_PLUGIN
from eks_training.infra.addons.device_plugins import on_accelerator, require_label


@dataclass(frozen=True)
class NvidiaDevicePlugin:
    name: str = "nvidia-device-plugin"
    depends_on: tuple[str, ...] = ()

    def enabled(self, config) -> bool:
        return config.services.nvidia_device_plugin and "nvidia" in config.accelerators()

    def install(self, ctx):
        # The chart's default affinity asks for NFD/GFD labels that nothing sets here: ours replaces it.
        return ctx.release(NVIDIA_DEVICE_PLUGIN, {**on_accelerator("nvidia"),
                                                  "affinity": require_label(LABEL_ACCELERATOR, "nvidia"),
                                                  "priorityClassName": "system-node-critical"})


ADDON = NvidiaDevicePlugin()
