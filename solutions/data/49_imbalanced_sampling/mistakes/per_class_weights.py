"""Gives the sampler the per-class weights (1/count for each class) instead of one weight per
sample: it then draws class indices 0..C-1 as if they were sample indices.

Caught by: test_sampler_settings, test_minority_share
"""
from __future__ import annotations

import torch
from torch.utils.data import WeightedRandomSampler


def balanced_sampler(labels, num_samples=None, generator=None):
    counts = torch.bincount(labels.cpu().long()).double()
    class_weights = 1.0 / counts
    return WeightedRandomSampler(class_weights, num_samples=num_samples or len(labels), replacement=True, generator=generator)


def inverse_frequency_weights(labels, num_classes):
    counts = torch.bincount(labels.long(), minlength=num_classes).double()
    present = counts > 0
    weights = torch.zeros_like(counts)
    weights[present] = 1.0 / counts[present]
    weights[present] /= weights[present].mean()
    return weights.float()
