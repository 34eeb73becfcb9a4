"""Alternative: one scale per weight tensor (PerTensor granularity), an explicit Linear filter,
the copy put in eval mode with train(False) and moved with to("cpu"); size read from the buffer
position after saving.
"""
from __future__ import annotations

import copy
import io
import os

import torch
from torch import nn
from torchao.quantization import Int8DynamicActivationInt8WeightConfig, Int8WeightOnlyConfig, quantize_


def quantize_linear_layers(model: nn.Module) -> nn.Module:
    from torchao.quantization.granularity import PerTensor

    fresh = copy.deepcopy(model).to("cpu")
    fresh.train(False)
    quantize_(fresh, Int8DynamicActivationInt8WeightConfig(granularity=PerTensor()),
              filter_fn=lambda module, fqn: isinstance(module, nn.Linear))
    return fresh


def serialized_size_bytes(model: nn.Module) -> int:
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return buffer.tell()
