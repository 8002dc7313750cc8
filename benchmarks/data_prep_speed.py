"""Tokens/s of `eks-training data prepare` against the tokenizer's own batch encoding of the same documents.

The corpus (JSON Lines of random words) and a byte-level BPE tokenizer are made here. The tokenizer's figure is
``Tokenizer.encode_batch`` over the documents already in memory, in batches as data prep hands them over: the
ceiling for data prep, which also reads and parses the files, draws the train/eval split, and writes the shards.
Rounds alternate so machine noise hits both alike; prints a table and the ratio data prep / tokenizer (goal:
within 10%, i.e. >= 0.9).

    python benchmarks/data_prep_speed.py [--documents 20000] [--rounds 3] [--workers 1]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from eks_training.training.data_prep import PrepOptions, prepare

_WORDS = ("the model reads tokens from shards on lustre while a job trains and saves a checkpoint every few steps "
          "data flows through pipelines of parsers encoders writers and readers into folders of binary files").split()
_BATCH_DOCS = 4096


def corpus(documents: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(_WORDS) for _ in range(rng.randint(50, 400))) for _ in range(documents)]


def make_tokenizer(path: Path, sample: list[str]) -> Tokenizer:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.train_from_iterator(sample, trainers.BpeTrainer(vocab_size=2000, special_tokens=["<|endoftext|>"],
                                                              show_progress=False))
    tokenizer.save(str(path))
    return tokenizer


def tokenizer_round(tokenizer: Tokenizer, texts: list[str]) -> tuple[int, float]:
    started = time.perf_counter()
    tokens = 0
    for first in range(0, len(texts), _BATCH_DOCS):
        tokens += sum(len(e.ids) + 1 for e in tokenizer.encode_batch(texts[first:first + _BATCH_DOCS],
                                                                     add_special_tokens=False))
    return tokens, time.perf_counter() - started


def prep_round(root: Path, tokenizer_path: Path, out: Path, workers: int) -> tuple[int, float]:
    started = time.perf_counter()
    result = prepare(PrepOptions(input=str(root), output=str(out), tokenizer=str(tokenizer_path), workers=workers,
                                 overwrite=True, progress=False))
    elapsed = time.perf_counter() - started
    return sum(split["tokens"] for split in result["splits"].values()), elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    texts = corpus(args.documents)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "corpus"
        root.mkdir()
        per_file = max(1, len(texts) // 4)
        for index in range(0, len(texts), per_file):
            (root / f"part-{index // per_file}.jsonl").write_text(
                "".join(json.dumps({"text": text}) + "\n" for text in texts[index:index + per_file]))
        tokenizer = make_tokenizer(Path(scratch) / "tokenizer.json", texts[:2000])
        rows = []
        for _ in range(args.rounds):
            plain_tokens, plain_s = tokenizer_round(tokenizer, texts)
            prep_tokens, prep_s = prep_round(root, Path(scratch) / "tokenizer.json", Path(scratch) / "out",
                                             args.workers)
            # data prep writes one end-of-document token per document, as the tokenizer round counts it.
            assert prep_tokens == plain_tokens, (prep_tokens, plain_tokens)
            rows.append((plain_tokens / plain_s, prep_tokens / prep_s))
    megabytes = sum(len(t) for t in texts) / 1e6
    print(f"corpus: {len(texts)} documents, {megabytes:.0f} MB of text, {plain_tokens:,} tokens; "
          f"data prep with --workers {args.workers}")
    print(f"| round | tokenizer encode_batch tokens/s | data prepare tokens/s | ratio |\n| --- | --- | --- | --- |")
    for index, (plain, prep) in enumerate(rows, 1):
        print(f"| {index} | {plain:,.0f} | {prep:,.0f} | {prep / plain:.3f} |")
    ratios = [prep / plain for plain, prep in rows]
    print(f"median ratio data prep / tokenizer: {statistics.median(ratios):.3f} (best round {max(ratios):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
