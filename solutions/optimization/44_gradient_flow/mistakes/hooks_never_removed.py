"""Registers the forward hooks but never removes them: every later forward of the model keeps
appending to a list nobody reads, and the model carries hooks it never asked for.

Caught by: test_no_hooks_remain
"""
from __future__ import annotations

from typing import Literal

import torch
from torch import Tensor, nn


def layer_grad_norms(model: nn.Module) -> dict[str, float]:
    """L2 norm of .grad for every parameter whose name ends in 'weight' and has a grad (call after backward)."""
    return {name: p.grad.norm().item() for name, p in model.named_parameters()
            if name.endswith("weight") and p.grad is not None}


class DeepMLP(nn.Module):
    def __init__(self, depth: int, width: int, activation: str, residual: bool) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))
        self.head = nn.Linear(width, 1)
        self.act = torch.sigmoid if activation == "sigmoid" else torch.relu
        self.residual = residual

    def forward(self, x: Tensor) -> Tensor:
        for block in self.blocks:
            out = self.act(block(x))
            x = x + out if self.residual else out
        return self.head(x)


def make_deep_mlp(depth: int, width: int, activation: Literal["sigmoid", "relu"], residual: bool, init: Literal["default", "kaiming"]) -> nn.Module:
    """self.blocks = an nn.ModuleList of exactly depth nn.Linear(width, width) modules (parameter names blocks.{i}.weight/blocks.{i}.bias); forward applies the activation (and x + f(x) if residual); self.head = Linear(width, 1); init='kaiming' also zeroes biases, 'default' keeps PyTorch's init."""
    model = DeepMLP(depth, width, activation, residual)
    if init == "kaiming":
        for block in model.blocks:
            nn.init.kaiming_normal_(block.weight, nonlinearity="relu")
            nn.init.zeros_(block.bias)
    return model


def activation_stds(model: nn.Module, x: Tensor) -> list[float]:
    """Std of each block's output on input x, collected with forward hooks that are removed afterwards."""
    stds: list[float] = []
    handles = [block.register_forward_hook(lambda m, args, out: stds.append(out.std().item()))
               for block in model.blocks]
    with torch.no_grad():
        model(x)
    return stds
