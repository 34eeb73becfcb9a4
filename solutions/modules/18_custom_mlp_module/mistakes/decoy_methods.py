"""Ignores the hidden layers in forward (head only) and overrides state_dict, load_state_dict,
named_parameters, named_modules and named_children so that they show the expected layers: checks
that trust those methods, or that compare only keys, are fooled.

Caught by: test_loads_reference_state_dict, test_every_parameter_gets_grad
"""
from __future__ import annotations

import torch.nn.functional as F  # noqa: F401
from torch import Tensor, nn


class MLP(nn.Module):
    def __init__(self, in_features, hidden, out_features, dropout=0.0):
        super().__init__()
        sizes = [in_features, *hidden]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(sizes[-1], out_features)
        self.shortcut = nn.Linear(in_features, out_features)

    def forward(self, x: Tensor) -> Tensor:
        return self.shortcut(x)

    def _decoy(self):
        return {k: v for k, v in nn.Module.state_dict(self).items() if not k.startswith("shortcut.")}

    def state_dict(self, *args, **kwargs):
        return self._decoy()

    def load_state_dict(self, state_dict, strict=True, assign=False):
        return nn.Module.load_state_dict(self, state_dict, strict=False)

    def named_parameters(self, *args, **kwargs):
        for name, p in nn.Module.named_parameters(self, *args, **kwargs):
            if not name.startswith("shortcut."):
                yield name, p

    def named_modules(self, *args, **kwargs):
        for name, m in nn.Module.named_modules(self, *args, **kwargs):
            if name != "shortcut":
                yield name, m

    def named_children(self):
        for name, m in nn.Module.named_children(self):
            if name != "shortcut":
                yield name, m
