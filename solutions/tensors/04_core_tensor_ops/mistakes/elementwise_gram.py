"""Computes the Gram matrix with `*` (elementwise) instead of `@`: `x * x.transpose(-2, -1)` only
broadcasts when N == D and then multiplies entries pairwise instead of taking dot products.

Caught by: test_gram_shape, test_gram_matches_matmul, test_gradcheck, test_meta_no_data_dependence, test_gram_example
"""
from __future__ import annotations

import torch


def batch_from_samples(samples):
    return torch.stack(samples)


def concat_batches(batches):
    return torch.cat(batches)


def gram_matrix(x):
    return x * x.transpose(-2, -1)


def row_normalize(x):
    sums = x.sum(dim=1, keepdim=True)
    zero = sums == 0
    return torch.where(zero, torch.zeros_like(x), x / torch.where(zero, torch.ones_like(sums), sums))
