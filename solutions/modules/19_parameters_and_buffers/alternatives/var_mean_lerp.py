"""torch.var_mean with correction=1 and lerp_ for the momentum update; eps as a (1,) buffer."""
from __future__ import annotations

import torch
from torch import nn


class RunningStandardizer(nn.Module):
    def __init__(self, num_features: int, momentum: float = 0.1, eps: float = 1e-5) -> None:
        super().__init__()
        self.momentum = momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("eps", torch.full((1,), eps), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.training:
            dims = tuple(range(x.dim() - 1))
            with torch.no_grad():
                var, mean = torch.var_mean(x, dim=dims, correction=1)
                self.running_mean.lerp_(mean, self.momentum)
                self.running_var.lerp_(var, self.momentum)
        scale = torch.rsqrt(self.running_var + self.eps) * self.weight
        return (x - self.running_mean) * scale + self.bias
