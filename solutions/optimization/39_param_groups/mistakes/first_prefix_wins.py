"""Takes the first matching prefix in the dict's order instead of the longest: everything under
"backbone.layer1" gets the lr of "backbone".

Caught by: test_longest_prefix_lr
"""
from __future__ import annotations

from torch import nn

NORMS = (nn.LayerNorm, nn.GroupNorm, nn.modules.batchnorm._BatchNorm)


def _lr_for(module_name: str, base_lr: float, lr_overrides: dict[str, float]) -> float:
    """The lr of the longest prefix (whole dotted components) of module_name in lr_overrides."""
    for prefix, lr in lr_overrides.items():
        if module_name == prefix or module_name.startswith(prefix + "."):
            return lr
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
            no_decay = name == "bias" or isinstance(module, NORMS)
            key = (_lr_for(module_name, base_lr, lr_overrides), 0.0 if no_decay else weight_decay)
            groups.setdefault(key, []).append(p)
    return [{"params": params, "lr": lr, "weight_decay": wd} for (lr, wd), params in groups.items()]
