"""The architecture diagram: a real PNG of reasonable size, the committed one true to what prod synthesizes, and the
command line's one-line errors."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import pytest

from eks_training.infra.tools.diagram import draw, facts, main, render, subnets
from support.synth import Synthesized

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
DOCS = Path(__file__).resolve().parent.parent / "docs"


def _png_size(data: bytes) -> tuple[int, int]:
    # The IHDR chunk comes first: width and height are its first two big-endian 32-bit fields.
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_prod_diagram_is_a_png(prod: Synthesized, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for template in prod.outdir.glob("*.template.json"):
        shutil.copy(template, tmp_path / template.name)
    out = tmp_path / "docs" / "architecture-prod.png"
    assert main(["--env", "prod", "--out", str(out), "--cdk-out", str(tmp_path)]) == 0
    data = out.read_bytes()
    assert data.startswith(PNG_MAGIC)
    assert len(data) > 20_000
    width, height = _png_size(data)
    assert 1200 <= width <= 4000 and 700 <= height <= 4000
    # What it drew is written beside it.
    assert json.loads(out.with_suffix(".json").read_text()) == facts(prod.templates, prod.config)


def test_the_committed_diagram_shows_what_prod_synthesizes_today(prod: Synthesized) -> None:
    committed = json.loads((DOCS / "architecture-prod.json").read_text())
    assert committed == facts(prod.templates, prod.config), (
        "docs/architecture-prod.png is stale: run make diagram ENV=prod and commit both files")
    assert committed["kubernetes_version"] == prod.config.kubernetes_version
    # The committed picture is the drawing of those facts (its size follows from them).
    assert _png_size((DOCS / "architecture-prod.png").read_bytes()) == draw(committed).size


def test_diagram_draws_every_subnet_of_the_template(prod: Synthesized) -> None:
    found = subnets(prod.templates)
    zones = prod.config.availability_zones
    assert sorted({s.zone for s in found}) == sorted(zones)
    assert [s.zone for s in found if s.kind == "training"] == [prod.config.training_az]
    assert sum(s.kind == "public" for s in found) == len(zones)
    image = render(prod.templates, prod.config)
    # Not a blank canvas: a diagram has many colours (fills, text anti-aliasing).
    assert len(image.getcolors(maxcolors=100_000) or []) > 20


def test_cli_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--env", "prod", "--out", str(tmp_path / "x.jpg")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "must be a .png file" in err
    assert main(["--env", "nope", "--out", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "env='nope' is not allowed: use one of the environments" in err
