"""Takes 1/count for every class: an absent class gets an infinite weight (normalised over the
present classes only, the inf stays).

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
    counts = torch.bincount(labels.long(), minlength=num_classes).float()
    weights = 1.0 / counts
    return weights / weights[counts > 0].mean()
