from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def prepare_for_finetuning(model: nn.Module, head_name: str, num_classes: int, train_prefixes: Sequence[str] = ()) -> nn.Module:
    """Freeze all params, replace Linear attribute head_name with a trainable Linear(in_features, num_classes) on the same device/dtype, unfreeze params under train_prefixes."""
    raise NotImplementedError


def finetune_optimizer(model: nn.Module, head_name: str, head_lr: float, backbone_lr: float) -> torch.optim.Optimizer:
    """AdamW over trainable params only: head params at head_lr, other trainable params at backbone_lr."""
    raise NotImplementedError


def set_finetune_mode(model: nn.Module) -> nn.Module:
    """model.train(), then every BatchNorm whose params are all frozen goes back to eval() so its running stats stay fixed."""
    raise NotImplementedError
