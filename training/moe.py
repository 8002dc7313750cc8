"""Mixture of experts (Mixtral-style): a router picks each token's top-k SwiGLU experts and mixes their outputs by the
renormalised router probabilities; a load-balancing loss keeps the router from starving experts.

Under expert parallelism (``--expert-parallel N``) each of N ranks holds ``n_experts / N`` experts, under their global
names (``experts.5.w1`` is expert 5 wherever it lives, so checkpoints move between layouts): every rank routes its own
tokens, sends each (token, expert) slot to the rank holding that expert (an all-to-all), runs its experts on what it
received and sends the results back (a second all-to-all). One process runs the very same code with nothing to send.

The load-balancing statistics (how many slots each expert got, its mean router probability) are summed over the
data-parallel ranks before the loss is formed, so the loss is that of the global batch, whatever the layout.
"""

from __future__ import annotations

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

from eks_training.training.model_sizes import ModelArgs


class Expert(nn.Module):
    """One SwiGLU expert, under Mixtral's names: ``w1`` gate, ``w3`` up, ``w2`` down."""

    def __init__(self, args: ModelArgs) -> None:
        super().__init__()
        self.w1 = nn.Linear(args.dim, args.ffn_dim, bias=False)
        self.w2 = nn.Linear(args.ffn_dim, args.dim, bias=False)
        self.w3 = nn.Linear(args.dim, args.ffn_dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class MoEFeedForward(nn.Module):
    """The block's feed-forward as a mixture of ``args.n_experts`` experts (those in ``held``; default: all)."""

    def __init__(self, args: ModelArgs) -> None:
        super().__init__()
        self.n_experts, self.top_k = args.n_experts, args.experts_per_token
        self.gate = nn.Linear(args.dim, args.n_experts, bias=False)
        self.experts = nn.ModuleDict({str(index): Expert(args) for index in range(args.n_experts)})
        self.expert_group: dist.ProcessGroup | None = None
        self.stats_group: dist.ProcessGroup | None = None
        #: The last forward's load-balancing loss (a scalar with its graph).
        self.balance_loss: torch.Tensor | None = None

    def shard_experts(self, expert_group: dist.ProcessGroup | None, stats_group: dist.ProcessGroup | None) -> None:
        """Keep only this rank's share of the experts (contiguous: rank r holds ``r * E/N .. (r+1) * E/N - 1``) and
        exchange tokens over ``expert_group``; sum the balancing statistics over ``stats_group``."""
        self.expert_group, self.stats_group = expert_group, stats_group
        if expert_group is None:
            return
        size, rank = dist.get_world_size(expert_group), dist.get_rank(expert_group)
        per_rank = self.n_experts // size
        for key in list(self.experts):
            if int(key) // per_rank != rank:
                del self.experts[key]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shape = x.shape
        tokens = x.reshape(-1, shape[-1])
        probs = self.gate(tokens).float().softmax(dim=-1)
        weights, chosen = probs.topk(self.top_k, dim=-1)
        weights = (weights / weights.sum(dim=-1, keepdim=True)).to(tokens.dtype)
        self.balance_loss = self._balance_loss(probs, chosen)
        # Slots (token, k-th choice), grouped by expert: what each expert (and each expert rank) receives.
        slot_expert = chosen.flatten()
        order = slot_expert.argsort(stable=True)
        slot_token = torch.arange(tokens.shape[0], device=x.device).repeat_interleave(self.top_k)[order]
        per_expert = torch.bincount(slot_expert, minlength=self.n_experts)
        outputs = self._run_experts(tokens[slot_token], per_expert)
        mixed = torch.zeros_like(tokens).index_add(0, slot_token, outputs * weights.flatten()[order, None])
        return mixed.view(shape)

    def _run_experts(self, slots: torch.Tensor, per_expert: torch.Tensor) -> torch.Tensor:
        """Expert outputs for ``slots`` (grouped by expert, ``per_expert`` of each), in the same order."""
        group = self.expert_group
        if group is None:
            return self._apply_local(slots, list(range(self.n_experts)), per_expert.tolist())
        from torch.distributed.nn.functional import all_to_all_single

        size = dist.get_world_size(group)
        per_rank = self.n_experts // size
        # How many slots of each of my experts every rank sends me.
        incoming = torch.empty_like(per_expert)
        dist.all_to_all_single(incoming, per_expert, group=group)
        send_sizes = per_expert.view(size, per_rank).sum(dim=1).tolist()
        incoming_by_source = incoming.view(size, per_rank)
        receive_sizes = incoming_by_source.sum(dim=1).tolist()
        received = all_to_all_single(slots.new_empty(sum(receive_sizes), slots.shape[1]), slots,
                                     receive_sizes, send_sizes, group=group)
        # Received rows: source rank by source rank, each grouped by my experts. Regroup them by expert.
        first = dist.get_rank(group) * per_rank
        local_expert = torch.arange(per_rank, device=slots.device).repeat(size).repeat_interleave(
            incoming_by_source.flatten())
        by_expert = local_expert.argsort(stable=True)
        counts = torch.bincount(local_expert, minlength=per_rank).tolist()
        computed = self._apply_local(received[by_expert], list(range(first, first + per_rank)), counts)
        restored = torch.empty_like(computed).index_copy(0, by_expert, computed)
        return all_to_all_single(slots.new_empty(slots.shape), restored, send_sizes, receive_sizes, group=group)

    def _apply_local(self, rows: torch.Tensor, experts: list[int], counts: list[int]) -> torch.Tensor:
        pieces = [self.experts[str(expert)](piece) for expert, piece in zip(experts, rows.split(counts))]
        return torch.cat(pieces) if pieces else rows

    def _balance_loss(self, probs: torch.Tensor, chosen: torch.Tensor) -> torch.Tensor:
        """Mixtral's (Switch Transformer's) auxiliary loss: ``n_experts * sum_e f_e * P_e``, with ``f_e`` the share of
        tokens that chose expert e (summing to top-k) and ``P_e`` its mean router probability, over the global batch."""
        chosen_counts = F.one_hot(chosen, self.n_experts).sum(dim=(0, 1)).float()
        probability_sums = probs.sum(dim=0)
        tokens = torch.tensor(float(probs.shape[0]), device=probs.device)
        if self.stats_group is not None:
            from torch.distributed.nn.functional import all_reduce

            chosen_counts, tokens = chosen_counts.clone(), tokens.clone()
            dist.all_reduce(chosen_counts, group=self.stats_group)
            dist.all_reduce(tokens, group=self.stats_group)
            probability_sums = all_reduce(probability_sums, group=self.stats_group)
        return self.n_experts * ((chosen_counts / tokens) * (probability_sums / tokens)).sum()


def expert_parameter_names(model: nn.Module) -> list[str]:
    """The names of the experts' parameters (each expert-parallel rank holds its own)."""
    expert_modules = {name for name, module in model.named_modules() if isinstance(module, Expert)}
    return [name for name, _ in model.named_parameters() if name.rsplit(".", 2)[0] in expert_modules]


def expert_parameters(model: nn.Module) -> list[nn.Parameter]:
    return [p for module in model.modules() if isinstance(module, Expert) for p in module.parameters()]


def settle_expert_gradients(parameters: list[nn.Parameter], replica_group: dist.ProcessGroup | None,
                            data_size: int) -> None:
    """Expert gradients as one process would have them. Through the all-to-all each expert's gradient already sums
    the losses of every rank of its expert group; summed over the ranks holding the same experts (``replica_group``)
    and divided by the data-parallel ranks it is the gradient of the mean loss, as DDP makes the others."""
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return
    flat = torch.cat([g.reshape(-1) for g in grads])
    if replica_group is not None:
        dist.all_reduce(flat, group=replica_group)
    flat /= data_size
    for grad, piece in zip(grads, flat.split([g.numel() for g in grads])):
        grad.copy_(piece.view_as(grad))


def expert_parallel_grad_norm(parameters: list[nn.Parameter], experts: list[nn.Parameter],
                              expert_group: dist.ProcessGroup) -> torch.Tensor:
    """The global gradient norm when each rank of ``expert_group`` holds its own experts (the rest replicated)."""
    expert_ids = {id(p) for p in experts}
    squares = torch.zeros(2, dtype=torch.float32, device=parameters[0].device)
    for p in parameters:
        if p.grad is not None:
            squares[1 if id(p) in expert_ids else 0] += p.grad.float().square().sum()
    expert_squares = squares[1].clone()
    dist.all_reduce(expert_squares, group=expert_group)
    return (squares[0] + expert_squares).sqrt()
