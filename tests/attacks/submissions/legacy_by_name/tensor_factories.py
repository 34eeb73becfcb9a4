"""Attack: builds tensors with the forbidden legacy constructors under names the AST cannot read:
`torch.Tensor` through an alias made at run time (`getattr(torch, "Ten" + "sor")`) and the typed
`torch.LongTensor` / `torch.FloatTensor` kept from import in a dict keyed by dtype (01's AST check
looks for calls of `torch.Tensor` and references to `torch[.cuda].XxxTensor` through aliases).
Honest baseline: every value, dtype, shape and device is right (the legacy classes are used only
where they give the inferred dtype; torch.tensor elsewhere), so every check but the API check
passes.
Expected: test_no_legacy_constructors fails: `torch.Tensor(...)` is met when called (the class's
`__new__` is replaced for the probe), and the typed classes are held by the module (`_TYPED[...]`).
"""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

_BASE = getattr(torch, "Ten" + "sor")
_TYPED = {torch.int64: getattr(torch, "Long" + "Tensor"), torch.float32: getattr(torch, "Float" + "Tensor")}


def from_data(data: Any, dtype: torch.dtype | None = None, device: torch.device | str = "cpu") -> Tensor:
    inferred = torch.tensor(data, dtype=dtype, device="meta").dtype
    if torch.device(device).type == "cpu" and isinstance(data, list) and inferred in _TYPED:
        if inferred == torch.float32:
            return _BASE(data)                   # the default float32 class
        return _TYPED[inferred](data)
    return torch.tensor(data, dtype=dtype, device=device)


def standard_tensors(n: int, device: torch.device | str = "cpu") -> dict[str, Tensor]:
    return {"zeros": torch.zeros(n, n, dtype=torch.float32, device=device),
            "eye": torch.eye(n, dtype=torch.float32, device=device),
            "arange": torch.arange(n, dtype=torch.int64, device=device),
            "linspace": torch.linspace(0, 1, n, dtype=torch.float32, device=device),
            "randn": torch.randn(n, dtype=torch.float32, device=device)}
