"""Attack: exercise 34 forbids cross_entropy and nll_loss. This is the reference with its
weighted-mean term handed to torch's nll_loss (whose weighted mean divides by the targets'
weights, as asked), its C entry point torch._C._nn.nll_loss_nd reached through a reference taken
at import under a name built at run time and kept in a list: no line names it for the AST, and a
wrapper put on F.nll_loss or torch._C._nn.nll_loss_nd during the check never sees the call.
Honest baseline: every check but the API check.
Expected: the API check fails: aten.nll_loss_forward is reached at torch's dispatcher.
"""
from __future__ import annotations

import torch
from torch import Tensor

_KEPT = [getattr(torch._C._nn, "nll_loss" + "_nd")]  # taken at import, kept in a list


def weighted_smoothed_ce(logits: Tensor, targets: Tensor, class_weights: Tensor | None = None,
                         smoothing: float = 0.0) -> Tensor:
    num_classes = logits.shape[1]
    log_probs = torch.log_softmax(logits, dim=1)
    targets = targets.long()
    if class_weights is None:
        weights = torch.ones(num_classes, dtype=logits.dtype, device=logits.device)
    else:
        weights = class_weights.to(device=logits.device, dtype=logits.dtype)
    target_weights = weights[targets]
    smooth = -(log_probs * weights).sum(dim=1)
    # reduction 1 (mean), ignore_index -100
    return (1.0 - smoothing) * _KEPT[0](log_probs, targets, weights, 1, -100) \
        + (smoothing / num_classes) * smooth.sum() / target_weights.sum()
