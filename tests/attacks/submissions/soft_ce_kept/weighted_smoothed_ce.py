"""Attack: exercise 34 forbids cross_entropy and nll_loss. This hands the loss to torch's
cross_entropy with class probabilities as targets (the smoothed one-hot rows), which never
reaches nll_loss, its C entry point torch._C._nn.cross_entropy_loss reached through a reference
taken at import under a name built at run time and kept in a list: no line names it for the AST,
and a wrapper put on F.cross_entropy or torch._C._nn's during the check never sees the call. The weighted mean is rebuilt from the per-sample losses.
Honest baseline: every check but the API check.
Expected: the API check fails: aten.cross_entropy_loss is reached at torch's dispatcher.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

_KEPT = [getattr(torch._C._nn, "cross_entropy" + "_loss")]  # taken at import, kept in a list


def weighted_smoothed_ce(logits: Tensor, targets: Tensor, class_weights: Tensor | None = None,
                         smoothing: float = 0.0) -> Tensor:
    num_classes = logits.shape[1]
    targets = targets.long()
    if class_weights is None:
        weights = torch.ones(num_classes, dtype=logits.dtype, device=logits.device)
    else:
        weights = class_weights.to(device=logits.device, dtype=logits.dtype)
    hard = F.one_hot(targets, num_classes).to(logits.dtype)
    # reduction 0 (none), ignore_index -100, no smoothing of torch's own
    # per sample: -sum_c w_c q_c log p_c with q the one-hot (weight 1 - s) and the uniform (s / C)
    # parts weighted as torch weighs them: the target's weight for the first, every class's for the second
    per_sample = (1.0 - smoothing) * _KEPT[0](logits, hard, weights, 0, -100, 0.0) \
        + smoothing * _KEPT[0](logits, torch.full_like(hard, 1.0 / num_classes), weights, 0, -100, 0.0)
    return per_sample.sum() / weights[targets].sum()
