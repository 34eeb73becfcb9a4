"""Counts with torch.bincount without minlength: classes above the largest label present are
missing from the result, which is shorter than num_classes.

Caught by: test_inverse_weights_dtype, test_inverse_weights_values
"""
from __future__ import annotations

import torch
from torch.utils.data import WeightedRandomSampler


def balanced_sampler(labels, num_samples=None, generator=None):
    labels = labels.cpu().long()
    counts = torch.bincount(labels).double()
    weights = 1.0 / counts[labels]
    return WeightedRandomSampler(weights, num_samples=num_samples or len(labels), replacement=True, generator=generator)

def inverse_frequency_weights(labels, num_classes):
    counts = torch.bincount(labels.long()).double()
    weights = torch.where(counts > 0, 1.0 / counts, torch.zeros_like(counts))
    return (weights / weights[counts > 0].mean()).float()
