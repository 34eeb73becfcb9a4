from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler
import re

import torch.distributed as dist
import torch.nn.parallel
from torch.utils.data import TensorDataset
from torch.utils.data.distributed import DistributedSampler


def ddp_worker(rank: int, world_size: int, init_file: str, model_fn: Callable[[], nn.Module], data: Tensor, targets: Tensor,
               steps: int, lr: float, out_dir: str) -> None:
    """init_process_group(nccl when torch.cuda.device_count() >= world_size (rank r on cuda:r), else gloo; init_method=f'file://{init_file}'); DDP(model_fn()); each step uses this rank's whole DistributedSampler(shuffle=False) shard as one batch with SGD(lr) and MSE loss; save the unwrapped state_dict, with CPU tensors, to out_dir/rank{rank}.pt; destroy the group."""
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    device = f"cuda:{rank}" if gpus >= world_size else "cpu"
    dist.init_process_group(backend=dist.Backend.NCCL if device != "cpu" else dist.Backend.GLOO,
                            init_method="file://" + init_file, world_size=world_size, rank=rank)
    dataset = TensorDataset(data, targets)
    sampler = DistributedSampler(dataset, shuffle=False)  # world size and rank from the group
    loader = DataLoader(dataset, batch_size=len(sampler), sampler=sampler)
    model = torch.nn.parallel.DistributedDataParallel(
        model_fn().to(device), device_ids=None if device == "cpu" else [rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = nn.MSELoss()
    for _ in range(steps):
        for x, y in loader:  # one batch: the whole shard
            loss = loss_fn(model(x.to(device)), y.to(device))
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
    weights = model.module.state_dict()  # the wrapped model's own keys, no "module."
    torch.save({k: v.to("cpu") for k, v in weights.items()}, f"{out_dir}/rank{rank}.pt")
    dist.barrier()
    dist.destroy_process_group()


_WRAPPERS = re.compile(r"^(?:(?:module|_orig_mod)\.)+")


def unwrap_state_dict(state_dict: dict[str, Tensor]) -> dict[str, Tensor]:
    """Strip leading 'module.' (DataParallel/DDP) and '_orig_mod.' (torch.compile) prefixes, in any combination, from every key."""
    return {_WRAPPERS.sub("", key): value for key, value in state_dict.items()}
