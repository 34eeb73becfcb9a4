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
    model.eval()  # Dropout off, BatchNorm on its running statistics: the graph a server should run
    try:
        # The TorchScript-based exporter: about 0.05 s for a small model where the dynamo exporter
        # (the default, alternatives/default_exporter.py) takes about 1.5 s in a fresh process.
        torch.onnx.export(model, (example,), path, input_names=["features"], output_names=["logits"],
                          dynamic_axes={"features": {0: "batch"}, "logits": {0: "batch"}},
                          opset_version=opset, dynamo=False)
    finally:
        model.train(was_training)
