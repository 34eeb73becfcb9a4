"""Freezes and unfreezes in one pass over named_parameters (the head's name included among the
trainable prefixes), builds the optimizer from filter(), and sets every module's flag in one walk."""
from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn


def prepare_for_finetuning(model: nn.Module, head_name: str, num_classes: int, train_prefixes: Sequence[str] = ()) -> nn.Module:
    old = model._modules[head_name]
    w = old.weight
    model._modules[head_name] = torch.nn.Linear(old.in_features, num_classes, bias=True).to(device=w.device, dtype=w.dtype)
    keep = tuple(p + "." for p in (head_name, *train_prefixes))
    for name, param in model.named_parameters():
        param.requires_grad = name.startswith(keep)
    return model


def finetune_optimizer(model: nn.Module, head_name: str, head_lr: float, backbone_lr: float) -> torch.optim.Optimizer:
    named = list(filter(lambda kv: kv[1].requires_grad, model.named_parameters()))
    head = [p for n, p in named if n.split(".", 1)[0] == head_name]
    rest = [p for n, p in named if n.split(".", 1)[0] != head_name]
    groups = [{"params": head, "lr": head_lr}] + ([{"params": rest, "lr": backbone_lr}] if rest else [])
    return torch.optim.AdamW(groups, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2)


def set_finetune_mode(model: nn.Module) -> nn.Module:
    for module in model.modules():
        is_bn = isinstance(module, nn.modules.batchnorm._BatchNorm)
        frozen = not any(p.requires_grad for p in module.parameters())
        module.training = not (is_bn and frozen)
    return model
