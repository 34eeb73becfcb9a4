"""A correct alternative: validate and cast in NumPy, then hand the arrays to torch."""
from __future__ import annotations

import numpy as np
import torch
from torch import Tensor, nn


def prepare_classification_batch(features: np.ndarray, labels: np.ndarray) -> tuple[Tensor, Tensor]:
    """Return (float32 features, int64 labels) ready for a float32 model and nn.CrossEntropyLoss; non-integral labels raise ValueError."""
    labels = np.asarray(labels)
    if np.issubdtype(labels.dtype, np.floating) and not np.array_equal(labels, np.floor(labels)):
        raise ValueError(f"labels must be integral, got {labels!r}")
    features = np.asarray(features, dtype=np.float32)
    return torch.as_tensor(features), torch.as_tensor(labels.astype(np.int64))


def pick_low_precision_dtype(x: Tensor) -> torch.dtype:
    """torch.float16 if every finite |x| <= 65504 (fp16 max), else torch.bfloat16."""
    finite = x[x.isfinite()]
    fits = bool((finite.abs() <= 65504).all())
    return torch.float16 if fits else torch.bfloat16


def match_model_dtype(x: Tensor, model: nn.Module) -> Tensor:
    """Cast a floating input to the dtype and device of the model's first parameter; integer inputs keep their dtype but move device."""
    param = next(iter(model.parameters()))
    if x.dtype.is_floating_point:
        x = x.type(param.dtype)
    return x.to(param.device)
