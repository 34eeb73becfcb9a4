"""Computes the per-sample weights where the labels are: right on the CPU, but with labels on a
GPU the sampler holds CUDA weights, and torch.multinomial refuses them with a CPU generator.

Caught by: test_cuda_labels
"""
from __future__ import annotations

import torch
from torch.utils.data import WeightedRandomSampler


def balanced_sampler(labels, num_samples=None, generator=None):
    counts = torch.bincount(labels).double()
    weights = 1.0 / counts[labels]
    return WeightedRandomSampler(weights, num_samples=num_samples or len(labels), replacement=True, generator=generator)


def inverse_frequency_weights(labels, num_classes):
    counts = torch.bincount(labels.long(), minlength=num_classes).double()
    present = counts > 0
    weights = torch.zeros_like(counts)
    weights[present] = 1.0 / counts[present]
    weights[present] /= weights[present].mean()
    return weights.float()
