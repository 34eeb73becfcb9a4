from __future__ import annotations

import os

import torch
from torch import Tensor, nn


def export_for_serving(model: nn.Module, example: Tensor, path: str | os.PathLike) -> torch.export.ExportedProgram:
    """Export `model` for serving, write the program to `path` and return it.

    The saved program runs without your code and the model's class, on any batch size, as the model does in eval mode."""
    flags = [(module, module.training) for module in model.modules()]  # every submodule's own flag
    if example.shape[0] < 2:
        # export specialises a dimension whose example size is 0 or 1: trace with two rows
        example = example.expand(2, *example.shape[1:])
    batch = torch.export.Dim("batch")
    model.eval()  # the program records the mode it was traced in, for good
    try:
        program = torch.export.export(model, (example,), dynamic_shapes=({0: batch},))
    finally:
        for module, training in flags:
            module.training = training
    torch.export.save(program, os.fspath(path))  # a self-contained .pt2 archive, no pickled classes
    return program
