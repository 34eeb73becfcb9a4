"""Attack: exercise 27 forbids torch's batch_norm and layer_norm. This is the reference with both
handed to torch's own (torch.batch_norm updates the running statistics as nn.BatchNorm1d does),
reached through references taken at import under names built at run time and kept in a dict: no
line names them for the AST, and a wrapper put on torch.batch_norm / F.layer_norm during the
check never sees the calls.
Honest baseline: every check but the API check (the values are torch's own).
Expected: the API check fails: aten.batch_norm and aten.layer_norm are reached at torch's dispatcher.
"""
from __future__ import annotations

import torch
from torch import Tensor, nn

# torch.batch_norm and torch.layer_norm, taken at import under names built at run time, kept in a dict
_KEPT = {name: getattr(torch, name) for name in ("batch_" + "norm", "layer_" + "norm")}


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
        if self.training and x.numel() // x.shape[1] <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {x.shape}")
        if self.training:
            self.num_batches_tracked.add_(1)
        # the forbidden built-in, through a reference no wrapper replaces (it updates the running
        # statistics in place, as nn.BatchNorm1d does)
        return _KEPT["batch_norm"](x, self.weight, self.bias, self.running_mean, self.running_var, self.training,
                                   self.momentum, self.eps, False)


def layer_norm(x: Tensor, normalized_shape: tuple[int, ...], weight: Tensor | None, bias: Tensor | None, eps: float = 1e-5) -> Tensor:
    """Normalise over the trailing normalized_shape dims per sample (biased variance), then affine."""
    return _KEPT["layer_norm"](x, normalized_shape, weight, bias, eps)
