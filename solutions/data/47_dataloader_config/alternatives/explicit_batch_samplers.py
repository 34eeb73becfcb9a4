"""The samplers spelled out: RandomSampler with its own generator inside a BatchSampler that
drops the last batch, SequentialSampler inside one that keeps it."""
from __future__ import annotations

import torch
from torch.utils.data import BatchSampler, DataLoader, RandomSampler, SequentialSampler


def make_loaders(train_ds, val_ds, batch_size, num_workers=0, device="cpu", seed=0):
    g = torch.Generator()
    g.manual_seed(seed)
    on_cuda = str(torch.device(device)).startswith("cuda")
    options = {"num_workers": num_workers, "pin_memory": on_cuda, "persistent_workers": num_workers > 0}
    train = DataLoader(train_ds, batch_sampler=BatchSampler(RandomSampler(train_ds, generator=g), batch_size, True),
                       **options)
    val = DataLoader(val_ds, batch_sampler=BatchSampler(SequentialSampler(val_ds), batch_size, False), **options)
    return (train, val)
