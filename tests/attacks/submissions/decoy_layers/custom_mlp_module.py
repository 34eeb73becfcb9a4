"""Attack: a wrong MLP that lies about its structure. Its forward ignores the hidden layers (one
Linear from the input straight to the output), and every method a check might ask about the
model's layers (state_dict, named_parameters, parameters, named_modules, modules,
named_children, children, load_state_dict) is overridden to show decoy hidden layers that are
never used.
Honest baseline: what the same one-Linear model earns without the decoys.
Expected: the checks read torch's own registries and the real forward: no point more than the
honest baseline, no flag needed.
"""
from __future__ import annotations

from torch import Tensor, nn


class MLP(nn.Module):
    def __init__(self, in_features: int, hidden: list[int], out_features: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.head = nn.Linear(in_features, out_features)
        sizes = [in_features, *hidden]
        decoy = nn.Module()
        decoy.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        decoy.dropout = nn.Dropout(dropout)
        decoy.head = nn.Linear(sizes[-1], out_features)
        object.__setattr__(self, "_decoy", decoy)  # not registered: never trained, never moved

    def forward(self, x: Tensor) -> Tensor:
        return self.head(x)

    def state_dict(self, *args, **kwargs):
        return self._decoy.state_dict(*args, **kwargs)

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        return self._decoy.load_state_dict(state_dict, strict=strict, assign=assign)

    def named_parameters(self, *args, **kwargs):
        return self._decoy.named_parameters(*args, **kwargs)

    def parameters(self, recurse: bool = True):
        return self._decoy.parameters(recurse)

    def named_modules(self, *args, **kwargs):
        return self._decoy.named_modules(*args, **kwargs)

    def modules(self):
        return self._decoy.modules()

    def named_children(self):
        return self._decoy.named_children()

    def children(self):
        return self._decoy.children()

    def __getattr__(self, name: str):
        if name in ("layers", "dropout"):
            return getattr(object.__getattribute__(self, "_decoy"), name)
        return super().__getattr__(name)
