"""Names the tensors and passes the opset, but never declares the batch dimension dynamic: the
exporter writes the example's batch size into the graph, which then refuses any other batch.

Caught by: test_dynamic_batch
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
                          opset_version=opset, dynamo=False)
    finally:
        model.train(was_training)
