"""Saves the trained model's own `state_dict()` as it is: an `OrderedDict` (with its `_metadata`),
the form `nn.Module.state_dict` returns and `torch.load(weights_only=True)` reads back. The
contract asks for a state_dict, and this is one (issue 42: it used to be refused as "not a dict").
"""
from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data.distributed import DistributedSampler

_PREFIXES = ("module.", "_orig_mod.")


def ddp_worker(rank: int, world_size: int, init_file: str, model_fn: Callable[[], nn.Module], data: Tensor, targets: Tensor,
               steps: int, lr: float, out_dir: str) -> None:
    """init_process_group(nccl when torch.cuda.device_count() >= world_size (rank r on cuda:r), else gloo; init_method=f'file://{init_file}'); DDP(model_fn()); each step uses this rank's whole DistributedSampler(shuffle=False) shard as one batch with SGD(lr) and MSE loss; save the unwrapped state_dict, with CPU tensors, to out_dir/rank{rank}.pt; destroy the group."""
    use_cuda = torch.cuda.is_available() and torch.cuda.device_count() >= world_size
    backend = "nccl" if use_cuda else "gloo"
    device = torch.device("cuda", rank) if use_cuda else torch.device("cpu")
    if use_cuda:
        torch.cuda.set_device(device)
    dist.init_process_group(backend, init_method=f"file://{init_file}", rank=rank, world_size=world_size)
    try:
        model = model_fn().to(device)  # built after init: model_fn may ask for the rank
        ddp = DistributedDataParallel(model, device_ids=[rank] if use_cuda else None)  # broadcasts rank 0's weights
        sampler = DistributedSampler(range(len(data)), num_replicas=world_size, rank=rank, shuffle=False)
        shard = list(sampler)
        x, y = data[shard].to(device), targets[shard].to(device)
        opt = torch.optim.SGD(ddp.parameters(), lr=lr)
        for _ in range(steps):
            opt.zero_grad()
            F.mse_loss(ddp(x), y).backward()  # backward all-reduces (averages) the gradients
            opt.step()
        torch.save(ddp.module.cpu().state_dict(), os.path.join(out_dir, f"rank{rank}.pt"))  # an OrderedDict
    finally:
        dist.destroy_process_group()


def unwrap_state_dict(state_dict: dict[str, Tensor]) -> dict[str, Tensor]:
    """Strip leading 'module.' (DataParallel/DDP) and '_orig_mod.' (torch.compile) prefixes, in any combination, from every key."""
    out = {}
    for key, value in state_dict.items():
        while key.startswith(_PREFIXES):
            key = key.split(".", 1)[1]
        out[key] = value
    return out
