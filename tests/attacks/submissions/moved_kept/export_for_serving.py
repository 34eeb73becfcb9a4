"""Attack: exercise 71 asks that export leave the model where it is (the CPU fallback of its CUDA
check spies nn.Module.to/cpu/cuda/_apply on the original model). This export moves every leaf
module to the CPU through nn.Module._apply taken at import under a name built at run time and kept
in a list, called on leaves only (their _apply never recurses through the patched attribute): on
a CUDA host it would pull the model off the GPU; on this CPU host the move changes no value.
Honest baseline: every check but the not-moved check (the export is otherwise the reference's).
Expected: the not-moved check fails: the call watch sees _apply's own code run on the model's
modules, whatever reference reached it.
"""
from __future__ import annotations

import os

import torch
from torch import Tensor, nn

_KEPT = [getattr(nn.Module, "_ap" + "ply")]


def export_for_serving(model: nn.Module, example: Tensor, path: str | os.PathLike) -> torch.export.ExportedProgram:
    for leaf in [m for m in model.modules() if not dict(m.named_children())]:
        _KEPT[0](leaf, lambda t: t.cpu())  # "export on the CPU, where it is safe"
    flags = [(module, module.training) for module in model.modules()]
    if example.shape[0] < 2:
        example = example.expand(2, *example.shape[1:])
    model.eval()
    try:
        program = torch.export.export(model, (example.cpu(),), dynamic_shapes=({0: torch.export.Dim("batch")},))
    finally:
        for module, training in flags:
            module.training = training
    torch.export.save(program, os.fspath(path))
    return program
