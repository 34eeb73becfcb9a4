"""Gets the dynamic batch, the opset and the mode right, but keeps the tutorial's tensor names
`input` and `output`: serving code that feeds `features` and reads `logits` finds neither.

Caught by: test_graph_contract
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
        torch.onnx.export(model, (example,), path, input_names=["input"], output_names=["output"],
                          dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}},
                          opset_version=opset, dynamo=False)
    finally:
        model.train(was_training)
