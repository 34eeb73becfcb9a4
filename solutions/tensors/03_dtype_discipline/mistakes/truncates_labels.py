"""Casts labels with `.long()` without looking at them: 1.5 silently becomes class 1 instead of
raising ValueError, hiding a corrupted label column.

Caught by: test_non_integral_labels_raise
"""
from __future__ import annotations

import torch


def prepare_classification_batch(features, labels):
    return torch.from_numpy(features).float(), torch.from_numpy(labels).long()


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
