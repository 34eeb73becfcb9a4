"""Takes the checkpoint size to be the parameters' bytes (numel x element size): it ignores buffers,
the pickled structure and the zip container.

Caught by: test_serialized_size_value, test_size_without_files
"""
from __future__ import annotations

import copy
import io
import os

import torch
from torch import nn
from torchao.quantization import Int8DynamicActivationInt8WeightConfig, Int8WeightOnlyConfig, quantize_


def quantize_linear_layers(model: nn.Module) -> nn.Module:
    fp32 = copy.deepcopy(model).cpu().eval()
    quantize_(fp32, Int8DynamicActivationInt8WeightConfig())
    return fp32


def serialized_size_bytes(model: nn.Module) -> int:
    return sum(p.numel() * p.element_size() for p in model.parameters())
