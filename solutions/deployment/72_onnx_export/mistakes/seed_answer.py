"""Copies the classic answer: opset 11, generic names and no dynamic axis. The graph's tensors are
called `input`/`output`, its batch is fixed at the example's size, and the opset argument is ignored.

Caught by: test_graph_contract, test_dynamic_batch
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
    torch.onnx.export(model, example, path, opset_version=11, input_names=["input"], output_names=["output"],
                      dynamo=False)
