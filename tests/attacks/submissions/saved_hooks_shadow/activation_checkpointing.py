"""Attack: pass for checkpointed while keeping every activation.

Exercise 66's CPU memory check counted the bytes autograd saves with an outer
`saved_tensors_hooks` (innermost hooks win) and counted the blocks that run again in backward.
This answer never checkpoints: it runs the plain blocks under an identity pair of saved-tensor
hooks of its own, which hides every saved tensor from the outer hooks while keeping them all,
and fakes the recomputation with a gradient hook per block that runs the block's Linear again.
Honest baseline: every check but test_checkpoint_calls and test_memory_traded_for_recompute.
Expected: the memory a training forward holds is measured from outside the worker (its fork
server reads its peak resident size): the plain blocks hold what a plain model holds, and the
memory check fails.
"""
from __future__ import annotations

import torch
from torch import Tensor, nn


class CheckpointedMLP(nn.Module):
    def __init__(self, width: int, depth: int, p: float = 0.1, use_checkpoint: bool = True) -> None:
        super().__init__()
        self.use_checkpoint = use_checkpoint
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Linear(width, width), nn.GELU(), nn.Dropout(p)) for _ in range(depth))

    def forward(self, x: Tensor) -> Tensor:
        if not (self.use_checkpoint and self.training and torch.is_grad_enabled()):
            for block in self.blocks:
                x = block(x)
            return x
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            for block in self.blocks:
                inp = x.detach()
                x = block(x)
                x.register_hook(lambda g, b=block, i=inp: (b[0](i), g)[1])
        return x
