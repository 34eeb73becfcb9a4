"""Never puts the model in eval mode, relying on optimize_for_inference (which calls .eval() on the
scripted copy): right on the script path, but the trace fallback runs the model in training
mode, so the trace records active Dropout and batch statistics, and moves the original
BatchNorm running statistics while tracing.

Caught by: test_trace_fallback, test_original_untouched
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
        scripted = torch.jit.trace(model, example)
    exported = torch.jit.optimize_for_inference(scripted)
    torch.jit.save(exported, path)
    return exported
