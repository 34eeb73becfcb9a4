"""Tracks the biased (population) variance of each batch instead of the unbiased one.

Caught by: test_train_updates_eval_freezes, test_load_state_dict_restores_stats
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
                flat = x.reshape(-1, x.shape[-1])
                self.running_mean.mul_(1 - self.momentum).add_(flat.mean(0), alpha=self.momentum)
                self.running_var.mul_(1 - self.momentum).add_(flat.var(0, unbiased=False), alpha=self.momentum)
        return (x - self.running_mean) / torch.sqrt(self.running_var + self.eps) * self.weight + self.bias
