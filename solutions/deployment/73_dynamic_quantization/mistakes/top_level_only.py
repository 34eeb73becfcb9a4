"""Replaces the nn.Linear children of the top module by hand and never recurses: a Linear inside
a nested Sequential stays fp32.

Caught by: test_linears_replaced
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
    fp32 = copy.deepcopy(model).cpu().eval()
    for name, child in list(fp32.named_children()):
        if type(child) is nn.Linear:
            child.qconfig = torch.ao.quantization.default_dynamic_qconfig
            setattr(fp32, name, torch.ao.nn.quantized.dynamic.Linear.from_float(child))
    return fp32


def serialized_size_bytes(model: nn.Module) -> int:
    """Byte size of torch.save(model.state_dict()) written to an in-memory buffer."""
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return buffer.getbuffer().nbytes
