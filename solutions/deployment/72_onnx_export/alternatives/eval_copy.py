"""Exports an eval-mode deep copy, so the caller's model is never switched at all, with the
TorchScript exporter told explicitly to record eval mode.
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
import copy


def export_onnx(model: nn.Module, example: Tensor, path: str | os.PathLike, opset: int = 17) -> None:
    """Export in eval mode with input name 'features', output name 'logits', and a dynamic batch dimension; restore the model's mode."""
    frozen = copy.deepcopy(model).eval()
    torch.onnx.export(frozen, example, os.fspath(path), input_names=["features"], output_names=["logits"],
                      dynamic_axes={"features": {0: "n"}}, opset_version=opset,
                      training=torch.onnx.TrainingMode.EVAL, dynamo=False)
