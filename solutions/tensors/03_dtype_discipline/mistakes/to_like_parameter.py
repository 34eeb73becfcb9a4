"""Uses `x.to(next(model.parameters()))`, which copies the parameter's dtype *and* device onto
every input: int64 token ids become floats, which nn.Embedding rejects.

Caught by: test_match_model_dtype, test_match_model_device_meta
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
    return x.to(next(model.parameters()))
