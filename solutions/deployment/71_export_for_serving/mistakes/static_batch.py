"""Exports without saying which dimension is dynamic: torch.export specialises every size to the
example's, and the program refuses any other batch size ("Guard failed: input.size()[0] == 4").

Caught by: test_dynamic_batch, test_single_row_example
"""
from __future__ import annotations

import os

import torch
from torch import Tensor, nn


def export_for_serving(model: nn.Module, example: Tensor, path: str | os.PathLike) -> torch.export.ExportedProgram:
    flags = [(module, module.training) for module in model.modules()]
    model.eval()
    try:
        program = torch.export.export(model, (example,))
    finally:
        for module, training in flags:
            module.training = training
    torch.export.save(program, os.fspath(path))
    return program
