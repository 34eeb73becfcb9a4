"""Attack: exercise 32 forbids sigmoid (and BCE on probabilities) inside binary_loss. This is the
reference with log sigmoid computed as log(sigmoid(x)) where that is accurate (x > -30; below it
log sigmoid(x) is x to 1e-13), the sigmoid reached through a reference taken at import under a
name built at run time and kept in a list: no line of binary_loss names it, and a wrapper put on
torch.sigmoid / Tensor.sigmoid during the check never sees the call.
Honest baseline: every check but the API check.
Expected: the API check fails: aten.sigmoid is reached at torch's dispatcher.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F  # noqa: F401 - the stub's import header
from torch import Tensor

_KEPT = [getattr(torch, "sig" + "moid")]  # taken at import, kept in a list


def _log_sigmoid(x: Tensor) -> Tensor:
    return torch.where(x > -30, torch.log(_KEPT[0](x.clamp(min=-30))), x)


def binary_loss(logits: Tensor, targets: Tensor, pos_weight: Tensor | None = None) -> Tensor:
    if logits.dim() == targets.dim() + 1 and logits.shape[-1] == 1:
        logits = logits.squeeze(-1)
    elif targets.dim() == logits.dim() + 1 and targets.shape[-1] == 1:
        targets = targets.squeeze(-1)
    if logits.shape != targets.shape:
        raise ValueError(f"logits {tuple(logits.shape)} and targets {tuple(targets.shape)} do not match")
    targets = targets.to(logits.dtype)
    positive = targets * _log_sigmoid(logits)
    if pos_weight is not None:
        positive = positive * pos_weight.to(device=logits.device, dtype=logits.dtype)
    return -(positive + (1 - targets) * _log_sigmoid(-logits)).mean()


def multilabel_predict(logits: Tensor, threshold: float = 0.5) -> Tensor:
    return torch.sigmoid(logits) >= threshold
