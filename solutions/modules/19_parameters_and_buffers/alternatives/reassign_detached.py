"""Rebinds the buffers to new detached tensors (nn.Module keeps a tensor assigned to a buffer's
name a buffer) and computes the unbiased variance by hand."""
from __future__ import annotations

import torch
from torch import nn


class RunningStandardizer(nn.Module):
    def __init__(self, num_features, momentum=0.1, eps=1e-5):
        super().__init__()
        self.momentum = momentum
        self.register_parameter("weight", nn.Parameter(torch.ones(num_features)))
        self.register_parameter("bias", nn.Parameter(torch.zeros(num_features)))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("eps", torch.tensor(float(eps)), persistent=False)

    def forward(self, x):
        if self.training:
            flat = x.detach().flatten(0, -2) if x.dim() > 1 else x.detach().unsqueeze(0)
            n = flat.shape[0]
            mean = flat.sum(0) / n
            var = ((flat - mean) ** 2).sum(0) / (n - 1)
            m = self.momentum
            self.running_mean = (1 - m) * self.running_mean + m * mean
            self.running_var = (1 - m) * self.running_var + m * var
        centred = x - self.running_mean
        return self.weight * centred / (self.running_var + self.eps).sqrt() + self.bias
