"""Casts the dtype with `x.to(param.dtype)` but never moves the input, so a model on another
device (CUDA, or meta here) gets a CPU input and fails with a device mismatch.

Caught by: test_match_model_device_meta, test_match_model_device_cuda
"""
from __future__ import annotations

import numpy as np
import torch


def prepare_classification_batch(features, labels):
    labels = np.asarray(labels)
    if labels.dtype.kind == "f" and not np.all(labels == np.round(labels)):
        raise ValueError("labels must be integral")
    return torch.tensor(features, dtype=torch.float32), torch.tensor(labels, dtype=torch.int64)


def pick_low_precision_dtype(x):
    finite = x[torch.isfinite(x)]
    if finite.numel() == 0 or finite.abs().max() <= 65504:
        return torch.float16
    return torch.bfloat16


def match_model_dtype(x, model):
    param = next(model.parameters())
    return x.to(param.dtype) if x.is_floating_point() else x
