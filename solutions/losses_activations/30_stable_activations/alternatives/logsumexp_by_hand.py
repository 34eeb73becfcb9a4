"""Log-space first: a hand-written log-sum-exp (max kept with torch.max(...).values), softmax as
exp(log_softmax); sigmoid through tanh; GELU as x * sigmoid(2u); LeakyReLU from clamps."""
from __future__ import annotations

import math

import torch


def _lse(x, dim):
    m = torch.max(x, dim=dim, keepdim=True).values
    return m + torch.log(torch.sum(torch.exp(x - m), dim=dim, keepdim=True))


def log_softmax(x, dim):
    return x - _lse(x, dim)


def softmax(x, dim):
    return torch.exp(log_softmax(x, dim))


def _sigmoid(t):
    return 0.5 * (1.0 + torch.tanh(0.5 * t))


def gelu_tanh(x):
    u = math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3))
    return x * _sigmoid(2.0 * u)


def silu(x):
    return x * _sigmoid(x)


def leaky_relu(x, negative_slope=0.01):
    return x.clamp(min=0) + negative_slope * x.clamp(max=0)
