"""Asks quantize_dynamic for float16 instead of qint8: the Linears are replaced by the same dynamic
class, but the weights are half precision and the checkpoint only halves.

Caught by: test_linears_replaced, test_size_ratio
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
    return torch.ao.quantization.quantize_dynamic(copy.deepcopy(model).cpu().eval(), {nn.Linear}, dtype=torch.float16)


def serialized_size_bytes(model: nn.Module) -> int:
    """Byte size of torch.save(model.state_dict()) written to an in-memory buffer."""
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return buffer.getbuffer().nbytes
