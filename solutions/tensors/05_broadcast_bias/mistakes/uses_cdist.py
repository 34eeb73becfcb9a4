"""Calls torch.cdist and squares it: the values pass, but the exercise forbids cdist, and the
squared root introduces no negatives but loses the point of the exercise.

Caught by: test_no_cdist_no_loops
"""
from __future__ import annotations

import torch
from torch import Tensor


def add_feature_bias(x: Tensor, bias: Tensor) -> Tensor:
    return x + bias


def add_sample_bias(x: Tensor, bias: Tensor) -> Tensor:
    return x + bias.unsqueeze(1)


def pairwise_sq_dists(a: Tensor, b: Tensor) -> Tensor:
    return torch.cdist(a, b) ** 2
