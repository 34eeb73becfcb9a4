"""Walks model.named_parameters() (which lists a tied weight once), finds each parameter's owner
with get_submodule, and makes one group per parameter."""
from __future__ import annotations

from torch import nn


def build_param_groups(model, base_lr, weight_decay, lr_overrides=None):
    overrides = lr_overrides or {}
    groups = []
    for full_name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        owner_name, _, short = full_name.rpartition(".")
        owner = model.get_submodule(owner_name)
        norm = isinstance(owner, (nn.LayerNorm, nn.GroupNorm, nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d))
        lr, best = base_lr, -1
        for key, value in overrides.items():
            if (owner_name == key or owner_name.startswith(key + ".")) and len(key) > best:
                lr, best = value, len(key)
        groups.append({"params": [p], "lr": lr, "weight_decay": 0.0 if short == "bias" or norm else weight_decay})
    return groups
