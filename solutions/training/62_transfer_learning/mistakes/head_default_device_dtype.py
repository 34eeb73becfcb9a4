"""Builds the new head with nn.Linear(in_features, num_classes) alone: it lands on the CPU in
float32 whatever the model's device and dtype.

Caught by: test_float64_head, test_head_on_model_device_meta
"""
from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def prepare_for_finetuning(model: nn.Module, head_name: str, num_classes: int, train_prefixes: Sequence[str] = ()) -> nn.Module:
    """Freeze all params, replace Linear attribute head_name with a trainable Linear(in_features, num_classes) on the same device/dtype, unfreeze params under train_prefixes."""
    for p in model.parameters():
        p.requires_grad_(False)
    old = getattr(model, head_name)
    head = nn.Linear(old.in_features, num_classes)
    setattr(model, head_name, head)
    for name, p in model.named_parameters():
        if any(_under(name, prefix) for prefix in train_prefixes):
            p.requires_grad_(True)
    return model


def finetune_optimizer(model: nn.Module, head_name: str, head_lr: float, backbone_lr: float) -> torch.optim.Optimizer:
    """AdamW over trainable params only: head params at head_lr, other trainable params at backbone_lr."""
    head, backbone = [], []
    for name, p in model.named_parameters():
        if p.requires_grad:
            (head if _under(name, head_name) else backbone).append(p)
    groups = [{"params": head, "lr": head_lr}]
    if backbone:
        groups.append({"params": backbone, "lr": backbone_lr})
    return torch.optim.AdamW(groups)


def set_finetune_mode(model: nn.Module) -> nn.Module:
    """model.train(), then every BatchNorm whose params are all frozen goes back to eval() so its running stats stay fixed."""
    model.train()
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            if not any(p.requires_grad for p in m.parameters()):
                m.eval()
    return model
