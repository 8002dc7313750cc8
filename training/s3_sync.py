"""Copies complete checkpoint folders to S3 and back.

Layout in S3: ``s3://BUCKET/PREFIX/step-N/<files>``, the ``COMPLETE`` marker uploaded last, so a remote
folder also counts only when whole. Large files go up in multipart parts; botocore retries each request
(standard mode) and a failed file is retried as a whole. With a compression level > 0 each file is gzipped
and stored with a ``.gz`` suffix (restored transparently). The endpoint comes from boto3's usual settings
(``AWS_ENDPOINT_URL`` included), which is how tests point it at a local moto server.
"""

from __future__ import annotations

import gzip
import logging
import queue
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import boto3
from boto3.s3.transfer import TransferConfig
from botocore.config import Config

from eks_training.training.checkpoint import COMPLETE_MARKER, step_folder_name, step_of
from eks_training.training.config import invalid

log = logging.getLogger(__name__)
_GZ = ".gz"


def parse_s3_uri(uri: str, field: str = "--s3-uri") -> tuple[str, str]:
    """``s3://bucket/some/prefix`` -> ``("bucket", "some/prefix")``."""
    if not uri.startswith("s3://") or not uri[5:].split("/", 1)[0]:
        raise invalid(field, uri, "s3://BUCKET[/PREFIX]")
    bucket, _, prefix = uri[5:].partition("/")
    return bucket, prefix.strip("/")


def restore_path(staging: Path, key: str, relative: str) -> Path:
    """Where object ``key`` (``relative`` below its step folder) is restored inside ``staging``, or a one-line error.

    An S3 key is any string: ``step-8/../../home/x`` or ``step-8//etc/cron.d/x`` joined to a local folder would write
    outside it (``..`` climbs, an empty part makes the rest absolute). Anyone who may write the bucket prefix could
    then plant files on every node that restores, so such a checkpoint is refused whole rather than restored in part.
    """
    parts = relative.split("/")
    if not relative or relative.startswith("/") or "\\" in relative or any(p in ("", ".", "..") for p in parts):
        raise invalid("checkpoint object key", key, "a relative path below its step folder without empty, '.' or "
                      "'..' parts (the checkpoint is not restored)")
    path = staging.joinpath(*parts)
    if not path.resolve().is_relative_to(staging.resolve()):  # a symlink already in staging, say
        raise invalid("checkpoint object key", key, f"a path inside {staging}")
    return path


class S3CheckpointStore:
    """Upload, list, download and prune ``step-N`` folders under one S3 prefix."""

    def __init__(self, uri: str, client: Any = None, request_attempts: int = 5, file_attempts: int = 3,
                 compression_level: int = 0, part_size: int = 8 * 1024 * 1024, marker: str = COMPLETE_MARKER) -> None:
        if not 0 <= compression_level <= 9:
            raise invalid("--compression-level", compression_level, "an integer 0 (off) to 9")
        self.bucket, self.prefix = parse_s3_uri(uri)
        self.client = client or boto3.client(
            "s3", config=Config(retries={"max_attempts": request_attempts, "mode": "standard"}))
        self.file_attempts, self.compression_level, self.marker = file_attempts, compression_level, marker
        self.transfer = TransferConfig(multipart_threshold=part_size, multipart_chunksize=part_size,
                                       max_concurrency=4, use_threads=True)

    def _key(self, *parts: str) -> str:
        return "/".join(part for part in (self.prefix, *parts) if part)

    def _upload_file(self, path: Path, key: str) -> None:
        for attempt in range(1, self.file_attempts + 1):
            try:
                if self.compression_level:
                    with tempfile.NamedTemporaryFile(suffix=_GZ) as packed:
                        with path.open("rb") as source, gzip.open(packed, "wb", self.compression_level) as target:
                            shutil.copyfileobj(source, target)
                        packed.flush()
                        self.client.upload_file(packed.name, self.bucket, key + _GZ, Config=self.transfer)
                else:
                    self.client.upload_file(str(path), self.bucket, key, Config=self.transfer)
                return
            except Exception as error:
                if attempt == self.file_attempts:
                    raise
                log.warning("upload of %s failed (attempt %d/%d): %s", path, attempt, self.file_attempts, error)
                time.sleep(min(2.0 ** attempt * 0.1, 5.0))

    def upload(self, folder: str | Path) -> int:
        """Upload one complete local folder (marker last); returns the number of files sent."""
        folder = Path(folder)
        files = sorted(p for p in folder.rglob("*") if p.is_file() and p.name != self.marker)
        for path in files:
            self._upload_file(path, self._key(folder.name, path.relative_to(folder).as_posix()))
        self._upload_file(folder / self.marker, self._key(folder.name, self.marker))
        return len(files) + 1

    def _keys(self, prefix: str) -> list[str]:
        keys: list[str] = []
        for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix):
            keys.extend(item["Key"] for item in page.get("Contents", []))
        return keys

    def _folders(self) -> dict[int, list[str]]:
        base = self._key("") + "/" if self.prefix else ""
        folders: dict[int, list[str]] = {}
        for key in self._keys(base):
            step = step_of(key[len(base):].split("/", 1)[0])
            if step is not None:
                folders.setdefault(step, []).append(key)
        return folders

    def complete_steps(self) -> list[int]:
        """Steps whose remote folder has its marker, oldest first."""
        names = {self.marker, self.marker + _GZ}
        return sorted(step for step, keys in self._folders().items() if any(k.rsplit("/", 1)[-1] in names for k in keys))

    def download(self, step: int, root: str | Path) -> Path:
        """Fetch ``step-N`` into ``root`` via a temporary folder renamed into place (atomic for readers)."""
        root = Path(root)
        root.mkdir(parents=True, exist_ok=True)
        name = step_folder_name(step)
        base = self._key(name) + "/"
        staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=root))
        marker_keys = []
        try:
            # Every key is checked before anything is fetched: a refused checkpoint leaves no file behind.
            paths = {key: restore_path(staging, key, key[len(base):]) for key in self._keys(base)}
        except ValueError:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        for key, path in paths.items():
            if key[len(base):].removesuffix(_GZ) == self.marker:
                marker_keys.append(key)
                continue
            self._download_file(key, path)
        for key in marker_keys:  # the marker last, as on upload
            self._download_file(key, paths[key])
        target = root / name
        if target.exists():  # another node restored it first
            shutil.rmtree(staging, ignore_errors=True)
        else:
            staging.rename(target)
        return target

    def _download_file(self, key: str, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not key.endswith(_GZ):
            self.client.download_file(self.bucket, key, str(path), Config=self.transfer)
            return
        packed = path.with_name(path.name + ".part")
        self.client.download_file(self.bucket, key, str(packed), Config=self.transfer)
        with gzip.open(packed, "rb") as source, path.with_suffix("").open("wb") as target:
            shutil.copyfileobj(source, target)
        packed.unlink()

    def download_latest(self, root: str | Path) -> int | None:
        """Restore the newest complete remote checkpoint into ``root``; None when S3 has none."""
        steps = self.complete_steps()
        if not steps:
            return None
        self.download(steps[-1], root)
        return steps[-1]

    def prune(self, keep_last: int) -> list[int]:
        """Delete remote folders older than the newest ``keep_last`` complete ones."""
        complete = self.complete_steps()
        if len(complete) <= keep_last:
            return []
        oldest_kept = complete[-keep_last]
        doomed = {step: keys for step, keys in self._folders().items() if step < oldest_kept}
        for keys in doomed.values():
            for start in range(0, len(keys), 1000):
                self.client.delete_objects(Bucket=self.bucket, Delete={
                    "Objects": [{"Key": key} for key in keys[start:start + 1000]], "Quiet": True})
        return sorted(doomed)


class BackgroundUploader:
    """Uploads folders on a worker thread so the training loop does not wait on S3."""

    def __init__(self, store: S3CheckpointStore, keep_last: int | None = None) -> None:
        self.store, self.keep_last = store, keep_last
        self.uploaded: list[str] = []
        self.failed: list[tuple[str, str]] = []
        self._queue: queue.Queue[Path | None] = queue.Queue()
        self._thread = threading.Thread(target=self._work, name="s3-checkpoint-upload", daemon=True)
        self._thread.start()

    def submit(self, folder: Path) -> None:
        self._queue.put(Path(folder))

    def _work(self) -> None:
        while (folder := self._queue.get()) is not None:
            try:
                self.store.upload(folder)
                if self.keep_last:
                    self.store.prune(self.keep_last)
                self.uploaded.append(folder.name)
            except Exception as error:  # keep training; the failure is logged and reported at close
                log.error("checkpoint upload of %s failed: %s", folder, error)
                self.failed.append((folder.name, str(error).splitlines()[0] if str(error) else type(error).__name__))
            finally:
                self._queue.task_done()

    def wait(self) -> None:
        """Block until everything submitted so far is uploaded (or failed)."""
        self._queue.join()

    def close(self, timeout: float | None = None) -> None:
        """Finish the queued uploads, waiting at most ``timeout`` seconds; what is left then is a failure."""
        self._queue.put(None)
        self._thread.join(timeout)
        if self._thread.is_alive():  # a daemon thread: it dies with the process
            self.failed.append(("upload queue", f"uploads still running after {timeout:g} s"))
