"""The default (dynamo) exporter, as most answers will call it: `dynamic_axes` keyed by the ONNX
names (the exporter turns them into `dynamic_shapes`), the weights written next to the graph as
external data (`<path>.data`, the exporter's default), the mode put back in a `finally`.
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
    was_training = model.training
    model.eval()
    try:
        torch.onnx.export(model, (example,), path, input_names=["features"], output_names=["logits"],
                          dynamic_axes={"features": {0: "batch"}, "logits": {0: "batch"}}, opset_version=opset)
    finally:
        model.train(was_training)
