"""Writes the program with torch.save (a pickle) instead of the export archive: torch.export.load
cannot read it, and unpickling it needs the classes and code of the process that wrote it.

Caught by: test_program_archive, test_matches_eager_eval
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
    torch.save(program, os.fspath(path))
    return program
