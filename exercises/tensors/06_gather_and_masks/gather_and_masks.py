from __future__ import annotations

from torch import Tensor


def pick_target_scores(logits: Tensor, targets: Tensor) -> Tensor:
    """Return the (N,) scores out[i] = logits[i, targets[i]] for logits of shape (N, C) and int64 targets of shape (N,)."""
    raise NotImplementedError


def zero_above(x: Tensor, threshold: float) -> Tensor:
    """Return a new tensor equal to x with every entry greater than threshold set to 0. The tensor x is left as it was."""
    raise NotImplementedError


def last_channel(x: Tensor) -> Tensor:
    """Return the last channel of x, of shape x.shape[:-1], as a view sharing storage with x, for any rank."""
    raise NotImplementedError


def topk_mask(scores: Tensor, k: int) -> Tensor:
    """Return a bool mask of the shape of scores (N, C) that is True at exactly k entries of each row, its k largest."""
    raise NotImplementedError
