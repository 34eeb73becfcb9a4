from __future__ import annotations

import numpy as np
import torch
from torch import Tensor, nn


def prepare_classification_batch(features: np.ndarray, labels: np.ndarray) -> tuple[Tensor, Tensor]:
    """Return (features, labels) as tensors ready for a default-dtype classifier and nn.CrossEntropyLoss. Float labels that are not whole numbers raise ValueError."""
    raise NotImplementedError


def pick_low_precision_dtype(x: Tensor) -> torch.dtype:
    """Return torch.float16 when every finite value of x fits float16's range, and torch.bfloat16 otherwise."""
    raise NotImplementedError


def match_model_dtype(x: Tensor, model: nn.Module) -> Tensor:
    """Return x on the device of the model's first parameter, in that parameter's dtype when x is floating point. Integer inputs keep their dtype."""
    raise NotImplementedError
