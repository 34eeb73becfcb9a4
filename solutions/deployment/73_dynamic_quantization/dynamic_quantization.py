from __future__ import annotations

import copy
import io

import torch
from torch import nn
from torchao.quantization import Int8DynamicActivationInt8WeightConfig, quantize_


def quantize_linear_layers(model: nn.Module) -> nn.Module:
    """Return a copy of `model` for CPU inference whose Linear layers run with dynamic int8 quantization.

    The model passed in is left exactly as it was."""
    fp32 = copy.deepcopy(model).cpu().eval()  # the copy moves and changes mode, never the original
    quantize_(fp32, Int8DynamicActivationInt8WeightConfig())  # quantize_ works in place: on the copy
    return fp32


def serialized_size_bytes(model: nn.Module) -> int:
    """Return the number of bytes a checkpoint of `model`'s state dict takes, without writing any file."""
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return buffer.getbuffer().nbytes
