"""The training images' Dockerfiles, checked without Docker: hadolint, pinned bases, pins shared with the
requirements files and the platform's versions, how the trainer gets in, the GPU image's nccl-tests stage, what the
MPI workers' sshd is told, and the build context. (That every pin exists: test_dockerfile_pins_resolve.py.)

The parsing helpers here are also what test_image_contract.py and test_dockerfile_pins_resolve.py use.
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


def _run_commands(path: Path) -> list[list[str]]:
    """Every shell command of the RUN steps, in words (ARG defaults expanded)."""
    steps = instructions(path)
    values = arg_defaults(steps)
    return [command for keyword, rest in steps if keyword == "RUN" for command in _commands(expand(rest, values))]


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


#: Where every image keeps the trainer: core/ and training/ as eks_training.core and eks_training.training.
TRAINER_ROOT = "/opt/eks-training"


def trainer_copies(path: Path) -> list[tuple[str, str]]:
    """(source, destination) of each COPY from the build context (COPY --from=<stage> is not the context)."""
    copies = []
    for keyword, rest in instructions(path):
        if keyword == "COPY" and "--from=" not in rest:
            words = [w for w in rest.split() if not w.startswith("--")]
            copies.append((words[0], words[-1]))
    return copies


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda p: p.name)
def test_python_pins_match_the_requirements_files_and_the_trainer_is_copied_in(dockerfile: Path) -> None:
    installs = pip_installs(dockerfile)
    expected = requirement_pins("requirements.txt", "requirements-dev.txt")
    for install in installs:
        for name, version in pins(install.requirements).items():
            if name in expected:  # ray and pip are pinned only here
                assert version == expected[name], f"{dockerfile.name}: {name}=={version}, requirements say {expected[name]}"
    # No pip install of the project: its metadata would name the CDK dependencies and every package of pyproject,
    # whose folders are not in the build context. The two folders the trainer needs are copied as they are.
    assert not any(i.local for i in installs), f"{dockerfile.name}: pip installs a local path"
    assert trainer_copies(dockerfile) == [("core", f"{TRAINER_ROOT}/eks_training/core"),
                                          ("training", f"{TRAINER_ROOT}/eks_training/training")]
    # ... and put on the interpreter's path by a .pth file in the site-packages of the Python that runs the trainer.
    written = [c for c in _run_commands(dockerfile) if c[:3] == ["printf", "%s\\n", TRAINER_ROOT]]
    assert len(written) == 1 and written[0][3] == ">", written
    assert written[0][4].endswith("/eks-training.pth") and "sysconfig.get_path(" in written[0][4], written


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


@pytest.mark.parametrize("name", ["Dockerfile.gpu", "Dockerfile.neuron"])
def test_mpi_worker_sshd_serves_root_and_non_root_operator_setups(name: str) -> None:
    # Both images run MPIJobs: the GPU one for mpirun training and the health check, the Neuron one for the health
    # check (nccom-test launches over MPI); their workers run /usr/sbin/sshd -De as the image's user.
    dockerfile = REPO / "training" / name
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
    if name == "Dockerfile.gpu":
        path = setenv["PATH"].split(":")
        # Sessions sshd starts (mpirun's daemons, then torchrun or all_reduce_perf) find the venv first, Open MPI's
        # daemon and nccl-tests.
        assert path[0] == "/opt/venv/bin" and "/opt/amazon/openmpi/bin" in path and "/usr/bin" in path
        assert "/opt/nccl-tests/bin" in path
    else:
        # The DLC sets PATH and LD_LIBRARY_PATH (Neuron tools, Open MPI, EFA): sshd passes the build's values on.
        assert setenv["PATH"] == "${PATH}" and setenv["LD_LIBRARY_PATH"] == "${LD_LIBRARY_PATH}"
    assert "StrictHostKeyChecking no" in " ".join(client) and "UserKnownHostsFile /dev/null" in " ".join(client)
    runs = " ".join(rest for keyword, rest in instructions(dockerfile) if keyword == "RUN")
    assert "rm -f /etc/ssh/ssh_host_*" in runs  # no host private key shared by every container of the image
    assert re.search(r"useradd [^&]*--uid 1000 [^&]*trainer", runs)


def stages(path: Path) -> dict[str, list[tuple[str, str]]]:
    """Stage name (``final`` for the last, unnamed one) -> its instructions after FROM (with FROM itself first)."""
    result: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] | None = None
    for keyword, rest in instructions(path):
        if keyword == "FROM":
            words = rest.split()
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else "final"
            current = result.setdefault(name, [])
        if current is not None:
            current.append((keyword, rest))
    return result


def test_the_gpu_image_carries_nccl_tests_built_against_its_own_cuda_and_mpi() -> None:
    from eks_training.workloads.job_healthcheck import NCCL_ALL_REDUCE

    dockerfile = REPO / "training" / "Dockerfile.gpu"
    parts = stages(dockerfile)
    bases = dict(zip(parts, base_images(dockerfile)))
    assert set(parts) == {"nccl-tests", "final"}
    # The build stage is NVIDIA's devel image of exactly the runtime base's CUDA version and Ubuntu release.
    build = re.fullmatch(r"nvidia/cuda:(\d+\.\d+\.\d+)-devel-(ubuntu[\d.]+)", bases["nccl-tests"])
    final = re.fullmatch(r"nvidia/cuda:(\d+\.\d+\.\d+)-runtime-(ubuntu[\d.]+)", bases["final"])
    assert build and final and build.groups() == final.groups(), bases
    # ... and torch's CUDA (PyPI's 2.13 wheels are CUDA 13.0 builds) has the base's CUDA major version.
    torch = {n: v for i in pip_installs(dockerfile) for n, v in pins(i.requirements).items()}["torch"]
    assert (torch.split(".")[:2], build.group(1).split(".")[0]) == (["2", "13"], "13")
    # MPI=1 against the EFA installer's Open MPI, the one whose mpirun the launcher runs; same installer version.
    build_runs = " ".join(rest for keyword, rest in parts["nccl-tests"] if keyword == "RUN")
    assert "MPI=1" in build_runs and "MPI_HOME=/opt/amazon/openmpi" in build_runs
    # nccl-tests by commit (the one its release tag names), checked after the fetch: not by a tag that can move.
    assert re.search(r'fetch -q --depth 1 https://github.com/NVIDIA/nccl-tests.git "\$\{NCCL_TESTS_COMMIT\}"', build_runs)
    assert 'test "$(git -C /tmp/nccl-tests rev-parse HEAD)" = "${NCCL_TESTS_COMMIT}"' in build_runs
    assert "--branch" not in build_runs
    assert re.search(r"ARG NCCL_TESTS_COMMIT=[0-9a-f]{40}\b", "\n".join(f"{k} {r}" for k, r in parts["nccl-tests"]))
    assert sum("efa_installer.sh" in rest for keyword, rest in parts["nccl-tests"] + parts["final"]) == 2
    assert re.search(r"ARG NCCL_TESTS_VERSION=v\d+\.\d+\.\d+", "\n".join(f"{k} {r}" for k, r in parts["nccl-tests"]))
    # Only the built binaries reach the runtime image, onto PATH (the health check calls all_reduce_perf by name).
    copies = [rest for keyword, rest in parts["final"] if keyword == "COPY" and "--from=" in rest]
    assert copies == ["--from=nccl-tests /opt/nccl-tests/bin /opt/nccl-tests/bin"]
    assert "cp /tmp/nccl-tests/build/*_perf /opt/nccl-tests/bin/" in build_runs and NCCL_ALL_REDUCE.endswith("_perf")
    env = " ".join(rest for keyword, rest in parts["final"] if keyword == "ENV")
    assert "/opt/nccl-tests/bin" in re.search(r"PATH=(\S+)", env).group(1).split(":")


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


def test_build_context_holds_only_what_the_trainer_imports() -> None:
    rules = dockerignore_rules()
    for path in ("core/names.py", "core/preemption.py", "training/data_prep.py", "training/Dockerfile.gpu",
                 "training/configs/x.yaml"):
        assert dockerignore_admits(path, rules), path
    # The pin tables stay out: a chart or add-on bump must not retag every image.
    for path in ("core/versions.py", "core/upstream.py", "core/subnets.py","infra/environments/dev.yaml", "constructs/karpenter.py", "workloads/imports/sources.json",
                 "pyproject.toml", "README.md", "tests/training/test_data_prep.py", ".venv/bin/python",
                 "node_modules/x/index.js", "cdk.out/a.json", ".git/HEAD", "training/__pycache__/data.cpython-311.pyc",
                 "app.py"):
        assert not dockerignore_admits(path, rules), path
    # Whatever the repository holds at top level, only core/ and training/ reach the build: training imports no
    # other part of the package (tests/test_layers.py).
    # (Judged per file: the core/ folder itself is excluded, the modules the trainer imports are let back in.)
    files = [p.relative_to(REPO).as_posix() for p in REPO.rglob("*")
             if p.is_file() and not {".git", ".venv", "node_modules"} & set(p.relative_to(REPO).parts)]
    assert {f.split("/")[0] for f in files if dockerignore_admits(f, rules)} == {"core", "training"}
