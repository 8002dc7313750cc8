"""Resume, export and evaluate read a checkpoint folder without running anything planted in it: a pickle payload in any file
they read is refused with one line, and the payload never runs (while torch's unguarded readers would run it)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
import torch
import torch.distributed.checkpoint as dcp

from eks_training.training import export
from eks_training.training.config import ConfigError, parse_config
from eks_training.training.device import select_runtime
from eks_training.training.evaluate import evaluate_trained
from eks_training.training.train import train

from training_helpers import TINY_FLAGS


class Payload:
    """Unpickling this writes ``marker``: what an attacker's code would do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return exec, (f"open({str(self.marker)!r}, 'w').write('ran')",)


def _flags(token_data: Path, checkpoints: Path, steps: int) -> list[str]:
    return ["--data", str(token_data), *TINY_FLAGS, "--max-steps", str(steps), "--checkpoint-every", "3",
            "--checkpoint-dir", str(checkpoints)]


def _plant_rank_state(folder: Path, marker: Path) -> None:
    state = torch.load(folder / "trainer-rank-0.pt", weights_only=True)
    state["scheduler"]["planted"] = Payload(marker)
    torch.save(state, folder / "trainer-rank-0.pt")


def _plant_metadata(folder: Path, marker: Path) -> None:
    metadata = dcp.FileSystemReader(str(folder)).read_metadata()
    metadata.planner_data = {"planted": Payload(marker)}
    (folder / ".metadata").write_bytes(pickle.dumps(metadata))


def _plant_optimizer_entry(folder: Path, marker: Path) -> None:
    """Rewrite the DCP shards with one optimizer hyperparameter replaced by the payload (what DCP stores as bytes)."""
    metadata = dcp.FileSystemReader(str(folder)).read_metadata()
    state = {key: torch.empty(entry.size, dtype=entry.properties.dtype) if hasattr(entry, "size") else None
             for key, entry in metadata.state_dict_metadata.items()}
    dcp.load(state, checkpoint_id=folder)
    lr_key = next(key for key in state if key.endswith(".lr"))
    state[lr_key] = Payload(marker)
    for stale in folder.glob("*.distcp"):
        stale.unlink()
    dcp.save(state, checkpoint_id=folder)


def _unguarded_read(planted: str, folder: Path) -> None:
    """torch's own reader of the planted file, which does run it."""
    if planted == "rank_state":
        torch.load(folder / "trainer-rank-0.pt", weights_only=False)
    elif planted == "metadata":
        dcp.FileSystemReader(str(folder)).read_metadata()
    else:
        metadata = dcp.FileSystemReader(str(folder)).read_metadata()
        dcp.load({key: None for key in metadata.state_dict_metadata if key.endswith(".lr")}, checkpoint_id=folder)


@pytest.mark.parametrize("planted", ["rank_state", "metadata", "optimizer_entry"])
def test_a_planted_payload_never_runs_on_resume_or_export(planted: str, token_data: Path, tmp_path: Path) -> None:
    checkpoints, marker = tmp_path / "checkpoints", tmp_path / "payload-ran"
    train(parse_config(_flags(token_data, checkpoints, 3)), select_runtime("cpu", env={}))
    folder = checkpoints / "step-3"
    {"rank_state": _plant_rank_state, "metadata": _plant_metadata,
     "optimizer_entry": _plant_optimizer_entry}[planted](folder, marker)
    assert not marker.exists()
    with pytest.raises(ConfigError, match=r"^--checkpoint-dir=.* is not allowed: a checkpoint .*refused"):
        train(parse_config(_flags(token_data, checkpoints, 5)), select_runtime("cpu", env={}))
    assert not marker.exists()
    if planted != "optimizer_entry":  # export and evaluate read the rank state and the model's entries only
        with pytest.raises(ConfigError, match=r"^--checkpoint-dir=.* is not allowed: a checkpoint .*refused"):
            export.run("export", str(checkpoints), str(tmp_path / "exported"), dtype="fp32")
        with pytest.raises(ConfigError, match=r"^--checkpoint-dir=.* is not allowed: a checkpoint .*refused"):
            evaluate_trained(str(token_data), checkpoint_dir=str(checkpoints))
        assert not marker.exists()
    _unguarded_read(planted, folder)
    assert marker.read_text() == "ran"  # the payload is live: only the guarded readers kept it from running
