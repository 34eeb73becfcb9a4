"""Alternative: walks the copy recursively and swaps each nn.Linear for
`torch.ao.nn.quantized.dynamic.Linear.from_float` (default dynamic qconfig: per-tensor qint8)."""
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


def _swap(module: nn.Module) -> None:
    for name, child in list(module.named_children()):
        if isinstance(child, nn.Linear):
            child.qconfig = torch.ao.quantization.default_dynamic_qconfig  # per-tensor qint8 weights
            setattr(module, name, torch.ao.nn.quantized.dynamic.Linear.from_float(child))
        else:
            _swap(child)


def quantize_linear_layers(model: nn.Module) -> nn.Module:
    """A dynamically int8-quantized COPY on CPU in eval mode (qint8 weights for every nn.Linear); the original model is untouched."""
    fresh = copy.deepcopy(model)
    fresh.to("cpu")
    fresh.train(False)
    _swap(fresh)
    return fresh


def serialized_size_bytes(model: nn.Module) -> int:
    """Byte size of torch.save(model.state_dict()) written to an in-memory buffer."""
    with io.BytesIO() as buffer:
        torch.save(model.state_dict(), buffer)
        return len(buffer.getvalue())
