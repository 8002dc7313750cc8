"""Checkpoint sidecar: mirrors complete ``step-N`` folders of any trainer to S3, and restores the newest.

Command line (what job builders put in the sidecar container)::

    python -m eks_training.training.checkpoint_sync --watch /checkpoints --s3-uri s3://BUCKET/PREFIX \\
        [--interval 300] [--keep 5] [--compression-level 6] [--no-resume] [--marker COMPLETE] \\
        [--prune-local] [--once] [--config /config/config.yaml]

``--config`` reads the source document's ``checkpoint:`` block (local_path, remote_path, sync_interval,
max_checkpoints, compression, compression_level, auto_resume/resume_from_latest); flags override it.
At start, when ``--watch`` holds no complete checkpoint and resuming is on, the newest complete one is
downloaded from S3. Then every ``--interval`` seconds each complete local folder not yet in S3 is uploaded
and S3 is pruned to the newest ``--keep``. A folder is complete when it holds the ``--marker`` file
(``COMPLETE`` for this project's trainer; ``.metadata`` suits any ``torch.distributed.checkpoint`` writer).
SIGTERM (pod shutdown) triggers one last sync before exit. Exit 2 on a bad option, with a one-line message.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import yaml

from eks_training.training.checkpoint import COMPLETE_MARKER, complete_steps, prune, step_folder_name
from eks_training.training.config import ConfigError, invalid
from eks_training.training.s3_sync import S3CheckpointStore, parse_s3_uri

# The source document's `checkpoint:` keys -> option names.
_FILE_KEYS = {
    "local_path": "watch",
    "remote_path": "s3_uri",
    "sync_interval": "interval",
    "max_checkpoints": "keep",
    "compression_level": "compression_level",
    "resume_from_latest": "resume",
    "auto_resume": "resume",
}


@dataclass(frozen=True)
class SyncOptions:
    """Validated sidecar options."""

    watch: Path
    s3_uri: str
    interval: float = 300.0
    keep: int = 5
    compression_level: int = 0
    resume: bool = True
    marker: str = COMPLETE_MARKER
    prune_local: bool = False
    once: bool = False


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise ConfigError(message)


def _read_file(path: str) -> dict[str, Any]:
    try:
        document = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as error:
        raise invalid("--config", path, f"a readable YAML file ({str(error).splitlines()[0]})") from None
    block = document.get("checkpoint") if isinstance(document, dict) else None
    if not isinstance(block, dict):
        raise invalid("--config", path, "a YAML mapping with a `checkpoint:` block")
    values: dict[str, Any] = {}
    for key, value in block.items():
        if key != "compression" and key not in _FILE_KEYS:
            raise invalid(f"checkpoint.{key}", value, "keys compression, " + ", ".join(_FILE_KEYS))
        if key in _FILE_KEYS:
            values[_FILE_KEYS[key]] = value
    compression = block.get("compression", "compression_level" in block)
    if not isinstance(compression, bool):
        raise invalid("checkpoint.compression", compression, "true or false")
    # `compression: true` alone means gzip's default level; `false` wins over any level.
    values["compression_level"] = values.get("compression_level", 6) if compression else 0
    return values


def parse_options(argv: Sequence[str] | None = None) -> SyncOptions:
    """Parse flags (over ``--config``) into :class:`SyncOptions`."""
    parser = _Parser(prog="python -m eks_training.training.checkpoint_sync", description=__doc__.splitlines()[0])
    parser.add_argument("--config")
    parser.add_argument("--watch")
    parser.add_argument("--s3-uri", dest="s3_uri")
    parser.add_argument("--interval")
    parser.add_argument("--keep")
    parser.add_argument("--compression-level", dest="compression_level")
    parser.add_argument("--no-resume", dest="resume", action="store_const", const=False)
    parser.add_argument("--marker")
    parser.add_argument("--prune-local", dest="prune_local", action="store_const", const=True)
    parser.add_argument("--once", action="store_const", const=True)
    args = vars(parser.parse_args(argv))
    config_file = args.pop("config")
    values = _read_file(config_file) if config_file else {}
    values.update({key: value for key, value in args.items() if value is not None})

    for required in ("watch", "s3_uri"):
        if not values.get(required):
            raise invalid("--" + required.replace("_", "-"), None, "a value (flag or config file)")
    parse_s3_uri(str(values["s3_uri"]))
    try:
        interval = float(values.get("interval", 300))
    except ValueError:
        interval = -1.0
    if not interval > 0:
        raise invalid("--interval", values.get("interval"), "seconds > 0")
    keep, level = str(values.get("keep", 5)), str(values.get("compression_level", 0))
    if not keep.isdigit() or int(keep) < 1:
        raise invalid("--keep", values.get("keep"), "an integer >= 1")
    if not level.isdigit() or int(level) > 9:
        raise invalid("--compression-level", values.get("compression_level"), "an integer 0 (off) to 9")
    resume = values.get("resume", True)
    if not isinstance(resume, bool):
        raise invalid("checkpoint.resume_from_latest", resume, "true or false")
    return SyncOptions(Path(values["watch"]), str(values["s3_uri"]), interval, int(keep), int(level), resume,
                       str(values.get("marker", COMPLETE_MARKER)), bool(values.get("prune_local", False)),
                       bool(values.get("once", False)))


class CheckpointSync:
    """One sidecar: restore once, then repeated sync passes."""

    def __init__(self, options: SyncOptions, store: S3CheckpointStore | None = None) -> None:
        self.options = options
        self.store = store or S3CheckpointStore(options.s3_uri, compression_level=options.compression_level,
                                                marker=options.marker)

    def restore(self) -> int | None:
        """Download the newest remote checkpoint when the watched folder has none."""
        if not self.options.resume or complete_steps(self.options.watch, self.options.marker):
            return None
        return self.store.download_latest(self.options.watch)

    def sync_once(self) -> list[int]:
        """Upload complete local folders missing from S3, then prune; returns the uploaded steps."""
        remote = set(self.store.complete_steps())
        local = complete_steps(self.options.watch, self.options.marker)
        # Only folders that would survive pruning are worth sending.
        pending = [step for step in local[-self.options.keep:] if step not in remote]
        for step in pending:
            self.store.upload(self.options.watch / step_folder_name(step))
        self.store.prune(self.options.keep)
        if self.options.prune_local:
            prune(self.options.watch, self.options.keep, self.options.marker)
        return pending

    def run(self, stop: threading.Event) -> None:
        restored = self.restore()
        if restored is not None:
            print(f"restored step-{restored} into {self.options.watch}", file=sys.stderr, flush=True)
        while True:
            uploaded = self.sync_once()
            if uploaded:
                print(f"uploaded steps {uploaded} to {self.options.s3_uri}", file=sys.stderr, flush=True)
            if self.options.once or stop.is_set():
                return
            if stop.wait(self.options.interval):
                self.sync_once()  # final pass on shutdown
                return


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point of the sidecar."""
    try:
        options = parse_options(argv)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    CheckpointSync(options).run(stop)
    return 0


if __name__ == "__main__":
    sys.exit(main())
