"""A table of initialisers (functools.partial), torch's base classes (_ConvNd, _NormBase),
trunc_normal_ for GPT-2 (truncated at ±2, i.e. 100 std: a normal in practice), index_fill_ for the
padding row, and the default bound derived from nn.Linear's own kaiming_uniform_(a=√5)."""
from __future__ import annotations

import math
from functools import partial

import torch
from torch import nn
from torch.nn.modules.batchnorm import _NormBase
from torch.nn.modules.conv import _ConvNd

WEIGHT_INIT = {
    "xavier": nn.init.xavier_uniform_,
    "kaiming": partial(nn.init.kaiming_normal_, mode="fan_in", nonlinearity="relu"),
    "gpt2": partial(nn.init.trunc_normal_, std=0.02),
}


def _init(module, weight_init):
    if isinstance(module, (nn.Linear, _ConvNd)) and not isinstance(module, nn.modules.conv._ConvTransposeNd):
        weight_init(module.weight)
        if module.bias is not None:
            nn.init.constant_(module.bias, 0.0)
    elif isinstance(module, nn.Embedding):
        nn.init.trunc_normal_(module.weight, std=0.02)
        if module.padding_idx is not None:
            with torch.no_grad():
                module.weight.index_fill_(0, torch.tensor([module.padding_idx], device=module.weight.device), 0.0)
    elif isinstance(module, (nn.LayerNorm, nn.GroupNorm, _NormBase)):
        for name, value in (("weight", 1.0), ("bias", 0.0)):
            param = getattr(module, name, None)
            if param is not None:
                nn.init.constant_(param, value)


def init_weights_(model, scheme):
    model.apply(partial(_init, weight_init=WEIGHT_INIT[scheme]))
    return model


def default_linear_bound(fan_in):
    gain = nn.init.calculate_gain("leaky_relu", math.sqrt(5))
    return gain * math.sqrt(3.0 / fan_in)
