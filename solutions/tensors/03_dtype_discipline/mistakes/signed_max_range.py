"""Tests the range with `x.max() <= 65504`: large *negative* values are missed (-7e4 picks float16
and overflows to -inf), and one inf or NaN anywhere pushes the choice to bfloat16 although the
finite values fit float16.

Caught by: test_pick_low_precision_edges
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
    return torch.float16 if x.max() <= 65504 else torch.bfloat16


def match_model_dtype(x, model):
    param = next(model.parameters())
    if x.is_floating_point():
        return x.to(device=param.device, dtype=param.dtype)
    return x.to(device=param.device)
