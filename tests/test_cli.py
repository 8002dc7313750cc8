"""`eks-training` CLI: render, list, plan; one-line errors with exit status 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

from eks_training.infra.tools.cli import main
from support.k8s_schemas import validate_k8s_objects


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("kind", ["mpijob", "volcano-job", "neuron-job", "pytorch-job", "raycluster", "rayjob"])
def test_render_prod_kinds_validate(capsys, kind: str) -> None:
    status, out, err = _run(capsys, "render", kind, "--env", "prod", "--namespace", "training", "--nodes", "2", "--dataset", "wiki",
                            "--image", "registry.example/eks-training:1")
    assert status == 0, err
    validate_k8s_objects([o for o in yaml.safe_load_all(out) if o])


def test_render_reads_the_images_from_the_synthesized_app_and_sidecar_needs_uri(capsys, tmp_path) -> None:
    # The environment's own images come from cdk.out (tests/test_job_contract.py renders with a real one).
    status, _, err = _run(capsys, "render", "neuron-job", "--env", "prod", "--namespace", "training", "--dataset", "wiki", "--cdk-out", str(tmp_path))
    assert status == 2 and err.startswith("error: images: ") and "run `make synth ENV=prod` first" in err
    image = ("--image", "registry.example/eks-training:1", "--dataset", "wiki")
    status, _, err = _run(capsys, "render", "mpijob", "--env", "prod", "--namespace", "training", "--checkpoint-sidecar", *image)
    assert status == 2 and err.startswith("error: --checkpoint-s3-uri")
    status, out, _ = _run(capsys, "render", "mpijob", "--env", "prod", "--namespace", "training", "--checkpoint-sidecar", "--checkpoint-s3-uri",
                          "s3://ckpt-bucket/x", *image)
    assert status == 0 and "restartPolicy: Always" in out


def test_render_bionemo_and_slurm(capsys) -> None:
    status, out, _ = _run(capsys, "render", "bionemo", "--env", "prod", "--namespace", "training", "--image", "nvcr.io/nvidia/clara/bionemo-framework:2.0")
    assert status == 0
    validate_k8s_objects([o for o in yaml.safe_load_all(out) if o])
    status, out, _ = _run(capsys, "render", "slurm-batch", "--env", "prod", "--namespace", "training", "--instance-type", "p5.48xlarge", "--nodes", "8",
                          "--dataset", "wiki")
    assert status == 0 and "#SBATCH --partition=gpu-h100" in out and "#SBATCH --ntasks-per-node=1" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["render", "nope", "--env", "prod"], "kind='nope'"),
    (["render", "mpijob", "--env", "nope"], "env='nope' is not allowed: use one of the environments dev, prod"),
    (["render", "mpijob", "--env", "prod", "--namespace", "training", "--instance-type", "g5.xlarge"], "'g5.xlarge' is not in environment 'prod'"),
    (["render", "neuron-job", "--env", "prod", "--namespace", "training", "--nodes", "33"], "--nodes: 33"),
    (["render", "mpijob", "--env", "prod", "--namespace", "training", "--instance-type", "trn1.32xlarge"], "mpijob needs a GPU type"),
    (["render", "bionemo", "--env", "prod", "--namespace", "training"], "--image: bionemo"),
    (["render", "mpijob", "--env", "prod", "--namespace", "training"], "--dataset: mpijob trains on a prepared dataset"),
    (["plan", "--params", "lots", "--instance-type", "p5.48xlarge", "--nodes", "1"], "'lots' is not a number"),
    # Two teams: the job names its own; it gets no more than its team's quota.
    (["render", "mpijob", "--env", "prod", "--dataset", "wiki", "--image", "r.example/t:1"],
     "--namespace: environment 'prod' has 2 teams (training, ai-research): name the one the job runs for"),
    (["render", "mpijob", "--dataset", "wiki"],
     "render: give --env NAME or --config FILE (an environment) or --app APP (any CDK app with a team), one of them"),
    (["check", "--env", "dev", "--job", "/nonexistent/job.yaml"], "--job: cannot read '/nonexistent/job.yaml'"),
    # 7 p5 nodes are 56 GPUs: within the team's 176, beyond the 32 + 16 its queue may hold on gpu-h100.
    (["render", "pytorch-job", "--env", "prod", "--namespace", "ai-research", "--instance-type", "p5.48xlarge",
      "--nodes", "7", "--dataset", "wiki", "--image", "r.example/t:1"],
     "--nodes: 7 p5.48xlarge nodes (56 GPUs) is beyond what Kueue queue 'ai-research' of team 'ai-research' admits "
     "on p5.48xlarge (48 GPUs on one flavor, borrowing included): at most 6 such nodes"),
])
def test_bad_arguments_are_one_line_errors(capsys, argv: list[str], message: str) -> None:
    status, out, err = _run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.startswith("error: ") and message in err and err.count("\n") == 1


def test_list_shows_every_kind(capsys) -> None:
    status, out, _ = _run(capsys, "list")
    assert status == 0
    assert [line.split()[0] for line in out.splitlines()] == [
        "mpijob", "volcano-job", "neuron-job", "pytorch-job", "trainjob", "raycluster", "rayjob", "slurm-batch",
        "bionemo", "data-prep", "health-check"]


def test_plan_prints_trainer_flags_render_takes(capsys, tmp_path) -> None:
    target = tmp_path / "ds.json"
    status, out, _ = _run(capsys, "plan", "--params", "8e9", "--instance-type", "p5.48xlarge", "--nodes", "2",
                          "--grad-accum", "4", "--deepspeed-config", str(target))
    assert status == 0
    (flags,) = [line.removeprefix("trainer flags: ") for line in out.splitlines() if line.startswith("trainer flags: ")]
    assert flags.startswith("--model 8b --seq-len 4096 --micro-batch-size 1 --grad-accum 4 --parallel fsdp")
    assert json.loads(target.read_text())["zero_optimization"]["stage"] == 3
    status, only, _ = _run(capsys, "plan", "--model", "8b", "--instance-type", "p5.48xlarge", "--nodes", "2",
                           "--grad-accum", "4", "--flags-only")
    assert status == 0 and only.strip() == flags
    status, rendered, _ = _run(capsys, "render", "pytorch-job", "--env", "prod", "--namespace", "training",
                               "--dataset", "wiki", "--nodes", "2",
                               "--instance-type", "p5.48xlarge", "--image", "registry.example/t:1", "--name", "llama-8b",
                               "--train-args", flags, "-o", "json")
    assert status == 0 and flags in " ".join(json.loads(rendered)[1]["spec"]["template"]["spec"]["containers"][0]
                                              ["command"])
    # On Trainium the trainer runs data parallel only: a 70B LoRA has no layout there.
    status, _, err = _run(capsys, "plan", "--params", "70e9", "--instance-type", "trn1.32xlarge", "--nodes", "4",
                          "--lora-rank", "16")
    assert status == 2 and "the trainer runs data parallel only on Neuron" in err
    status, _, err = _run(capsys, "plan", "--instance-type", "p5.48xlarge", "--nodes", "1")
    assert status == 2 and "give --params" in err


def test_console_script_in_a_subprocess() -> None:
    env = {**os.environ, "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION": "1"}
    result = subprocess.run([sys.executable, "-m", "eks_training.infra.tools.cli", "render", "pytorch-job", "--env", "nope"],
                            capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1].startswith("error: env='nope' is not allowed: use one of the environments")
    assert "Traceback" not in result.stderr
