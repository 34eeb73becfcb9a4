"""Draws without replacement so that no sample repeats: an epoch is then a weighted permutation,
the rare samples run out, and more draws than samples is an error.

Caught by: test_sampler_settings, test_minority_share
"""
from __future__ import annotations

import torch
from torch.utils.data import WeightedRandomSampler


def balanced_sampler(labels, num_samples=None, generator=None):
    labels = labels.cpu().long()
    counts = torch.bincount(labels).double()
    weights = 1.0 / counts[labels]
    return WeightedRandomSampler(weights, num_samples=num_samples or len(labels), replacement=False, generator=generator)


def inverse_frequency_weights(labels, num_classes):
    counts = torch.bincount(labels.long(), minlength=num_classes).double()
    present = counts > 0
    weights = torch.zeros_like(counts)
    weights[present] = 1.0 / counts[present]
    weights[present] /= weights[present].mean()
    return weights.float()
