from __future__ import annotations

from torch import nn


def build_param_groups(model: nn.Module, base_lr: float, weight_decay: float, lr_overrides: dict[str, float] | None = None) -> list[dict]:
    """Return param groups for torch.optim.AdamW over the trainable parameters of model. Biases and normalisation-layer parameters get no weight decay, and lr_overrides sets the learning rate of named submodules."""
    raise NotImplementedError
