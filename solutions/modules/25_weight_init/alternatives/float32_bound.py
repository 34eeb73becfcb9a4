"""Derives `default_linear_bound` as torch.nn.init does for a Linear, `gain · √(3 / fan_in)` with
the leaky-ReLU gain for `a = √5`, through a float32 tensor: the same bound to float32's rounding
(a relative 1e-7), compared at the documented tolerance for a number (issue 42: a relative 1e-9
used to fail it).
"""
from __future__ import annotations

import math
from typing import Literal

import torch
from torch import nn

CONVS = (nn.Conv1d, nn.Conv2d, nn.Conv3d)
NORMS = (nn.LayerNorm, nn.GroupNorm, nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)


def init_weights_(model: nn.Module, scheme: Literal["xavier", "kaiming", "gpt2"]) -> nn.Module:
    """Linear/Conv weights: xavier_uniform | kaiming_normal(fan_in, relu) | normal(0, 0.02); their biases 0; Embedding ~ N(0, 0.02) with padding row kept 0; norm layers weight=1, bias=0. Returns model."""

    def init(module: nn.Module) -> None:
        if isinstance(module, (nn.Linear, *CONVS)):
            if scheme == "xavier":
                nn.init.xavier_uniform_(module.weight)
            elif scheme == "kaiming":
                nn.init.kaiming_normal_(module.weight, mode="fan_in", nonlinearity="relu")
            else:
                nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.padding_idx is not None:
                with torch.no_grad():
                    module.weight[module.padding_idx].zero_()
        elif isinstance(module, NORMS):
            if module.weight is not None:
                nn.init.ones_(module.weight)
            if module.bias is not None:
                nn.init.zeros_(module.bias)

    model.apply(init)
    return model


def default_linear_bound(fan_in: int) -> float:
    """b such that PyTorch's default nn.Linear weight init is U(-b, b)."""
    # as torch.nn.init derives it for a Linear: gain(leaky_relu, a=sqrt(5)) * sqrt(3 / fan_in), on a float32 tensor
    gain = torch.nn.init.calculate_gain("leaky_relu", math.sqrt(5))
    return float(gain * torch.tensor(3.0 / fan_in, dtype=torch.float32).sqrt())
