"""Every pinned Python package of every training/Dockerfile.* exists where and for what that Dockerfile installs it.

For each `pip install` line, each `name==version` is looked up with pip's own finder against the index that line
uses (the Dockerfile's --index-url, else PyPI): `pip index versions NAME --only-binary=:all:` for CPython of the
image's Python on Linux x86-64 (manylinux_2_28 and the older manylinux tags such a system also takes; the images'
glibc is 2.35 or newer). A pin with no matching wheel there fails, naming the Dockerfile, the pin, the index and
the versions that do exist: the kind of mistake that otherwise surfaces as `No matching distribution found` in
the middle of `cdk deploy` (torch 2.13.0 on the cu128 index, issue 22).

`pip index versions` is the finder `pip install` runs, without the download: PyPI's mirror here serves no
separate wheel metadata, so `pip install --dry-run` would fetch every wheel (torch alone is 527 MB) to prove
the same thing. Dependencies between the pins are not resolved here; the GPU image's set is installed together
in test_image_contract.py.

What this cannot check, said by a warning in the test report rather than passed over:
* an index that does not answer (download.pytorch.org and the Neuron pip repository are out of reach of this
  machine): its pins fail the test, since nothing proves they exist. Today every image takes its pins from PyPI.
* what a base image brings: the Neuron DLC's torch, torch-neuronx, neuronx-cc and libneuronxla come from the
  Neuron pip repository inside the image its tag pins (registries are out of reach too), Ray's base brings Ray
  core; those versions are the tags' promises, not resolved here.
"""

from __future__ import annotations

import json
import re
import subprocess
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from test_dockerfiles import DOCKERFILES, REPO, base_images, instructions, pins, pip_installs
from training_helpers import VENV_BIN

PYPI = "https://pypi.org/simple"
#: Linux x86-64 with glibc >= 2.28: pip's --platform takes each tag literally, so every older manylinux tag is named.
PLATFORMS = tuple(f"manylinux_2_{minor}_x86_64" for minor in range(28, 16, -1)) + (
    "manylinux2014_x86_64", "manylinux2010_x86_64", "manylinux1_x86_64")
#: What each base image brings that its Dockerfile therefore does not pin (see the module docstring).
_FROM_BASE = {
    "Dockerfile.neuron": "torch, torch-neuronx, neuronx-cc, libneuronxla, numpy (the Neuron DLC tag)",
    "Dockerfile.ray": "Ray core and its dependencies (the rayproject/ray tag; ray[train] is pinned and checked)",
}


def image_python(dockerfile: Path) -> str:
    """The image's Python, as the Dockerfile states it: an apt `python3.X` package, or the base tag's `-py3XX-`."""
    apt = {m for keyword, rest in instructions(dockerfile) if keyword == "RUN"
           for m in re.findall(r"(?<![\w.-])python(3\.\d+)(?![\w.])", rest)}
    tags = {f"3.{m}" for image in base_images(dockerfile)[-1:] for m in re.findall(r"-py3(\d+)-", image)}
    found = apt | tags
    assert len(found) == 1, f"{dockerfile.name}: cannot tell the image's Python (apt python3.X or a -py3XX- base): {found}"
    return found.pop()


def available_versions(name: str, python: str, index: str) -> list[str] | str:
    """The versions pip finds for ``name`` (wheels only, for CPython ``python`` on Linux x86-64), or why none."""
    command = [str(VENV_BIN / "pip"), "index", "versions", name, "--json", "--only-binary=:all:",
               "--python-version", python, "--implementation", "cp", "--index-url", index,
               # --isolated: this machine's pip configuration (local wheel folders, constraints) is not the image's.
               "--isolated", "--disable-pip-version-check", "--retries", "2", "--timeout", "30"]
    for platform in PLATFORMS:
        command += ["--platform", platform]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if result.returncode == 0:
        return json.loads(result.stdout)["versions"]
    lines = result.stderr.strip().splitlines() or ["pip failed with no message"]
    # pip turns an index it cannot reach into a warning and then "No matching distribution": say which it was.
    unreachable = [line for line in lines if re.search(r"NameResolution|Could not fetch|Connect(ion|Timeout)", line)]
    return f"index unreachable from here ({unreachable[-1].strip()[:160]})" if unreachable else lines[-1]


def _wanted() -> list[tuple[str, str, str, str, str]]:
    """(Dockerfile, name, version, python, index) of every pin."""
    wanted = []
    for dockerfile in DOCKERFILES:
        python = image_python(dockerfile)
        for install in pip_installs(dockerfile):
            for name, version in pins(install.requirements).items():
                wanted.append((dockerfile.name, name, version, python, (install.index_url or PYPI).rstrip("/")))
    return wanted


#: A look-up whose answer must leave a pin out: Ray 2.49.1 has no wheel for CPython 3.14 (it stops at 3.13).
_NO_WHEEL = ("ray", "3.14", PYPI)


@pytest.mark.slow  # ~25 pip look-ups over the network, about a second of CPU each
def test_every_dockerfile_pin_exists_for_its_image() -> None:
    wanted = _wanted()
    queries = sorted({(name, python, index) for _, name, _, python, index in wanted} | {_NO_WHEEL})
    # Network-bound pip processes: a few at once.
    with ThreadPoolExecutor(max_workers=4) as pool:
        found = dict(zip(queries, pool.map(lambda q: available_versions(*q), queries)))
    # The check itself can fail: a version never released, and one released for other Pythons only, are not found.
    torch = found[("torch", image_python(REPO / "training" / "Dockerfile.gpu"), PYPI)]
    assert isinstance(torch, list) and "2.13.0" in torch and "2.13.99" not in torch, torch
    assert "2.49.1" not in found[_NO_WHEEL] and "2.49.1" in found[("ray", "3.11", PYPI)]
    problems = []
    for dockerfile, name, version, python, index in wanted:
        versions = found[(name, python, index)]
        if isinstance(versions, str):
            problems.append(f"{dockerfile}: {name}=={version} for Python {python}: not resolved from {index}: {versions}")
        elif version not in versions:
            problems.append(f"{dockerfile}: {name}=={version} has no Linux x86-64 wheel for Python {python} on {index} "
                            f"(it has {', '.join(versions[:6])}...)")
    for dockerfile, what in _FROM_BASE.items():
        # A builtin category: pytest-xdist's controller imports a warning's class by module name, and a test module
        # is not importable there (a class defined here took the worker down).
        warnings.warn(f"unchecked pins: {dockerfile}: not resolved here: {what}; only its pip pins are", UserWarning,
                      stacklevel=1)
    assert not problems, "\n".join(problems)
    print(f"\n{len(wanted)} pins of {len(DOCKERFILES)} Dockerfiles resolved with {len(queries)} pip look-ups")


def test_the_images_python_is_what_the_dockerfiles_state() -> None:
    pythons = {d.name: image_python(d) for d in DOCKERFILES}
    # Ubuntu 24.04's python3 is 3.12, 26.04's is 3.14 (ubuntu-release-notes#173); the Ray and Neuron tags say theirs.
    assert pythons == {"Dockerfile.gpu": "3.12", "Dockerfile.slurmd": "3.14", "Dockerfile.ray": "3.11",
                       "Dockerfile.neuron": "3.12"}
    # The venvs are made by the interpreter the test resolves for, not by whichever `python3` the base links.
    for name in ("Dockerfile.gpu", "Dockerfile.slurmd"):
        runs = " ".join(rest for keyword, rest in instructions(REPO / "training" / name) if keyword == "RUN")
        assert f"python{pythons[name]} -m venv" in runs and "python3 -m venv" not in runs, name
