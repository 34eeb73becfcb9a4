"""Takes the batch statistics over the first dimension only (x.mean(0)): right for (B, F) inputs,
wrong for (B, T, F), where the statistics must cover every dimension but the last.

Caught by: test_train_updates_eval_freezes, test_double_converts_buffers
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
            with torch.no_grad():
                self.running_mean.mul_(1 - self.momentum).add_(x.mean(0), alpha=self.momentum)
                self.running_var.mul_(1 - self.momentum).add_(x.var(0), alpha=self.momentum)
        return (x - self.running_mean) / torch.sqrt(self.running_var + self.eps) * self.weight + self.bias
