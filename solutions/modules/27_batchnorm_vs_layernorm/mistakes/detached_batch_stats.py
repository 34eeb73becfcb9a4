"""Detaches the batch mean and variance (as if they were constants, like the running stats): the
outputs are right but the gradient w.r.t. the input misses the terms through the statistics.

Caught by: test_train_grads_match
"""
from __future__ import annotations

import torch
from torch import Tensor, nn


class MyBatchNorm1d(nn.Module):
    """Drop-in for nn.BatchNorm1d(num_features, eps, momentum) (affine, track_running_stats) on (N,C) or (N,C,L) inputs."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))

    def forward(self, x: Tensor) -> Tensor:
        if x.dim() not in (2, 3):
            raise ValueError(f"expected a 2D or 3D input, got {x.dim()}D")
        dims = [0] if x.dim() == 2 else [0, 2]
        shape = [1, -1] + [1] * (x.dim() - 2)
        if self.training:
            count = x.numel() // x.shape[1]
            if count <= 1:
                raise ValueError(f"Expected more than 1 value per channel when training, got input size {x.shape}")
            mean = x.mean(dim=dims).detach()
            var = x.var(dim=dims, unbiased=False).detach()
            with torch.no_grad():
                self.running_mean.mul_(1 - self.momentum).add_(mean, alpha=self.momentum)
                self.running_var.mul_(1 - self.momentum).add_(var * (count / (count - 1)), alpha=self.momentum)
                self.num_batches_tracked.add_(1)
        else:
            mean, var = self.running_mean, self.running_var
        x_hat = (x - mean.view(shape)) / torch.sqrt(var.view(shape) + self.eps)
        return x_hat * self.weight.view(shape) + self.bias.view(shape)


def layer_norm(x: Tensor, normalized_shape: tuple[int, ...], weight: Tensor | None, bias: Tensor | None, eps: float = 1e-5) -> Tensor:
    """Normalise over the trailing normalized_shape dims per sample (biased variance), then affine."""
    dims = tuple(range(-len(normalized_shape), 0))
    mean = x.mean(dim=dims, keepdim=True)
    var = x.var(dim=dims, unbiased=False, keepdim=True)
    out = (x - mean) / torch.sqrt(var + eps)
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out
