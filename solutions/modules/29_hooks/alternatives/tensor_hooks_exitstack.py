"""Handles kept in a contextlib.ExitStack; gradients caught by tensor hooks registered on the
outputs in forward hooks, with torch.autograd.backward(inputs=...) so only those outputs receive
gradients."""
from __future__ import annotations

import contextlib

import torch


def _modules(model, names):
    table = dict(model.named_modules())
    missing = set(names) - set(table)
    if missing:
        raise KeyError(sorted(missing))
    return [(name, table[name]) for name in names]


@contextlib.contextmanager
def _hooked(pairs, on_output):
    with contextlib.ExitStack() as stack:
        for name, module in pairs:
            handle = module.register_forward_hook(lambda mod, args, out, name=name: on_output(name, out))
            stack.callback(handle.remove)
        yield


def capture_activations(model, x, layer_names):
    pairs = _modules(model, layer_names)
    out = {}
    with _hooked(pairs, lambda name, t: out.update({name: t.detach().clone()})):
        model(x)
    return out


def activation_grad_norms(model, x, loss_fn, layer_names):
    pairs = _modules(model, layer_names)
    outputs, grads = [], {}

    def on_output(name, t):
        outputs.append(t)
        t.register_hook(lambda g: grads.__setitem__(name, torch.linalg.vector_norm(g).item()))

    with _hooked(pairs, on_output):
        loss = loss_fn(model(x))
    torch.autograd.backward(loss, inputs=outputs)
    return {name: grads[name] for name in layer_names}
