"""No worker_init_fn: since torch 1.9 each DataLoader worker seeds torch, random and numpy from
the loader's base seed and its worker id, and the base seed comes from the loader's generator.
Workers are kept alive between epochs; seed_worker builds its seed with SeedSequence-free
arithmetic on torch.initial_seed()."""
from __future__ import annotations

import os
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

DETERMINISTIC_CUBLAS = ":4096:8"


def set_seed(seed: int, deterministic: bool = False) -> None:
    """Seed random, numpy, torch (CPU + all CUDA); if deterministic: use_deterministic_algorithms(True), cudnn.deterministic=True, cudnn.benchmark=False, CUBLAS_WORKSPACE_CONFIG=':4096:8'."""
    torch.manual_seed(seed)          # CPU and every CUDA device
    np.random.seed(seed % 2**32)
    random.seed(seed)
    if deterministic:
        os.environ["CUBLAS_WORKSPACE_CONFIG"] = DETERMINISTIC_CUBLAS
    torch.backends.cudnn.deterministic = deterministic
    torch.backends.cudnn.benchmark = False
    if deterministic:
        torch.use_deterministic_algorithms(True)


def seed_worker(worker_id: int) -> None:
    """DataLoader worker_init_fn: seed numpy and random from torch.initial_seed() % 2**32."""
    worker_seed = divmod(torch.initial_seed(), 2**32)[1]
    np.random.seed(worker_seed)
    random.seed(worker_seed)


def reproducible_loader(dataset: Dataset, batch_size: int, seed: int, num_workers: int = 0) -> DataLoader:
    """Shuffled DataLoader whose order and worker-side randomness depend only on seed."""
    order = torch.Generator()
    order.manual_seed(seed)
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, generator=order,
                      num_workers=num_workers, persistent_workers=num_workers > 0)
