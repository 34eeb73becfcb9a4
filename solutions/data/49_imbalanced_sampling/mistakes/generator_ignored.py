"""Builds the sampler without the generator it was given: the draws come from torch's global
generator, so the same seed does not give the same draws.

Caught by: test_same_seed_same_draws
"""
from __future__ import annotations

import torch
from torch.utils.data import WeightedRandomSampler


def balanced_sampler(labels, num_samples=None, generator=None):
    labels = labels.cpu().long()
    counts = torch.bincount(labels).double()
    weights = 1.0 / counts[labels]
    return WeightedRandomSampler(weights, num_samples=num_samples or len(labels), replacement=True)


def inverse_frequency_weights(labels, num_classes):
    counts = torch.bincount(labels.long(), minlength=num_classes).double()
    present = counts > 0
    weights = torch.zeros_like(counts)
    weights[present] = 1.0 / counts[present]
    weights[present] /= weights[present].mean()
    return weights.float()
