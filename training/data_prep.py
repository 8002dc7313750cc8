"""Tokenize a text corpus into the token folders the trainer's ``--data`` reads (layout: see data.py).

    eks-training data prepare --input DIR|FILE|s3://BUCKET/PREFIX --tokenizer tokenizer.json|s3://.../tokenizer.json \\
        --output DIR|s3://BUCKET/PREFIX [--format auto|txt|jsonl|parquet] [--text-field text] \\
        [--txt-document file|line] [--eod-token TOKEN] [--dtype auto|uint16|uint32] [--eval-fraction 0.01] \\
        [--seed 0] [--workers 1] [--shard-tokens 134217728] [--work-dir DIR] [--overwrite] [--no-progress]

(also ``python -m eks_training.training.data_prep`` with the same flags, for images without the CLI's extras).

Inputs: every file under the folder or prefix, except names starting with ``.`` or ``_`` (``_SUCCESS``,
``.crc``: what Spark and Hadoop leave next to their output). ``--format auto`` picks the reader by extension:
``.txt``/``.txt.gz`` (UTF-8; ``--txt-document file``, the default, makes each file one document, because
newlines inside a book or article are part of it; ``line`` makes each non-empty line one), ``.jsonl``/
``.jsonl.gz`` (one JSON object a line, the document in ``--text-field``) and ``.parquet`` (the string column
``--text-field``). Empty and whitespace-only documents, and null fields, are skipped.

Output: ``OUTPUT/train`` and ``OUTPUT/eval``, each with ``part-WWWW-SSSSS.bin`` shards of little-endian token
ids and ``meta.json`` (``dtype``, ``vocab_size`` as data.py reads them, plus counts and provenance), written
last so a half-written folder never loads. Documents are encoded without the tokenizer's own special tokens
(a BERT-style post-processor would wrap every document in [CLS]/[SEP]) and each is followed by the
end-of-document token. A document goes to the eval split by a hash of (seed, file name, index in file), so
the split does not depend on ``--workers`` or on where the corpus lies. Parallelism is per input file: each
of ``--workers`` processes reads whole files and writes its own shards (``part-WWWW-*``), so a corpus of one
big file gets one process; that process's tokenizer still encodes batches on all cores (its Rust threads),
which are limited to one per process when several workers share the machine. With an ``s3://`` output the folders
are staged under ``--work-dir`` and uploaded with the checkpoint uploader (multipart, retried), ``meta.json``
last.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import queue as queue_module
import shutil
import sys
import tempfile
import time
from array import array
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from eks_training.training.config import ConfigError, invalid

FORMATS = ("auto", "txt", "jsonl", "parquet")
TXT_DOCUMENTS = ("file", "line")
DTYPES = ("auto", "uint16", "uint32")
#: Exclusive upper bound of the token ids each dtype holds (data.py's dtypes; array typecodes of that size).
DTYPE_LIMITS = {"uint16": 1 << 16, "uint32": 1 << 32}
_TYPECODES = {"uint16": "H", "uint32": "I"}
_EXTENSIONS = {".txt": "txt", ".txt.gz": "txt", ".jsonl": "jsonl", ".jsonl.gz": "jsonl", ".parquet": "parquet"}
#: End-of-document tokens of common tokenizer families (GPT-2/NeoX, Llama 3, Llama 2/Mistral/T5, Gemma, BERT).
EOD_CANDIDATES = ("<|endoftext|>", "<|end_of_text|>", "</s>", "<eos>", "<|eos|>", "[EOS]", "[SEP]")
SPLITS = ("train", "eval")
DEFAULT_SHARD_TOKENS = 1 << 27  # 256 MiB of uint16: few enough files to map, small enough to sync in parallel
_BATCH_CHARS = 1 << 20  # text handed to encode_batch at a time: amortizes the call, bounds memory
_BATCH_DOCS = 4096


@dataclass(frozen=True)
class PrepOptions:
    """Validated options of one preparation run (build with :func:`options_from_args` or directly)."""

    input: str
    output: str
    tokenizer: str
    format: str = "auto"
    text_field: str = "text"
    txt_document: str = "file"
    eod_token: str | None = None
    dtype: str = "auto"
    eval_fraction: float = 0.01
    seed: int = 0
    workers: int = 1
    shard_tokens: int = DEFAULT_SHARD_TOKENS
    work_dir: str | None = None
    overwrite: bool = False
    progress: bool = True

    def __post_init__(self) -> None:
        for name in ("input", "output", "tokenizer"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise invalid(_flag(name), value, "a local path or s3://BUCKET/PREFIX")
            if value.startswith("s3://"):
                _parse_s3(value, _flag(name))
        _choice("format", self.format, FORMATS)
        _choice("txt_document", self.txt_document, TXT_DOCUMENTS)
        _choice("dtype", self.dtype, DTYPES)
        if not isinstance(self.text_field, str) or not self.text_field:
            raise invalid("--text-field", self.text_field, "a non-empty field or column name")
        if self.eod_token is not None and (not isinstance(self.eod_token, str) or not self.eod_token):
            raise invalid("--eod-token", self.eod_token, "a token of the tokenizer's vocabulary, e.g. <|endoftext|>")
        if isinstance(self.eval_fraction, bool) or not isinstance(self.eval_fraction, (int, float)) \
                or not 0 <= self.eval_fraction < 1:
            raise invalid("--eval-fraction", self.eval_fraction, "a number >= 0 and < 1 (0: no eval split)")
        for name, minimum in (("workers", 1), ("shard_tokens", 1), ("seed", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
                raise invalid(_flag(name), value, f"an integer >= {minimum}")


@dataclass(frozen=True)
class Source:
    """One input file: ``name`` is its path relative to the input (the split hash uses it)."""

    name: str
    location: str  # local path, or the S3 key
    size: int
    format: str


@dataclass
class SplitStats:
    documents: int = 0
    tokens: int = 0
    shards: list[str] = field(default_factory=list)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _choice(name: str, value: Any, choices: Sequence[str]) -> None:
    if value not in choices:
        raise invalid(_flag(name), value, ", ".join(choices))


def _parse_s3(uri: str, flag: str) -> tuple[str, str]:
    # The rule of s3_sync.parse_s3_uri, restated: importing s3_sync pulls in torch (via checkpoint.py), which
    # checking options should not need; s3_sync itself is imported only when S3 is really used.
    if not uri[5:].split("/", 1)[0]:
        raise invalid(flag, uri, "s3://BUCKET[/PREFIX]")
    bucket, _, prefix = uri[5:].partition("/")
    return bucket, prefix.strip("/")


def _need(module: str, flag: str, value: object) -> Any:
    """Import an optional dependency that ``flag=value`` needs, or fail in one line saying which install brings it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise invalid(flag, value, f"pip install 'eks-training[data-prep]' first (this needs the Python package "
                                   f"{module.split('.')[0]!r}, which is not installed)") from None


def _one_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


# ---------------------------------------------------------------------------------------------------- S3


def _s3_store(uri: str, flag: str, marker: str = "meta.json") -> Any:
    """The checkpoint store (multipart, retried uploads; a client with standard retries) for ``uri``."""
    _need("boto3", flag, uri)
    try:
        from eks_training.training.s3_sync import S3CheckpointStore
    except ImportError as error:  # torch (checkpoint.py) missing on a machine that only prepares data
        raise invalid(flag, uri, "a local path, or pip install 'eks-training[training,data-prep]' (s3:// needs the "
                                 f"trainer's packages: {_one_line(error)})") from None
    return S3CheckpointStore(uri, marker=marker)


def _s3_error(flag: str, uri: str, error: BaseException) -> ConfigError:
    return invalid(flag, uri, f"an s3:// location that exists and that you may use ({_one_line(error)})")


def _s3_keys(client: Any, bucket: str, prefix: str) -> list[tuple[str, int]]:
    keys: list[tuple[str, int]] = []
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        keys.extend((item["Key"], int(item["Size"])) for item in page.get("Contents", []))
    return keys


# ------------------------------------------------------------------------------------------------ inputs


def _format_of(name: str, wanted: str) -> str:
    if wanted != "auto":
        return wanted
    lowered = name.lower()
    for extension, fmt in _EXTENSIONS.items():
        if lowered.endswith(extension):
            return fmt
    raise invalid("--format", "auto", f"files ending in {', '.join(_EXTENSIONS)}, or one of txt, jsonl, parquet "
                                      f"for all files ({name!r} has no known extension)")


def _visible(relative: str) -> bool:
    return not any(part.startswith((".", "_")) for part in relative.split("/"))


def list_sources(options: PrepOptions) -> list[Source]:
    """The input files, sorted by name, each with its reader; errors name the input and what was found."""
    entries: list[tuple[str, str, int]] = []
    if options.input.startswith("s3://"):
        bucket, prefix = _parse_s3(options.input, "--input")
        store = _s3_store(options.input, "--input")
        try:
            folder = _s3_keys(store.client, bucket, prefix + "/" if prefix else "")
            if folder:
                entries = [(key[len(prefix) + 1 if prefix else 0:], key, size) for key, size in folder]
            elif prefix:  # the prefix may name one object
                exact = [(key, size) for key, size in _s3_keys(store.client, bucket, prefix) if key == prefix]
                entries = [(key.rsplit("/", 1)[-1], key, size) for key, size in exact]
        except Exception as error:
            raise _s3_error("--input", options.input, error) from None
    else:
        path = Path(options.input)
        if path.is_file():
            entries = [(path.name, str(path), path.stat().st_size)]
        elif path.is_dir():
            entries = [(p.relative_to(path).as_posix(), str(p), p.stat().st_size)
                       for p in sorted(path.rglob("*")) if p.is_file()]
        else:
            raise invalid("--input", options.input, "an existing folder or file, or s3://BUCKET/PREFIX")
    entries = [entry for entry in entries if _visible(entry[0])]
    if not entries:
        raise invalid("--input", options.input, f"a folder or prefix holding {', '.join(_EXTENSIONS)} files "
                                                "(found no files: the corpus is empty)")
    return [Source(name, location, size, _format_of(name, options.format)) for name, location, size in sorted(entries)]


class _Reader:
    """Yields the documents of one local file; ``position()`` is how far into the file (bytes on disk) it is."""

    def __init__(self, path: str, source: Source, options: PrepOptions) -> None:
        self.path, self.source, self.options = path, source, options
        self._raw: Any = None
        self._fraction = 0.0

    def position(self) -> int:
        if self.source.format == "parquet":
            return int(self._fraction * self.source.size)
        try:
            return self._raw.tell() if self._raw is not None and not self._raw.closed else self.source.size
        except (OSError, ValueError):
            return 0

    def _where(self, line: int | None = None) -> str:
        return f"{self.source.name}" + (f" line {line}" if line is not None else "")

    def __iter__(self) -> Iterator[str]:
        if self.source.format == "parquet":
            yield from self._parquet()
            return
        with open(self.path, "rb") as raw:
            self._raw = raw
            stream = gzip.GzipFile(fileobj=raw) if self.source.name.lower().endswith(".gz") else raw
            try:
                if self.source.format == "txt":
                    yield from self._txt(stream)
                else:
                    yield from self._jsonl(stream)
            except (OSError, EOFError) as error:  # a corrupt or truncated .gz
                raise invalid("--input", self._where(), f"a readable {self.source.format} file ({_one_line(error)})") from None

    def _decode(self, data: bytes, line: int | None) -> str:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise invalid("--input", self._where(line), f"UTF-8 text (byte {error.start}: {error.reason})") from None

    def _txt(self, stream: Any) -> Iterator[str]:
        if self.options.txt_document == "file":
            text = self._decode(stream.read(), None)
            if text.strip():
                yield text
            return
        for number, raw_line in enumerate(stream, 1):
            text = self._decode(raw_line.rstrip(b"\r\n"), number)
            if text.strip():
                yield text

    def _jsonl(self, stream: Any) -> Iterator[str]:
        name = self.options.text_field
        for number, raw_line in enumerate(stream, 1):
            if not raw_line.strip():
                continue
            try:
                record = json.loads(raw_line)
            except ValueError as error:
                raise invalid("--input", self._where(number), f"JSON Lines, one JSON object a line ({_one_line(error)})") from None
            if not isinstance(record, dict):
                raise invalid("--input", self._where(number), f"JSON Lines, one JSON object a line (found a {type(record).__name__})")
            if name not in record:
                keys = ", ".join(sorted(record)[:10]) or "none"
                raise invalid("--text-field", name, f"a field of every record ({self._where(number)} has: {keys})")
            value = record[name]
            if value is None:
                continue
            if not isinstance(value, str):
                raise invalid("--text-field", name, f"a string field ({self._where(number)} holds a {type(value).__name__})")
            if value.strip():
                yield value

    def _parquet(self) -> Iterator[str]:
        parquet = _need("pyarrow.parquet", "--format", "parquet")
        pyarrow = _need("pyarrow", "--format", "parquet")
        try:
            handle = parquet.ParquetFile(self.path)
        except Exception as error:
            raise invalid("--input", self._where(), f"a Parquet file ({_one_line(error)})") from None
        schema = handle.schema_arrow
        name = self.options.text_field
        if name not in schema.names:
            raise invalid("--text-field", name, f"a column of every file ({self.source.name} has: {', '.join(schema.names[:10])})")
        kind = schema.field(name).type
        if not (pyarrow.types.is_string(kind) or pyarrow.types.is_large_string(kind)
                or getattr(pyarrow.types, "is_string_view", lambda _: False)(kind)):
            raise invalid("--text-field", name, f"a string column ({self.source.name} has it as {kind})")
        rows, done = max(1, handle.metadata.num_rows), 0
        for batch in handle.iter_batches(batch_size=1024, columns=[name]):
            for value in batch.column(0).to_pylist():
                if value is not None and value.strip():
                    yield value
            done += batch.num_rows
            self._fraction = done / rows
        self._fraction = 1.0


# ------------------------------------------------------------------------------------------- tokenizer


@dataclass(frozen=True)
class TokenizerInfo:
    path: str  # local tokenizer.json
    vocab_size: int
    eod_token: str
    eod_id: int
    dtype: str
    bos_id: int | None = None  # put before every document when the tokenizer has one (see _bos_id)
    bos_token: str | None = None


def _fetch_tokenizer(options: PrepOptions, work_dir: Path) -> str:
    if not options.tokenizer.startswith("s3://"):
        path = Path(options.tokenizer)
        if path.is_dir():
            path = path / "tokenizer.json"
        if not path.is_file():
            raise invalid("--tokenizer", options.tokenizer, "an existing tokenizer.json (or a folder holding one), "
                                                            "local or s3://")
        return str(path)
    bucket, key = _parse_s3(options.tokenizer, "--tokenizer")
    store = _s3_store(options.tokenizer, "--tokenizer")
    target = work_dir / "tokenizer.json"
    try:
        store.client.download_file(bucket, key, str(target), Config=store.transfer)
    except Exception as error:
        code = getattr(error, "response", {}).get("Error", {}).get("Code")
        if code in ("404", "NoSuchKey", "NoSuchBucket"):
            raise invalid("--tokenizer", options.tokenizer, "an existing tokenizer.json object") from None
        raise _s3_error("--tokenizer", options.tokenizer, error) from None
    return str(target)


def load_tokenizer(options: PrepOptions, work_dir: Path) -> TokenizerInfo:
    """Fetch and check the tokenizer: it loads, has the end-of-document token, fits the token dtype."""
    tokenizers = _need("tokenizers", "--tokenizer", options.tokenizer)
    path = _fetch_tokenizer(options, work_dir)
    try:
        tokenizer = tokenizers.Tokenizer.from_file(path)
    except Exception as error:
        raise invalid("--tokenizer", options.tokenizer, f"a Hugging Face tokenizer.json ({_one_line(error)})") from None
    vocab = tokenizer.get_vocab(with_added_tokens=True)
    # Ids may have gaps; the model's embedding must cover the largest one.
    vocab_size = max(tokenizer.get_vocab_size(with_added_tokens=True), max(vocab.values(), default=-1) + 1)
    if options.eod_token is not None:
        eod_token = options.eod_token
        if tokenizer.token_to_id(eod_token) is None:
            present = [t for t in EOD_CANDIDATES if t in vocab]
            raise invalid("--eod-token", eod_token, "a token of the tokenizer's vocabulary"
                          + (f", e.g. {', '.join(present)}" if present else ""))
    else:
        present = [t for t in EOD_CANDIDATES if t in vocab]
        if not present:
            raise invalid("--eod-token", None, f"a token of the tokenizer to end each document (it has none of "
                                               f"{', '.join(EOD_CANDIDATES)}): give --eod-token TOKEN")
        eod_token = present[0]
    dtype = options.dtype
    if dtype == "auto":
        dtype = "uint16" if vocab_size <= DTYPE_LIMITS["uint16"] else "uint32"
    if vocab_size > DTYPE_LIMITS[dtype]:
        if options.dtype == "auto":
            raise invalid("--tokenizer", options.tokenizer, f"a vocabulary of at most {DTYPE_LIMITS['uint32']} ids "
                                                            f"(uint32; this one has {vocab_size})")
        raise invalid("--dtype", dtype, f"uint32 or auto: the tokenizer has {vocab_size} ids and {dtype} holds "
                                        f"ids below {DTYPE_LIMITS[dtype]}")
    bos_id = _bos_id(tokenizer)
    return TokenizerInfo(path, vocab_size, eod_token, int(tokenizer.token_to_id(eod_token)), dtype, bos_id,
                         tokenizer.id_to_token(bos_id) if bos_id is not None else None)


def _bos_id(tokenizer: Any) -> int | None:
    """The token the tokenizer's own post-processor puts before every text and nothing after it (Llama 2's
    ``<s>``, Llama 3's ``<|begin_of_text|>``), or None: GPT-2 style tokenizers add nothing, and BERT-style
    ``[CLS] ... [SEP]`` wrapping is not a beginning-of-text token."""
    probe = "the quick brown fox"
    plain = tokenizer.encode(probe, add_special_tokens=False).ids
    special = tokenizer.encode(probe, add_special_tokens=True).ids
    return special[0] if len(special) == len(plain) + 1 and special[1:] == plain else None


# --------------------------------------------------------------------------------------------- writing


class ShardWriter:
    """Appends documents' token ids to ``prefix-SSSSS.bin`` files, starting a new file past ``shard_tokens``."""

    def __init__(self, folder: Path, prefix: str, dtype: str, shard_tokens: int) -> None:
        self.folder, self.prefix, self.typecode, self.shard_tokens = folder, prefix, _TYPECODES[dtype], shard_tokens
        if array(self.typecode).itemsize * 8 != int(dtype[4:]):
            raise RuntimeError(f"array typecode {self.typecode!r} is not {dtype} on this platform")
        self.stats = SplitStats()
        self._handle: Any = None
        self._in_shard = 0

    def add(self, tokens: array) -> None:
        if self._handle is None:
            name = f"{self.prefix}-{len(self.stats.shards):05d}.bin"
            self.folder.mkdir(parents=True, exist_ok=True)
            self._handle = open(self.folder / name, "wb")
            self.stats.shards.append(name)
        if sys.byteorder == "big":  # data.py's files are little-endian
            tokens.byteswap()
        tokens.tofile(self._handle)
        self._in_shard += len(tokens)
        self.stats.tokens += len(tokens)
        self.stats.documents += 1
        if self._in_shard >= self.shard_tokens:  # roll over at a document boundary
            self.close()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle, self._in_shard = None, 0


def split_score(seed: int, name: str, index: int) -> int:
    """A document's place in the train/eval draw: a hash of (seed, file name, index in file), below 2**64."""
    digest = hashlib.blake2b(f"{seed}\0{name}\0{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def in_eval_split(seed: int, name: str, index: int, fraction: float) -> bool:
    """Whether document ``index`` of file ``name`` is held out (stable across workers and storage)."""
    return fraction > 0 and split_score(seed, name, index) < fraction * (1 << 64)


@dataclass(frozen=True)
class _Part:
    """What one worker does: its sources, where it stages shards, and how it names them."""

    index: int
    sources: tuple[Source, ...]
    stage: str
    scratch: str  # S3 objects are downloaded here, never into the output folder
    tokenizer: TokenizerInfo
    options: PrepOptions


def _run_part(part: _Part, report: Callable[[int], None]) -> dict[str, Any]:
    """Tokenize ``part``'s files into its shards; ``report(n)`` is called with the bytes done since the last call."""
    tokenizers = _need("tokenizers", "--tokenizer", part.options.tokenizer)
    tokenizer = tokenizers.Tokenizer.from_file(part.tokenizer.path)
    options, info = part.options, part.tokenizer
    writers = {split: ShardWriter(Path(part.stage) / split, f"part-{part.index:04d}", info.dtype, options.shard_tokens)
               for split in SPLITS}
    typecode = _TYPECODES[info.dtype]
    s3 = _s3_store(options.input, "--input") if options.input.startswith("s3://") else None
    download_dir = Path(tempfile.mkdtemp(prefix=f"inputs-{part.index}-", dir=part.scratch)) if s3 else None

    # The train document with the lowest split score is held back in a file of its own: if no document of the
    # whole corpus drew eval, the parent moves the lowest of these into eval (see _place_held_documents).
    held: list[Any] = [None, None]  # score, tokens

    def flush(texts: list[str], scores: list[int]) -> None:
        # Special tokens are added by hand: the tokenizer's own post-processor may wrap texts ([CLS] ... [SEP]).
        for encoding, score in zip(tokenizer.encode_batch(texts, add_special_tokens=False), scores):
            tokens = array(typecode, [info.bos_id] if info.bos_id is not None else [])
            tokens.extend(encoding.ids)
            tokens.append(info.eod_id)
            if options.eval_fraction <= 0:
                writers["train"].add(tokens)
            elif score < options.eval_fraction * (1 << 64):
                writers["eval"].add(tokens)
            elif held[0] is None or score < held[0]:
                if held[1] is not None:
                    writers["train"].add(held[1])
                held[:] = [score, tokens]
            else:
                writers["train"].add(tokens)
        texts.clear()
        scores.clear()

    try:
        for source in part.sources:
            path = source.location
            if s3 is not None:
                path = str(download_dir / "object")
                try:
                    s3.client.download_file(s3.bucket, source.location, path, Config=s3.transfer)
                except Exception as error:
                    raise _s3_error("--input", f"s3://{s3.bucket}/{source.location}", error) from None
            reader, reported = _Reader(path, source, options), 0
            texts: list[str] = []
            scores: list[int] = []
            chars = 0
            for index, text in enumerate(reader):
                texts.append(text)
                scores.append(split_score(options.seed, source.name, index))
                chars += len(text)
                if chars >= _BATCH_CHARS or len(texts) >= _BATCH_DOCS:
                    flush(texts, scores)
                    chars = 0
                    now = reader.position()
                    report(now - reported)
                    reported = now
            flush(texts, scores)
            report(source.size - reported)
            if s3 is not None:
                Path(path).unlink(missing_ok=True)
    finally:
        for writer in writers.values():
            writer.close()
        if download_dir is not None:
            shutil.rmtree(download_dir, ignore_errors=True)
    result: dict[str, Any] = {split: asdict(writer.stats) for split, writer in writers.items()}
    result["held"] = None
    if held[1] is not None:
        path = Path(part.stage) / _HELD / f"part-{part.index:04d}-held.bin"
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as handle:
            if sys.byteorder == "big":
                held[1].byteswap()
            held[1].tofile(handle)
        result["held"] = {"file": str(path), "score": held[0], "tokens": len(held[1])}
    return result


_HELD = "held"  # staging folder of the held-back documents (one file per worker)


def _place_held_documents(results: list[dict[str, Any]], totals: dict[str, SplitStats], stage: Path,
                          eval_fraction: float) -> None:
    """Move each worker's held-back train document into train/, except that when no document drew eval (a corpus
    of few documents) and there are at least two, the lowest-scoring of them goes to eval/: the eval split then
    always has a document whenever it can, and which one does not depend on the number of workers."""
    held = sorted((r["held"] for r in results if r["held"] is not None), key=lambda h: h["score"])
    documents = sum(t.documents for t in totals.values()) + len(held)
    to_eval = eval_fraction > 0 and totals["eval"].documents == 0 and documents >= 2 and held
    for position, document in enumerate(held):
        split = "eval" if to_eval and position == 0 else "train"
        source = Path(document["file"])
        (stage / split).mkdir(parents=True, exist_ok=True)
        os.replace(source, stage / split / source.name)
        totals[split].documents += 1
        totals[split].tokens += document["tokens"]
        totals[split].shards.append(source.name)
    shutil.rmtree(stage / _HELD, ignore_errors=True)


def _worker_main(part: _Part, messages: Any) -> None:
    """Process entry point: results and errors go back as messages, so the parent can print one line."""
    # One tokenizer thread pool per process: N workers each spawning a pool of all cores would oversubscribe.
    os.environ["RAYON_NUM_THREADS"] = "1"
    try:
        messages.put(("done", part.index, _run_part(part, lambda n: messages.put(("progress", part.index, n)))))
    except ConfigError as error:
        messages.put(("error", part.index, str(error)))
    except BaseException as error:  # anything else still ends as one line in the parent
        messages.put(("error", part.index, f"worker {part.index}: {type(error).__name__}: {_one_line(error)}"))


def _partition(sources: list[Source], workers: int) -> list[tuple[Source, ...]]:
    """Split files over workers by size (largest first onto the least loaded), deterministically."""
    bins: list[list[Source]] = [[] for _ in range(min(workers, len(sources)))]
    loads = [0] * len(bins)
    for source in sorted(sources, key=lambda s: (-s.size, s.name)):
        target = loads.index(min(loads))
        bins[target].append(source)
        loads[target] += source.size
    return [tuple(sorted(group, key=lambda s: s.name)) for group in bins]


def _run_parts(parts: list[_Part], bar: Any) -> list[dict[str, Any]]:
    if len(parts) == 1:
        return [_run_part(parts[0], bar.update)]
    import multiprocessing

    # spawn, not fork: the parent may hold boto3/tokenizers threads, which a forked child would inherit broken.
    context = multiprocessing.get_context("spawn")
    messages = context.Queue()
    processes = [context.Process(target=_worker_main, args=(part, messages), daemon=True) for part in parts]
    for process in processes:
        process.start()
    results: dict[int, dict[str, Any]] = {}
    try:
        while len(results) < len(parts):
            try:
                kind, index, payload = messages.get(timeout=1.0)
            except queue_module.Empty:
                dead = [p for i, p in enumerate(processes) if i not in results and p.exitcode not in (None, 0)]
                if dead:
                    raise invalid("--workers", len(parts), "fewer --workers or more memory (a worker process "
                                  f"exited with status {dead[0].exitcode}: out of memory?)")
                continue
            if kind == "progress":
                bar.update(payload)
            elif kind == "done":
                results[index] = payload
            else:
                raise ConfigError(payload)
    finally:
        for process in processes:
            if process.is_alive() and len(results) < len(parts):
                process.terminate()
            process.join(10)
    return [results[part.index] for part in parts]


# ------------------------------------------------------------------------------------------------- run


def _check_local_output(options: PrepOptions) -> Path:
    root = Path(options.output)
    if root.exists() and not root.is_dir():
        raise invalid("--output", options.output, "a folder (this is a file)")
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise invalid("--output", options.output, f"a writable folder ({error.strerror})") from None
    stale = [p for split in SPLITS for p in (root / split).glob("*") if p.suffix == ".bin" or p.name == "meta.json"]
    if stale and not options.overwrite:
        raise invalid("--output", options.output, "a folder without train/ or eval/ token files, or --overwrite "
                                                  f"(found {stale[0].relative_to(root).as_posix()})")
    for path in stale:  # old shards next to new ones would be read as data
        path.unlink()
    return root


def _check_s3_output(options: PrepOptions) -> Any:
    store = _s3_store(options.output, "--output")
    try:
        existing = [key for split in SPLITS
                    for key, _ in _s3_keys(store.client, store.bucket, "/".join(filter(None, (store.prefix, split))) + "/")]
    except Exception as error:
        raise _s3_error("--output", options.output, error) from None
    if existing and not options.overwrite:
        raise invalid("--output", options.output, f"a prefix without train/ or eval/ objects, or --overwrite "
                                                  f"(found s3://{store.bucket}/{existing[0]})")
    return store, existing


def prepare(options: PrepOptions) -> dict[str, Any]:
    """Run one preparation; returns what ``meta.json`` says of each split plus timing."""
    started = time.monotonic()
    s3_output = options.output.startswith("s3://")
    if options.work_dir is not None:
        try:
            Path(options.work_dir).mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise invalid("--work-dir", options.work_dir, f"a writable folder ({error.strerror})") from None
    scratch = Path(tempfile.mkdtemp(prefix="eks-training-data-", dir=options.work_dir))
    local_stage: Path | None = None
    try:
        # Every check that can fail fast runs before the output is touched (--overwrite deletes old files).
        info = load_tokenizer(options, scratch)
        sources = list_sources(options)
        store, stale_keys = _check_s3_output(options) if s3_output else (None, [])
        root = None if s3_output else _check_local_output(options)
        # A local output is staged beside it (same file system, so the finished splits are renamed into place):
        # a run that fails leaves nothing in the output for a retry to trip over.
        if root is not None:
            local_stage = Path(tempfile.mkdtemp(prefix=f".{root.name}.partial-", dir=root.parent))
        stage = local_stage or scratch / "stage"
        parts = [_Part(i, group, str(stage), str(scratch), info, options)
                 for i, group in enumerate(_partition(sources, options.workers))]
        tqdm = _need("tqdm", "--no-progress", False).tqdm if options.progress else None
        bar = (tqdm(total=sum(s.size for s in sources), unit="B", unit_scale=True, desc="tokenizing", file=sys.stderr)
               if tqdm else _NoBar())
        with bar:
            results = _run_parts(parts, bar)
        totals = {split: SplitStats() for split in SPLITS}
        for result in results:
            for split in SPLITS:
                totals[split].documents += result[split]["documents"]
                totals[split].tokens += result[split]["tokens"]
                totals[split].shards += result[split]["shards"]
        _place_held_documents(results, totals, stage, options.eval_fraction)
        documents = sum(t.documents for t in totals.values())
        if documents == 0:
            raise invalid("--input", options.input, f"at least one non-empty document (the corpus is empty: "
                                                    f"{len(sources)} files, 0 documents)")
        for split in SPLITS:
            if totals[split].documents == 0 and (split == "train" or options.eval_fraction > 0):
                raise invalid("--eval-fraction", options.eval_fraction,
                              f"a fraction that leaves documents in both splits (of {documents} documents, "
                              f"{split} got none); 0 turns the eval split off")
        metas = {}
        for split in SPLITS:
            if totals[split].documents == 0:
                continue
            meta = {
                "dtype": info.dtype, "vocab_size": info.vocab_size,
                "tokens": totals[split].tokens, "documents": totals[split].documents,
                "shards": sorted(totals[split].shards), "eod_token": info.eod_token, "eod_token_id": info.eod_id,
                "bos_token_id": info.bos_id, "bos_token": info.bos_token,
                "tokenizer": options.tokenizer, "source": options.input, "split": split,
                "eval_fraction": options.eval_fraction, "seed": options.seed,
            }
            # The tokenizer travels with the tokens: export puts it beside the model trained on them.
            shutil.copyfile(info.path, stage / split / "tokenizer.json")
            (stage / split / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
            metas[split] = meta
        if store is not None:
            _upload(store, stage, stale_keys)
        else:
            _move_into_place(stage, root)
        elapsed = time.monotonic() - started
        tokens = sum(m["tokens"] for m in metas.values())
        return {"splits": metas, "seconds": elapsed, "tokens_per_second": tokens / elapsed if elapsed else 0.0,
                "output": options.output, "workers": len(parts)}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if local_stage is not None:
            shutil.rmtree(local_stage, ignore_errors=True)


def _move_into_place(stage: Path, root: Path) -> None:
    """Rename each finished split folder into the output (its meta.json last when files must move one by one)."""
    for split in SPLITS:
        if not (stage / split).is_dir():
            continue
        target = root / split
        if target.is_dir() and not any(target.iterdir()):
            target.rmdir()
        if not target.exists():
            os.replace(stage / split, target)
            continue
        files = sorted((stage / split).iterdir(), key=lambda path: path.name == "meta.json")
        for path in files:  # the folder holds other files: move ours in, meta.json (the loader's marker) last
            os.replace(path, target / path.name)


def _upload(store: Any, stage: Path, stale_keys: list[str]) -> None:
    # Old objects go first (--overwrite): a reader syncing the prefix must not mix old shards with new ones.
    try:
        for start in range(0, len(stale_keys), 1000):
            store.client.delete_objects(Bucket=store.bucket, Delete={
                "Objects": [{"Key": key} for key in stale_keys[start:start + 1000]], "Quiet": True})
        for split in SPLITS:
            if (stage / split / "meta.json").exists():
                store.upload(stage / split)  # meta.json is the store's marker: uploaded last
    except Exception as error:
        raise _s3_error("--output", f"s3://{store.bucket}/{store.prefix}", error) from None


class _NoBar:
    def __enter__(self) -> "_NoBar":
        return self

    def __exit__(self, *_: object) -> None:
        return None

    def update(self, _: int) -> None:
        return None


# --------------------------------------------------------------------------------------------- command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of ``data prepare`` (values are checked by :class:`PrepOptions`, so errors read alike)."""
    parser.add_argument("--input", required=True, help="folder, file or s3://BUCKET/PREFIX of .txt/.jsonl/.parquet")
    parser.add_argument("--output", required=True, help="folder or s3://BUCKET/PREFIX; gets train/ and eval/")
    parser.add_argument("--tokenizer", required=True, help="tokenizer.json (or its folder), local or s3://")
    parser.add_argument("--format", default="auto", help="auto (by extension), txt, jsonl or parquet")
    parser.add_argument("--text-field", default="text", help="JSON field or Parquet column holding the text")
    parser.add_argument("--txt-document", default="file", help="file: one document per .txt file; line: per line")
    parser.add_argument("--eod-token", help=f"token appended to every document (default: the first of "
                                            f"{', '.join(EOD_CANDIDATES)} the tokenizer has)")
    parser.add_argument("--dtype", default="auto", help="auto (uint16 when the vocabulary fits), uint16, uint32")
    parser.add_argument("--eval-fraction", default="0.01", help="share of documents held out in eval/ (0: none)")
    parser.add_argument("--seed", default="0", help="seed of the train/eval split")
    parser.add_argument("--workers", default="1", help="processes, each tokenizing whole files")
    parser.add_argument("--shard-tokens", default=str(DEFAULT_SHARD_TOKENS), help="tokens per .bin shard (about)")
    parser.add_argument("--work-dir", help="scratch space for S3 downloads and staged output (default: the temp dir)")
    parser.add_argument("--overwrite", action="store_true", help="replace token files already in --output")
    parser.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar on stderr")


def _number(flag: str, text: str, kind: type, allowed: str) -> Any:
    try:
        return kind(str(text).strip())
    except ValueError:
        raise invalid(flag, text, allowed) from None


def options_from_args(args: argparse.Namespace) -> PrepOptions:
    return PrepOptions(
        input=args.input, output=args.output, tokenizer=args.tokenizer, format=args.format,
        text_field=args.text_field, txt_document=args.txt_document, eod_token=args.eod_token, dtype=args.dtype,
        eval_fraction=_number("--eval-fraction", args.eval_fraction, float, "a number >= 0 and < 1 (0: no eval split)"),
        seed=_number("--seed", args.seed, int, "an integer >= 0"),
        workers=_number("--workers", args.workers, int, "an integer >= 1"),
        shard_tokens=_number("--shard-tokens", args.shard_tokens, int, "an integer >= 1"),
        work_dir=args.work_dir, overwrite=args.overwrite, progress=args.progress,
    )


def summary(result: dict[str, Any]) -> str:
    lines = []
    for split, meta in result["splits"].items():
        lines.append(f"{split}: {meta['documents']} documents, {meta['tokens']} tokens ({meta['dtype']}, "
                     f"vocab {meta['vocab_size']}) in {len(meta['shards'])} shards")
    lines.append(f"wrote {result['output']} in {result['seconds']:.1f} s with {result['workers']} workers "
                 f"({result['tokens_per_second']:,.0f} tokens/s)")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Handler of ``eks-training data prepare``: prepares, prints a summary on stdout."""
    print(summary(prepare(options_from_args(args))))
    return 0


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise ConfigError(message)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(prog="python -m eks_training.training.data_prep", description=__doc__.splitlines()[0])
    add_arguments(parser)
    try:
        return run(parser.parse_args(argv))
    except ConfigError as error:
        print(f"error: {_one_line(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
