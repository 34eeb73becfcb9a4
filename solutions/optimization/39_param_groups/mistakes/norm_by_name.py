"""Recognises norm layers by name ("norm" or "bn" in the parameter's name): a LayerNorm called
`proj` and a BatchNorm inside a Sequential (`layer1.1`) are weight-decayed.

Caught by: test_no_decay_for_biases_and_norms, test_zero_grad_step_shrinks_decayed_only
"""
from __future__ import annotations

from torch import nn

NORMS = (nn.LayerNorm, nn.GroupNorm, nn.modules.batchnorm._BatchNorm)


def _lr_for(module_name: str, base_lr: float, lr_overrides: dict[str, float]) -> float:
    """The lr of the longest prefix (whole dotted components) of module_name in lr_overrides."""
    parts = module_name.split(".") if module_name else []
    for cut in range(len(parts), 0, -1):
        prefix = ".".join(parts[:cut])
        if prefix in lr_overrides:
            return lr_overrides[prefix]
    return base_lr


def build_param_groups(model: nn.Module, base_lr: float, weight_decay: float, lr_overrides: dict[str, float] | None = None) -> list[dict]:
    """Groups for torch.optim.AdamW over trainable params only: biases and all params of norm layers (by module type) get weight_decay=0; params under the longest matching module prefix in lr_overrides get that lr."""
    lr_overrides = lr_overrides or {}
    groups: dict[tuple[float, float], list] = {}
    seen: set[int] = set()
    for module_name, module in model.named_modules():
        for name, p in module.named_parameters(recurse=False):
            if id(p) in seen:
                continue
            seen.add(id(p))
            if not p.requires_grad:
                continue
            full = f"{module_name}.{name}"
            no_decay = name == "bias" or "norm" in full or ".bn" in full
            key = (_lr_for(module_name, base_lr, lr_overrides), 0.0 if no_decay else weight_decay)
            groups.setdefault(key, []).append(p)
    return [{"params": params, "lr": lr, "weight_decay": wd} for (lr, wd), params in groups.items()]
