"""Saves the program but returns program.module(), a GraphModule, instead of the ExportedProgram the
contract asks for (the program carries the signature and the range of the batch dimension).

Caught by: test_program_archive, test_mode_restored
"""
from __future__ import annotations

import os

import torch
from torch import Tensor, nn


def export_for_serving(model: nn.Module, example: Tensor, path: str | os.PathLike) -> torch.export.ExportedProgram:
    flags = [(module, module.training) for module in model.modules()]
    if example.shape[0] < 2:
        example = example.expand(2, *example.shape[1:])
    model.eval()
    try:
        program = torch.export.export(model, (example,), dynamic_shapes=({0: torch.export.Dim("batch")},))
    finally:
        for module, training in flags:
            module.training = training
    torch.export.save(program, os.fspath(path))
    return program.module()
