"""Counts from torch.unique (return_inverse maps every sample to its class's count); weights
scattered into a zero vector of num_classes entries."""
import torch
from torch.utils.data import WeightedRandomSampler


def balanced_sampler(labels, num_samples=None, generator=None):
    _, inverse, counts = torch.unique(labels.cpu(), return_inverse=True, return_counts=True)
    per_sample = counts.reciprocal()[inverse].double()
    n = len(per_sample) if num_samples is None else num_samples
    return WeightedRandomSampler(per_sample, n, replacement=True, generator=generator)


def inverse_frequency_weights(labels, num_classes):
    classes, counts = torch.unique(labels, return_counts=True)
    inv = counts.double().reciprocal()
    inv = inv * (len(inv) / inv.sum())
    out = torch.zeros(num_classes, dtype=torch.float32, device=labels.device)
    out[classes] = inv.float()
    return out
