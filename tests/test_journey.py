"""The first-model journey of the README, offline on CPU, one step after the other:

a small corpus in the data bucket (moto_server) -> `eks-training data prepare` to an s3:// prefix -> the bucket
copied to a folder as the FSx `/data` association imports it -> the trainer command of a rendered pytorch-job,
its `/fsx` paths mapped to that folder, under torchrun with 2 processes -> eval loss on stdout -> a complete
`step-N` checkpoint where the job's checkpoint folder maps to.

What it does not cover (a cluster does): FSx itself, IAM/Pod Identity, scheduling, GPUs/NCCL, multi-node rendezvous.
"""

from __future__ import annotations

import importlib.util
import json
import math
import random
import subprocess
import sys
from pathlib import Path

import boto3
import pytest
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from eks_training.core.names import FSX_MOUNT_PATH
from eks_training.infra.config import load_environment
from eks_training.infra.tools.job_render import render_job

TRAINING_TESTS = Path(__file__).resolve().parent / "training"
# The moto_server fixtures live in tests/training/conftest.py, which only applies below that folder; load that file
# (and the helpers it imports) under a name of its own so this journey shares them instead of copying them.
sys.path.insert(0, str(TRAINING_TESTS))
_spec = importlib.util.spec_from_file_location("journey_training_fixtures", TRAINING_TESTS / "conftest.py")
_training_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_training_fixtures)
moto_endpoint = _training_fixtures.moto_endpoint
aws_env = _training_fixtures.aws_env

from training_helpers import VENV_BIN, quiet_env  # noqa: E402  (importable once tests/training is on the path)

EOD = "<|endoftext|>"
DATASET = "first-model"
DATA_BUCKET = "journey-data"
JOB = "first-model"
TRAINER_MODULE = "eks_training.training.train"
# A 2-node x 1-GPU job: the same world size (2) as the two CPU processes that stand in for it here.
NODES, INSTANCE_TYPE = 2, "g5.xlarge"
SEQ_LEN, MICRO_BATCH, EVAL_BATCHES, MAX_STEPS, EVERY = 32, 4, 2, 6, 3
# Small-run flags a user would pass with --train-args; nothing here names a path (the render does).
TRAIN_ARGS = (f"--max-steps {MAX_STEPS} --eval-every {EVERY} --eval-batches {EVAL_BATCHES} --checkpoint-every {EVERY} "
              f"--seq-len {SEQ_LEN} --micro-batch-size {MICRO_BATCH} --lr 3e-3 --warmup-steps 2 --precision fp32 "
              "--log-every 1")
# The tiny model's embedding has 256 rows and the trainer takes the model's vocabulary as it is (no flag resizes it),
# so the tokenizer stays within it. ln(256) is the loss of a uniform guess over that vocabulary.
TINY_VOCAB = 256
WORDS = "the model reads tokens from shards on lustre while a job trains and saves a checkpoint every few steps".split()


def corpus_lines(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [json.dumps({"text": " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 30)))}) for _ in range(count)]


def write_tokenizer(path: Path, texts: list[str]) -> None:
    """A byte-level BPE like GPT-2's, trained here (no download), small enough for the tiny model."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    # Only the corpus's characters as the alphabet: the full 256-byte alphabet plus EOD would not fit 256 ids.
    tokenizer.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=200, special_tokens=[EOD], show_progress=False))
    assert tokenizer.get_vocab_size() <= TINY_VOCAB
    tokenizer.save(str(path))


def copy_bucket_as_fsx_imports(bucket: str, fsx_root: Path) -> None:
    """Every object of the bucket under `<fsx>/data/<key>`: the `/data` association imports the whole data bucket."""
    s3 = boto3.client("s3")
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for item in page.get("Contents", []):
            target = fsx_root / "data" / item["Key"]
            target.parent.mkdir(parents=True, exist_ok=True)
            s3.download_file(bucket, item["Key"], str(target))


def rendered_trainer_command(objects: list[dict]) -> list[str]:
    commands = [container["command"] for obj in objects if obj["kind"] == "Job"
                for container in obj["spec"]["template"]["spec"]["containers"]
                if TRAINER_MODULE in container.get("command", [])]
    assert len(commands) == 1, commands
    return commands[0]


def launcher_value(command: list[str], flag: str) -> int:
    values = [arg.split("=", 1)[1] for arg in command if arg.startswith(flag + "=")]
    assert len(values) == 1, (flag, command)
    return int(values[0])


def map_fsx(argv: list[str], fsx_root: Path) -> list[str]:
    """Only the `/fsx` prefix changes: everything else is the rendered job's own argv."""
    return [str(fsx_root) + arg[len(FSX_MOUNT_PATH):] if arg == FSX_MOUNT_PATH or arg.startswith(FSX_MOUNT_PATH + "/")
            else arg for arg in argv]


def json_lines(text: str) -> list[dict]:
    # Rank 0 prints strict JSON lines on stdout (what `kubectl logs` shows); anything else there is not a record.
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


@pytest.mark.slow
def test_first_model_journey(aws_env: dict, tmp_path: Path) -> None:
    s3 = boto3.client("s3")
    s3.create_bucket(Bucket=DATA_BUCKET)

    # 1. A corpus and a tokenizer in the data bucket.
    lines = corpus_lines(1500, seed=5)
    s3.put_object(Bucket=DATA_BUCKET, Key="raw/part-0.jsonl", Body="\n".join(lines[:900]) + "\n")
    s3.put_object(Bucket=DATA_BUCKET, Key="raw/part-1.jsonl", Body="\n".join(lines[900:]) + "\n")
    write_tokenizer(tmp_path / "tokenizer.json", [json.loads(line)["text"] for line in lines])
    s3.upload_file(str(tmp_path / "tokenizer.json"), DATA_BUCKET, "tokenizers/first-model/tokenizer.json")

    # 2. `eks-training data prepare`, the installed command, S3 in and S3 out.
    prepared = subprocess.run(
        [str(VENV_BIN / "eks-training"), "data", "prepare", "--input", f"s3://{DATA_BUCKET}/raw/",
         "--output", f"s3://{DATA_BUCKET}/{DATASET}", "--tokenizer",
         f"s3://{DATA_BUCKET}/tokenizers/first-model/tokenizer.json", "--eval-fraction", "0.1", "--no-progress",
         "--work-dir", str(tmp_path / "prep-work")],
        capture_output=True, text=True, env=quiet_env(**aws_env), timeout=60)
    assert prepared.returncode == 0, prepared.stderr[-2000:]
    keys = {item["Key"] for item in s3.list_objects_v2(Bucket=DATA_BUCKET, Prefix=f"{DATASET}/")["Contents"]}
    assert {f"{DATASET}/train/meta.json", f"{DATASET}/eval/meta.json"} <= keys

    # 3. The bucket as pods see it on FSx.
    fsx = tmp_path / "fsx"
    copy_bucket_as_fsx_imports(DATA_BUCKET, fsx)
    eval_meta = json.loads((fsx / "data" / DATASET / "eval" / "meta.json").read_text())
    # Enough held-out tokens for every evaluation batch of both ranks (else the trainer refuses --eval-data).
    assert eval_meta["tokens"] > 2 * EVAL_BATCHES * MICRO_BATCH * (SEQ_LEN + 1)

    # 4. A real render of the job, and the command its trainer container runs.
    objects = render_job(load_environment("dev"), "pytorch-job", images={"gpu": "registry.example/eks-training-gpu:1"},
                         name=JOB, nodes=NODES, instance_type=INSTANCE_TYPE, dataset=DATASET, model="tiny",
                         train_args=TRAIN_ARGS)
    command = rendered_trainer_command(objects)
    world_size = launcher_value(command, "--nnodes") * launcher_value(command, "--nproc_per_node")
    assert world_size == 2
    rendered_argv = command[command.index(TRAINER_MODULE) + 1:]
    argv = map_fsx(rendered_argv, fsx)
    assert argv != rendered_argv and not any(arg.startswith(FSX_MOUNT_PATH) for arg in argv)

    # 5. Two CPU processes (gloo) stand in for the two pods. No CUDA, so `--device auto` picks the CPU as a pod
    # without GPUs would; the argv stays exactly the rendered one.
    run = subprocess.run(
        [str(VENV_BIN / "torchrun"), "--standalone", f"--nproc_per_node={world_size}", "-m", TRAINER_MODULE, *argv],
        capture_output=True, text=True, env=quiet_env(CUDA_VISIBLE_DEVICES=""), timeout=150)
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]

    # 6. Eval loss and perplexity on stdout, at every --eval-every and at the end, over both ranks' batches.
    records = json_lines(run.stdout)
    evals = {r["step"]: r for r in records if r.get("event") == "eval"}
    assert sorted(evals) == [EVERY, MAX_STEPS], records
    for record in evals.values():
        assert isinstance(record["eval_loss"], float) and math.isfinite(record["eval_loss"])
        assert record["eval_perplexity"] == pytest.approx(math.exp(record["eval_loss"]), rel=1e-4)
        assert record["eval_tokens"] == world_size * EVAL_BATCHES * MICRO_BATCH * SEQ_LEN
    # The model learned from the prepared tokens: better than a uniform guess, and better later than earlier.
    assert evals[MAX_STEPS]["eval_loss"] < evals[EVERY]["eval_loss"] < math.log(TINY_VOCAB)
    assert [r["step"] for r in records if "loss" in r] == list(range(1, MAX_STEPS + 1))

    # 7. Complete checkpoints (the COMPLETE marker is written last, after every rank's shards) in the job's folder.
    checkpoints = Path(map_fsx([rendered_argv[rendered_argv.index("--checkpoint-dir") + 1]], fsx)[0])
    assert checkpoints.is_relative_to(fsx / "workspace" / "checkpoints")  # the namespace's writable workspace
    for step in (EVERY, MAX_STEPS):
        folder = checkpoints / f"step-{step}"
        assert (folder / "COMPLETE").read_text().strip() == str(step)
        assert (folder / ".metadata").is_file() and list(folder.glob("*.distcp"))
        assert {p.name for p in folder.glob("trainer-rank-*.pt")} == {"trainer-rank-0.pt", "trainer-rank-1.pt"}

    # 8. The checkpoint is usable: the same rendered command with more steps resumes from it.
    more = map_fsx([*rendered_argv, "--max-steps", str(MAX_STEPS + 1)], fsx)
    resumed = subprocess.run(
        [str(VENV_BIN / "torchrun"), "--standalone", f"--nproc_per_node={world_size}", "-m", TRAINER_MODULE, *more],
        capture_output=True, text=True, env=quiet_env(CUDA_VISIBLE_DEVICES=""), timeout=150)
    assert resumed.returncode == 0, (resumed.stdout + resumed.stderr)[-4000:]
    assert f"resumed from step {MAX_STEPS}" in resumed.stderr
    assert [r["step"] for r in json_lines(resumed.stdout) if "loss" in r] == [MAX_STEPS + 1]
