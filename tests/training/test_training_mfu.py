"""MFU inputs: FLOPs per token that count no weight gradients for frozen weights, and per-process peaks."""

from __future__ import annotations

import pytest
import torch

from eks_training.training.lora import apply_lora
from eks_training.training.metrics import peak_flops_for
from eks_training.training.model import MODEL_SIZES, LlamaDecoder, flops_per_token


@pytest.mark.parametrize(
    ("name", "peak"),
    [
        ("NVIDIA H100 80GB HBM3", 989e12),  # SXM
        ("NVIDIA H100 PCIe", 756e12),
        ("NVIDIA H100 NVL", 835e12),
        ("NVIDIA H200", 989e12),
        ("NVIDIA H200 NVL", 835e12),
        ("NVIDIA A100-SXM4-80GB", 312e12),
        ("cpu", None),
    ],
)
def test_gpu_peaks_tell_sxm_from_pcie_and_nvl(name: str, peak: float | None) -> None:
    assert peak_flops_for(name, env={}) == peak


def test_neuron_peak_follows_the_logical_core_setting() -> None:
    assert peak_flops_for("trn2", env={}) == pytest.approx(2 * 83.4e12)  # trn2 default: 2 cores per process
    assert peak_flops_for("trn2", env={"NEURON_LOGICAL_NC_CONFIG": "1"}) == pytest.approx(83.4e12)
    assert peak_flops_for("trn1", env={}) == pytest.approx(95e12)


def test_lora_flops_leave_out_frozen_weight_gradients() -> None:
    with torch.device("meta"):
        model = LlamaDecoder(MODEL_SIZES["8b"])
    args = model.args
    dense = sum(p.numel() for p in model.parameters()) - args.vocab_size * args.dim
    attention = 12 * args.n_layers * args.dim * 8192
    assert flops_per_token(model, 8192) == 6 * dense + attention
    apply_lora(model, 16, 32, 0.0, ["q_proj", "v_proj"])
    adapters = sum(p.numel() for p in model.parameters() if p.requires_grad)
    lora_flops = flops_per_token(model, 8192)
    assert lora_flops == 4 * dense + 6 * adapters + attention
    # The overstatement: counting the frozen base at 6 FLOPs instead of 4 is about 1.35x for 8B at 8k context.
    assert 1.3 < (6 * (dense + adapters) + attention) / lora_flops < 1.4


def test_neuron_runtime_names_its_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    from eks_training.training.device import Runtime

    monkeypatch.delenv("NEURON_PLATFORM_TARGET_OVERRIDE", raising=False)
    monkeypatch.setenv("INSTANCE_TYPE", "trn2.48xlarge")
    monkeypatch.setenv("NEURON_LOGICAL_NC_CONFIG", "2")
    name = Runtime("xla", torch.device("cpu")).peak_flops_name()
    assert peak_flops_for(name) == pytest.approx(2 * 83.4e12)
    monkeypatch.setenv("NEURON_PLATFORM_TARGET_OVERRIDE", "trn1")
    assert peak_flops_for(Runtime("xla", torch.device("cpu")).peak_flops_name()) == pytest.approx(95e12)
