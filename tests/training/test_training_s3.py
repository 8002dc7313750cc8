"""S3 upload/restore against a real moto_server over HTTP, with injected faults; the sidecar CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import boto3
import pytest
from botocore.exceptions import ConnectionClosedError

from eks_training.training.checkpoint import mark_complete
from eks_training.training.checkpoint_sync import parse_options
from eks_training.training.config import ConfigError
from eks_training.training.s3_sync import BackgroundUploader, S3CheckpointStore

from training_helpers import TINY_FLAGS, quiet_env


def make_checkpoint(root: Path, step: int, big: int = 0) -> Path:
    folder = root / f"step-{step}"
    (folder / "nested").mkdir(parents=True)
    (folder / "__0_0.distcp").write_bytes(bytes(range(256)) * (big // 256 + 1))
    (folder / "nested" / "note.txt").write_text(f"step {step}\n" * 50)
    mark_complete(folder, step)
    return folder


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def fail_first(client, operation: str) -> list[str]:
    """Make the first `operation` request die on the wire (connection closed) so it has to be retried."""
    seen: list[str] = []

    def hook(request, **_):
        seen.append(operation)
        if len(seen) == 1:
            raise ConnectionClosedError(endpoint_url=request.url)

    client.meta.events.register(f"before-send.s3.{operation}", hook)
    return seen


@pytest.mark.parametrize(("operation", "request_attempts"), [("UploadPart", 5), ("PutObject", 1)])
def test_upload_survives_a_failed_request_and_restores_byte_for_byte(
        bucket: str, tmp_path: Path, operation: str, request_attempts: int) -> None:
    # request_attempts=1 turns botocore's retry off, so the file-level retry has to recover.
    store = S3CheckpointStore(f"s3://{bucket}/run-1", request_attempts=request_attempts, part_size=5 * 1024 * 1024)
    seen = fail_first(store.client, operation)
    source = make_checkpoint(tmp_path / "local", 8, big=12 * 1024 * 1024)  # multipart: 3 parts
    uploader = BackgroundUploader(store)
    uploader.submit(source)
    uploader.wait()
    uploader.close()
    assert uploader.failed == [] and uploader.uploaded == ["step-8"]
    assert len(seen) >= 2  # the failed request was really sent again
    assert store.complete_steps() == [8]
    assert store.download_latest(tmp_path / "fresh") == 8
    assert tree(tmp_path / "fresh" / "step-8") == tree(source)


def test_remote_folder_without_marker_is_not_complete_and_prune_keeps_k(bucket: str, tmp_path: Path) -> None:
    store = S3CheckpointStore(f"s3://{bucket}/p")
    for step in (2, 4, 6):
        store.upload(make_checkpoint(tmp_path, step))
    boto3.client("s3").put_object(Bucket=bucket, Key="p/step-8/__0_0.distcp", Body=b"half")
    assert store.complete_steps() == [2, 4, 6]
    assert store.prune(2) == [2]
    assert store.complete_steps() == [4, 6]
    assert store.download_latest(tmp_path / "restore") == 6


@pytest.mark.parametrize("planted", ["step-8/../../escaped.txt", "step-8//tmp/absolute.txt", "step-8/./x",
                                     "step-8/nested/../../x"])
def test_restore_refuses_keys_that_climb_out_of_the_step_folder(bucket: str, tmp_path: Path, planted: str) -> None:
    prefix = "p" + "".join(c for c in planted if c.isalnum())  # the parameters share a bucket: a prefix each
    planted = f"{prefix}/{planted}"
    store = S3CheckpointStore(f"s3://{bucket}/{prefix}")
    store.upload(make_checkpoint(tmp_path / "src", 8))
    boto3.client("s3").put_object(Bucket=bucket, Key=planted, Body=b"planted")
    root = tmp_path / "a" / "b" / "restore"
    with pytest.raises(ValueError, match=r"^checkpoint object key=") as raised:
        store.download(8, root)
    assert "\n" not in str(raised.value) and planted in str(raised.value)
    # Nothing was written, inside the restore folder or above it.
    assert [p for p in (tmp_path / "a").rglob("*") if p.is_file()] == []
    assert not (tmp_path / "escaped.txt").exists() and not Path("/tmp/absolute.txt").exists()


def test_compressed_upload_restores_original_files(bucket: str, tmp_path: Path) -> None:
    store = S3CheckpointStore(f"s3://{bucket}/gz", compression_level=6)
    source = make_checkpoint(tmp_path / "src", 3, big=4096)
    store.upload(source)
    keys = [o["Key"] for o in boto3.client("s3").list_objects_v2(Bucket=bucket)["Contents"]]
    assert keys and all(key.endswith(".gz") for key in keys)
    store.download(3, tmp_path / "dst")
    assert tree(tmp_path / "dst" / "step-3") == tree(source)


@pytest.mark.slow
def test_trainer_uploads_and_a_fresh_node_resumes_from_s3(bucket: str, aws_env: dict, token_data: Path,
                                                          tmp_path: Path) -> None:
    base = [sys.executable, "-m", "eks_training.training.train", "--data", str(token_data), *TINY_FLAGS,
            "--checkpoint-every", "3", "--keep-last", "2", "--s3-uri", f"s3://{bucket}/job"]
    first = subprocess.run([*base, "--max-steps", "6", "--checkpoint-dir", str(tmp_path / "node-a")],
                           capture_output=True, text=True, env=quiet_env(**aws_env), timeout=120)
    assert first.returncode == 0, first.stderr[-2000:]
    assert S3CheckpointStore(f"s3://{bucket}/job").complete_steps() == [3, 6]
    second = subprocess.run([*base, "--max-steps", "8", "--checkpoint-dir", str(tmp_path / "node-b")],
                            capture_output=True, text=True, env=quiet_env(**aws_env), timeout=120)
    assert second.returncode == 0, second.stderr[-2000:]
    assert "resumed from step 6" in second.stderr
    assert S3CheckpointStore(f"s3://{bucket}/job").complete_steps() == [6, 8]


def test_sidecar_cli_uploads_then_restores_on_an_empty_node(bucket: str, aws_env: dict, tmp_path: Path) -> None:
    watched = tmp_path / "checkpoints"
    for step in (10, 20, 30):
        make_checkpoint(watched, step)
    (watched / "step-40").mkdir()  # still being written: no marker yet
    sidecar = [sys.executable, "-m", "eks_training.training.checkpoint_sync", "--s3-uri", f"s3://{bucket}/side",
               "--keep", "2", "--compression-level", "1", "--once"]
    done = subprocess.run([*sidecar, "--watch", str(watched)], capture_output=True, text=True,
                          env=quiet_env(**aws_env), timeout=60)
    assert done.returncode == 0, done.stderr
    assert S3CheckpointStore(f"s3://{bucket}/side").complete_steps() == [20, 30]
    fresh = tmp_path / "fresh"
    done = subprocess.run([*sidecar, "--watch", str(fresh)], capture_output=True, text=True,
                          env=quiet_env(**aws_env), timeout=60)
    assert done.returncode == 0, done.stderr
    assert tree(fresh / "step-30") == tree(watched / "step-30")


def test_sidecar_reads_the_source_documents_block(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("checkpoint:\n  local_path: /checkpoints\n  remote_path: s3://my-bucket/checkpoints\n"
                    "  sync_interval: 300\n  max_checkpoints: 5\n  compression: true\n  compression_level: 6\n"
                    "  auto_resume: true\n  resume_from_latest: true\n")
    options = parse_options(["--config", str(path)])
    assert (str(options.watch), options.s3_uri, options.interval, options.keep) == (
        "/checkpoints", "s3://my-bucket/checkpoints", 300.0, 5)
    assert options.compression_level == 6 and options.resume is True
    assert parse_options(["--config", str(path), "--keep", "2", "--no-resume"]).keep == 2
    with pytest.raises(ConfigError, match=r"^--keep='0' is not allowed: an integer >= 1$"):
        parse_options(["--config", str(path), "--keep", "0"])
    with pytest.raises(ConfigError, match=r"^--s3-uri='my-bucket' is not allowed: s3://BUCKET\[/PREFIX\]$"):
        parse_options(["--watch", "/c", "--s3-uri", "my-bucket"])
