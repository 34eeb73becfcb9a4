"""Strict mode without cudnn.deterministic: deterministic-algorithms mode already restricts cuDNN's
convolutions to deterministic algorithms; the autotuner off and cuBLAS's workspace set (":16:8")."""
from __future__ import annotations

import os
import random

import numpy as np
import torch
from torch.utils.data import DataLoader


def set_seed(seed, deterministic=False):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)          # seeds every CUDA device too
    if deterministic:
        os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":16:8"
        torch.backends.cudnn.benchmark = False
        torch.use_deterministic_algorithms(True)


def seed_worker(worker_id):
    base = torch.initial_seed() % 2**32
    np.random.seed(base)
    random.seed(base)


def reproducible_loader(dataset, batch_size, seed, num_workers=0):
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=num_workers,
                      worker_init_fn=seed_worker, generator=torch.Generator().manual_seed(seed))
