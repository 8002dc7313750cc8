"""Every setting of the environment file does something: a field that no code reads would be accepted and silently
ignored (as `network.existing_vpc_id` once was)."""

from __future__ import annotations

import inspect
import re
import subprocess
from pathlib import Path

from pydantic import BaseModel

import eks_training.infra.config as config_module

REPO = Path(__file__).resolve().parent.parent


def _sources_besides_the_config_module() -> str:
    files = subprocess.run(["git", "ls-files", "*.py"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    return "\n".join((REPO / f).read_text() for f in files
                     if not f.startswith(("tests/", "benchmarks/")) and f != "infra/config.py")


def test_every_config_field_is_read_somewhere() -> None:
    source = _sources_besides_the_config_module()
    models = [m for m in vars(config_module).values()
              if inspect.isclass(m) and issubclass(m, BaseModel) and m.__module__ == config_module.__name__]
    assert len(models) > 10
    # A field is read as `.name`, getattr(x, f"{variant}_name") or by key: its name appears outside the model.
    unread = [f"{m.__name__}.{name}" for m in models for name in m.model_fields
              if not re.search(rf"\b{name}\b", source) and not any(
                  re.search(rf'f"\{{\w+\}}_{suffix}"', source) for suffix in [name.split("_", 1)[-1]])]
    assert unread == []
