"""A Llama-style decoder built in code, or a local Hugging Face causal LM when transformers is installed.

Projection names follow Llama (``q_proj``, ``k_proj``, ``v_proj``, ``o_proj``, ``gate_proj``, ``up_proj``,
``down_proj``) so LoRA target lists written for Hugging Face checkpoints match this model too.
"""

from __future__ import annotations

import contextlib
import math
from pathlib import Path
from typing import Callable

import torch
import torch.nn.functional as F
from torch import nn

from eks_training.training.config import ConfigError, invalid
from eks_training.training.loss import OutputLoss, chunked_cross_entropy, head_cross_entropy
from eks_training.training.model_sizes import DEFAULT_SEQ_LEN_CAP, MODEL_SIZES, ModelArgs
from eks_training.training.moe import Expert, MoEFeedForward
from eks_training.training.shards import fill_rows
from eks_training.training.weights import read_decoder_args


CheckpointFn = Callable[..., torch.Tensor]


def _rotary_tables(head_dim: int, max_seq_len: int, theta: float) -> tuple[torch.Tensor, torch.Tensor]:
    inverse_frequency = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
    angles = torch.outer(torch.arange(max_seq_len, dtype=torch.float32), inverse_frequency)
    angles = torch.cat([angles, angles], dim=-1)
    return angles.cos(), angles.sin()


def _apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    # Real-valued rotate-half form: no complex tensors, which XLA handles poorly.
    first, second = x.chunk(2, dim=-1)
    rotated = torch.cat([-second, first], dim=-1)
    return (x * cos + rotated * sin).to(x.dtype)


class Attention(nn.Module):
    """Grouped-query causal self-attention through ``scaled_dot_product_attention``."""

    def __init__(self, args: ModelArgs) -> None:
        super().__init__()
        self.n_heads, self.n_kv_heads, self.head_dim = args.n_heads, args.n_kv_heads, args.head_dim
        # SDPA reads shared K/V heads itself (no repeated copies); XLA's SDPA lacks it, so it can be turned off.
        self.native_gqa = True
        self.q_proj = nn.Linear(args.dim, args.n_heads * args.head_dim, bias=False)
        self.k_proj = nn.Linear(args.dim, args.n_kv_heads * args.head_dim, bias=False)
        self.v_proj = nn.Linear(args.dim, args.n_kv_heads * args.head_dim, bias=False)
        self.o_proj = nn.Linear(args.n_heads * args.head_dim, args.dim, bias=False)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                mask: torch.Tensor | None = None) -> torch.Tensor:
        """``cos``/``sin`` are the whole rotary tables: the sequence is known here, after the projections (under
        sequence parallelism the block's input holds a slice of it). ``mask`` ``(batch, 1, seq, seq)``, True where
        a token may attend, replaces the plain causal mask (document masking)."""
        batch, seq, _ = x.shape
        # -1 heads: the heads this rank holds (all of them, or its share under tensor parallelism).
        q = self.q_proj(x).view(batch, seq, -1, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(batch, seq, -1, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(batch, seq, -1, self.head_dim).transpose(1, 2)
        cos, sin = cos[:seq], sin[:seq]
        q, k = _apply_rotary(q, cos, sin), _apply_rotary(k, cos, sin)
        grouped = q.shape[1] != k.shape[1]
        if grouped and not self.native_gqa:
            repeat = q.shape[1] // k.shape[1]
            k, v = k.repeat_interleave(repeat, dim=1), v.repeat_interleave(repeat, dim=1)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=mask is None,
                                             enable_gqa=grouped and self.native_gqa)
        return self.o_proj(out.transpose(1, 2).reshape(batch, seq, -1))


class FeedForward(nn.Module):
    """SwiGLU feed-forward."""

    def __init__(self, args: ModelArgs) -> None:
        super().__init__()
        self.gate_proj = nn.Linear(args.dim, args.ffn_dim, bias=False)
        self.up_proj = nn.Linear(args.dim, args.ffn_dim, bias=False)
        self.down_proj = nn.Linear(args.ffn_dim, args.dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderBlock(nn.Module):
    """Pre-norm transformer block."""

    def __init__(self, args: ModelArgs) -> None:
        super().__init__()
        self.input_norm = nn.RMSNorm(args.dim, eps=args.norm_eps)
        self.self_attn = Attention(args)
        self.post_attention_norm = nn.RMSNorm(args.dim, eps=args.norm_eps)
        self.mlp: nn.Module = MoEFeedForward(args) if args.is_moe else FeedForward(args)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                mask: torch.Tensor | None = None) -> torch.Tensor:
        x = x + self.self_attn(self.input_norm(x), cos, sin, mask)
        return x + self.mlp(self.post_attention_norm(x))


class LlamaDecoder(nn.Module):
    """Token ids ``(batch, seq)`` in, logits ``(batch, seq, vocab)`` out.

    Blocks sit in a dict keyed by their index, so a pipeline stage that keeps some of them (and maybe no embedding,
    final norm or output layer: those are None) names every parameter as the whole model does, and checkpoints
    move between layouts.
    """

    def __init__(self, args: ModelArgs) -> None:
        super().__init__()
        self.args = args
        self.embed_tokens: nn.Embedding | None = nn.Embedding(args.vocab_size, args.dim)
        self.layers = nn.ModuleDict({str(index): DecoderBlock(args) for index in range(args.n_layers)})
        self.norm: nn.RMSNorm | None = nn.RMSNorm(args.dim, eps=args.norm_eps)
        self.lm_head: nn.Linear | None = nn.Linear(args.dim, args.vocab_size, bias=False)
        self.tie_weights()
        self._output_loss: OutputLoss = head_cross_entropy
        cos, sin = _rotary_tables(args.head_dim, args.max_seq_len, args.rope_theta)
        # Not persistent: derived from the sizes, so checkpoints need not carry them.
        self.register_buffer("rope_cos", cos, persistent=False)
        self.register_buffer("rope_sin", sin, persistent=False)
        self._checkpoint_fn: CheckpointFn | None = None
        self._checkpoint_every = 1
        #: The end-of-document token id when attention stays inside each packed document (None: plain causal).
        self.document_end: int | None = None
        if self.lm_head.weight.device.type != "meta":
            self.init_weights(torch.initial_seed())

    def tie_weights(self) -> None:
        """Share the input embedding's weight with the output layer when the sizes say so (again after ``to_empty``,
        which gives each module its own new tensor)."""
        if self.args.tie_embeddings and self.embed_tokens is not None and self.lm_head is not None:
            self.lm_head.weight = self.embed_tokens.weight

    def init_weights(self, seed: int = 0) -> None:
        """Normal(0, 0.02) weights, residual output projections scaled down by depth (GPT-2 style), norms at
        one, LoRA A Kaiming-uniform and B zero. Works in place on full tensors and on FSDP shards alike, and
        recomputes the rotary tables (needed after ``to_empty`` from the meta device)."""
        residual_std = 0.02 / math.sqrt(2 * self.args.n_layers)
        self.tie_weights()
        with torch.no_grad():
            for name, parameter in self.named_parameters():
                # A LoRA-wrapped layer keeps the initial weights of the plain model: same name, same values.
                name = name.replace(".base.", ".")
                if name.endswith("lora_B.weight"):
                    parameter.zero_()
                elif name.endswith("lora_A.weight"):
                    bound = 1.0 / math.sqrt(parameter.shape[1])  # kaiming_uniform_(a=sqrt(5))
                    fill_rows(parameter, seed, name, lambda block, gen, b=bound: block.uniform_(-b, b, generator=gen))
                elif parameter.dim() < 2:
                    parameter.fill_(1.0)
                else:
                    residual = name.endswith(("o_proj.weight", "down_proj.weight", "w2.weight"))
                    std = residual_std if residual else 0.02
                    fill_rows(parameter, seed, name, lambda block, gen, s=std: block.normal_(0.0, s, generator=gen))
            cos, sin = _rotary_tables(self.args.head_dim, self.args.max_seq_len, self.args.rope_theta)
            self.rope_cos.copy_(cos)
            self.rope_sin.copy_(sin)

    def blocks(self) -> list[nn.Module]:
        """The repeated blocks: the units for FSDP sharding and activation checkpointing."""
        return list(self.layers.values())

    def enable_activation_checkpointing(self, checkpoint_fn: CheckpointFn, every: int = 1) -> None:
        """Recompute every ``every``-th block in backward instead of storing its activations."""
        self._checkpoint_fn, self._checkpoint_every = checkpoint_fn, every

    def set_output_loss(self, loss: OutputLoss) -> None:
        """How the output layer and the loss are computed from the final hidden states (tensor parallelism
        computes them over the vocabulary shards, :mod:`eks_training.training.tensor_parallel`)."""
        self._output_loss = loss

    def forward(self, tokens: torch.Tensor, targets: torch.Tensor | None = None,
                documents: torch.Tensor | None = None) -> torch.Tensor:
        """Logits, or with ``targets`` the mean next-token cross-entropy (without a full fp32 logits copy).

        A pipeline stage without the embedding takes the previous stage's hidden states instead of token ids,
        and one without the output layer returns its hidden states (``targets`` is then ignored). ``documents``
        (each token's document index, :func:`document_ids`) keeps attention inside each document; with
        :attr:`document_end` set, the first stage computes it from the token ids itself.
        """
        x = tokens
        if documents is None and self.document_end is not None and self.embed_tokens is not None:
            documents = document_ids(tokens, self.document_end)
        mask = document_mask(documents) if documents is not None else None
        if self.embed_tokens is not None:
            if tokens.shape[1] > self.args.max_seq_len:
                raise invalid("--seq-len", tokens.shape[1], f"at most the model's max_seq_len {self.args.max_seq_len}")
            x = self.embed_tokens(tokens)
        for key, layer in self.layers.items():
            if self._checkpoint_fn is not None and self.training and int(key) % self._checkpoint_every == 0:
                x = self._checkpoint_fn(layer, x, self.rope_cos, self.rope_sin, mask)
            else:
                x = layer(x, self.rope_cos, self.rope_sin, mask)
        if self.lm_head is None:
            return x
        hidden = self.norm(x)
        if targets is None:
            return self.lm_head(hidden)
        loss = self._output_loss(hidden, self.lm_head, targets)
        if self.args.is_moe and self.training:
            balance = torch.stack([layer.mlp.balance_loss for layer in self.layers.values()]).mean()
            loss = loss + self.args.router_aux_loss_coef * balance
        return loss


def document_ids(tokens: torch.Tensor, document_end: int) -> torch.Tensor:
    """Each token's document within its row: the count of end-of-document tokens before it (an end token belongs to
    the document it ends)."""
    ends = (tokens == document_end).to(torch.int32)
    return ends.cumsum(dim=1) - ends


def document_mask(documents: torch.Tensor) -> torch.Tensor:
    """``(batch, 1, seq, seq)``: True where a token may attend (itself and earlier tokens of its own document)."""
    seq = documents.shape[1]
    causal = torch.ones(seq, seq, dtype=torch.bool, device=documents.device).tril()
    return ((documents[:, :, None] == documents[:, None, :]) & causal)[:, None]


class HuggingFaceCausalLM(nn.Module):
    """Adapts a transformers causal LM to the same interface: ids in, logits out, ``blocks()``."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner
        self.vocab_size = int(inner.config.vocab_size)

    def blocks(self) -> list[nn.Module]:
        return list(self.inner.model.layers)

    def enable_activation_checkpointing(self, checkpoint_fn: CheckpointFn, every: int = 1) -> None:
        # transformers owns its layer loop, so it decides how blocks are recomputed.
        self.inner.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})

    def forward(self, tokens: torch.Tensor, targets: torch.Tensor | None = None) -> torch.Tensor:
        logits = self.inner(input_ids=tokens).logits
        if targets is None:
            return logits
        return F.cross_entropy(logits.float().flatten(0, 1), targets.flatten())


def vocab_size_of(model: nn.Module) -> int:
    """Vocabulary size of either model kind."""
    return model.args.vocab_size if isinstance(model, LlamaDecoder) else model.vocab_size


def read_folder_args(folder: Path) -> ModelArgs | None:
    """The sizes of a model folder the built-in decoder computes exactly (a Hugging Face Llama folder, or one
    written by the export command), or None for any other folder."""
    args = read_decoder_args(folder)
    return ModelArgs(**args) if args is not None else None


def build_model(spec: str, device: torch.device | str | None = None) -> nn.Module:
    """A named size from :data:`MODEL_SIZES`, a Llama model folder the built-in decoder reads (sizes only:
    weights are loaded later by :func:`weights.load_folder_weights`), or any other local Hugging Face causal LM
    folder (needs transformers).

    ``device="meta"`` builds the Llama shapes without memory; the caller shards, materialises and
    initialises them (see training/parallel.py).
    """
    allowed = f"one of {', '.join(MODEL_SIZES)}, an exported model folder or a local Hugging Face model folder"
    args = MODEL_SIZES.get(spec) or read_folder_args(Path(spec))
    if args is not None:
        with torch.device(device) if device is not None else contextlib.nullcontext():
            return LlamaDecoder(args)
    folder = Path(spec)
    if not (folder / "config.json").is_file():
        raise invalid("--model", spec, allowed + " with config.json")
    try:
        from transformers import AutoModelForCausalLM
    except ImportError:
        raise invalid("--model", spec, f"{allowed} (this folder needs the `transformers` package)") from None
    # fp32 master weights whatever the folder stores (transformers 5 would keep a bf16 folder in bf16, where
    # small AdamW updates round away); autocast or FSDP's policy computes in --precision.
    return HuggingFaceCausalLM(AutoModelForCausalLM.from_pretrained(folder, local_files_only=True,
                                                                    dtype=torch.float32))


def default_seq_len(spec: str) -> int:
    """Sequence length when --seq-len is not given: the model's max_seq_len, capped at 2048."""
    args = MODEL_SIZES.get(spec) or read_folder_args(Path(spec))
    return min(DEFAULT_SEQ_LEN_CAP, args.max_seq_len if args is not None else DEFAULT_SEQ_LEN_CAP)


def weights_folder(spec: str) -> Path | None:
    """The folder whose weights a built-in decoder loads (a model folder), or None for a named size."""
    folder = Path(spec)
    if spec in MODEL_SIZES or read_folder_args(folder) is None:
        return None
    return folder


def _lookup_only_ids(model: nn.Module) -> set[int]:
    """Parameters used only as embedding lookups (not matmuls): an embedding the output layer shares is a matmul."""
    linear = {id(p) for m in model.modules() if isinstance(m, nn.Linear) for p in m.parameters()}
    return {id(p) for m in model.modules() if isinstance(m, nn.Embedding) for p in m.parameters()} - linear


def non_embedding_parameters(model: nn.Module) -> int:
    """Parameter count without the input embedding (a lookup, not a matmul)."""
    embedding_ids = _lookup_only_ids(model)
    return sum(p.numel() for p in model.parameters() if id(p) not in embedding_ids)


def flops_per_token(model: nn.Module, seq_len: int) -> float:
    """Training FLOPs per token (PaLM): 6 per trainable weight a token uses (forward, input gradient, weight gradient),
    4 per frozen one (LoRA's base: no weight gradient), plus 12 * layers * dim * seq for attention scores."""
    if isinstance(model, LlamaDecoder):
        layers, dim = model.args.n_layers, model.args.dim
    else:
        config = model.inner.config
        layers, dim = config.num_hidden_layers, config.hidden_size
    embedding_ids = _lookup_only_ids(model)
    matmul = [p for p in model.parameters() if id(p) not in embedding_ids]
    # A token runs through top-k of a block's experts: the others' weights do no work for it.
    active = {id(p): model.args.experts_per_token / model.args.n_experts for m in model.modules()
              if isinstance(m, Expert) for p in m.parameters()} if isinstance(model, LlamaDecoder) else {}
    trainable = sum(p.numel() * active.get(id(p), 1.0) for p in matmul if p.requires_grad)
    frozen = sum(p.numel() * active.get(id(p), 1.0) for p in matmul if not p.requires_grad)
    return 6.0 * trainable + 4.0 * frozen + 12.0 * layers * dim * seq_len


__all__ = [
    "ConfigError",
    "DecoderBlock",
    "LlamaDecoder",
    "ModelArgs",
    "MODEL_SIZES",
    "build_model",
    "chunked_cross_entropy",
    "flops_per_token",
    "non_embedding_parameters",
    "vocab_size_of",
]
