"""Works on modules rather than parameter names: freezes with Module.requires_grad_, unfreezes each
prefix's submodule (get_submodule), moves the new head with .to(old weight), and picks the head's
parameters by identity."""
from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

BATCHNORMS = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.SyncBatchNorm)


def prepare_for_finetuning(model: nn.Module, head_name: str, num_classes: int, train_prefixes: Sequence[str] = ()) -> nn.Module:
    model.requires_grad_(False)
    old_weight = getattr(model, head_name).weight
    model.add_module(head_name, nn.Linear(old_weight.shape[1], num_classes).to(old_weight))
    for prefix in train_prefixes:
        model.get_submodule(prefix).requires_grad_(True)
    return model


def finetune_optimizer(model: nn.Module, head_name: str, head_lr: float, backbone_lr: float) -> torch.optim.Optimizer:
    head_ids = {id(p) for p in getattr(model, head_name).parameters()}
    trainable = [p for p in model.parameters() if p.requires_grad]
    return torch.optim.AdamW([
        {"params": [p for p in trainable if id(p) in head_ids], "lr": head_lr},
        {"params": [p for p in trainable if id(p) not in head_ids], "lr": backbone_lr},
    ])


def set_finetune_mode(model: nn.Module) -> nn.Module:
    model.train()
    for module in model.modules():
        if isinstance(module, BATCHNORMS) and all(not p.requires_grad for p in module.parameters()):
            module.train(False)
    return model
