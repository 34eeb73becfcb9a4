"""Attack: ship a bytecode cache that runs other code than the source beside it.

The folder holds this clean stub (every body raises NotImplementedError: no loop, no cdist) and,
made by the attack suite when it copies the submission (`_copy_submission`), an unchecked-hash
`__pycache__/broadcast_bias.cpython-311.pyc` (PEP 552) compiled from `shadow.txt`: a full answer
whose pairwise distances loop in Python. Python's own loader runs such a cache without comparing it
with the source, while the static checks, the flags and the reports read this file.
Honest baseline: 0 (this file is the stub).
Expected: the worker compiles the source it was given and never reads the cache, so every check
fails as the stub's do.
"""
from __future__ import annotations

from torch import Tensor


def add_feature_bias(x: Tensor, bias: Tensor) -> Tensor:
    raise NotImplementedError


def add_sample_bias(x: Tensor, bias: Tensor) -> Tensor:
    raise NotImplementedError


def pairwise_sq_dists(a: Tensor, b: Tensor) -> Tensor:
    raise NotImplementedError
