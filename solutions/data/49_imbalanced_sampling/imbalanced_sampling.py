from __future__ import annotations

import torch
from torch import Tensor
from torch.utils.data import WeightedRandomSampler


def balanced_sampler(labels: Tensor, num_samples: int | None = None, generator: torch.Generator | None = None) -> WeightedRandomSampler:
    """Per-sample weights 1/count(label) (CPU, float64), replacement=True, num_samples default len(labels)."""
    labels = labels.to("cpu")              # the sampler's generator lives on the CPU
    counts = torch.bincount(labels).to(torch.float64)
    weights = 1.0 / counts[labels]
    if num_samples is None:
        num_samples = len(labels)
    return WeightedRandomSampler(weights, num_samples=num_samples, replacement=True, generator=generator)


def inverse_frequency_weights(labels: Tensor, num_classes: int) -> Tensor:
    """(C,) float32 weights proportional to 1/count, normalised to mean 1 over present classes; absent classes get 0."""
    counts = torch.bincount(labels, minlength=num_classes).to(torch.float64)
    present = counts > 0
    weights = torch.zeros_like(counts)
    weights[present] = 1.0 / counts[present]
    weights[present] = weights[present] / weights[present].mean()
    return weights.to(torch.float32)
