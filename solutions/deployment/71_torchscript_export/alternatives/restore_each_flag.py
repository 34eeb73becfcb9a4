"""Alternative: a context manager that records every submodule's training flag and puts each
back, scripting errors caught by type before tracing, and the archive written to an open file."""
from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler
import contextlib


@contextlib.contextmanager
def _inference_mode_of(model: nn.Module) -> Iterator[nn.Module]:
    flags = [(module, module.training) for module in model.modules()]
    model.eval()
    try:
        yield model
    finally:
        for module, flag in flags:
            module.training = flag


def _to_torchscript(model: nn.Module, example: Tensor) -> torch.jit.ScriptModule:
    try:
        return torch.jit.script(model)
    except (RuntimeError, torch.jit.frontend.NotSupportedError, TypeError):
        with torch.inference_mode(False), torch.no_grad():
            return torch.jit.trace(model, (example,))


def export_torchscript(model: nn.Module, example: Tensor, path: str | os.PathLike) -> torch.jit.ScriptModule:
    """Export in eval mode: torch.jit.script (fall back to torch.jit.trace only if scripting fails), then torch.jit.freeze (optimize_for_inference also accepted; the test models use only Linear/BatchNorm1d/Dropout, since a saved optimize_for_inference artifact of a Conv model fails to reload on CPU in torch 2.13), torch.jit.save to path; restore the model's mode; return the exported module."""
    with _inference_mode_of(model):
        exported = torch.jit.freeze(_to_torchscript(model, example).eval())
    with open(path, "wb") as handle:
        torch.jit.save(exported, handle)
    return exported
