"""Functional activation looked up by name, kaiming_normal_ with positional arguments and an
in-place fill for the biases, gradient norms as sqrt of the summed squares, and activation_stds
that stores each block's output in a dict and computes the stds (in float64) after the forward."""
from __future__ import annotations

import contextlib
from typing import Literal

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def layer_grad_norms(model: nn.Module) -> dict[str, float]:
    """L2 norm of .grad for every parameter whose name ends in 'weight' and has a grad (call after backward)."""
    named = dict(model.named_parameters())
    keep = [n for n in named if n.endswith("weight")]
    return {n: float(named[n].grad.pow(2).sum().sqrt()) for n in keep if named[n].grad is not None}


class DeepMLP(nn.Module):
    def __init__(self, depth: int, width: int, activation: str, residual: bool) -> None:
        super().__init__()
        self.blocks = nn.ModuleList()
        for _ in range(depth):
            self.blocks.append(nn.Linear(width, width))
        self.head = nn.Linear(width, 1)
        self.activation = activation
        self.residual = residual

    def forward(self, x: Tensor) -> Tensor:
        act = getattr(F, self.activation) if self.activation == "relu" else torch.sigmoid
        for block in self.blocks:
            x = x + act(block(x)) if self.residual else act(block(x))
        return self.head(x)


def make_deep_mlp(depth: int, width: int, activation: Literal["sigmoid", "relu"], residual: bool, init: Literal["default", "kaiming"]) -> nn.Module:
    """self.blocks = an nn.ModuleList of exactly depth nn.Linear(width, width) modules (parameter names blocks.{i}.weight/blocks.{i}.bias); forward applies the activation (and x + f(x) if residual); self.head = Linear(width, 1); init='kaiming' also zeroes biases, 'default' keeps PyTorch's init."""
    model = DeepMLP(depth, width, activation, residual)
    if init == "kaiming":
        with torch.no_grad():
            for block in model.blocks:
                torch.nn.init.kaiming_normal_(block.weight, 0, "fan_in", "relu")
                block.bias.fill_(0.0)
    return model


def activation_stds(model: nn.Module, x: Tensor) -> list[float]:
    """Std of each block's output on input x, collected with forward hooks that are removed afterwards."""
    outputs: dict[int, Tensor] = {}
    with contextlib.ExitStack() as stack:
        for i, block in enumerate(model.blocks):
            handle = block.register_forward_hook(lambda m, a, o, i=i: outputs.__setitem__(i, o.detach()))
            stack.callback(handle.remove)
        with torch.no_grad():
            model(x)
    return [outputs[i].double().std().item() for i in range(len(model.blocks))]
