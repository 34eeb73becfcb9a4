"""Moves channels last and flattens to (M, C), takes torch.var_mean(correction=0) per channel,
updates the running stats with lerp_ and normalises with rsqrt; layer_norm flattens the trailing
dims into one."""
from __future__ import annotations

import torch
from torch import nn


class MyBatchNorm1d(nn.Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.weight = nn.Parameter(torch.empty(num_features))
        self.bias = nn.Parameter(torch.empty(num_features))
        self.register_buffer("running_mean", torch.empty(num_features))
        self.register_buffer("running_var", torch.empty(num_features))
        self.register_buffer("num_batches_tracked", torch.zeros((), dtype=torch.int64))
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.ones_(self.weight)
        nn.init.zeros_(self.bias)
        self.running_mean.zero_()
        self.running_var.fill_(1.0)
        self.num_batches_tracked.zero_()

    def forward(self, x):
        assert x.dim() in (2, 3), "expected (N, C) or (N, C, L)"
        flat = x.movedim(1, -1).reshape(-1, self.num_features)   # (N*L, C)
        if self.training:
            m = flat.shape[0]
            if m < 2:
                raise ValueError("Expected more than 1 value per channel when training")
            var, mean = torch.var_mean(flat, dim=0, correction=0)
            with torch.no_grad():
                self.running_mean.lerp_(mean, self.momentum)
                self.running_var.lerp_(var * m / (m - 1), self.momentum)
                self.num_batches_tracked += 1
        else:
            mean, var = self.running_mean, self.running_var
        scale = self.weight * torch.rsqrt(var + self.eps)
        shift = self.bias - mean * scale
        out = flat * scale + shift
        return out.reshape(x.movedim(1, -1).shape).movedim(-1, 1)


def layer_norm(x, normalized_shape, weight, bias, eps=1e-5):
    k = len(normalized_shape)
    lead = x.shape[: x.dim() - k]
    flat = x.reshape(*lead, -1)
    var, mean = torch.var_mean(flat, dim=-1, keepdim=True, correction=0)
    out = ((flat - mean) * torch.rsqrt(var + eps)).reshape(x.shape)
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out
