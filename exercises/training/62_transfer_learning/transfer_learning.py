from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn


def prepare_for_finetuning(model: nn.Module, head_name: str, num_classes: int, train_prefixes: Sequence[str] = ()) -> nn.Module:
    """Gives the model a new classifier head for num_classes and leaves only the head and train_prefixes trainable. Returns the same model, changed in place."""
    raise NotImplementedError


def finetune_optimizer(model: nn.Module, head_name: str, head_lr: float, backbone_lr: float) -> torch.optim.Optimizer:
    """Returns an AdamW over the trainable parameters, with head_lr for the head and backbone_lr for the rest."""
    raise NotImplementedError


def set_finetune_mode(model: nn.Module) -> nn.Module:
    """Prepares the model for one epoch of fine-tuning and returns it."""
    raise NotImplementedError
