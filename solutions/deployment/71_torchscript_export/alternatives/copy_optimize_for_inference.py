"""Alternative: exports an eval-mode deep copy (the caller's model is never touched, so there is
nothing to restore), with torch.jit.optimize_for_inference instead of freeze, saved through the
ScriptModule's own .save."""
from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler
import copy


def export_torchscript(model: nn.Module, example: Tensor, path: str | os.PathLike) -> torch.jit.ScriptModule:
    """Export in eval mode: torch.jit.script (fall back to torch.jit.trace only if scripting fails), then torch.jit.freeze (optimize_for_inference also accepted; the test models use only Linear/BatchNorm1d/Dropout, since a saved optimize_for_inference artifact of a Conv model fails to reload on CPU in torch 2.13), torch.jit.save to path; restore the model's mode; return the exported module."""
    frozen_copy = copy.deepcopy(model).eval()
    try:
        scripted = torch.jit.script(frozen_copy)
    except Exception:
        with torch.no_grad():
            scripted = torch.jit.trace(frozen_copy, example, check_trace=False)
    exported = torch.jit.optimize_for_inference(scripted)
    exported.save(str(path))
    return exported
