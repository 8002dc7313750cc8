"""The device layer, with a fake torch_xla package that records what the trainer asks of it."""

from __future__ import annotations

import contextlib
import datetime
import subprocess
import sys
import types
from pathlib import Path

import pytest
import torch

from eks_training.training import device as device_module
from eks_training.training.config import ConfigError, parse_config
from eks_training.training.device import select_runtime
from eks_training.training.train import train

from training_helpers import TINY_FLAGS, VENV_BIN, quiet_env, read_records


@pytest.fixture()
def fake_xla(monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    """Install a fake torch_xla whose functions append (name, args) to the returned list."""
    calls: list[tuple] = []
    xla_model = types.ModuleType("torch_xla.core.xla_model")
    xla_model.xla_device = lambda: calls.append(("xla_device",)) or torch.device("cpu")
    xla_model.mark_step = lambda: calls.append(("mark_step",))
    xla_model.reduce_gradients = lambda optimizer: calls.append(("reduce_gradients", optimizer))
    xla_model.wait_device_ops = lambda: calls.append(("wait_device_ops",))

    def checkpoint(function, *args, **kwargs):
        calls.append(("checkpoint",))
        return torch.utils.checkpoint.checkpoint(function, *args, use_reentrant=False)

    xla_checkpoint = types.ModuleType("torch_xla.utils.checkpoint")
    xla_checkpoint.checkpoint = checkpoint
    backend = types.ModuleType("torch_xla.distributed.xla_backend")
    modules = {"torch_xla": types.ModuleType("torch_xla"), "torch_xla.core": types.ModuleType("torch_xla.core"),
               "torch_xla.core.xla_model": xla_model, "torch_xla.utils": types.ModuleType("torch_xla.utils"),
               "torch_xla.utils.checkpoint": xla_checkpoint,
               "torch_xla.distributed": types.ModuleType("torch_xla.distributed"),
               "torch_xla.distributed.xla_backend": backend}
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    return calls


def test_cpu_and_auto_selection(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(device_module, "_neuron_present", lambda env: bool(env.get("NEURON_RT_VISIBLE_CORES")))
    runtime = select_runtime("auto", env={"RANK": "3", "LOCAL_RANK": "1", "WORLD_SIZE": "4"})
    assert (runtime.kind, runtime.backend, runtime.rank, runtime.local_rank, runtime.world_size) == ("cpu", "gloo", 3, 1, 4)
    assert runtime.reads_host_every_step
    with pytest.raises(ConfigError, match=r"^--device='cuda' is not allowed: cpu, xla or auto"):
        select_runtime("cuda", env={})
    assert "torch_xla" not in sys.modules  # nothing XLA was imported on the way


def test_auto_picks_xla_on_a_neuron_node(fake_xla: list[tuple], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    runtime = select_runtime("auto", env={"NEURON_RT_VISIBLE_CORES": "0-31"})
    assert (runtime.kind, runtime.backend) == ("xla", "xla")
    assert fake_xla == [("xla_device",)]


def test_xla_runtime_routes_through_torch_xla(fake_xla: list[tuple], monkeypatch: pytest.MonkeyPatch) -> None:
    joined = []
    monkeypatch.setattr(torch.distributed, "is_initialized", lambda: False)
    monkeypatch.setattr(torch.distributed, "init_process_group", lambda *a, **k: joined.append((a, k)))
    runtime = select_runtime("xla", env={"RANK": "0", "WORLD_SIZE": "2"})
    assert not runtime.reads_host_every_step
    runtime.init_process_group()
    assert joined == [(("xla",), {"init_method": "xla://"})]
    runtime.init_process_group(30)  # --collective-timeout bounds the group's collectives
    assert joined[1] == (("xla",), {"init_method": "xla://", "timeout": datetime.timedelta(seconds=30)})
    parameter = torch.nn.Parameter(torch.ones(2))
    parameter.grad = torch.ones(2)
    optimizer = torch.optim.SGD([parameter], lr=0.5)
    fake_xla.clear()
    runtime.reduce_gradients(optimizer)
    runtime.optimizer_step(optimizer)
    assert fake_xla == [("reduce_gradients", optimizer), ("mark_step",)]
    assert torch.equal(parameter.detach(), torch.full((2,), 0.5))
    xla_checkpoint = sys.modules["torch_xla.utils.checkpoint"].checkpoint
    assert runtime.checkpoint_fn() == (xla_checkpoint, 1)
    # torch_xla's checkpoint takes no op policy: selective recomputes every other block instead.
    assert runtime.checkpoint_fn(selective=True) == (xla_checkpoint, 2)


def test_training_loop_on_xla_marks_every_step_and_uses_xla_checkpointing(
        fake_xla: list[tuple], token_data: Path) -> None:
    runtime = select_runtime("xla", env={})
    config = parse_config(["--data", str(token_data), *TINY_FLAGS, "--max-steps", "4", "--log-every", "2",
                           "--activation-checkpointing", "true"])
    result = train(config, runtime)
    assert result.final_step == 4 and sorted(result.losses) == [2, 4]
    assert sum(1 for call in fake_xla if call == ("mark_step",)) == 4
    # Each logged throughput waits for the device first (2 logging steps).
    assert sum(1 for call in fake_xla if call == ("wait_device_ops",)) == 2
    assert sum(1 for call in fake_xla if call == ("checkpoint",)) == 4 * 2  # 2 blocks, every step
    assert not any(call[0] == "reduce_gradients" for call in fake_xla)  # one process: nothing to reduce


def test_placeholder_neuron_package_gives_one_line_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(name: str, *args, **kwargs):
        if name.startswith("torch_xla"):
            raise Exception("This is a placeholder package.\nInstall from the Neuron repository.")
        return original(name, *args, **kwargs)

    original = device_module.importlib.import_module
    monkeypatch.setattr(device_module.importlib, "import_module", explode)
    with pytest.raises(ConfigError) as caught:
        select_runtime("xla", env={})
    assert str(caught.value) == ("--device='xla' is not allowed: cpu, cuda or auto here: torch_xla is unusable "
                                 "(This is a placeholder package.)")


@pytest.mark.parametrize("fails", [False, True])
def test_ranks_leave_together_unless_one_failed(monkeypatch: pytest.MonkeyPatch, fails: bool) -> None:
    calls: list[str] = []
    monkeypatch.setattr(device_module.dist, "is_initialized", lambda: True)
    monkeypatch.setattr(device_module.dist, "barrier", lambda **kwargs: calls.append("barrier"))
    monkeypatch.setattr(device_module.dist, "destroy_process_group", lambda: calls.append("destroy"))
    runtime = select_runtime("cpu", env={})
    monkeypatch.setattr(runtime, "init_process_group", lambda timeout=None: None)
    with pytest.raises(RuntimeError) if fails else contextlib.nullcontext():
        with device_module.running(runtime):
            if fails:
                raise RuntimeError("rank failed")
    assert calls == (["destroy"] if fails else ["barrier", "destroy"])


XLA_DOUBLE = Path(__file__).parent / "xla_double_harness.py"


def test_two_neuron_workers_train_evaluate_and_save_without_avg(token_data: Path, tmp_path: Path) -> None:
    """Two workers on a process group that refuses ReduceOp.AVG as torch_xla's does: every reduction of the loop
    (logged loss, peak memory, evaluation, gradients, checkpoint) gets through, and the averages are right: the
    losses are those of one process reading both workers' samples."""
    flags = ["--data", str(token_data), "--eval-data", str(token_data), "--eval-batches", "2", *TINY_FLAGS,
             "--max-steps", "3"]
    metrics = tmp_path / "metrics.jsonl"
    command = [str(VENV_BIN / "torchrun"), "--standalone", "--nproc_per_node", "2", str(XLA_DOUBLE), "--device", "xla",
               *flags, "--checkpoint-dir", str(tmp_path / "checkpoints"), "--metrics-file", str(metrics)]
    completed = subprocess.run(command, env=quiet_env(), capture_output=True, text=True, timeout=240)
    assert completed.returncode == 0, completed.stderr[-3000:]
    records = read_records(metrics)
    losses = {r["step"]: r["loss"] for r in records if "loss" in r}
    (evaluation,) = [r for r in records if r.get("event") == "eval"]
    assert (tmp_path / "checkpoints" / "step-3" / "COMPLETE").is_file()
    one = train(parse_config([*flags, "--micro-batch-size", "8"]), select_runtime("cpu", env={}))
    assert sorted(losses) == sorted(one.losses) == [1, 2, 3]
    for step, loss in one.losses.items():
        assert losses[step] == pytest.approx(loss, rel=1e-5)
    assert evaluation["eval_loss"] == pytest.approx(one.evals[3]["eval_loss"], rel=1e-5)
    assert evaluation["eval_tokens"] == one.evals[3]["eval_tokens"]
