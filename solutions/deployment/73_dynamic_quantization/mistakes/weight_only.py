"""Stores int8 weights but leaves the activations in float (weight-only quantization): the checkpoint
shrinks the same, but every Linear dequantizes its weight and multiplies in float; nothing is
quantized dynamically.

Caught by: test_int8_matmul
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
    quantize_(fp32, Int8WeightOnlyConfig())
    return fp32


def serialized_size_bytes(model: nn.Module) -> int:
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return buffer.getbuffer().nbytes
