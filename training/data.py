"""Pre-tokenized training data read from a folder (FSx in production) through memory maps.

Layout: ``meta.json`` (``{"dtype": "uint16" | "uint32", "vocab_size": N}``) and one or more ``*.bin``
files of little-endian token ids. Each sample is ``seq_len + 1`` consecutive tokens inside one file.
The data position is global: the number of samples the whole job has consumed. Global sample ``i`` is
the same sample for any world size and micro-batch size (one shuffled order per epoch), and each
micro-step hands rank ``r`` the samples ``[consumed + r * micro_batch, consumed + (r + 1) * micro_batch)``.
So a job resumed on another number of ranks, or with another micro-batch size, continues the same global
order with no sample repeated and none skipped. ``eod_token_id`` in meta.json (data prep writes it) names the token
that ends each document: the model then keeps attention inside each document of a sample (``--document-masking``).
Every target of every sample counts, so each micro-batch has the same token count and the mean of the micro-batch
and rank means is the mean over the step's global token count.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import random
import warnings
from array import array
from pathlib import Path
from typing import Sequence

import torch

from eks_training.training.config import invalid

_DTYPES = {"uint16": (torch.uint16, "H"), "uint32": (torch.uint32, "I")}


def write_token_dir(folder: str | Path, token_files: Sequence[Sequence[int]], vocab_size: int) -> Path:
    """Write token id lists as a data folder this module reads (smallest dtype that fits)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    dtype = "uint16" if vocab_size <= 1 << 16 else "uint32"
    for index, tokens in enumerate(token_files):
        (folder / f"part-{index:05d}.bin").write_bytes(array(_DTYPES[dtype][1], tokens).tobytes())
    (folder / "meta.json").write_text(json.dumps({"dtype": dtype, "vocab_size": vocab_size}))
    return folder


def synthetic_tokens(count: int, vocab_size: int, period: int = 13, seed: int = 0) -> list[int]:
    """A learnable sequence: a fixed random cycle of ``period`` tokens, repeated."""
    cycle = random.Random(seed).sample(range(vocab_size), period)
    return [cycle[i % period] for i in range(count)]


def _fingerprint(dtype: str, paths: Sequence[Path]) -> str:
    """Names and sizes of a data folder's token files: the same for the same dataset wherever it is mounted,
    different for another one (what a resume compares before it continues a checkpoint)."""
    digest = hashlib.sha256(dtype.encode())
    for path in paths:
        digest.update(f"{path.name}:{path.stat().st_size};".encode())
    return digest.hexdigest()[:16]


class TokenDataset:
    """Fixed-length samples over memory-mapped token files, shuffled per epoch, split across ranks."""

    def __init__(self, folder: str | Path, seq_len: int, micro_batch_size: int, rank: int = 0,
                 world_size: int = 1, seed: int = 0, shuffle: bool = True, flag: str = "--data") -> None:
        folder = Path(folder)
        meta_path = folder / "meta.json"
        try:
            meta = json.loads(meta_path.read_text())
            torch_dtype, _ = _DTYPES[meta["dtype"]]
            self.vocab_size = int(meta["vocab_size"])
        except (OSError, ValueError, KeyError, TypeError):
            raise invalid(flag, str(folder), "a folder with meta.json {dtype: uint16|uint32, vocab_size} "
                          "and *.bin token files") from None
        # Documents end with this token (data prep records it): where document masking splits a packed sample.
        end = meta.get("eod_token_id")
        self.document_end: int | None = int(end) if isinstance(end, int) and not isinstance(end, bool) else None
        self._tokens: list[torch.Tensor] = []
        self._samples: list[tuple[int, int]] = []
        paths = sorted(folder.glob("*.bin"))
        self.fingerprint = _fingerprint(meta["dtype"], paths)
        short: list[torch.Tensor] = []  # consecutive files too short for one sample
        with warnings.catch_warnings():
            # Read-only maps are never written through; torch warns about them regardless.
            warnings.simplefilter("ignore", UserWarning)
            for path in paths:
                if path.stat().st_size == 0:
                    continue
                with path.open("rb") as handle:
                    mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
                tokens = torch.frombuffer(mapped, dtype=torch_dtype)
                if len(tokens) < seq_len + 1:
                    # A shard shorter than one sample would never be trained on: consecutive short ones are read
                    # as one stream (documents end with the end-of-document token, so they stay apart).
                    short.append(tokens.to(torch.long))  # a copy in memory (short by definition)
                    continue
                if short:
                    self._add_file(torch.cat(short), seq_len)
                    short = []
                self._add_file(tokens, seq_len)
            if short:
                self._add_file(torch.cat(short), seq_len)
        if len(self._samples) < micro_batch_size * world_size:
            raise invalid(flag, str(folder), f"at least {micro_batch_size * world_size} samples of "
                          f"{seq_len + 1} tokens (found {len(self._samples)})")
        self.seq_len, self.micro_batch_size = seq_len, micro_batch_size
        self.rank, self.world_size, self.seed, self.shuffle = rank, world_size, seed, shuffle
        self._order_epoch, self._order = -1, torch.empty(0, dtype=torch.long)

    def _add_file(self, tokens: torch.Tensor, seq_len: int) -> None:
        file_index = len(self._tokens)
        self._tokens.append(tokens)
        usable = (len(tokens) - 1) // seq_len
        self._samples.extend((file_index, i * seq_len) for i in range(usable))

    def __len__(self) -> int:
        return len(self._samples)

    @property
    def samples_per_micro_step(self) -> int:
        """Samples all ranks together consume in one micro-step."""
        return self.micro_batch_size * self.world_size

    def _order_for(self, epoch: int) -> torch.Tensor:
        if not self.shuffle:
            if self._order_epoch != 0:
                self._order, self._order_epoch = torch.arange(len(self._samples)), 0
            return self._order
        if epoch != self._order_epoch:
            generator = torch.Generator().manual_seed(self.seed * 1_000_003 + epoch)
            self._order, self._order_epoch = torch.randperm(len(self._samples), generator=generator), epoch
        return self._order

    def sample_index(self, global_index: int) -> int:
        """Which stored sample the job's ``global_index``-th sample is (epochs repeat in a new order)."""
        epoch, index = divmod(global_index, len(self._samples))
        return int(self._order_for(epoch)[index])

    def rows(self, first: int, count: int) -> torch.Tensor:
        """``count`` samples of ``seq_len + 1`` tokens, global samples ``first .. first + count - 1``."""
        rows = []
        for global_index in range(first, first + count):
            file_index, offset = self._samples[self.sample_index(global_index)]
            rows.append(self._tokens[file_index][offset:offset + self.seq_len + 1].to(torch.long))
        return torch.stack(rows)

    def batch_at(self, consumed: int) -> tuple[torch.Tensor, torch.Tensor]:
        """This rank's micro-batch when the job has consumed ``consumed`` samples: inputs and targets."""
        window = self.rows(consumed + self.rank * self.micro_batch_size, self.micro_batch_size)
        return window[:, :-1], window[:, 1:]

    def batch(self, position: int) -> tuple[torch.Tensor, torch.Tensor]:
        """The batch of global micro-step ``position`` (same world size and micro-batch throughout)."""
        return self.batch_at(position * self.samples_per_micro_step)
