"""Removes the hooks after a normal return only: when the forward raises, the hooks stay on the
model and fire (and capture) on every later call.

Caught by: test_hooks_removed
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor, nn


def _named(model: nn.Module, layer_names: list[str]) -> dict[str, nn.Module]:
    modules = dict(model.named_modules())
    unknown = [name for name in layer_names if name not in modules]
    if unknown:
        raise KeyError(f"no submodule named {unknown}")
    return {name: modules[name] for name in layer_names}


def _run_hooked(model: nn.Module, layers: dict[str, nn.Module], run: Callable[[], Any], store: Callable[[str, Tensor], None]):
    handles = []
    for name, layer in layers.items():
        handles.append(layer.register_forward_hook(lambda m, args, out, name=name: store(name, out)))
    result = run()
    for handle in handles:
        handle.remove()
    return result


def capture_activations(model: nn.Module, x: Tensor, layer_names: list[str]) -> dict[str, Tensor]:
    """Run model(x) once; return detached outputs of the named submodules; remove all hooks afterwards, even on exceptions; unknown names raise KeyError before running."""
    layers = _named(model, layer_names)
    captured: dict[str, Tensor] = {}
    _run_hooked(model, layers, lambda: model(x), lambda name, out: captured.__setitem__(name, out.detach()))
    return captured


def activation_grad_norms(model: nn.Module, x: Tensor, loss_fn: Callable[[Tensor], Tensor], layer_names: list[str]) -> dict[str, float]:
    """L2 norm of dLoss/d(output) for each named submodule; parameter .grad fields are left exactly as found; hooks removed."""
    layers = _named(model, layer_names)
    outputs: dict[str, Tensor] = {}
    loss = _run_hooked(model, layers, lambda: loss_fn(model(x)), outputs.__setitem__)
    grads = torch.autograd.grad(loss, [outputs[name] for name in layer_names])
    return {name: grad.norm().item() for name, grad in zip(layer_names, grads)}
