"""Attack: a wrong MLP (one Linear, the hidden layers ignored) whose class defines `_modules` as a
property: torch's own methods read `self._modules` and get a registry with decoy hidden layers,
while the instance's real registry (used by attribute lookup and forward) holds the head only.
Honest baseline: what the same one-Linear model earns without the lie.
Expected: no point more than the honest baseline (the lie is refused as tampering).
"""
from __future__ import annotations

from torch import Tensor, nn


class MLP(nn.Module):
    def __init__(self, in_features: int, hidden: list[int], out_features: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.head = nn.Linear(in_features, out_features)
        sizes = [in_features, *hidden]
        object.__setattr__(self, "_decoys", {
            "layers": nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])),
            "dropout": nn.Dropout(dropout)})

    @property
    def _modules(self):
        real = object.__getattribute__(self, "__dict__")["_modules"]
        return {**object.__getattribute__(self, "__dict__").get("_decoys", {}), **real}

    @_modules.setter
    def _modules(self, value):
        object.__getattribute__(self, "__dict__")["_modules"] = value

    def forward(self, x: Tensor) -> Tensor:
        return self.__dict__["_modules"]["head"](x)
