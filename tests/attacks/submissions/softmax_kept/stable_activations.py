"""Attack: exercise 30 forbids torch's softmax, log_softmax, gelu, silu and leaky_relu. This is
the reference with each function handed to torch's own, reached through references taken at
import under names built at run time and kept in a dict (torch's builtin softmax, not F.softmax,
which looks Tensor.softmax up when called): no line names them for the AST, and a wrapper put on
torch.softmax / F.gelu / Tensor.softmax during the check never sees the calls.
Honest baseline: every check but the API check (the values are torch's own).
Expected: the API check fails: aten._softmax and the others are reached at torch's dispatcher.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

_KEPT = {name: getattr(torch, name) for name in ("soft" + "max", "log_" + "softmax")}  # torch's builtins
_KEPT.update({name: getattr(F, name) for name in ("ge" + "lu", "si" + "lu", "leaky_" + "relu")})


def softmax(x: Tensor, dim: int) -> Tensor:
    return _KEPT["softmax"](x, dim)


def log_softmax(x: Tensor, dim: int) -> Tensor:
    return _KEPT["log_softmax"](x, dim)


def gelu_tanh(x: Tensor) -> Tensor:
    return _KEPT["gelu"](x, approximate="tanh")


def silu(x: Tensor) -> Tensor:
    return _KEPT["silu"](x)


def leaky_relu(x: Tensor, negative_slope: float = 0.01) -> Tensor:
    return _KEPT["leaky_relu"](x, negative_slope)

