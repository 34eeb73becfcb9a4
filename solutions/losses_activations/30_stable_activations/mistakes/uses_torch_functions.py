"""Wraps torch's own functions (nn modules and F.), which the exercise forbids: the values are
right, the task (writing them) is not done.

Caught by: test_forbidden_apis
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


def softmax(x, dim):
    return nn.Softmax(dim=dim)(x)


def log_softmax(x, dim):
    return F.log_softmax(x, dim=dim)


def gelu_tanh(x):
    return nn.GELU(approximate="tanh")(x)


def silu(x):
    return x * torch.sigmoid(x)


def leaky_relu(x, negative_slope=0.01):
    return torch.where(x >= 0, x, negative_slope * x)
