"""Uses the deprecated eager API, torch.ao.quantization.quantize_dynamic: it replaces every Linear by
another class (torch.ao.nn.quantized.dynamic.Linear) whose weights sit in packed parameters, so the
copy no longer has the original's module tree nor its state_dict keys.

Caught by: test_linears_quantized, test_size_ratio
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
    return torch.ao.quantization.quantize_dynamic(fp32, {nn.Linear}, dtype=torch.qint8)


def serialized_size_bytes(model: nn.Module) -> int:
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return buffer.getbuffer().nbytes
