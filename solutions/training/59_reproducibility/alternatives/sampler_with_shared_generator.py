"""An explicit RandomSampler and the DataLoader share one generator (the loader draws its workers'
base seed from it, the sampler the order); the seeds go through torch.random and a 32-bit mask,
and deterministic mode keeps a CUBLAS_WORKSPACE_CONFIG already set (':16:8' otherwise)."""
from __future__ import annotations

import os
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, RandomSampler


def set_seed(seed: int, deterministic: bool = False) -> None:
    """Seed random, numpy, torch (CPU + all CUDA); if deterministic: use_deterministic_algorithms(True), cudnn.deterministic=True, cudnn.benchmark=False, CUBLAS_WORKSPACE_CONFIG=':4096:8'."""
    for seed_one in (random.seed, np.random.seed, torch.random.manual_seed, torch.cuda.manual_seed_all):
        seed_one(seed)
    if not deterministic:
        return
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":16:8")
    from torch.backends import cudnn

    cudnn.benchmark = False
    cudnn.deterministic = True
    torch.use_deterministic_algorithms(mode=True)


def seed_worker(worker_id: int) -> None:
    """DataLoader worker_init_fn: seed numpy and random from torch.initial_seed() % 2**32."""
    seed = torch.initial_seed() & 0xFFFF_FFFF
    random.seed(seed)
    np.random.seed(seed)


def reproducible_loader(dataset: Dataset, batch_size: int, seed: int, num_workers: int = 0) -> DataLoader:
    """Shuffled DataLoader whose order and worker-side randomness depend only on seed."""
    shared = torch.Generator().manual_seed(seed)
    return DataLoader(dataset, batch_size, sampler=RandomSampler(dataset, generator=shared),
                      num_workers=num_workers, worker_init_fn=seed_worker if num_workers else None,
                      generator=shared)
