"""A regular (non-editable) install of the distribution, with the dependencies it declares and nothing else, serves
another CDK app that imports our constructs."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from eks_training.core.version import __version__

REPO = Path(__file__).resolve().parent.parent

OTHER_APP = """
import aws_cdk as cdk
import eks_training.constructs.network as network
from eks_training.addons import (EfaDevicePlugin, Kueue, NvidiaDevicePlugin, Quota, TeamQueue, TrainingTeam,
                                 VolcanoQueue, node_group_flavor, cpu_flavor)
from eks_training.constructs.cluster import TrainingCluster
from eks_training.constructs.network import TrainingNetwork
from eks_training.infra.addons.volcano import Volcano  # the add-ons' first path, which keeps working

app = cdk.App(context={"@aws-cdk/aws-eks:defaultToAL2023": True})
stack = cdk.Stack(app, "OtherTeam", env=cdk.Environment(region="eu-west-1"))
net = TrainingNetwork(stack, "Net", availability_zones=["eu-west-1a", "eu-west-1b"], training_az="eu-west-1a",
                      vpc_endpoints=False, training_ips=200, cidr="10.30.0.0/16")
cluster = TrainingCluster(stack, "Cluster", vpc=net.vpc, version="1.34", system_min_size=1, system_desired_size=1,
                          training_subnet=net.training_subnet, efa_security_group=net.efa_security_group,
                          vpc_cidr="10.30.0.0/16",
                          admin_role_arns=["arn:aws:iam::${AWS::AccountId}:role/other-team-admin"])
gpu = cluster.add_accelerated_node_group("Gpu", instance_type="p4d.24xlarge", min_size=1, desired_size=1, max_size=2,
                                         nodegroup_name="gpu")
cluster.add_team_node_group(instance_type="m6i.xlarge", max_size=2)
NvidiaDevicePlugin(stack, "Nvidia", cluster=cluster)
EfaDevicePlugin(stack, "Efa", cluster=cluster)
Volcano(stack, "Volcano", cluster=cluster, queues=[VolcanoQueue(name="team-a")])
kueue = Kueue(stack, "Kueue", cluster=cluster, flavors=[node_group_flavor(gpu), cpu_flavor()], queues=[
    TeamQueue("team-a", ("team-a",), (Quota("gpu", {"nvidia.com/gpu": 8, "cpu": 90, "memory": "1000Gi"}),
                                      Quota("cpu", {"cpu": 4, "memory": "16Gi"})))])
TrainingTeam(stack, "TeamA", cluster=cluster, namespace="team-a", kueue=kueue,
             members=["arn:aws:iam::${AWS::AccountId}:role/team-a"])
app.synth()
print(network.__file__)
"""


#: In requirements.txt for the app, not a dependency of the library (app_builder imports it only when it runs).
APP_ONLY = {"cdk-nag"}


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_runtime_pin_is_a_declared_dependency_that_admits_it():
    project = _pyproject()["project"]
    # A pin may serve an optional extra of the library (cfn-lint: `eks-training[change]`, which `make` installs).
    lines = [*project["dependencies"], *(line for extra in project["optional-dependencies"].values() for line in extra)]
    declared = {Requirement(line).name.lower(): Requirement(line) for line in lines}
    for line in (REPO / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        pin = Requirement(line)
        if pin.name.lower() in APP_ONLY:
            continue
        assert pin.name.lower() in declared, f"{pin.name} is pinned in requirements.txt but not in [project] dependencies"
        (version,) = [spec.version for spec in pin.specifier]
        assert declared[pin.name.lower()].specifier.contains(version), f"{pin.name}: pyproject's range excludes {version}"


def _clean_source(into: Path) -> Path:
    """What the wheel is built from: pyproject's parts only, so stale files in the checkout's build/ never ship."""
    config = _pyproject()
    for folder in config["tool"]["setuptools"]["package-dir"].values():
        shutil.copytree(REPO / folder, into / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", config["project"]["readme"]):
        shutil.copy(REPO / name, into / name)
    return into


def _source_modules(source: Path) -> list[str]:
    """Every .py of the package folders, as a path inside the package (``infra/tools/cli.py``)."""
    return [str(path.relative_to(source)) for folder in _pyproject()["tool"]["setuptools"]["package-dir"].values()
            for path in (source / folder).rglob("*.py") if "__pycache__" not in path.parts]


@pytest.mark.slow
def test_other_cdk_app_uses_a_regular_install(tmp_path):
    wheels = tmp_path / "wheels"
    source = _clean_source(tmp_path / "source")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--verbose", "--no-deps", "--no-build-isolation",
                            "--wheel-dir", str(wheels), str(source)], check=True, capture_output=True, text=True,
                           env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})
    # setuptools' deprecations (license format, data folders not declared as packages) are warnings today and errors
    # in a later release; the packaging config must give none.
    log = (built.stdout + built.stderr).splitlines()
    assert [line for line in log if re.search(r"\w*Warning:|^\s*warning: ", line)] == []
    # The release core/version.py names, the one place it is written.
    wheel, = wheels.glob(f"eks_training-{__version__}-py3-none-any.whl")
    # Every module of the source tree ships (a subpackage missing from pyproject's list is silently left out).
    with zipfile.ZipFile(wheel) as archive:
        shipped = {name for name in archive.namelist() if name.endswith(".py")}
    expected = {f"eks_training/{module}" for module in _source_modules(source)}
    assert sorted(expected - shipped) == []
    # A fresh virtual environment with nothing but the wheel and what it declares: a dependency the library needs
    # but does not declare (the kubectl layers once) fails the app below. The registry provides them; this is the
    # slow step (~25 s; byte-compiling aws-cdk-lib's generated modules would add ~40 s, hence --no-compile).
    venv = tmp_path / "venv"
    try:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        python = venv / "bin" / "python"
        subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-compile", str(wheel)],
                       check=True, capture_output=True, timeout=600)
        site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                   check=True, capture_output=True, text=True).stdout.strip())
        assert not (site / "eks_training" / "constructs" / "__init__.py").exists()

        app_dir = tmp_path / "other-app"
        app_dir.mkdir()
        (app_dir / "app.py").write_text(OTHER_APP)
        out = tmp_path / "cdk.out"
        proc = subprocess.run([str(python), "app.py"], cwd=app_dir, capture_output=True, text=True, timeout=300,
                              env={**os.environ, "CDK_OUTDIR": str(out)})
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert proc.stdout.strip().splitlines()[-1].startswith(str(site)), "imported the installed copy, not the repo"
        template = json.loads((out / "OtherTeam.template.json").read_text())
        clusters = [r for r in template["Resources"].values() if r["Type"] == "AWS::EKS::Cluster"]
        assert clusters and clusters[0]["Properties"]["Version"] == "1.34"
        # The installed `eks-training render` writes a job for the app's team, running the app from its own folder
        # (its command, as `cdk synth --app` would); the installed `eks-training check` passes the app with that job,
        # through our add-ons' charts.
        cli = str(venv / "bin" / "eks-training")
        version = subprocess.run([cli, "--version"], capture_output=True, text=True, timeout=60)
        assert version.stdout == f"eks-training {__version__}\n", version.stderr
        render = subprocess.run([cli, "render", "data-prep", "--app", f"{python} app.py", "--namespace", "team-a",
                                 "--image", "registry.example/trainer:1", "--dataset", "wiki", "--name", "tokenize",
                                 "--data-input", "s3://corpus-bucket/raw", "--tokenizer", "s3://corpus-bucket/t.json"],
                                cwd=app_dir, capture_output=True, text=True, timeout=600)
        assert render.returncode == 0, render.stderr[-3000:]
        assert "kueue.x-k8s.io/queue-name: team-a" in render.stdout
        (app_dir / "job.yaml").write_text(render.stdout)
        check = subprocess.run([cli, "check", "--app", str(out), "--job", "job.yaml"], cwd=app_dir,
                               capture_output=True, text=True, timeout=600)
        assert check.returncode == 0, (check.stdout + check.stderr)[-3000:]
        assert "DaemonSet nvidia-device-plugin" in check.stdout and "DaemonSet aws-efa-k8s-device-plugin" in check.stdout
        plugins = check.stdout.split("DEVICE PLUGIN", 1)[1].split("\n\n", 1)[0]
        assert "NOWHERE" not in plugins and plugins.count("node group") == 2, plugins
        assert "job job.yaml: Job tokenize" in check.stdout and "team-a/team-a" in check.stdout
        assert check.stdout.rstrip().endswith("0 failures: PASS")
    finally:
        shutil.rmtree(venv, ignore_errors=True)  # ~700 MB; pytest keeps the last runs' tmp folders
