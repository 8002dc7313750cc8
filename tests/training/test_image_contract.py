"""The GPU image's Python layer suffices, proven without Docker.

A fresh virtual environment (no system site-packages) gets exactly the packages training/Dockerfile.gpu
installs, read from its `pip install` lines, plus the trainer as the Dockerfile puts it there: core/ and training/
of a copy of the build context that .dockerignore lets through, copied under one folder that a .pth file in the
venv's site-packages names (the Dockerfile's two COPY lines and its printf). Then the commands the rendered jobs
run are run with that environment alone on PATH: the data-prep job (`python -m eks_training.training.data_prep`,
as `DataPrepJob.command` renders it, with no CDK installed) and the trainer through torchrun exactly as
`torchrun_command` renders it (3 steps on CPU); the checkpoint sidecar's module is imported with the trainer's
(each extra torch start costs seconds, so it is not run separately).

The one substitution: the Dockerfile takes PyPI's torch, the CUDA 13.0 build with gigabytes of CUDA wheels; here
the same torch version comes as the build this test environment runs (the CPU one, e.g. 2.13.0+cpu), which
pip finds where it found that one (on this machine: the wheel on local disk, /opt/wheels). Everything else
is installed as written, `pip==25.3` included (without byte-compiling, which only costs time). The
environment is built once per session (30-60 s on 2 busy cores, most of it unpacking torch; pip's cache is
used) and used by one test only, so that pytest-xdist never builds it twice.
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import socket
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import pytest
from tokenizers import Tokenizer, models, pre_tokenizers

from eks_training.workloads.job_data_prep import DATA_PREP_MODULE
from eks_training.workloads.job_pods import TrainingJob, c10d_rendezvous, torchrun_command
from test_dockerfiles import REPO, TRAINER_ROOT, build_context, pip_installs, pins, trainer_copies
from training_helpers import read_records

DOCKERFILE = REPO / "training" / "Dockerfile.gpu"


def _clean_env(venv: Path) -> dict[str, str]:
    """The image's environment: its venv first on PATH, nothing of the test's own environment's Python."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PIP_NO_CACHE_DIR", "PYTHONHOME", "AWS_PROFILE")}
    env.update(PATH=f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin", VIRTUAL_ENV=str(venv), OMP_NUM_THREADS="1",
               PYTHONWARNINGS="ignore", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


def _run(argv: list[str], env: dict[str, str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    result = subprocess.run([str(a) for a in argv], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{' '.join(map(str, argv))} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


@pytest.fixture(scope="session")
def image_venv(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("gpu-image")
    venv = root / "venv"
    started = time.monotonic()
    # sys.executable is this test's venv; `-m venv` bases the new one on the underlying interpreter, isolated.
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    env = _clean_env(venv)
    installs = pip_installs(DOCKERFILE)
    assert installs, "Dockerfile.gpu installs nothing with pip"
    for install in installs:
        targets = install.requirements
        if "torch" in pins(install.requirements):
            # PyPI's CUDA build -> the build of the same version this test environment runs (the CPU one), so pip
            # takes it from where it took that one instead of fetching gigabytes of CUDA libraries.
            local = version("torch")
            assert [f"torch=={local.split('+')[0]}"] == install.requirements, (install.requirements, local)
            targets = [f"torch=={local}"]
        index = ["--index-url", install.index_url] if install.index_url else []
        # --no-compile: byte-compiling torch's thousands of modules is most of the install time and proves nothing.
        _run([venv / "bin" / "pip", "install", "--quiet", "--no-compile", *install.flags, *index, *targets], env, root)
    # The trainer, as the Dockerfile's COPY lines and .pth file put it: from the .dockerignore'd context.
    context = build_context(root / "context")
    image_root = root / TRAINER_ROOT.lstrip("/")
    for source, destination in trainer_copies(DOCKERFILE):
        shutil.copytree(context / source, root / destination.lstrip("/"))
    purelib = _run([venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                   env, root).stdout.strip()
    Path(purelib, "eks-training.pth").write_text(f"{image_root}\n")
    return {"venv": venv, "env": env, "seconds": time.monotonic() - started}


def _tokenizer(path: Path, words: list[str]) -> None:
    """A word-level tokenizer small enough for the tiny model's 256-token vocabulary."""
    vocab = {"[UNK]": 0, "<|endoftext|>": 1, **{word: index + 2 for index, word in enumerate(words)}}
    tokenizer = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.save(str(path))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow
def test_gpu_image_python_layer_runs_the_rendered_jobs(image_venv: dict, tmp_path: Path) -> None:
    venv, env = image_venv["venv"], image_venv["env"]
    python = venv / "bin" / "python"
    print(f"\nimage venv built in {image_venv['seconds']:.1f} s")

    # The package comes from the image's folder (not this checkout), and neither CDK nor the platform code is in it
    # or needed; the trainer, data-prep and sidecar modules all import.
    started = time.monotonic()
    probe = _run([python, "-c", (
        "import sys, importlib.util\n"
        "import eks_training.training.train, eks_training.training.data_prep, eks_training.training.checkpoint_sync\n"
        "print(list(eks_training.training.__path__)[0])\n"
        "print(importlib.util.find_spec('aws_cdk') is None)\n"
        "print(sorted(m for m in sys.modules if m.startswith(('aws_cdk', 'jsii', 'eks_training.infra',"
        " 'eks_training.constructs', 'eks_training.workloads'))))")], env, tmp_path).stdout.splitlines()
    assert probe[0] == str(venv.parent / TRAINER_ROOT.lstrip("/") / "eks_training" / "training")
    assert probe[1:] == ["True", "[]"]
    print(f"first import of the trainer modules (torch's bytecode compiled here): {time.monotonic() - started:.1f} s")

    # JupyterHub's GPU profiles start this image with the singleuser server: the command must be there.
    singleuser = _run([venv / "bin" / "jupyterhub-singleuser", "--version"], env, tmp_path)
    assert singleuser.stdout.strip().startswith("5.")

    # The data-prep job, as the cluster runs it in this image.
    rng = random.Random(5)
    words = [f"w{i}" for i in range(120)]
    _tokenizer(tmp_path / "tokenizer.json", words)
    (tmp_path / "corpus").mkdir()
    with (tmp_path / "corpus" / "docs.jsonl").open("w") as handle:
        for _ in range(300):
            handle.write(json.dumps({"text": " ".join(rng.choice(words) for _ in range(rng.randint(10, 60)))}) + "\n")
    started = time.monotonic()
    # The module the data-prep Job runs (python -m, as DataPrepJob.command renders it), without CDK.
    prepared = _run([python, "-m", DATA_PREP_MODULE, "--input", tmp_path / "corpus",
                     "--output", tmp_path / "data", "--tokenizer", tmp_path / "tokenizer.json",
                     "--eval-fraction", "0.1", "--no-progress"], env, tmp_path)
    print(f"data prep in the image venv: {time.monotonic() - started:.1f} s; {prepared.stdout.strip()}")
    assert json.loads((tmp_path / "data" / "train" / "meta.json").read_text())["vocab_size"] == 122

    # The trainer, launched exactly as the rendered torchrun jobs launch it; only host-specific values differ:
    # the rendezvous port (a free one), the checkpoint folder (FSx there) and the 3 CPU steps.
    metrics = tmp_path / "metrics.jsonl"
    job = TrainingJob(name="contract", namespace="ml", instance_type="g5.xlarge", nodes=1, image="registry.example/train:1",
                      train_args=("--data", str(tmp_path / "data" / "train"), "--model", "tiny", "--max-steps", "3",
                                  "--seq-len", "32", "--micro-batch-size", "4", "--precision", "fp32", "--device", "cpu",
                                  "--log-every", "1", "--metrics-file", str(metrics)))
    argv = torchrun_command(job, *c10d_rendezvous(job, "127.0.0.1"))
    assert argv[0] == "torchrun" and "--nproc_per_node=1" in argv  # g5.xlarge: one GPU, so one process
    port = _free_port()
    argv = [f"--rdzv_endpoint=127.0.0.1:{port}" if a.startswith("--rdzv_endpoint=") else a for a in argv]
    argv[argv.index("--checkpoint-dir") + 1] = str(tmp_path / "checkpoints")
    started = time.monotonic()
    _run(argv, env, tmp_path)
    print(f"torchrun trainer, 3 steps: {time.monotonic() - started:.1f} s")
    losses = {r["step"]: r["loss"] for r in read_records(metrics) if "loss" in r}
    assert sorted(losses) == [1, 2, 3] and all(math.isfinite(v) for v in losses.values())
    assert (tmp_path / "checkpoints" / "step-3" / "COMPLETE").exists()

