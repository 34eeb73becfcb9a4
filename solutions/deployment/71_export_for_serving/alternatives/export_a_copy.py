"""Alternative: exports an eval-mode deep copy, so the original's flags are never touched; the
batch dimension as Dim.DYNAMIC, a one-row example doubled with torch.cat; the path as given.
"""
from __future__ import annotations

import os

import torch
from torch import Tensor, nn


def export_for_serving(model: nn.Module, example: Tensor, path: str | os.PathLike) -> torch.export.ExportedProgram:
    import copy

    served = copy.deepcopy(model).eval()
    if example.shape[0] == 1:
        example = torch.cat([example, example])
    program = torch.export.export(served, (example,), dynamic_shapes=[{0: torch.export.Dim.DYNAMIC}])
    torch.export.save(program, path)
    return program
