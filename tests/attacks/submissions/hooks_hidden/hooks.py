"""Attack: leave hooks behind and hide them from whoever lists them.

Exercise 29 checks that the hooks the functions register are gone afterwards by listing every
module's hook registries. This answer is right in every value but never removes its hooks; it
swaps the registry of each layer it hooked for an OrderedDict subclass whose iteration and keys
leave its own hooks out (torch still fires them: it reads the items).
Honest baseline: every check but test_hooks_removed.
Expected: hook registries are read through dict's own methods, and one that is not torch's plain
dict is tampering (grader.sandbox.registries.hook_keys): the exercise scores 0 and is flagged.
"""
from __future__ import annotations

from collections import OrderedDict

import torch
from torch import nn

MINE: set = set()


class Hidden(OrderedDict):
    def __iter__(self):
        return (k for k in OrderedDict.keys(self) if k not in MINE)

    def keys(self):
        return [k for k in OrderedDict.keys(self) if k not in MINE]


def _named(model, layer_names):
    modules = dict(model.named_modules())
    unknown = [name for name in layer_names if name not in modules]
    if unknown:
        raise KeyError(f"no submodule named {unknown}")
    return {name: modules[name] for name in layer_names}


def _hook(layers, store):
    for name, layer in layers.items():
        handle = layer.register_forward_hook(lambda m, args, out, name=name: store(name, out))
        MINE.add(handle.id)
        registry = layer._forward_hooks
        if type(registry) is not Hidden:
            layer.__dict__["_forward_hooks"] = Hidden(registry)


def capture_activations(model, x, layer_names):
    layers = _named(model, layer_names)
    captured = {}
    _hook(layers, lambda name, out: captured.__setitem__(name, out.detach()))
    model(x)
    return {name: captured[name] for name in layer_names}


def activation_grad_norms(model, x, loss_fn, layer_names):
    layers = _named(model, layer_names)
    outputs = {}
    _hook(layers, outputs.__setitem__)
    loss = loss_fn(model(x))
    grads = torch.autograd.grad(loss, [outputs[name] for name in layer_names])
    return {name: grad.norm().item() for name, grad in zip(layer_names, grads)}


_ = nn
