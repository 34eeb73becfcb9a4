"""Quantizes the model it was given in place (`inplace=True`, after `.eval()`): the caller's fp32
model loses its nn.Linear layers and its training mode, and gets back the same object.

Caught by: test_original_untouched, test_original_not_moved
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
import io


def quantize_linear_layers(model: nn.Module) -> nn.Module:
    """A dynamically int8-quantized COPY on CPU in eval mode (qint8 weights for every nn.Linear); the original model is untouched."""
    model.eval()
    return torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8, inplace=True)


def serialized_size_bytes(model: nn.Module) -> int:
    """Byte size of torch.save(model.state_dict()) written to an in-memory buffer."""
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return buffer.getbuffer().nbytes
