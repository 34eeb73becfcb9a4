"""Attack: a wrong MLP (one Linear, the hidden layers ignored) whose module registry itself lies:
`_modules` is a dict whose iteration and items() show decoy hidden layers (registered in no
forward), while attribute lookup finds only the head. torch's own nn.Module.state_dict,
named_parameters and named_modules read that registry, so overriding no method is needed.
Honest baseline: what the same one-Linear model earns without the lie.
Expected: no point more than the honest baseline.
"""
from __future__ import annotations

from torch import Tensor, nn


class _Registry(dict):
    def __init__(self, real: dict, decoys: dict):
        super().__init__(real)
        self._decoys = decoys

    def items(self):
        return {**self._decoys, "head": dict.__getitem__(self, "head")}.items()

    def values(self):
        return [v for _, v in self.items()]

    def keys(self):
        return [k for k, _ in self.items()]

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self.keys())


class MLP(nn.Module):
    def __init__(self, in_features: int, hidden: list[int], out_features: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.head = nn.Linear(in_features, out_features)
        sizes = [in_features, *hidden]
        decoys = {"layers": nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])),
                  "dropout": nn.Dropout(dropout)}
        object.__setattr__(self, "_modules", _Registry(dict(self._modules), decoys))

    def forward(self, x: Tensor) -> Tensor:
        return self.head(x)
