"""Moves the original to the CPU before copying it (model.cpu() works in place): a CUDA model the
caller still serves from is pulled off the GPU.

Caught by: test_original_not_moved
"""
from __future__ import annotations

import copy
import io
import os

import torch
from torch import nn
from torchao.quantization import Int8DynamicActivationInt8WeightConfig, Int8WeightOnlyConfig, quantize_


def quantize_linear_layers(model: nn.Module) -> nn.Module:
    fp32 = copy.deepcopy(model.cpu()).eval()
    quantize_(fp32, Int8DynamicActivationInt8WeightConfig())
    return fp32


def serialized_size_bytes(model: nn.Module) -> int:
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return buffer.getbuffer().nbytes
