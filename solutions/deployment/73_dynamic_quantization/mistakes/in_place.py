"""Quantizes the model it was given: torchao's quantize_ works in place (its trailing underscore),
so the caller's fp32 model loses its float weights and its training mode, and gets back the same
object.

Caught by: test_original_untouched, test_original_not_moved
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
    quantize_(model, Int8DynamicActivationInt8WeightConfig())
    return model


def serialized_size_bytes(model: nn.Module) -> int:
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return buffer.getbuffer().nbytes
