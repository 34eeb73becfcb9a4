"""Alternative: one global module hook (torch.nn.modules.module.register_module_forward_hook) that maps
modules to names by id and stops the forward at the first non-finite leaf output; inference_mode;
anomaly detection switched with set_detect_anomaly and restored in a finally."""
from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.nn.modules.module import register_module_forward_hook


class _Found(Exception):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def _flat(value: object) -> list[Tensor]:
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _flat(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _flat(v)]
    return []


def first_nonfinite_module(model: nn.Module, x: Tensor) -> str | None:
    if not x.isfinite().all():
        return "input"
    leaves = {id(m): name for name, m in model.named_modules() if len(m._modules) == 0}

    def hook(module: nn.Module, args: tuple, output: object) -> None:
        name = leaves.get(id(module))
        if name is not None and any(t.isnan().any() or t.isinf().any() for t in _flat(output)):
            raise _Found(name)

    handle = register_module_forward_hook(hook)
    try:
        with torch.inference_mode():
            model(x)
    except _Found as found:
        return found.name
    finally:
        handle.remove()
    return None


def nonfinite_grads(model: nn.Module) -> list[str]:
    bad = []
    for name, p in model.named_parameters():
        g = p.grad
        if g is not None and (g.isnan().any() or g.isinf().any()):
            bad.append(name)
    return bad


def backward_with_anomaly_detection(loss: Tensor) -> str | None:
    previous = torch.is_anomaly_enabled()
    torch.autograd.set_detect_anomaly(True)
    try:
        loss.backward()
        return None
    except RuntimeError as exc:
        message = str(exc)
        if "returned nan" not in message:
            raise
        return message.split("'")[1]
    finally:
        torch.autograd.set_detect_anomaly(previous)
