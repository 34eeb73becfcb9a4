"""Calls .eval() on the original before copying it: the copy is right, but the caller's model is
left in eval mode, its Dropout and BatchNorm silently switched off for training.

Caught by: test_original_untouched
"""
from __future__ import annotations

import copy
import io
import os

import torch
from torch import nn
from torchao.quantization import Int8DynamicActivationInt8WeightConfig, Int8WeightOnlyConfig, quantize_


def quantize_linear_layers(model: nn.Module) -> nn.Module:
    model.eval()
    fp32 = copy.deepcopy(model).cpu()
    quantize_(fp32, Int8DynamicActivationInt8WeightConfig())
    return fp32


def serialized_size_bytes(model: nn.Module) -> int:
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return buffer.getbuffer().nbytes
