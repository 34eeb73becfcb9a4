from __future__ import annotations

import torch
from torch import Tensor
from torch.utils.data import WeightedRandomSampler


def balanced_sampler(labels: Tensor, num_samples: int | None = None, generator: torch.Generator | None = None) -> WeightedRandomSampler:
    """Returns a sampler over the indices of labels that draws every class equally often."""
    raise NotImplementedError


def inverse_frequency_weights(labels: Tensor, num_classes: int) -> Tensor:
    """Returns one loss weight per class, from how often each class occurs in labels."""
    raise NotImplementedError
