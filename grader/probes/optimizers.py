"""Optimizers and LR schedulers observed in the worker: their state as plain data, read from the
instance (never through a `state_dict` the candidate's class may override), and steps run there."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from grader.probes.objects import qualified_name


def _plain(value: Any) -> Any:
    """`value` as plain data: tensors detached and cloned, containers rebuilt, anything else
    (a function, an object) by its qualified type name."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if value is None or isinstance(value, (bool, int, float, str, complex, torch.dtype, torch.device)):
        return value
    if type(value) in (list, tuple):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return f"<{qualified_name(value)}>"


def optimizer_state(optimizer: Any) -> dict[str, Any]:
    """The optimizer's state as plain data, in the layout of `Optimizer.state_dict()`:
    `{"state": {index: {key: value}}, "param_groups": [{..., "params": [index, ...]}]}`, parameters
    numbered in group order. Read from the instance's own `state` and `param_groups` entries
    (never through a `state_dict` the candidate's class may override); tensors cloned."""
    attrs = object.__getattribute__(optimizer, "__dict__")
    groups, state = attrs["param_groups"], attrs["state"]
    index: dict[int, int] = {}
    packed_groups = []
    for group in groups:
        packed = {k: _plain(v) for k, v in group.items() if k != "params"}
        packed["params"] = [index.setdefault(id(p), len(index)) for p in group["params"]]
        packed_groups.append(packed)
    packed_state = {index[id(p)]: _plain(dict(s)) for p, s in state.items() if id(p) in index}
    return {"state": packed_state, "param_groups": packed_groups}


def scheduler_state(scheduler: Any) -> dict[str, Any]:
    """An LR scheduler's own attributes as plain data (what `LRScheduler.state_dict()` saves: its
    `__dict__` without the optimizer), read directly from the instance; functions (a `LambdaLR`'s
    lambdas) appear as their type name."""
    attrs = object.__getattribute__(scheduler, "__dict__")
    return {k: _plain(v) for k, v in attrs.items() if k != "optimizer"}


def train_steps(optimizer: Any, params: Any, loss_fn: Callable[[], torch.Tensor], steps: int,
                scheduler: Any = None, set_to_none: bool = True) -> dict[str, Any]:
    """Run `steps` optimisation steps in the worker over `params` (the tensors the optimizer really
    holds: build both inside the probe) and return plain data:

    - `params`: after each step, a clone of every parameter (`params[s][i]`);
    - `lrs`: the lr of each param group when step s ran (`lrs[s][g]`);
    - `losses`: `loss_fn()` of each step, as floats.

    Each step sets every parameter's `.grad` to None itself (an overridden `zero_grad` cannot skip
    it; `set_to_none=False` zeroes existing grads in place instead, as `zero_grad(set_to_none=False)`
    does, which shows an optimizer that kept a reference to a `.grad`), runs
    `loss_fn().backward()`, `optimizer.step()`, then `scheduler.step()` when given."""
    params = list(params)
    groups = object.__getattribute__(optimizer, "__dict__")["param_groups"]
    seen: dict[str, list] = {"params": [], "lrs": [], "losses": []}
    for _ in range(steps):
        for p in params:
            if set_to_none or p.grad is None:
                p.grad = None
            else:
                p.grad.detach_()
                p.grad.zero_()
        loss = loss_fn()
        loss.backward()
        seen["lrs"].append([float(g["lr"]) for g in groups])
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        seen["losses"].append(float(loss.detach()))
        seen["params"].append([p.detach().clone() for p in params])
    return seen
