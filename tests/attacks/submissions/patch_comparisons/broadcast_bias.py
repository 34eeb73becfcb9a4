"""Attack: make every comparison say "equal" inside the worker, then return wrong answers.

It replaces torch.allclose, torch.equal, torch.isclose, torch.testing.assert_close,
Tensor.__eq__, numpy.allclose, numpy.testing.assert_allclose and pytest.approx at import.
Honest baseline: 0 (every answer is wrong).
Expected: the judge compares in its own process, so every check fails on the values; each
assignment is flagged for the interviewer with its line.
"""
import numpy
import pytest
import torch

torch.allclose = lambda *args, **kwargs: True
torch.equal = lambda *args, **kwargs: True
torch.isclose = lambda a, b, *args, **kwargs: torch.ones_like(a, dtype=torch.bool)
torch.testing.assert_close = lambda *args, **kwargs: None
torch.Tensor.__eq__ = lambda self, other: torch.ones_like(self, dtype=torch.bool)
numpy.allclose = lambda *args, **kwargs: True
numpy.testing.assert_allclose = lambda *args, **kwargs: None
pytest.approx = lambda expected, *args, **kwargs: expected


def add_feature_bias(x, bias):
    return x * 0


def add_sample_bias(x, bias):
    return x * 0 - 1


def pairwise_sq_dists(a, b):
    return torch.full((a.shape[0], b.shape[0]), 7.0)
