"""Asks the TorchScript exporter to "preserve" the model's mode, thinking that keeps the caller's mode
intact: a model given in training mode is recorded in training mode, with Dropout active and
BatchNorm normalising by the statistics of each batch.

Caught by: test_runtime_parity
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
    torch.onnx.export(model, (example,), path, input_names=["features"], output_names=["logits"],
                      dynamic_axes={"features": {0: "batch"}, "logits": {0: "batch"}},
                      opset_version=opset, training=torch.onnx.TrainingMode.PRESERVE, dynamo=False)
