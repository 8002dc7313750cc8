"""Neuron device plugin (and optionally its scheduler extension) on Trainium/Inferentia nodes (pin: core.versions.NEURON)."""

from __future__ import annotations

from dataclasses import dataclass

from eks_training.core.versions import NEURON
from eks_training.infra.addons.device_plugins import on_accelerator


@dataclass(frozen=True)
class NeuronDevicePlugin:
    name: str = "neuron-device-plugin"
    depends_on: tuple[str, ...] = ()

    def enabled(self, config) -> bool:
        return config.services.neuron_device_plugin and "neuron" in config.accelerators()

    def install(self, ctx):
        # npd: Neuron's node problem detector marks a node with a failing Neuron device (for node repair).
        return ctx.release(NEURON, {"devicePlugin": on_accelerator("neuron"),
                                    "npd": {"enabled": ctx.config.observability.enabled},
                                    "scheduler": {"enabled": ctx.config.services.neuron_scheduler_extension}})


ADDON = NeuronDevicePlugin()
