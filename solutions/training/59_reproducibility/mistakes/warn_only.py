"""Strict mode with use_deterministic_algorithms(True, warn_only=True): an operation without a
deterministic implementation only warns and runs, where the task says it raises.

Caught by: test_deterministic_flags
"""
from __future__ import annotations

import os
import random

import numpy as np
import torch
from torch.utils.data import DataLoader


def set_seed(seed, deterministic=False):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    if deterministic:
        os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
        torch.use_deterministic_algorithms(True, warn_only=True)
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


def reproducible_loader(dataset, batch_size, seed, num_workers=0):
    generator = torch.Generator()
    generator.manual_seed(seed)
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=num_workers,
                      worker_init_fn=seed_worker, generator=generator)
