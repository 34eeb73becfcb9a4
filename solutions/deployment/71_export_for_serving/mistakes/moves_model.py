"""Moves the model onto the example's device "to be safe": .to() works in place on a module, so a
model the caller keeps elsewhere is moved behind its back (on the CPU the move changes no value).

Caught by: test_model_not_moved
"""
from __future__ import annotations

import os

import torch
from torch import Tensor, nn


def export_for_serving(model: nn.Module, example: Tensor, path: str | os.PathLike) -> torch.export.ExportedProgram:
    flags = [(module, module.training) for module in model.modules()]
    model.to(example.device)
    if example.shape[0] < 2:
        example = example.expand(2, *example.shape[1:])
    model.eval()
    try:
        program = torch.export.export(model, (example,), dynamic_shapes=({0: torch.export.Dim("batch")},))
    finally:
        for module, training in flags:
            module.training = training
    torch.export.save(program, os.fspath(path))
    return program
