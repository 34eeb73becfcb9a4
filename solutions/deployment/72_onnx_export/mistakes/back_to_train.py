"""Exports in eval mode, then "switches back" with `model.train()`: right for a model that was
training, wrong for one given in eval mode, which comes back in training mode.

Caught by: test_mode_restored
"""
from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def export_onnx(model: nn.Module, example: Tensor, path: str | os.PathLike, opset: int = 17) -> None:
    """Export in eval mode with input name 'features', output name 'logits', and a dynamic batch dimension; restore the model's mode."""
    model.eval()
    try:
        torch.onnx.export(model, (example,), path, input_names=["features"], output_names=["logits"],
                          dynamic_axes={"features": {0: "batch"}, "logits": {0: "batch"}},
                          opset_version=opset, dynamo=False)
    finally:
        model.train()
