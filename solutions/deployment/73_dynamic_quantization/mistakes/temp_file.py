"""Measures the size by saving to a file in the working directory and deleting it: the right
number, but it writes to disk (a read-only or shared folder, a race with another process).

Caught by: test_size_without_files
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
    return torch.ao.quantization.quantize_dynamic(fp32, {nn.Linear}, dtype=torch.qint8)

def serialized_size_bytes(model: nn.Module) -> int:
    """Byte size of torch.save(model.state_dict()) written to an in-memory buffer."""
    torch.save(model.state_dict(), "size_probe.pt")
    size = os.path.getsize("size_probe.pt")
    os.remove("size_probe.pt")
    return size
