"""Remembers only model.training and puts it back with model.train(flag), which sets every
submodule to that flag: a train-mode model with a frozen (eval) BatchNorm comes back all train.

Caught by: test_mode_restored
"""
from __future__ import annotations

import os

import torch
from torch import Tensor, nn


def export_for_serving(model: nn.Module, example: Tensor, path: str | os.PathLike) -> torch.export.ExportedProgram:
    was_training = model.training
    if example.shape[0] < 2:
        example = example.expand(2, *example.shape[1:])
    model.eval()
    try:
        program = torch.export.export(model, (example,), dynamic_shapes=({0: torch.export.Dim("batch")},))
    finally:
        model.train(was_training)
    torch.export.save(program, os.fspath(path))
    return program
