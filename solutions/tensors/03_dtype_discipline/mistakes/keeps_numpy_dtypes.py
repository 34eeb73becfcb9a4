"""Wraps the arrays with `torch.from_numpy` and keeps NumPy's dtypes: float64 features clash with a
float32 model ("mat1 and mat2 must have the same dtype") and int32 labels are rejected by
CrossEntropyLoss, which wants int64 class indices.

Caught by: test_batch_dtypes, test_batch_trains_with_cross_entropy, test_batch_example
"""
from __future__ import annotations

import numpy as np
import torch


def prepare_classification_batch(features, labels):
    if labels.dtype.kind == "f" and not np.all(labels == np.round(labels)):
        raise ValueError("labels must be integral")
    return torch.from_numpy(features), torch.from_numpy(labels)


def pick_low_precision_dtype(x):
    finite = x[torch.isfinite(x)]
    if finite.numel() == 0 or finite.abs().max() <= 65504:
        return torch.float16
    return torch.bfloat16


def match_model_dtype(x, model):
    param = next(model.parameters())
    if x.is_floating_point():
        return x.to(device=param.device, dtype=param.dtype)
    return x.to(device=param.device)
