"""Scripts the model as it is (training mode) and saves it without freezing: the artifact keeps
Dropout active and BatchNorm on batch statistics (a batch of 1 fails), and keeps parameters.

Caught by: test_artifact_in_eval_mode, test_frozen, test_batch_sizes
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
    try:
        scripted = torch.jit.script(model)
    except Exception:
        with torch.no_grad():
            scripted = torch.jit.trace(model, example)
    torch.jit.save(scripted, path)
    return scripted
