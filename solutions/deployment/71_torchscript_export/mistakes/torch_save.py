"""Freezes the scripted model correctly but writes the file with torch.save of the eager model:
a pickle that needs the model's class to load, not a TorchScript archive, so torch.jit.load
fails in a process that never imported the code.

Caught by: test_archive_format, test_branch_survives_export, test_artifact_in_eval_mode
"""
from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def export_torchscript(model: nn.Module, example: Tensor, path: str | os.PathLike) -> torch.jit.ScriptModule:
    """Export in eval mode: torch.jit.script (fall back to torch.jit.trace only if scripting fails), then torch.jit.freeze (optimize_for_inference also accepted; the test models use only Linear/BatchNorm1d/Dropout, since a saved optimize_for_inference artifact of a Conv model fails to reload on CPU in torch 2.13), torch.jit.save to path; restore the model's mode; return the exported module."""
    was_training = model.training
    model.eval()
    try:
        scripted = torch.jit.script(model)
    except Exception:
        with torch.no_grad():
            scripted = torch.jit.trace(model, example)
    frozen = torch.jit.freeze(scripted)
    torch.save(model, path)
    model.train(was_training)
    return frozen
