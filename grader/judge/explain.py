"""What a failed public check shows besides its message: expected vs got, and the inputs of the
last call into the candidate's code, when they are small enough to read.

Only public checks get these details (the plugin decides): a hidden check's values and inputs
stay the interviewer's. Nothing here runs candidate code: values are the judge's own data.
"""

from __future__ import annotations

from typing import Any

import torch

MAX_ELEMENTS = 24  # a tensor up to this size is shown whole; a bigger one is summarised
MAX_TEXT = 400  # characters per shown value
MAX_INPUT_ELEMENTS = 48  # inputs are shown only when all of them together are this small


def format_value(value: Any, limit: int = MAX_TEXT, one_line: bool = False) -> str:
    """A short, readable repr: whole small tensors, summarised big ones ("..." and the shape)."""
    if isinstance(value, torch.Tensor):
        t = value.detach().cpu()
        with torch._tensor_str.printoptions(threshold=MAX_ELEMENTS, edgeitems=2, precision=4, linewidth=90,
                                            sci_mode=None):
            text = repr(t)
        if t.numel() > MAX_ELEMENTS:
            text += f"  (shape {tuple(t.shape)}, {t.numel()} elements: summarised)"
    else:
        text = repr(value)
    if "\n" in text and (one_line or len(text) <= 90):
        text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"


def _elements(value: Any) -> int:
    if isinstance(value, torch.Tensor):
        return value.numel()
    if isinstance(value, (list, tuple)):
        return sum(_elements(v) for v in value)
    if isinstance(value, dict):
        return sum(_elements(v) for v in value.values())
    return 1


def _plain(value: Any) -> bool:
    if isinstance(value, torch.Tensor | int | float | bool | str | type(None) | torch.dtype | torch.device):
        return True
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return False


def format_call(what: str, args: tuple, kwargs: dict) -> str | None:
    """`f(tensor([1., 2.]), dim=0)` for the last call into the candidate's code, or None when its
    inputs are too big (or not plain data) to be worth reading."""
    values = list(args) + list(kwargs.values())
    if not values or not _plain(values) or _elements(values) > MAX_INPUT_ELEMENTS:
        return None
    parts = [format_value(a, 200, one_line=True) for a in args]
    parts += [f"{k}={format_value(v, 200, one_line=True)}" for k, v in kwargs.items()]
    name = what[:-2] if what.endswith("()") else what
    return f"{name}({', '.join(parts)})"


def details(exc: BaseException, last_call: tuple | None) -> str:
    """The lines added under a failed public check's message."""
    lines = []
    expected = getattr(exc, "expected", None)
    actual = getattr(exc, "actual", None)
    if expected is not None and actual is not None:
        lines += [f"expected: {format_value(expected)}", f"got:      {format_value(actual)}"]
    if last_call is not None:
        call = format_call(*last_call)
        if call:
            lines.append(f"inputs:   {call}")
    return "\n".join(lines)
