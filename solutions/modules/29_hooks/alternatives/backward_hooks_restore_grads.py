"""Full backward hooks read grad_output; loss.backward() runs for real, and every parameter's
.grad is saved before and put back afterwards. Names are resolved with get_submodule."""
from __future__ import annotations

import torch
from torch import nn


def _layers(model, layer_names):
    layers = {}
    for name in layer_names:
        try:
            layers[name] = model.get_submodule(name)
        except AttributeError:
            raise KeyError(name) from None
    return layers


def capture_activations(model, x, layer_names):
    layers = _layers(model, layer_names)
    captured, handles = {}, []

    def hook_for(name):
        def hook(module, inputs, output):
            captured[name] = output.detach()
        return hook

    try:
        for name, layer in layers.items():
            handles.append(layer.register_forward_hook(hook_for(name)))
        with torch.no_grad():
            model(x)
    finally:
        for h in handles:
            h.remove()
    return captured


def activation_grad_norms(model, x, loss_fn, layer_names):
    layers = _layers(model, layer_names)
    saved = [(p, p.grad) for p in model.parameters()]
    for p, _ in saved:
        p.grad = None
    norms, handles = {}, []
    try:
        for name, layer in layers.items():
            handles.append(layer.register_full_backward_hook(
                lambda module, grad_in, grad_out, name=name: norms.__setitem__(name, float(grad_out[0].norm()))))
        loss_fn(model(x)).backward()
    finally:
        for h in handles:
            h.remove()
        for p, grad in saved:
            p.grad = grad
    return {name: norms[name] for name in layer_names}
