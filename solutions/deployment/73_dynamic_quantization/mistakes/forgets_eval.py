"""Quantizes a copy but never puts it in eval mode (quantize_ does not): a model given in training
mode keeps Dropout active, so the served outputs are noisy and differ from call to call.

Caught by: test_eval_mode, test_outputs_close
"""
from __future__ import annotations

import copy
import io
import os

import torch
from torch import nn
from torchao.quantization import Int8DynamicActivationInt8WeightConfig, Int8WeightOnlyConfig, quantize_


def quantize_linear_layers(model: nn.Module) -> nn.Module:
    fp32 = copy.deepcopy(model).cpu()
    quantize_(fp32, Int8DynamicActivationInt8WeightConfig())
    return fp32


def serialized_size_bytes(model: nn.Module) -> int:
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return buffer.getbuffer().nbytes
