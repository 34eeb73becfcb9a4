"""Marks the batch dimension dynamic but exports with the example as given: for a one-row example
torch.export specialises the batch size to 1 and refuses the dynamic dimension (0/1 specialisation).

Caught by: test_single_row_example
"""
from __future__ import annotations

import os

import torch
from torch import Tensor, nn


def export_for_serving(model: nn.Module, example: Tensor, path: str | os.PathLike) -> torch.export.ExportedProgram:
    flags = [(module, module.training) for module in model.modules()]
    model.eval()
    try:
        program = torch.export.export(model, (example,), dynamic_shapes=({0: torch.export.Dim("batch")},))
    finally:
        for module, training in flags:
            module.training = training
    torch.export.save(program, os.fspath(path))
    return program
