from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def ddp_worker(rank: int, world_size: int, init_file: str, model_fn: Callable[[], nn.Module], data: Tensor, targets: Tensor,
               steps: int, lr: float, out_dir: str) -> None:
    """init_process_group(nccl when torch.cuda.device_count() >= world_size (rank r on cuda:r), else gloo; init_method=f'file://{init_file}'); DDP(model_fn()); each step uses this rank's whole DistributedSampler(shuffle=False) shard as one batch with SGD(lr) and MSE loss; save the unwrapped state_dict, with CPU tensors, to out_dir/rank{rank}.pt; destroy the group."""
    raise NotImplementedError


def unwrap_state_dict(state_dict: dict[str, Tensor]) -> dict[str, Tensor]:
    """Strip leading 'module.' (DataParallel/DDP) and '_orig_mod.' (torch.compile) prefixes, in any combination, from every key."""
    raise NotImplementedError
