"""Makes the default epoch as long as a balanced copy of the data (num_classes x the largest
class) instead of len(labels).

Caught by: test_sampler_settings
"""
from __future__ import annotations

import torch
from torch.utils.data import WeightedRandomSampler


def balanced_sampler(labels, num_samples=None, generator=None):
    labels = labels.cpu().long()
    counts = torch.bincount(labels).double()
    weights = 1.0 / counts[labels]
    if num_samples is None:
        num_samples = int((counts > 0).sum() * counts.max())
    return WeightedRandomSampler(weights, num_samples=num_samples, replacement=True, generator=generator)


def inverse_frequency_weights(labels, num_classes):
    counts = torch.bincount(labels.long(), minlength=num_classes).double()
    present = counts > 0
    weights = torch.zeros_like(counts)
    weights[present] = 1.0 / counts[present]
    weights[present] /= weights[present].mean()
    return weights.float()
