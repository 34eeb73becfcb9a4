"""Quantizes only the Linears that are direct children of the model (a filter on the module's
qualified name): a Linear inside a nested Sequential stays fp32.

Caught by: test_linears_quantized, test_int8_matmul
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
    quantize_(fp32, Int8DynamicActivationInt8WeightConfig(),
              filter_fn=lambda module, fqn: isinstance(module, nn.Linear) and "." not in fqn)
    return fp32


def serialized_size_bytes(model: nn.Module) -> int:
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return buffer.getbuffer().nbytes
