from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def gan_step(G: nn.Module, D: nn.Module, opt_g: torch.optim.Optimizer, opt_d: torch.optim.Optimizer, real: Tensor, z: Tensor) -> tuple[float, float]:
    """One D update on d_loss = BCEWithLogits(D(real), 1) + BCEWithLogits(D(G(z).detach()), 0) (the sum of the two terms, not their average), then one non-saturating G update through the UPDATED D (fake->1); returns (d_loss, g_loss)."""
    raise NotImplementedError
