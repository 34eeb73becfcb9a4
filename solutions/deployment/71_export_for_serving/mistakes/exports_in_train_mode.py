"""Exports the model in the mode it was given: a train-mode model becomes a program with Dropout
active and BatchNorm on batch statistics, and an exported program cannot be switched to eval mode
afterwards (its module's eval() raises).

Caught by: test_artifact_in_eval_mode, test_dynamic_batch
"""
from __future__ import annotations

import os

import torch
from torch import Tensor, nn


def export_for_serving(model: nn.Module, example: Tensor, path: str | os.PathLike) -> torch.export.ExportedProgram:
    if example.shape[0] < 2:
        example = example.expand(2, *example.shape[1:])
    program = torch.export.export(model, (example,), dynamic_shapes=({0: torch.export.Dim("batch")},))
    torch.export.save(program, os.fspath(path))
    return program
