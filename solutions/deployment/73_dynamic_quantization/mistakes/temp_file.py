"""Measures the size by saving to a file in the working directory and deleting it: the right
number, but it writes to disk (a read-only or shared folder, a race with another process).

Caught by: test_size_without_files
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
    torch.save(model.state_dict(), "size_probe.pt")
    size = os.path.getsize("size_probe.pt")
    os.remove("size_probe.pt")
    return size
