"""Attack: exercise 26 forbids torch's dropout. This is the reference with its training forward
handed to torch.dropout, reached through a reference taken at import under a name built at run
time and kept in a list: no line names it for the AST, and a wrapper put on torch.dropout or
F.dropout during the check never sees the call.
Honest baseline: every check but the API check (torch's own dropout, on torch's RNG).
Expected: the API check fails: aten.dropout is reached at torch's dispatcher.
"""
from __future__ import annotations

import torch
from torch import Tensor, nn

_KEPT = [getattr(torch, "drop" + "out")]  # torch.dropout, taken at import, kept in a list


class InvertedDropout(nn.Module):
    """Train: zero each element with prob p and scale survivors by 1/(1-p); eval or p == 0: identity; p == 1: zeros; 0 <= p <= 1 else ValueError."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability must be in [0, 1], got {p}")
        self.p = p

    def forward(self, x: Tensor) -> Tensor:
        if not self.training or self.p == 0.0:
            return x
        if self.p == 1.0:
            return torch.zeros_like(x)
        return _KEPT[0](x, self.p, True)  # the forbidden built-in, through a reference no wrapper replaces
