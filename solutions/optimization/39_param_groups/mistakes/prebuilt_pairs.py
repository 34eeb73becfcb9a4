"""Pre-builds a (decay, no-decay) pair of groups for every lr_overrides key and for base_lr, fills
them, and returns all of them: a key whose module has only no-decay parameters (a BatchNorm), only
frozen ones, or no bias leaves a group empty, which the contract forbids. With overrides whose
modules all hold both kinds of trainable parameter, nothing shows.

Caught by: test_groups_are_plain_lists
"""
from __future__ import annotations

from torch import nn

NORMS = (nn.LayerNorm, nn.GroupNorm, nn.modules.batchnorm._BatchNorm)


def _key_for(module_name: str, lr_overrides: dict[str, float]) -> str | None:
    parts = module_name.split(".") if module_name else []
    for cut in range(len(parts), 0, -1):
        prefix = ".".join(parts[:cut])
        if prefix in lr_overrides:
            return prefix
    return None


def build_param_groups(model: nn.Module, base_lr: float, weight_decay: float, lr_overrides: dict[str, float] | None = None) -> list[dict]:
    lr_overrides = lr_overrides or {}
    pairs = {key: ({"params": [], "lr": lr, "weight_decay": weight_decay}, {"params": [], "lr": lr, "weight_decay": 0.0})
             for key, lr in [(None, base_lr), *lr_overrides.items()]}
    seen: set[int] = set()
    for module_name, module in model.named_modules():
        for name, p in module.named_parameters(recurse=False):
            if id(p) in seen:
                continue
            seen.add(id(p))
            if not p.requires_grad:
                continue
            decay, no_decay = pairs[_key_for(module_name, lr_overrides)]
            (no_decay if name == "bias" or isinstance(module, NORMS) else decay)["params"].append(p)
    return [group for pair in pairs.values() for group in pair]
