from __future__ import annotations

import torch
from torch import Tensor, nn


class RunningStandardizer(nn.Module):
    """y = (x - running_mean) / sqrt(running_var + eps) * weight + bias over the last dim; weight/bias learnable; running stats are buffers updated (momentum, unbiased var) BEFORE normalising, only in train mode; running_mean starts at 0 and running_var at 1; each train-mode batch updates new = (1 - momentum) * old + momentum * batch_stat, with the statistics taken over all leading dims (every dim but the last); eps is a non-persistent buffer."""

    def __init__(self, num_features: int, momentum: float = 0.1, eps: float = 1e-5) -> None:
        super().__init__()
        self.momentum = momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("eps", torch.tensor(eps), persistent=False)

    def forward(self, x: Tensor) -> Tensor:
        if self.training:
            with torch.no_grad():
                flat = x.reshape(-1, x.shape[-1])
                self.running_mean.mul_(1 - self.momentum).add_(flat.mean(dim=0), alpha=self.momentum)
                self.running_var.mul_(1 - self.momentum).add_(flat.var(dim=0, unbiased=True), alpha=self.momentum)
        return (x - self.running_mean) / torch.sqrt(self.running_var + self.eps) * self.weight + self.bias
