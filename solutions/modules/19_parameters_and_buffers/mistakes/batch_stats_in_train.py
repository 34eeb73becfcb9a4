"""Normalises with the batch's own statistics in train mode, as batch norm does, instead of the
freshly updated running statistics the task asks for.

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
        mean, var = self.running_mean, self.running_var
        if self.training:
            flat = x.reshape(-1, x.shape[-1])
            mean, var = flat.mean(0), flat.var(0)
            with torch.no_grad():
                self.running_mean.mul_(1 - self.momentum).add_(mean, alpha=self.momentum)
                self.running_var.mul_(1 - self.momentum).add_(var, alpha=self.momentum)
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
