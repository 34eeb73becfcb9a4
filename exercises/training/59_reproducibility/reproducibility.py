from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler



def set_seed(seed: int, deterministic: bool = False) -> None:
    """Seed random, numpy, torch (CPU + all CUDA); if deterministic: use_deterministic_algorithms(True), cudnn.deterministic=True, cudnn.benchmark=False, CUBLAS_WORKSPACE_CONFIG=':4096:8'."""
    raise NotImplementedError


def seed_worker(worker_id: int) -> None:
    """DataLoader worker_init_fn: seed numpy and random from torch.initial_seed() % 2**32."""
    raise NotImplementedError


def reproducible_loader(dataset: Dataset, batch_size: int, seed: int, num_workers: int = 0) -> DataLoader:
    """Shuffled DataLoader whose order and worker-side randomness depend only on seed."""
    raise NotImplementedError
