"""Computes in float32 at least (float64 stays float64) and casts back to the input's dtype;
masks and a detached shift; LeakyReLU by a mask multiplication; SiLU with torch.sigmoid."""
from __future__ import annotations

import math

import torch
from torch import Tensor


def _work(x: Tensor) -> Tensor:
    return x if x.dtype == torch.float64 else x.float()


def softmax(x, dim):
    w = _work(x)
    shift = w.amax(dim=dim, keepdim=True).detach()
    e = (w - shift).exp()
    return (e / e.sum(dim=dim, keepdim=True)).to(x.dtype)


def log_softmax(x, dim):
    w = _work(x)
    shift = w.amax(dim=dim, keepdim=True).detach()
    lse = (w - shift).exp().sum(dim=dim, keepdim=True).log() + shift
    return (w - lse).to(x.dtype)


def gelu_tanh(x):
    w = _work(x)
    inner = math.sqrt(2.0 / math.pi) * (w + 0.044715 * w * w * w)
    return (0.5 * w * (1.0 + inner.tanh())).to(x.dtype)


def silu(x):
    w = _work(x)
    return (w * torch.sigmoid(w)).to(x.dtype)


def leaky_relu(x, negative_slope=0.01):
    positive = (x >= 0).to(x.dtype)
    return x * positive + negative_slope * x * (1 - positive)
