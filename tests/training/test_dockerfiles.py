"""The training images' Dockerfiles, checked without Docker: hadolint, pinned bases, pins shared with the
requirements files and the platform's versions, what the MPI workers' sshd is told, and the build context.

The parsing helpers here are also what test_image_contract.py uses to read the GPU image's pip installs.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from training_helpers import VENV_BIN

REPO = Path(__file__).resolve().parents[2]
DOCKERFILES = sorted((REPO / "training").glob("Dockerfile.*"))
_SEPARATORS = {"&&", "||", ";", "|", "&"}


def instructions(path: Path) -> list[tuple[str, str]]:
    """(KEYWORD, arguments) of each instruction: continuation lines joined, comment lines dropped."""
    result: list[tuple[str, str]] = []
    pending = ""
    for line in path.read_text().splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue  # Docker drops comment lines, also inside a continued instruction
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        keyword, _, rest = (pending + stripped).partition(" ")
        result.append((keyword.upper(), rest.strip()))
        pending = ""
    return result


def arg_defaults(steps: list[tuple[str, str]], before_first_from: bool = False) -> dict[str, str]:
    values: dict[str, str] = {}
    for keyword, rest in steps:
        if keyword == "FROM" and before_first_from:
            break
        if keyword == "ARG" and "=" in rest:
            name, _, value = rest.partition("=")
            values[name.strip()] = value.strip().strip('"')
    return values


def expand(text: str, values: dict[str, str]) -> str:
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: values.get(m.group(1) or m.group(2), m.group(0)), text)


def base_images(path: Path) -> list[str]:
    steps = instructions(path)
    values = arg_defaults(steps, before_first_from=True)
    return [expand(rest.split()[0], values) for keyword, rest in steps if keyword == "FROM"]


@dataclass
class PipInstall:
    """One `pip install` command of a RUN step."""

    requirements: list[str] = field(default_factory=list)  # names with version specifiers
    local: list[str] = field(default_factory=list)  # paths (the project's source copy)
    flags: list[str] = field(default_factory=list)
    index_url: str | None = None


def _commands(run: str) -> list[list[str]]:
    lexer = shlex.shlex(run, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    commands, current = [], []
    for token in lexer:
        if token in _SEPARATORS:
            commands.append(current)
            current = []
        else:
            current.append(token)
    return [c for c in commands + [current] if c]


def pip_installs(path: Path) -> list[PipInstall]:
    """Every `pip install` the Dockerfile runs, with ARG defaults and ENV-free `$VIRTUAL_ENV` resolved."""
    steps = instructions(path)
    values = arg_defaults(steps)
    installs = []
    for keyword, rest in steps:
        if keyword != "RUN":
            continue
        for command in _commands(expand(rest, values)):
            words = command[2:] if command[:2] in (["python", "-m"], ["python3", "-m"]) else command
            if len(words) < 2 or Path(words[0]).name not in ("pip", "pip3") or words[1] != "install":
                continue
            install, args = PipInstall(), iter(words[2:])
            for arg in args:
                if arg in ("--index-url", "-i"):
                    install.index_url = next(args)
                elif arg.startswith("-"):
                    if arg in ("--extra-index-url", "-f", "--find-links", "-c", "--constraint", "-r"):
                        raise AssertionError(f"{path.name}: pip option {arg} is not understood by this parser")
                    install.flags.append(arg)
                elif arg.startswith(("/", ".")):
                    install.local.append(arg)
                else:
                    install.requirements.append(arg)
            installs.append(install)
    return installs


def pins(requirements: list[str]) -> dict[str, str]:
    """{normalized name: version} of `name==version` (extras dropped)."""
    result = {}
    for requirement in requirements:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)(\[[^\]]*\])?==([\w.+!-]+)", requirement)
        assert match, f"{requirement!r} is not pinned with =="
        result[re.sub(r"[-_.]+", "-", match.group(1)).lower()] = match.group(3)
    return result


def requirement_pins(*files: str) -> dict[str, str]:
    """name -> version of the requirements files, without a local build label (the tests' torch is `+cpu`, the
    images' the same release built for their accelerator)."""
    lines = [line.split("#")[0].strip() for name in files for line in (REPO / name).read_text().splitlines()]
    return {name: version.split("+", 1)[0]
            for name, version in pins([line for line in lines if "==" in line and not line.startswith("-")]).items()}


# ------------------------------------------------------------------------------------------------ tests


def test_every_image_has_a_dockerfile() -> None:
    assert {p.name for p in DOCKERFILES} >= {"Dockerfile.gpu", "Dockerfile.neuron", "Dockerfile.ray", "Dockerfile.slurmd"}


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda p: p.name)
def test_hadolint_passes_and_every_ignore_says_why(dockerfile: Path) -> None:
    result = subprocess.run([str(VENV_BIN / "hadolint"), "--no-color", str(dockerfile)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = dockerfile.read_text().splitlines()
    for number, line in enumerate(lines):
        if "hadolint ignore=" in line:
            codes = re.search(r"ignore=([\w,]+)", line).group(1).split(",")
            reasons = " ".join(l for l in lines[max(0, number - 4):number] if l.startswith("#"))
            for code in codes:  # each ignored rule is named in the comment just above, with its reason
                assert re.search(rf"{code} \(.+\): \w+", reasons), f"{dockerfile.name}:{number + 1} ignores {code} without a reason"


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda p: p.name)
def test_base_images_are_pinned(dockerfile: Path) -> None:
    for image in base_images(dockerfile):
        assert "$" not in image, f"{dockerfile.name}: FROM {image} has an ARG without a default"
        name, _, tag = image.partition("@")[0].rpartition(":")
        assert "@sha256:" in image or (name and tag and tag != "latest" and "/" not in tag), \
            f"{dockerfile.name}: FROM {image} is not pinned to a tag or digest"


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda p: p.name)
def test_python_pins_match_the_requirements_files_and_the_package_goes_in_without_deps(dockerfile: Path) -> None:
    installs = pip_installs(dockerfile)
    expected = requirement_pins("requirements.txt", "requirements-dev.txt")
    for install in installs:
        for name, version in pins(install.requirements).items():
            if name in expected:  # ray and pip are pinned only here
                assert version == expected[name], f"{dockerfile.name}: {name}=={version}, requirements say {expected[name]}"
    project = [i for i in installs if i.local]
    # Exactly one install of the copied source, --no-deps: the library's CDK dependencies stay out of the image.
    assert len(project) == 1 and "--no-deps" in project[0].flags and not project[0].requirements
    copies = [rest.split() for keyword, rest in instructions(dockerfile) if keyword == "COPY"]
    assert [c[-1] for c in copies] == project[0].local and all(c[-2] == "." for c in copies)


def _extra(name: str) -> set[str]:
    import tomllib

    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    return {re.sub(r"[-_.]+", "-", re.split(r"[\s<>=!~\[;]", spec, 1)[0]).lower() for spec in extras[name]}


#: What a base image already holds, so its Dockerfile must not reinstall it (with reasons).
_FROM_BASE = {
    # The Neuron DLC's torch is the Neuron build (torch-neuronx is compiled against it); numpy comes with it.
    "Dockerfile.neuron": {"torch", "numpy"},
}
#: Extras each image serves beyond the trainer's own: the GPU image runs the data-prep job.
_EXTRAS = {"Dockerfile.gpu": ("training", "data-prep"), "Dockerfile.ray": ("training",),
           "Dockerfile.slurmd": ("training",), "Dockerfile.neuron": ("training",)}


@pytest.mark.parametrize("name", sorted(_EXTRAS))
def test_images_install_every_dependency_their_commands_need(name: str) -> None:
    # Read from pyproject's extras, so a dependency added to the trainer fails here until every image has it.
    needed = set().union(*(_extra(extra) for extra in _EXTRAS[name])) | {"boto3", "pyyaml"}
    if name == "Dockerfile.gpu":
        needed.add("pydantic")  # `eks-training data prepare`: the CLI module imports the config models
    installed = {n for i in pip_installs(REPO / "training" / name) for n in pins(i.requirements)}
    assert needed - installed - _FROM_BASE.get(name, set()) == set()
    assert "ray" in installed or name != "Dockerfile.ray"  # Ray Train for the RayJob entrypoint


def test_variant_bases_follow_the_platform_versions() -> None:
    from eks_training.workloads.kuberay import RayClusterConfig
    from eks_training.workloads.slinky import DEFAULT_SLURM_IMAGE_TAG, SLURM_IMAGE_REGISTRY

    ray_version = RayClusterConfig.__dataclass_fields__["ray_version"].default
    (ray_base,) = base_images(REPO / "training" / "Dockerfile.ray")
    assert ray_base.startswith(f"rayproject/ray:{ray_version}-py311")
    ray_pins = {n: v for i in pip_installs(REPO / "training" / "Dockerfile.ray") for n, v in pins(i.requirements).items()}
    assert ray_pins["ray"] == ray_version
    assert base_images(REPO / "training" / "Dockerfile.slurmd") == [f"{SLURM_IMAGE_REGISTRY}/slurmd:{DEFAULT_SLURM_IMAGE_TAG}"]


def _printed_file(dockerfile: Path, target: str) -> list[str]:
    """The lines a RUN step writes to `target` with printf '%s\\n' (as the shell would expand them)."""
    steps = instructions(dockerfile)
    env: dict[str, str] = {}
    for keyword, rest in steps:
        if keyword == "ENV":
            env.update(dict(re.findall(r"(\w+)=(\S+)", rest)))
        if keyword == "RUN":
            for command in _commands(rest):
                if command[:2] == ["printf", "%s\\n"] and command[-2:] == [">", target]:
                    return [expand(line, env) for line in command[2:-2]]
    raise AssertionError(f"{dockerfile.name} writes no {target}")


def test_mpi_worker_sshd_serves_root_and_non_root_operator_setups() -> None:
    dockerfile = REPO / "training" / "Dockerfile.gpu"
    server = _printed_file(dockerfile, "/etc/ssh/sshd_config")
    client = _printed_file(dockerfile, "/etc/ssh/ssh_config.d/mpi-operator.conf")
    options = [line.split(None, 1) for line in server]
    port = [value for key, value in options if key == "Port"]
    assert port == ["2222"] and "    Port 2222" in client  # launcher's ssh and the workers' sshd agree
    user = [rest for keyword, rest in instructions(dockerfile) if keyword == "USER"][-1]
    home = "/home/trainer"
    assert user.split(":")[0] == "1000"  # numeric: kubelet can check runAsNonRoot
    # Host keys: the operator's key at its non-root mount (our home) and its default root mount.
    assert {value for key, value in options if key == "HostKey"} == {f"{home}/.ssh/id_rsa", "/root/.ssh/id_rsa"}
    assert ("UsePAM", "no") in [tuple(o) for o in options] and ("StrictModes", "no") in [tuple(o) for o in options]
    setenv = dict(item.split("=", 1) for key, value in options if key == "SetEnv" for item in value.split())
    path = setenv["PATH"].split(":")
    # Sessions sshd starts (mpirun's daemons, then torchrun) find the venv first and Open MPI's daemon.
    assert path[0] == "/opt/venv/bin" and "/opt/amazon/openmpi/bin" in path and "/usr/bin" in path
    assert "StrictHostKeyChecking no" in " ".join(client) and "UserKnownHostsFile /dev/null" in " ".join(client)
    runs = " ".join(rest for keyword, rest in instructions(dockerfile) if keyword == "RUN")
    assert "rm -f /etc/ssh/ssh_host_*" in runs  # no host private key shared by every container of the image
    assert re.search(r"useradd [^&]*--uid 1000 [^&]*trainer", runs)


# ---------------------------------------------------------------------------------------- build context


def _pattern(pattern: str) -> re.Pattern[str]:
    regex = ""
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            regex, index = regex + "(?:.*/)?", index + 3
        elif pattern.startswith("**", index):
            regex, index = regex + ".*", index + 2
        elif pattern[index] == "*":
            regex, index = regex + "[^/]*", index + 1
        elif pattern[index] == "?":
            regex, index = regex + "[^/]", index + 1
        else:
            regex, index = regex + re.escape(pattern[index]), index + 1
    return re.compile(regex + r"\Z")


def dockerignore_admits(relative: str, rules: list[tuple[bool, re.Pattern[str]]]) -> bool:
    """Docker's rule: the last pattern matching the path or one of its parent folders decides."""
    parts = relative.split("/")
    candidates = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    admitted = True
    for exclude, regex in rules:
        if any(regex.match(candidate) for candidate in candidates):
            admitted = not exclude
    return admitted


def dockerignore_rules() -> list[tuple[bool, re.Pattern[str]]]:
    rules = []
    for line in (REPO / ".dockerignore").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            negated = line.startswith("!")
            rules.append((not negated, _pattern(line.lstrip("!").strip("/"))))
    return rules


def build_context(target: Path) -> Path:
    """Copy what `docker build .` would send (per .dockerignore) into `target`; returns it."""
    import shutil

    rules = dockerignore_rules()
    tracked = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                             capture_output=True, text=True, check=True).stdout.splitlines()
    for relative in tracked:
        source = REPO / relative
        if source.is_file() and dockerignore_admits(relative, rules):
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / relative)
    return target


def test_build_context_holds_only_the_package() -> None:
    rules = dockerignore_rules()
    assert dockerignore_admits("pyproject.toml", rules) and dockerignore_admits("README.md", rules)
    assert dockerignore_admits("training/data_prep.py", rules) and dockerignore_admits("infra/environments/dev.yaml", rules)
    for path in ("tests/training/test_data_prep.py", ".venv/bin/python", "node_modules/x/index.js", "cdk.out/a.json",
                 ".git/HEAD", "docs/architecture-dev.png", "training/__pycache__/data.cpython-311.pyc", "app.py"):
        assert not dockerignore_admits(path, rules), path
    # Whatever the repository holds at top level, only the package's folders (as pyproject maps them) reach the build.
    import tomllib

    folders = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"].values())
    for folder in folders:
        assert dockerignore_admits(f"{folder}/any_module.py", rules), folder
    top = {p.name for p in REPO.iterdir() if dockerignore_admits(p.name, rules)}
    assert top == {"pyproject.toml", "README.md"} | {f for f in folders if (REPO / f).exists()}
