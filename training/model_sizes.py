"""The decoder's sizes, by name, without importing torch: the trainer builds from them, and the planner (which must
stay quick to import) plans with the very same shapes."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelArgs:
    """Sizes of a Llama-style decoder."""

    vocab_size: int
    dim: int
    n_layers: int
    n_heads: int
    n_kv_heads: int
    ffn_dim: int
    max_seq_len: int
    rope_theta: float = 500000.0
    norm_eps: float = 1e-5

    @property
    def head_dim(self) -> int:
        return self.dim // self.n_heads

    @property
    def parameters(self) -> int:
        """Weights of the decoder (untied input embedding and output layer)."""
        kv_dim = self.n_kv_heads * self.head_dim
        block = 2 * self.dim * self.dim + 2 * self.dim * kv_dim + 3 * self.dim * self.ffn_dim + 2 * self.dim
        return 2 * self.vocab_size * self.dim + self.n_layers * block + self.dim


#: The sequence length when --seq-len is not given: the model's max_seq_len, capped here.
DEFAULT_SEQ_LEN_CAP = 2048

#: The model trained when none is named, by the trainer and by `eks-training render`: the smallest size a real
#: tokenizer fits (32,000 ids; GPT-2's 50,257 and Llama 3's 128,256 need 1b) that one A10G trains. tiny (256 ids)
#: is for tests and a first run on a laptop (README: Train your first model).
DEFAULT_MODEL = "small"

# Named sizes. 1b/8b/70b/405b follow the published Llama 3.x shapes; tiny and small are for CPU tests.
MODEL_SIZES: dict[str, ModelArgs] = {
    "tiny": ModelArgs(vocab_size=256, dim=64, n_layers=2, n_heads=4, n_kv_heads=2, ffn_dim=176, max_seq_len=128),
    "small": ModelArgs(vocab_size=32000, dim=768, n_layers=12, n_heads=12, n_kv_heads=12, ffn_dim=2048,
                       max_seq_len=2048),
    "1b": ModelArgs(vocab_size=128256, dim=2048, n_layers=16, n_heads=32, n_kv_heads=8, ffn_dim=8192,
                    max_seq_len=8192),
    "8b": ModelArgs(vocab_size=128256, dim=4096, n_layers=32, n_heads=32, n_kv_heads=8, ffn_dim=14336,
                    max_seq_len=8192),
    "70b": ModelArgs(vocab_size=128256, dim=8192, n_layers=80, n_heads=64, n_kv_heads=8, ffn_dim=28672,
                     max_seq_len=8192),
    "405b": ModelArgs(vocab_size=128256, dim=16384, n_layers=126, n_heads=128, n_kv_heads=8, ffn_dim=53248,
                      max_seq_len=8192),
}
