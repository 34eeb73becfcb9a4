"""Keeps the running statistics as plain tensor attributes and eps as a float: they are not
buffers, so they are not saved in the state_dict, and .to()/.cuda()/.double() leave them behind.

Caught by: test_parameters_and_buffers, test_state_dict_keys, test_meta_device_fallback, test_double_converts_buffers
"""
from __future__ import annotations

import torch
from torch import nn


class RunningStandardizer(nn.Module):
    def __init__(self, num_features, momentum=0.1, eps=1e-5):
        super().__init__()
        self.momentum, self.eps = momentum, eps
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.running_mean = torch.zeros(num_features)
        self.running_var = torch.ones(num_features)

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                flat = x.reshape(-1, x.shape[-1])
                self.running_mean.mul_(1 - self.momentum).add_(flat.mean(0), alpha=self.momentum)
                self.running_var.mul_(1 - self.momentum).add_(flat.var(0), alpha=self.momentum)
        return (x - self.running_mean) / torch.sqrt(self.running_var + self.eps) * self.weight + self.bias
