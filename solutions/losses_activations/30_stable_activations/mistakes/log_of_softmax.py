"""A stable softmax, but log_softmax as log(softmax(x)): a logit 2000 below the max has a
probability that underflows to 0, so its log-probability is -inf (and its gradient nan).

Caught by: test_hostile_logits, test_grads_finite_at_extremes
"""
from __future__ import annotations

import torch


def softmax(x, dim):
    e = torch.exp(x - x.max(dim=dim, keepdim=True).values)
    return e / e.sum(dim=dim, keepdim=True)


def log_softmax(x, dim):
    return torch.log(softmax(x, dim))


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))


def silu(x):
    return x * torch.sigmoid(x)


def leaky_relu(x, negative_slope=0.01):
    return torch.where(x >= 0, x, negative_slope * x)
