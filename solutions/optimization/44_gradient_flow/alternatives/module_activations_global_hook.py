"""Activation as a registered module (nn.ReLU / nn.Sigmoid), Kaiming uniform in fan_out mode with
biases zeroed through .data, gradient norms with torch.linalg.vector_norm, and the stds collected
by one global module forward hook that keeps only the outputs of the model's blocks."""
from __future__ import annotations

from typing import Literal

import torch
from torch import Tensor, nn


def layer_grad_norms(model: nn.Module) -> dict[str, float]:
    """L2 norm of .grad for every parameter whose name ends in 'weight' and has a grad (call after backward)."""
    out: dict[str, float] = {}
    for name, p in model.named_parameters():
        if name.rsplit(".", 1)[-1] == "weight" and p.grad is not None:
            out[name] = float(torch.linalg.vector_norm(p.grad))
    return out


class Stack(nn.Module):
    def __init__(self, depth: int, width: int, activation: str, residual: bool) -> None:
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(width, width) for _ in range(depth)])
        self.act = nn.Sigmoid() if activation == "sigmoid" else nn.ReLU()
        self.head = nn.Linear(width, 1)
        self.residual = residual

    def forward(self, x: Tensor) -> Tensor:
        h = x
        for layer in self.blocks:
            if self.residual:
                h = h + self.act(layer(h))
            else:
                h = self.act(layer(h))
        return self.head(h)


def make_deep_mlp(depth: int, width: int, activation: Literal["sigmoid", "relu"], residual: bool, init: Literal["default", "kaiming"]) -> nn.Module:
    """self.blocks = an nn.ModuleList of exactly depth nn.Linear(width, width) modules (parameter names blocks.{i}.weight/blocks.{i}.bias); forward applies the activation (and x + f(x) if residual); self.head = Linear(width, 1); init='kaiming' also zeroes biases, 'default' keeps PyTorch's init."""
    net = Stack(depth, width, activation, residual)
    if init == "kaiming":
        for layer in net.blocks:
            nn.init.kaiming_uniform_(layer.weight, mode="fan_out", nonlinearity="relu")
            layer.bias.data.zero_()
    return net


def activation_stds(model: nn.Module, x: Tensor) -> list[float]:
    """Std of each block's output on input x, collected with forward hooks that are removed afterwards."""
    index = {id(b): i for i, b in enumerate(model.blocks)}
    found: dict[int, float] = {}

    def hook(module: nn.Module, args: tuple, output: Tensor) -> None:
        if id(module) in index:
            found[index[id(module)]] = output.detach().std().item()

    handle = nn.modules.module.register_module_forward_hook(hook)
    try:
        model(x)
    finally:
        handle.remove()
    return [found[i] for i in range(len(index))]
