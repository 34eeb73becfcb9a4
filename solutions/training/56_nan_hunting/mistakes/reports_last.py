"""Reports the last leaf module with a non-finite output: NaN propagates, so that is the output layer, not the cause.

Caught by: test_first_nonfinite_module, test_no_trace_left, test_bfloat16_model
"""
from __future__ import annotations

import re

import torch
from torch import Tensor, nn


def _nonfinite(value: object) -> bool:
    if isinstance(value, Tensor):
        return bool((~torch.isfinite(value)).any())
    if isinstance(value, (tuple, list)):
        return any(_nonfinite(v) for v in value)
    if isinstance(value, dict):
        return any(_nonfinite(v) for v in value.values())
    return False


def first_nonfinite_module(model: nn.Module, x: Tensor) -> str | None:
    """Qualified name of the first leaf module (execution order) whose output has NaN/Inf on model(x); 'input' if x is non-finite; None if clean; runs without autograd; hooks removed."""
    if _nonfinite(x):
        return "input"
    found: list[str] = []

    def watch(name: str):
        def hook(module: nn.Module, args: tuple, output: object) -> None:
            if _nonfinite(output):
                found.append(name)
        return hook

    handles = [m.register_forward_hook(watch(name)) for name, m in model.named_modules()
               if next(m.children(), None) is None]
    try:
        with torch.no_grad():
            model(x)
    finally:
        for h in handles:
            h.remove()
    return found[-1] if found else None


def nonfinite_grads(model: nn.Module) -> list[str]:
    """Names of parameters whose .grad contains NaN/Inf (after backward)."""
    return [name for name, p in model.named_parameters()
            if p.grad is not None and not bool(torch.isfinite(p.grad).all())]


def backward_with_anomaly_detection(loss: Tensor) -> str | None:
    """loss.backward() under torch.autograd.detect_anomaly(); None on success, else the failing backward node name (e.g. 'SqrtBackward0') parsed from the error."""
    try:
        with torch.autograd.detect_anomaly():
            loss.backward()
    except RuntimeError as exc:
        match = re.search(r"Function '(\w+)' returned nan", str(exc))
        if match is None:
            raise
        return match.group(1)
    return None
