"""Computes distances from the (N, M, D) difference tensor `a[:, None] - b[None]`.

The values are right, but it materialises O(N*M*D) memory and loops over nothing clever; it also
forgets the clamp (harmless here). The AST check does not catch it (no loop, no cdist); the CUDA
memory check does, so on CPU it is caught by its use of a Python loop in the helper below.

Caught by: test_no_cdist_no_loops
"""
from __future__ import annotations

import torch
from torch import Tensor


def add_feature_bias(x: Tensor, bias: Tensor) -> Tensor:
    return x + bias


def add_sample_bias(x: Tensor, bias: Tensor) -> Tensor:
    return x + bias[:, None]


def _square_all(diffs: list[Tensor]) -> list[Tensor]:
    return [d * d for d in diffs]


def pairwise_sq_dists(a: Tensor, b: Tensor) -> Tensor:
    diff = a[:, None, :] - b[None, :, :]
    return torch.stack(_square_all([diff]))[0].sum(-1)
