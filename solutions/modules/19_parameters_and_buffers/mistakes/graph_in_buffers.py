"""Updates the running statistics with ordinary arithmetic outside no_grad: when x requires grad,
each buffer becomes part of the autograd graph (requires grad, carries a grad_fn) and keeps every
batch's graph alive.

Caught by: test_buffers_never_require_grad
"""
from __future__ import annotations

import torch
from torch import nn


class RunningStandardizer(nn.Module):
    def __init__(self, num_features, momentum=0.1, eps=1e-5):
        super().__init__()
        self.momentum = momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("eps", torch.tensor(eps), persistent=False)

    def forward(self, x):
        if self.training:
            flat = x.reshape(-1, x.shape[-1])
            self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * flat.mean(0)
            self.running_var = (1 - self.momentum) * self.running_var + self.momentum * flat.var(0)
        return (x - self.running_mean) / torch.sqrt(self.running_var + self.eps) * self.weight + self.bias
