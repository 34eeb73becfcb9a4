"""Two passes, as in many training scripts: first collect the ids of no-decay parameters by module
type, then bucket the parameters by (lr, decay) with the override resolved over the module's
ancestors."""
from __future__ import annotations

from collections import defaultdict

from torch import nn
from torch.nn.modules.batchnorm import _BatchNorm


def build_param_groups(model, base_lr, weight_decay, lr_overrides=None):
    no_decay, owner = set(), {}
    for mname, module in model.named_modules():
        for pname, p in module.named_parameters(recurse=False):
            owner.setdefault(id(p), mname)
            if pname == "bias" or isinstance(module, (nn.LayerNorm, nn.GroupNorm, _BatchNorm)):
                no_decay.add(id(p))
    buckets = defaultdict(list)
    for p in model.parameters():
        if not p.requires_grad:
            continue
        mname = owner[id(p)]
        ancestors = [".".join(mname.split(".")[:i]) for i in range(len(mname.split(".")), 0, -1)] if mname else []
        lr = next((lr_overrides[a] for a in ancestors if lr_overrides and a in lr_overrides), base_lr)
        wd = 0.0 if id(p) in no_decay else weight_decay
        buckets[(lr, wd)].append(p)
    return [{"params": ps, "lr": lr, "weight_decay": wd} for (lr, wd), ps in buckets.items() if ps]
