"""Switches the model to eval mode for the export and leaves it there: the caller's model, still
being trained, has lost its Dropout and its BatchNorm updates.

Caught by: test_mode_restored
"""
from __future__ import annotations

import os

import torch
from torch import Tensor, nn


def export_for_serving(model: nn.Module, example: Tensor, path: str | os.PathLike) -> torch.export.ExportedProgram:
    if example.shape[0] < 2:
        example = example.expand(2, *example.shape[1:])
    model.eval()
    program = torch.export.export(model, (example,), dynamic_shapes=({0: torch.export.Dim("batch")},))
    torch.export.save(program, os.fspath(path))
    return program
