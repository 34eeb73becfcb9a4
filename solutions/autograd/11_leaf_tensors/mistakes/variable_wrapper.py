"""Wraps the data in the pre-0.4 `torch.autograd.Variable`, which is now a deprecated alias that
just returns a Tensor: the values pass, but the exercise forbids it. `is_trainable_leaf` checks only
`is_leaf`, which is also True for tensors that do not require grad.

Caught by: test_no_variable, test_is_trainable_leaf
"""
from __future__ import annotations

import torch
from torch.autograd import Variable


def make_trainable(data, device="cpu"):
    return Variable(torch.tensor(data, dtype=torch.float32, device=device), requires_grad=True)


def is_trainable_leaf(t):
    return t.is_leaf
