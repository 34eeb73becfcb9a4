"""Alternative: quantizes each nn.Linear of an eval-mode CPU copy on its own (quantize_ on the
layer itself); size as the length of the buffer's bytes.
"""
from __future__ import annotations

import copy
import io
import os

import torch
from torch import nn
from torchao.quantization import Int8DynamicActivationInt8WeightConfig, Int8WeightOnlyConfig, quantize_


def quantize_linear_layers(model: nn.Module) -> nn.Module:
    fresh = copy.deepcopy(model)
    fresh.eval()
    fresh.cpu()
    for layer in [m for m in fresh.modules() if isinstance(m, nn.Linear)]:
        quantize_(layer, Int8DynamicActivationInt8WeightConfig())
    return fresh


def serialized_size_bytes(model: nn.Module) -> int:
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return len(buffer.getvalue())
