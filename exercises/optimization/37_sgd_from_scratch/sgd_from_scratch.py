from __future__ import annotations

from collections.abc import Callable, Iterable

import torch
from torch import Tensor


class MomentumSGD(torch.optim.Optimizer):
    """Stochastic gradient descent with momentum, weight decay and Nesterov momentum, stepping exactly like torch.optim.SGD with dampening 0."""

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float, momentum: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False) -> None:
        raise NotImplementedError

    @torch.no_grad()
    def step(self, closure: Callable[[], Tensor] | None = None) -> Tensor | None:
        raise NotImplementedError
