"""A correct alternative: convert with from_numpy first and do every check on tensors."""
from __future__ import annotations

import numpy as np
import torch
from torch import Tensor, nn


def prepare_classification_batch(features: np.ndarray, labels: np.ndarray) -> tuple[Tensor, Tensor]:
    """Return (float32 features, int64 labels) ready for a float32 model and nn.CrossEntropyLoss; non-integral labels raise ValueError."""
    x = torch.from_numpy(np.ascontiguousarray(features)).float()
    y = torch.from_numpy(np.ascontiguousarray(labels))
    if y.is_floating_point():
        if not torch.equal(y, torch.round(y)):  # NaN != NaN, so NaN labels raise too
            raise ValueError("class labels must be whole numbers")
    return x, y.long()


def pick_low_precision_dtype(x: Tensor) -> torch.dtype:
    """torch.float16 if every finite |x| <= 65504 (fp16 max), else torch.bfloat16."""
    magnitudes = torch.nan_to_num(x.abs(), nan=0.0, posinf=0.0)
    if magnitudes.numel() and magnitudes.max() > torch.finfo(torch.float16).max:
        return torch.bfloat16
    return torch.float16


def match_model_dtype(x: Tensor, model: nn.Module) -> Tensor:
    """Cast a floating input to the dtype and device of the model's first parameter; integer inputs keep their dtype but move device."""
    p = next(model.parameters())
    return x.to(p.device, p.dtype) if torch.is_floating_point(x) else x.to(p.device)
