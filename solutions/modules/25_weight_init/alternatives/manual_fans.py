"""Walks model.modules() and fills tensors in place with Tensor.uniform_/normal_ under no_grad,
computing fan_in/fan_out by hand; the padding row is saved and put back after the draw."""
from __future__ import annotations

import math

import torch


def init_weights_(model, scheme):
    with torch.no_grad():
        for m in model.modules():
            kind = type(m).__name__
            if kind in ("Linear", "Conv1d", "Conv2d", "Conv3d"):
                w = m.weight
                receptive = 1
                for size in w.shape[2:]:
                    receptive *= size
                fan_in, fan_out = w.shape[1] * receptive, w.shape[0] * receptive
                if scheme == "xavier":
                    a = math.sqrt(6.0 / (fan_in + fan_out))
                    w.uniform_(-a, a)
                elif scheme == "kaiming":
                    w.normal_(0.0, math.sqrt(2.0 / fan_in))
                elif scheme == "gpt2":
                    w.normal_(0.0, 0.02)
                if m.bias is not None:
                    m.bias.fill_(0.0)
            elif kind == "Embedding":
                pad = m.padding_idx
                saved = None if pad is None else m.weight[pad].clone()
                m.weight.normal_(0.0, 0.02)
                if saved is not None:
                    m.weight[pad] = saved
            elif kind in ("LayerNorm", "GroupNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d"):
                if m.weight is not None:
                    m.weight.fill_(1.0)
                if m.bias is not None:
                    m.bias.fill_(0.0)
    return model


def default_linear_bound(fan_in):
    return fan_in ** -0.5
