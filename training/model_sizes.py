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
    #: The output layer shares the input embedding's weight (Llama 3.2 1B/3B do).
    tie_embeddings: bool = False
    #: Mixture of experts (Mixtral): experts per block (0: a dense SwiGLU feed-forward), each of ``ffn_dim``.
    n_experts: int = 0
    #: Experts each token is routed to (top-k), and the weight of the load-balancing loss added to the training loss.
    experts_per_token: int = 2
    router_aux_loss_coef: float = 0.001

    @property
    def is_moe(self) -> bool:
        return self.n_experts > 0

    @property
    def head_dim(self) -> int:
        return self.dim // self.n_heads

    @property
    def parameters(self) -> int:
        """Weights of the decoder (the embedding counted once when the output layer shares it)."""
        kv_dim = self.n_kv_heads * self.head_dim
        feed_forward = 3 * self.dim * self.ffn_dim * max(1, self.n_experts) + self.dim * self.n_experts
        block = 2 * self.dim * self.dim + 2 * self.dim * kv_dim + feed_forward + 2 * self.dim
        embeddings = (1 if self.tie_embeddings else 2) * self.vocab_size * self.dim
        return embeddings + self.n_layers * block + self.dim


#: The sequence length when --seq-len is not given: the model's max_seq_len, capped here.
DEFAULT_SEQ_LEN_CAP = 2048

#: The model trained when none is named, by the trainer and by `eks-training render`: the smallest size a real
#: tokenizer fits (32,000 ids; GPT-2's 50,257 and Llama 3's 128,256 need 1b) that one A10G trains. tiny (256 ids)
#: is for tests and a first run on a laptop (README: Train your first model).
DEFAULT_MODEL = "small"

# Named sizes. 1b/8b/70b/405b follow the published Llama 3.x shapes (1b is Llama-3.2-1B: tied embeddings, 1.24B
# parameters); tiny and small are for CPU tests.
MODEL_SIZES: dict[str, ModelArgs] = {
    "tiny": ModelArgs(vocab_size=256, dim=64, n_layers=2, n_heads=4, n_kv_heads=2, ffn_dim=176, max_seq_len=128),
    # tiny's mixture-of-experts twin (Mixtral-style: 4 experts, top 2), for CPU tests of expert parallelism.
    "tiny-moe": ModelArgs(vocab_size=256, dim=64, n_layers=2, n_heads=4, n_kv_heads=2, ffn_dim=96, max_seq_len=128,
                          n_experts=4, experts_per_token=2),
    "small": ModelArgs(vocab_size=32000, dim=768, n_layers=12, n_heads=12, n_kv_heads=12, ffn_dim=2048,
                       max_seq_len=2048),
    "1b": ModelArgs(vocab_size=128256, dim=2048, n_layers=16, n_heads=32, n_kv_heads=8, ffn_dim=8192,
                    max_seq_len=8192, tie_embeddings=True),
    "8b": ModelArgs(vocab_size=128256, dim=4096, n_layers=32, n_heads=32, n_kv_heads=8, ffn_dim=14336,
                    max_seq_len=8192),
    "70b": ModelArgs(vocab_size=128256, dim=8192, n_layers=80, n_heads=64, n_kv_heads=8, ffn_dim=28672,
                     max_seq_len=8192),
    "405b": ModelArgs(vocab_size=128256, dim=16384, n_layers=126, n_heads=128, n_kv_heads=8, ffn_dim=53248,
                      max_seq_len=8192),
}
