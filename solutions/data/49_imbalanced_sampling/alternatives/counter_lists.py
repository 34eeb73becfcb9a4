"""Python-level counting with collections.Counter: a list of float weights for the sampler (which
turns it into a CPU float64 tensor itself) and a list for the loss weights."""
from collections import Counter

import torch
from torch.utils.data import WeightedRandomSampler


def balanced_sampler(labels, num_samples=None, generator=None):
    ys = labels.tolist()
    counts = Counter(ys)
    weights = [1.0 / counts[y] for y in ys]
    if num_samples is None:
        num_samples = len(ys)
    return WeightedRandomSampler(weights, num_samples, generator=generator)


def inverse_frequency_weights(labels, num_classes):
    counts = Counter(labels.tolist())
    inv = [1.0 / counts[c] if counts[c] else 0.0 for c in range(num_classes)]
    present = [v for v in inv if v > 0]
    scale = len(present) / sum(present)
    return torch.tensor([v * scale for v in inv], dtype=torch.float32, device=labels.device)
