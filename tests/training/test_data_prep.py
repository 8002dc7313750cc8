"""`eks-training data prepare`: corpora in, the trainer's token folders out (read back with data.py), errors in one line."""

from __future__ import annotations

import gzip
import json
import random
from array import array
from pathlib import Path

import boto3
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from eks_training.infra.tools.cli import main as cli_main
from eks_training.training.data import TokenDataset
from eks_training.training.data_prep import PrepOptions, in_eval_split, prepare

EOD = "<|endoftext|>"
WORDS = ("the quick brown fox jumps over a lazy dog while data flows into shards of tokens and "
         "caf\u00e9 na\u00efve \u00fcber \u65e5\u672c").split()


def make_documents(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 40))) for _ in range(count)]


def train_tokenizer(path: Path, texts: list[str]) -> Tokenizer:
    """A byte-level BPE (exact round trip, as GPT-2's) trained here, so no download is needed."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.train_from_iterator(texts, trainers.BpeTrainer(
        vocab_size=400, special_tokens=[EOD], initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    tokenizer.save(str(path))
    return tokenizer


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Every input kind at once: .txt (one document per file, newlines inside), .jsonl.gz with another field
    name, Parquet with nulls, and files a folder listing must skip."""
    root = tmp_path_factory.mktemp("corpus")
    jsonl_docs, parquet_docs = make_documents(300, 1), make_documents(200, 2)
    txt_docs = ["first line\nsecond line of the same file\n", "  indented \u00fcber text\twith tab", "x"]
    (root / "books").mkdir()
    for index, text in enumerate(txt_docs):
        (root / "books" / f"book-{index}.txt").write_text(text)
    (root / "books" / "empty.txt").write_text(" \n")  # whitespace only: not a document
    with gzip.open(root / "web.jsonl.gz", "wt") as handle:
        for index, text in enumerate(jsonl_docs):
            handle.write(json.dumps({"id": index, "body": text}) + "\n")
            if index == 5:
                handle.write("\n")  # blank lines are tolerated
    # Same field name for Parquet; a null row is skipped.
    pq.write_table(pa.table({"body": parquet_docs + [None], "n": list(range(len(parquet_docs) + 1))}),
                   root / "wiki.parquet", row_group_size=64)
    (root / "_SUCCESS").write_text("")
    (root / ".hidden.txt").write_text("not part of the corpus")
    tokenizer_path = root.parent / (root.name + "-tokenizer.json")
    tokenizer = train_tokenizer(tokenizer_path, txt_docs + jsonl_docs + parquet_docs)
    return {"root": root, "tokenizer_path": tokenizer_path, "tokenizer": tokenizer,
            "documents": txt_docs[:3] + jsonl_docs + parquet_docs}


def read_split(folder: Path) -> tuple[dict, list[int]]:
    meta = json.loads((folder / "meta.json").read_text())
    tokens = array({"uint16": "H", "uint32": "I"}[meta["dtype"]])
    for shard in sorted(folder.glob("*.bin")):
        tokens.frombytes(shard.read_bytes())
    return meta, tokens.tolist()


def decode_documents(tokenizer: Tokenizer, tokens: list[int], eod_id: int) -> list[str]:
    assert tokens and tokens[-1] == eod_id, "every document, the last one too, ends with the end-of-document token"
    documents, current = [], []
    for token in tokens:
        if token == eod_id:
            documents.append(tokenizer.decode(current, skip_special_tokens=False))
            current = []
        else:
            current.append(token)
    return documents


def test_round_trip_through_the_trainers_reader(corpus: dict, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = prepare(PrepOptions(input=str(corpus["root"]), output=str(out), tokenizer=str(corpus["tokenizer_path"]),
                                 text_field="body", eval_fraction=0.1, shard_tokens=2000, progress=False))
    tokenizer: Tokenizer = corpus["tokenizer"]
    eod_id = tokenizer.token_to_id(EOD)
    decoded: dict[str, list[str]] = {}
    for split in ("train", "eval"):
        meta, tokens = read_split(out / split)
        assert meta["dtype"] == "uint16" and meta["vocab_size"] == tokenizer.get_vocab_size()
        assert meta["eod_token_id"] == eod_id and meta["tokens"] == len(tokens)
        decoded[split] = decode_documents(tokenizer, tokens, eod_id)
        assert meta["documents"] == len(decoded[split])
    # Every document exactly once, in one split, byte for byte (newlines, tabs, non-ASCII included).
    assert sorted(decoded["train"] + decoded["eval"]) == sorted(corpus["documents"])
    assert 0 < len(decoded["eval"]) < 0.25 * len(corpus["documents"])
    assert len(list((out / "train").glob("*.bin"))) > 1  # --shard-tokens rolled over
    assert result["splits"]["train"]["tokens"] + result["splits"]["eval"]["tokens"] > 0

    # The trainer's own reader, unchanged, loads both folders; its samples are windows of the stream written.
    _, train_tokens = read_split(out / "train")
    stream = ",".join(map(str, train_tokens))
    for split in ("train", "eval"):
        dataset = TokenDataset(out / split, seq_len=16, micro_batch_size=4)
        assert dataset.vocab_size == tokenizer.get_vocab_size()
        inputs, targets = dataset.batch(0)
        assert inputs.shape == (4, 16) and bool((targets[:, :-1] == inputs[:, 1:]).all())
    inputs, targets = TokenDataset(out / "train", seq_len=16, micro_batch_size=4).batch(3)
    for row, last in zip(inputs.tolist(), targets[:, -1].tolist()):
        assert ",".join(map(str, row + [last])) in stream


def test_split_does_not_depend_on_workers_and_lines_are_documents(corpus: dict, tmp_path: Path) -> None:
    root = tmp_path / "lines"
    root.mkdir()
    lines = make_documents(400, 7)
    (root / "a.txt").write_text("\n".join(lines[:250]) + "\n")
    (root / "b.txt").write_text("\r\n".join(lines[250:]))
    outputs = {}
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        result = prepare(PrepOptions(input=str(root), output=str(out), tokenizer=str(corpus["tokenizer_path"]),
                                     txt_document="line", eval_fraction=0.2, seed=3, workers=workers, progress=False))
        assert result["workers"] == workers
        eod_id = corpus["tokenizer"].token_to_id(EOD)
        outputs[workers] = {split: sorted(decode_documents(corpus["tokenizer"], read_split(out / split)[1], eod_id))
                            for split in ("train", "eval")}
    assert outputs[1] == outputs[2]
    assert sorted(outputs[1]["train"] + outputs[1]["eval"]) == sorted(lines)
    expected_eval = sorted(text for name, docs in (("a.txt", lines[:250]), ("b.txt", lines[250:]))
                           for index, text in enumerate(docs) if in_eval_split(3, name, index, 0.2))
    assert outputs[1]["eval"] == expected_eval and 40 < len(expected_eval) < 120


def test_s3_input_tokenizer_and_output(corpus: dict, bucket: str, tmp_path: Path) -> None:
    s3 = boto3.client("s3")
    documents = make_documents(120, 11)
    s3.put_object(Bucket=bucket, Key="raw/part-0.jsonl", Body="".join(json.dumps({"text": d}) + "\n" for d in documents[:70]))
    s3.put_object(Bucket=bucket, Key="raw/sub/part-1.jsonl", Body="".join(json.dumps({"text": d}) + "\n" for d in documents[70:]))
    s3.put_object(Bucket=bucket, Key="raw/_SUCCESS", Body=b"")
    s3.put_object(Bucket=bucket, Key="raw-other/ignored.jsonl", Body=b'{"text": "outside the prefix"}\n')
    s3.upload_file(str(corpus["tokenizer_path"]), bucket, "tok/tokenizer.json")
    s3.put_object(Bucket=bucket, Key="tokens/train/part-9999-00000.bin", Body=b"\0\0")  # a stale shard

    options = dict(input=f"s3://{bucket}/raw", output=f"s3://{bucket}/tokens", tokenizer=f"s3://{bucket}/tok/tokenizer.json",
                   eval_fraction=0.25, workers=2, progress=False, work_dir=str(tmp_path / "work"))
    with pytest.raises(ValueError, match=rf"^--output='s3://{bucket}/tokens' is not allowed: a prefix without train/ or eval/ "
                                         r"objects, or --overwrite \(found s3://.*/tokens/train/part-9999-00000.bin\)$"):
        prepare(PrepOptions(**options))
    prepare(PrepOptions(**options, overwrite=True))

    keys = sorted(o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix="tokens/")["Contents"])
    assert "tokens/train/part-9999-00000.bin" not in keys
    assert {"tokens/train/meta.json", "tokens/eval/meta.json"} <= set(keys)
    local = tmp_path / "synced"
    for key in keys:
        (local / key).parent.mkdir(parents=True, exist_ok=True)
        s3.download_file(bucket, key, str(local / key))
    eod_id = corpus["tokenizer"].token_to_id(EOD)
    decoded = [doc for split in ("train", "eval")
               for doc in decode_documents(corpus["tokenizer"], read_split(local / "tokens" / split)[1], eod_id)]
    assert sorted(decoded) == sorted(documents)
    assert len(TokenDataset(local / "tokens" / "train", seq_len=8, micro_batch_size=2)) > 0
    assert not any((tmp_path / "work").iterdir())  # staging and downloads are cleaned up


def test_cli_prepares_and_a_large_vocabulary_gets_uint32(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    # 70,000 ids do not fit uint16: auto picks uint32, an explicit uint16 is refused in one line.
    vocab = {"[UNK]": 0, "[EOS]": 1, **{f"w{i}": i + 2 for i in range(70_000)}}
    tokenizer = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.save(str(tmp_path / "tokenizer.json"))
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("w1 w69999 w5\nw65536 w2\n")
    base = ["data", "prepare", "--input", str(tmp_path / "in"), "--tokenizer", str(tmp_path), "--txt-document", "line",
            "--eval-fraction", "0", "--no-progress"]

    assert cli_main([*base, "--output", str(tmp_path / "a"), "--dtype", "uint16"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("error: --dtype='uint16' is not allowed: uint32 or auto") and "70002 ids" in error
    assert error.count("\n") == 1 and not (tmp_path / "a" / "train").exists()

    assert cli_main([*base[:-1], "--output", str(tmp_path / "b")]) == 0
    captured = capsys.readouterr()
    assert "train: 2 documents, 7 tokens (uint32, vocab 70002)" in captured.out
    # The progress bar goes to stderr (stdout stays the summary), and it reaches the whole input.
    assert "tokenizing: 100%" in captured.err and "tokenizing" not in captured.out
    meta, tokens = read_split(tmp_path / "b" / "train")
    assert meta["dtype"] == "uint32" and meta["eod_token"] == "[EOS]"
    assert tokens == [3, 70001, 7, 1, 65538, 4, 1]
    assert not (tmp_path / "b" / "eval").exists()  # --eval-fraction 0: no eval split


def _bad_inputs(root: Path, bucket: str) -> dict[str, tuple[list[str], str]]:
    (root / "empty").mkdir()
    (root / "blank").mkdir()
    (root / "blank" / "a.txt").write_text("\n  \n")
    (root / "csv").mkdir()
    (root / "csv" / "a.csv").write_text("text\nhello\n")
    (root / "jsonl").mkdir()
    (root / "jsonl" / "a.jsonl").write_text('{"text": "ok"}\n{"content": "no text field"}\n')
    (root / "parquet").mkdir()
    pq.write_table(pa.table({"content": ["x"]}), root / "parquet" / "a.parquet")
    (root / "notjson").mkdir()
    (root / "notjson" / "a.jsonl").write_text('{"text": "ok"}\nnot json\n')
    (root / "latin1").mkdir()
    (root / "latin1" / "a.txt").write_bytes("caf\u00e9".encode("latin-1"))
    (root / "badtok.json").write_text('{"not": "a tokenizer"}')
    return {
        "empty folder": (["--input", str(root / "empty")], r"--input='.*empty' is not allowed: .*the corpus is empty"),
        "no documents": (["--input", str(root / "blank")], r"--input=.* is not allowed: at least one non-empty document"),
        "unknown format": (["--input", str(root / "csv")], r"--format='auto' is not allowed: files ending in .*'a.csv' has no known extension"),
        "bad --format": (["--input", str(root / "csv"), "--format", "csv"], r"--format='csv' is not allowed: auto, txt, jsonl, parquet"),
        "missing json field": (["--input", str(root / "jsonl")], r"--text-field='text' is not allowed: a field of every record \(a.jsonl line 2 has: content\)"),
        "missing column": (["--input", str(root / "parquet")], r"--text-field='text' is not allowed: a column .*a.parquet has: content"),
        "not json": (["--input", str(root / "notjson")], r"--input='a.jsonl line 2' is not allowed: JSON Lines"),
        "not utf-8": (["--input", str(root / "latin1")], r"--input='a.txt' is not allowed: UTF-8 text"),
        "missing tokenizer": (["--tokenizer", str(root / "nope.json")], r"--tokenizer='.*nope.json' is not allowed: an existing tokenizer.json"),
        "not a tokenizer": (["--tokenizer", str(root / "badtok.json")], r"--tokenizer=.* is not allowed: a Hugging Face tokenizer.json"),
        "missing s3 tokenizer": (["--tokenizer", f"s3://{bucket}/none/tokenizer.json"], r"--tokenizer='s3://.*' is not allowed: an existing tokenizer.json object"),
        "unknown eod": (["--eod-token", "<eos>"], r"--eod-token='<eos>' is not allowed: a token of the tokenizer's vocabulary, e.g. <\|endoftext\|>"),
        "bad fraction": (["--eval-fraction", "1"], r"--eval-fraction=1.0 is not allowed: a number >= 0 and < 1"),
        "bad workers": (["--workers", "two"], r"--workers='two' is not allowed: an integer >= 1"),
        "bad s3 uri": (["--output", "s3:///x"], r"--output='s3:///x' is not allowed: s3://BUCKET\[/PREFIX\]"),
        "empty s3 prefix": (["--input", f"s3://{bucket}/nothing-here"], r"--input='s3://.*/nothing-here' is not allowed: .*the corpus is empty"),
        "missing bucket": (["--input", "s3://no-such-bucket-here/x"], r"--input='s3://no-such-bucket-here/x' is not allowed: an s3:// location that exists "
                                                                    r"and that you may use \(.*NoSuchBucket"),
    }


def test_bad_input_gets_one_line_each(corpus: dict, bucket: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    import re

    good = {"--input": str(corpus["root"]), "--output": str(tmp_path / "out"), "--tokenizer": str(corpus["tokenizer_path"])}
    failures = []
    for label, (flags, pattern) in _bad_inputs(tmp_path, bucket).items():
        given = dict(good)
        extra = []
        for flag, value in zip(flags[::2], flags[1::2]):
            (given.__setitem__(flag, value) if flag in given else extra.extend([flag, value]))
        argv = ["data", "prepare", "--no-progress", "--text-field", "text", *[x for kv in given.items() for x in kv], *extra]
        if label in ("missing tokenizer", "not a tokenizer", "missing s3 tokenizer", "unknown eod", "bad fraction",
                     "bad workers", "bad s3 uri"):
            argv[argv.index("--text-field") + 1] = "body"
        status = cli_main(argv)
        captured = capsys.readouterr()
        lines = captured.err.splitlines()
        if status != 2 or len(lines) != 1 or not re.match("error: " + pattern, lines[0]) or "Traceback" in captured.err:
            failures.append(f"{label}: status {status}, stderr {captured.err!r}")
    assert failures == []
    assert not list((tmp_path / "out").glob("*/*.bin"))  # nothing half-written is left where the trainer would look


def test_module_entry_point_reports_like_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    # `python -m eks_training.training.data_prep` is what the data-prep job runs in images without the CLI's extras.
    from eks_training.training.data_prep import main

    assert main(["--input", str(tmp_path / "missing"), "--output", str(tmp_path / "o"), "--tokenizer", "t.json"]) == 2
    assert capsys.readouterr().err == (f"error: --tokenizer='t.json' is not allowed: an existing tokenizer.json "
                                       f"(or a folder holding one), local or s3://\n")
    assert main(["--output", "x"]) == 2
    assert capsys.readouterr().err == "error: the following arguments are required: --input, --tokenizer\n"


def test_a_missing_optional_package_names_the_flag_its_value_and_the_install() -> None:
    from eks_training.training.config import InvalidSetting
    from eks_training.training.data_prep import _need

    with pytest.raises(InvalidSetting) as caught:
        _need("no_such_package_for_this_test.sub", "--format", "parquet")
    error = caught.value
    assert (error.field, error.value) == ("--format", "parquet")
    assert error.allowed == ("pip install 'eks-training[data-prep]' first (this needs the Python package "
                             "'no_such_package_for_this_test', which is not installed)")


def test_a_few_txt_files_still_get_an_eval_document_whatever_the_workers(corpus: dict, tmp_path: Path) -> None:
    # Three one-document files at --eval-fraction 0.01: the hash draw alone would almost surely hold out none.
    root = tmp_path / "books"
    root.mkdir()
    texts = make_documents(3, 11)
    for index, text in enumerate(texts):
        (root / f"book-{index}.txt").write_text(text)
    eod_id = corpus["tokenizer"].token_to_id(EOD)
    splits = {}
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        prepare(PrepOptions(input=str(root), output=str(out), tokenizer=str(corpus["tokenizer_path"]),
                            eval_fraction=0.01, workers=workers, progress=False))
        splits[workers] = {split: sorted(decode_documents(corpus["tokenizer"], read_split(out / split)[1], eod_id))
                           for split in ("train", "eval")}
        assert [read_split(out / split)[0]["documents"] for split in ("train", "eval")] == [2, 1]
    assert splits[1] == splits[2] and sorted(splits[1]["train"] + splits[1]["eval"]) == sorted(texts)


def test_a_failed_run_leaves_nothing_behind_and_the_retry_needs_no_overwrite(corpus: dict, tmp_path: Path) -> None:
    root = tmp_path / "in"
    root.mkdir()
    (root / "a.txt").write_text("a good first document " * 50)
    (root / "b.txt").write_bytes("caf\u00e9".encode("latin-1"))  # read after a.txt: fails mid-run
    out = tmp_path / "out"
    options = dict(input=str(root), output=str(out), tokenizer=str(corpus["tokenizer_path"]), progress=False)
    with pytest.raises(ValueError, match="UTF-8 text"):
        prepare(PrepOptions(**options))
    assert list(out.iterdir()) == [] and [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    (root / "b.txt").write_text("a good second document")
    result = prepare(PrepOptions(**options))
    assert result["splits"]["train"]["documents"] + result["splits"].get("eval", {"documents": 0})["documents"] == 2
    # The tokenizer travels with the tokens (export copies it beside the model).
    assert (out / "train" / "tokenizer.json").read_bytes() == Path(corpus["tokenizer_path"]).read_bytes()


def test_a_llama_3_style_tokenizer_gets_its_beginning_of_text_token(corpus: dict, tmp_path: Path) -> None:
    from tokenizers import processors

    tokenizer = Tokenizer.from_file(str(corpus["tokenizer_path"]))
    tokenizer.add_special_tokens(["<|begin_of_text|>"])
    bos = tokenizer.token_to_id("<|begin_of_text|>")
    tokenizer.post_processor = processors.TemplateProcessing(single="<|begin_of_text|> $A",
                                                             special_tokens=[("<|begin_of_text|>", bos)])
    tokenizer.save(str(tmp_path / "tokenizer.json"))
    (tmp_path / "in").mkdir()
    texts = ["one document here", "and a second one"]
    (tmp_path / "in" / "a.txt").write_text("\n".join(texts))
    prepare(PrepOptions(input=str(tmp_path / "in"), output=str(tmp_path / "out"), tokenizer=str(tmp_path),
                        txt_document="line", eval_fraction=0, progress=False))
    meta, tokens = read_split(tmp_path / "out" / "train")
    eod = tokenizer.token_to_id(EOD)
    expected = [t for text in texts for t in [bos, *tokenizer.encode(text, add_special_tokens=False).ids, eod]]
    assert meta["bos_token_id"] == bos and tokens == expected
    # The byte-level BPE without a post-processor (GPT-2 style) gets none.
    prepare(PrepOptions(input=str(tmp_path / "in"), output=str(tmp_path / "plain"),
                        tokenizer=str(corpus["tokenizer_path"]), txt_document="line", eval_fraction=0, progress=False))
    assert read_split(tmp_path / "plain" / "train")[0]["bos_token_id"] is None


def test_shards_shorter_than_a_sample_are_read_together_not_skipped(tmp_path: Path) -> None:
    from eks_training.training.data import write_token_dir

    # Ten 7-token shards (documents of small workers, or a tail) and seq_len 16: alone, none holds a sample.
    shards = [[100 + 10 * shard + i for i in range(7)] for shard in range(10)]
    write_token_dir(tmp_path, shards, 256)
    dataset = TokenDataset(tmp_path, seq_len=16, micro_batch_size=1, shuffle=False)
    stream = [token for shard in shards for token in shard]  # write_token_dir names them in this order
    assert len(dataset) == (len(stream) - 1) // 16
    rows = dataset.rows(0, len(dataset)).tolist()
    assert rows == [stream[i * 16:i * 16 + 17] for i in range(len(dataset))]
