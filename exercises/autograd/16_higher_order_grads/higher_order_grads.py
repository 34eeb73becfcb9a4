from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def gradient_penalty(critic: nn.Module, real: Tensor, fake: Tensor, alpha: Tensor) -> Tensor:
    """WGAN-GP: x_hat = alpha*real + (1-alpha)*fake; return mean((||d critic(x_hat).sum() / d x_hat||_2 per sample - 1)**2), differentiable w.r.t. critic params."""
    raise NotImplementedError


def hessian_vector_product(f: Callable[[Tensor], Tensor], x: Tensor, v: Tensor) -> Tensor:
    """H_f(x) @ v for scalar f via double backward (Pearlmutter), never forming H."""
    raise NotImplementedError
