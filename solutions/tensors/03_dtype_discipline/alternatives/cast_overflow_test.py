"""Alternative for 03_dtype_discipline: the fp16 test is "does the cast overflow", not a bound."""
from __future__ import annotations

import numpy as np
import torch
from torch import Tensor, nn

FP16_MAX = 65504.0  # torch.finfo(torch.float16).max


def prepare_classification_batch(features: np.ndarray, labels: np.ndarray) -> tuple[Tensor, Tensor]:
    """Return (float32 features, int64 labels) ready for a float32 model and nn.CrossEntropyLoss; non-integral labels raise ValueError."""
    features = np.asarray(features)
    labels = np.asarray(labels)
    if labels.dtype.kind == "f":
        if not np.all(np.isfinite(labels)) or not np.all(labels == np.round(labels)):
            raise ValueError("labels must be integral class indices; got non-integer values")
    elif labels.dtype.kind not in "iub":
        raise ValueError(f"labels must be integer class indices, got dtype {labels.dtype}")
    x = torch.tensor(features, dtype=torch.float32)
    y = torch.tensor(labels.astype(np.int64))
    return x, y


def pick_low_precision_dtype(x: Tensor) -> torch.dtype:
    """torch.float16 if every finite |x| <= 65504 (fp16 max), else torch.bfloat16."""
    # does casting overflow? (float16 rounds everything below 65520 to a finite value)
    finite = x[torch.isfinite(x)]
    return torch.bfloat16 if torch.isinf(finite.to(torch.float16)).any() else torch.float16


def match_model_dtype(x: Tensor, model: nn.Module) -> Tensor:
    """Cast a floating input to the dtype and device of the model's first parameter; integer inputs keep their dtype but move device."""
    param = next(model.parameters())
    if x.is_floating_point():
        return x.to(device=param.device, dtype=param.dtype)
    return x.to(device=param.device)
