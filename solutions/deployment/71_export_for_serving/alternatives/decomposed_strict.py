"""Alternative: strict (TorchDynamo) export with a named Dim of minimum 1, decomposed to the core
ATen opset before saving; each submodule's flag put back through train() in pre-order.
"""
from __future__ import annotations

import os

import torch
from torch import Tensor, nn


def export_for_serving(model: nn.Module, example: Tensor, path: str | os.PathLike) -> torch.export.ExportedProgram:
    flags = dict(model.named_modules())
    modes = {name: module.training for name, module in flags.items()}
    rows = example if example.shape[0] > 1 else example.repeat(2, *([1] * (example.dim() - 1)))
    model.eval()
    try:
        program = torch.export.export(model, (rows,), dynamic_shapes=({0: torch.export.Dim("n", min=1)},),
                                      strict=True).run_decompositions()
    finally:
        for name, module in flags.items():  # parents before children: a child's own flag wins
            module.train(modes[name])
    with open(path, "wb") as f:
        torch.export.save(program, f)
    return program
